"""Inputs and checks shared by the fp8 tests (test_fp8.py in the interpreter, test_fp8_gpu.py on the
GPU); no MLIR, so the GPU machine imports it too."""

from __future__ import annotations

import numpy as np

from phobos import fp8

# Values every run includes: NaN, the infinities, the e4m3 tie above 448 and values beyond it, the
# e5m2 tie above 57344, the halfway points to the smallest subnormals (both formats), an f32
# subnormal, -0, ties between normal neighbours (1.0625 in e4m3, 1.125 in e5m2) and an e4m3
# subnormal tie.
SPECIALS = [np.nan, np.inf, -np.inf, 464.0, 480.0, -449.0, 61440.0, 1e6, 2.0**-10, 2.0**-17, 1e-40, -0.0]
SPECIALS += [1.0625, -1.125, 1.1875, 0.8125 * 2.0**-6, 2.5 * 2.0**-9]


def special_f32(n: int, rng: np.random.Generator) -> np.ndarray:
    """Random f32 values across both formats' ranges and beyond (2^-18 to 2^18), SPECIALS first."""
    x = np.ldexp(rng.uniform(-2, 2, n), rng.integers(-18, 18, n)).astype(np.float32)
    k = min(n, len(SPECIALS))
    x[:k] = SPECIALS[:k]
    return x


def assert_codes(got: np.ndarray, x: np.ndarray, name: str) -> None:
    """`got` holds the codes of `x` converted to `name` bit for bit; where x is NaN, any NaN code."""
    got = np.asarray(got).view(np.uint8)
    want = fp8.encode(x, name)
    nan = np.isnan(np.asarray(x, dtype=np.float64))
    bad = np.flatnonzero((got != want) & ~nan)
    if bad.size:
        i = bad[0]
        raise AssertionError(
            f"{name}: {bad.size} codes differ, first at {i}: {got[i]:#04x} for {x[i]!r}, want {want[i]:#04x}"
        )
    assert np.isnan(fp8.decode(got[nan], name)).all(), f"{name}: a NaN input gave a number"
