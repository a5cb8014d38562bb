"""The kernels of test_stdlib_more_gpu.py (bench/kernels/stdnn_*.ph) in the interpreter, with that
test's inputs, references and bounds on host buffers with guard zones, so that the GPU test's
reference and bound code runs on every CI run (small ragged shapes; the GPU test has the large
ones). Also: the test's NumPy Philox against Random123's known answers, and its bounds against
deliberately wrong results (a check that passes everything checks nothing)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import test_stdlib_more_gpu as g

ROOT = Path(__file__).resolve().parents[2]
KERNELS = ROOT / "bench" / "kernels"

# (rows, columns): ragged against every kernel's tiles; Q8_0 in whole blocks
SHAPES = {"q8": [(3, 96), (2, 32)], "": [(3, 301), (1, 1)]}


def _shapes(op):
    return SHAPES["q8" if op.startswith("q8") else ""]


@pytest.fixture
def interpret(monkeypatch, tmp_path):
    pytest.importorskip("mlir")
    import phobos

    monkeypatch.setenv("PHOBOS_INTERPRET", "1")
    monkeypatch.setenv("PHOBOS_CACHE_DIR", str(tmp_path))
    return lambda op, t: phobos.compile(KERNELS / f"{g.kernel_name(op, t)}.ph")


def _spoil(buf, k: int) -> None:
    """Make the k-th element of a host output's region wrong: 1% off (a float), or 1 more."""
    flat, idx = buf.flat, np.flatnonzero(buf.region)[k]
    if flat.dtype.kind == "f":
        flat[idx] += flat.dtype.type(max(abs(float(flat[idx])), 1.0) * 0.01)
    else:
        flat[idx] = flat.dtype.type(int(flat[idx]) + 1 if flat[idx] < 127 else 0)


@pytest.mark.parametrize("op,t", g.CASES)
def test_kernel_in_the_interpreter(interpret, op, t):
    kernel = interpret(op, t)
    for i, shape in enumerate(_shapes(op)):
        c = g.case(op, t, shape, framework="numpy", dense=i == 0)
        c.launch(kernel)
        c.check()
        for out in c.outputs:  # every output is checked, at a bound tighter than 1%
            good = out.flat.copy()
            _spoil(out, int(g.RNG.integers(0, out.region.sum())))
            with pytest.raises(AssertionError):
                c.check()
            out.flat[...] = good


def test_every_case_has_a_kernel_and_an_aot_job(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    import aot_build

    names = {g.kernel_name(op, t) for op, t in g.CASES}
    assert names == {p.stem for p in KERNELS.glob("stdnn_*.ph")}
    assert names == {job[0] for job in aot_build.stdnn_jobs()}


def test_reference_philox_matches_random123_known_answers():
    mask = 0xFFFFFFFF
    answers = [
        ([0, 0, 0, 0], (0, 0), [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]),
        ([mask] * 4, (mask, mask), [0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD]),
        (
            [0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344],
            (0xA4093822, 0x299F31D0),
            [0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1],
        ),
    ]
    for counters, key, want in answers:
        assert [int(w) for w in g.philox4x32_10(counters, key)] == want


def test_reference_philox_words_take_the_seed_and_offsets_as_the_library_does():
    """philox_words: counter = the offset's low 32 bits (an i32 offset sign-extended first), key
    = the seed's low and high halves (a negative seed in two's complement)."""
    seed, offsets = -5, np.array([-1, 7, 2**40 + 7], np.int64)
    w0, w1 = g.philox_words(seed, offsets)
    key = (2**32 - 5, 2**32 - 1)
    for i, counter in enumerate([0xFFFFFFFF, 7, 7]):
        want = g.philox4x32_10([counter, 0, 0, 0], key)
        assert (int(w0[i]), int(w1[i])) == (int(want[0]), int(want[1]))
