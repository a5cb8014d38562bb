"""8-bit dots (i8 into i32, fp8 into f32): the interpreter against numpy, and the compiler's
decisions (the mma.sync m16n8k32 instruction, ldmatrix or byte loads, the refusals).

The interpreter is the reference the GPU tests compare with: an i8 dot is exact (int64 sums
wrapped to i32, as mma.sync .s32 wraps); an fp8 dot multiplies the decoded values exactly in
f32 and sums them in f32. The kernels are bench/kernels/tc_i8*.ph and tc_fp8.ph, which
test_tensorcore_8bit_gpu.py runs on the GPU.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import phobos

ROOT = Path(__file__).resolve().parents[2]
RNG = np.random.default_rng()


@pytest.mark.parametrize("source", ["tc_i8", "tc_i8_nt"])
@pytest.mark.parametrize("shape", [(130, 129, 97), (128, 128, 64)], ids=str)
def test_i8_dot_is_exact_in_the_interpreter(interpret_mode, source, shape):
    m, n, k = shape
    kernel = phobos.compile(ROOT / "bench" / "kernels" / f"{source}.ph")
    a = RNG.integers(-128, 128, (m, k)).astype(np.int8)
    b = RNG.integers(-128, 128, (k, n)).astype(np.int8)
    c = np.full((m, n), -1, np.int32)
    kernel(a, np.ascontiguousarray(b.T) if source == "tc_i8_nt" else b, c)
    want = a.astype(np.int64) @ b.astype(np.int64)
    assert np.abs(want).max() > 2**15, "the sums must pass i16"
    np.testing.assert_array_equal(c, want.astype(np.int32))


def test_fp8_dot_in_the_interpreter(interpret_mode):
    """Exact products of the decoded values, summed in f32: within K f32 roundings (2^-24 each,
    relative) of the sum of |products| from the float64 sum of the same decoded values."""
    from phobos import fp8

    ml_dtypes = pytest.importorskip("ml_dtypes")
    m, n, k = 130, 129, 97
    kernel = phobos.compile(ROOT / "bench" / "kernels" / "tc_fp8.ph")
    a_codes = RNG.integers(0, 256, (m, k)).astype(np.uint8)
    b_codes = RNG.integers(0, 256, (n, k)).astype(np.uint8)
    for codes in (a_codes, b_codes):  # NaN codes (0x7f, 0xff) would poison whole rows
        codes[(codes & 0x7F) == 0x7F] = 0
    a, b = (fp8.decode(x, "f8e4m3").astype(np.float64) for x in (a_codes, b_codes))
    c = np.full((m, n), np.nan, np.float32)
    e4m3 = ml_dtypes.float8_e4m3fn
    kernel(a_codes.view(e4m3), b_codes.view(e4m3), c)
    want = a @ b.T
    bound = k * 2.0**-24 * (np.abs(a) @ np.abs(b).T)
    assert np.all(np.abs(c - want) <= bound), np.max(np.abs(c - want) - bound)
    assert np.abs(want).max() > 1e4  # the values span the format (448 at most)
