"""Specialisation key text form."""

import pytest

from phobos.contract.specialization import SpecKey, TensorFacts, divisibility_class


def test_round_trip():
    text = "X=a16.e16x4.s16;Y=a1.e1.s;n=4"
    key = SpecKey.from_text(text)
    assert key.params["X"] == TensorFacts(16, (16, 4), (16,))
    assert key.params["n"] == 4
    assert key.to_text() == text


@pytest.mark.parametrize("value, cls", [(0, 16), (32, 16), (12, 4), (6, 1), (1, 1), (-8, 4)])
def test_divisibility_class(value, cls):
    assert divisibility_class(value) == cls


@pytest.mark.parametrize("bad", ["X", "X=a16.e16", "X=a8.e16.s", "X=a16.e3.s", "X=a16.e16x16.s", "n=3"])
def test_malformed_keys_are_rejected(bad):
    with pytest.raises(ValueError):
        SpecKey.from_text(bad)
