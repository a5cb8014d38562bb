"""GPU tests of 8-bit operands on the tensor cores (pytest -m gpu; skipped without a GPU or the
ahead-of-time folders).

bench/kernels/tc_i8.ph (dot: A by ldmatrix, B stored [k][n] by byte loads) and tc_i8_nt.ph
(dot_t: both by ldmatrix) run mma.sync m16n8k32 .s32.s8.s8.s32. Built by bench/aot_build.py
(mma8_jobs). Fresh random data over the whole range of i8, ragged M, N and K (and whole
tiles), poisoned outputs between guard zones that must come back untouched; the results are
exact against an integer numpy reference (sums far past i16). tc_fp8.ph (e4m3 into f32,
.f32.e4m3.e4m3, built with the features +ptx84: aot_build.FEATURES) for sm_90 and sm_90a's
mma.sync: within K f32 roundings (2^-24 each) of the sum of |products| from the float64 sum
of the decoded values. sm_90a's wgmma: test_wgmma8_gpu.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from aot_folders import aot

pytestmark = pytest.mark.gpu

RNG = np.random.default_rng()
GUARD = 256  # bytes' worth of elements each side (keeps every view 16-byte aligned)
SHAPES = [(1, 1, 1), (17, 33, 5), (128, 128, 64), (100, 70, 97), (255, 257, 129), (256, 384, 320)]


def _instruction(kernel) -> dict:
    return kernel._last.contract.get("shared_memory", {}).get("tensor_cores", {})


class Flat:
    """`values` (a numpy array) on the device between GUARD random elements each side."""

    def __init__(self, torch, values: np.ndarray):
        self.shape, self.n = values.shape, values.size
        bits = values.reshape(-1)
        guards = [RNG.integers(-100, 100, GUARD).astype(bits.dtype) for _ in range(2)]
        self.host = np.concatenate([guards[0], bits, guards[1]])
        self.flat = torch.from_numpy(self.host.copy()).cuda()
        self.view = self.flat[GUARD : GUARD + self.n].view(*self.shape)

    def result(self) -> np.ndarray:
        got = self.flat.cpu().numpy()
        assert np.array_equal(got[:GUARD], self.host[:GUARD]), "guard zone before the tensor written"
        assert np.array_equal(got[-GUARD:], self.host[-GUARD:]), "guard zone after the tensor written"
        return got[GUARD:-GUARD].reshape(self.shape)


@pytest.mark.parametrize("source", ["tc_i8", "tc_i8_nt", "tc_u8_nt"])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_i8_dot_is_exact(source, shape):
    torch = pytest.importorskip("torch")
    m, n, k = shape
    kernel = aot(source)
    low, high, dtype, t = (0, 256, np.uint8, "u8") if source == "tc_u8_nt" else (-128, 128, np.int8, "s8")
    a = RNG.integers(low, high, (m, k)).astype(dtype)
    b = RNG.integers(low, high, (k, n)).astype(dtype)
    b_arg = np.ascontiguousarray(b.T) if source != "tc_i8" else b
    fa, fb = Flat(torch, a), Flat(torch, b_arg)
    fc = Flat(torch, np.full((m, n), -0x5A5A5A5A, np.int32))  # poison
    kernel(fa.view, fb.view, fc.view)
    want = a.astype(np.int64) @ b.astype(np.int64)
    np.testing.assert_array_equal(fc.result(), want.astype(np.int32))
    assert fa.result().tobytes() == a.tobytes() and fb.result().tobytes() == b_arg.tobytes()
    used = _instruction(kernel)
    assert used["instruction"] == "mma.sync"
    assert used["dots"][0]["instruction"] == f"mma.sync.aligned.m16n8k32.row.col.s32.{t}.{t}.s32"


def test_i8_sums_pass_i16():
    """Every product -128 x -128: a K = 320 sum of 5 242 880 (past i16, inside i32)."""
    torch = pytest.importorskip("torch")
    kernel = aot("tc_i8")
    m, n, k = 130, 136, 320
    a, b = np.full((m, k), -128, np.int8), np.full((k, n), -128, np.int8)
    fa, fb, fc = Flat(torch, a), Flat(torch, b), Flat(torch, np.zeros((m, n), np.int32))
    kernel(fa.view, fb.view, fc.view)
    assert (fc.result() == 128 * 128 * k).all()


@pytest.mark.parametrize("chip", [None, "sm_90a"])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_fp8_dot_within_f32_sums(chip, shape):
    torch = pytest.importorskip("torch")
    from phobos import fp8

    m, n, k = shape
    kernel = aot("tc_fp8", chip=chip)
    codes = [RNG.integers(0, 256, s).astype(np.uint8) for s in ((m, k), (n, k))]
    for c in codes:  # NaN codes would poison whole rows
        c[(c & 0x7F) == 0x7F] = 0
    a, b = (fp8.decode(c, "f8e4m3").astype(np.float64) for c in codes)
    fa, fb = (Flat(torch, c) for c in codes)
    e4m3 = torch.float8_e4m3fn
    fc = Flat(torch, np.full((m, n), np.nan, np.float32))
    kernel(fa.view.view(e4m3), fb.view.view(e4m3), fc.view)
    want = a @ b.T
    bound = k * 2.0**-24 * (np.abs(a) @ np.abs(b).T)
    got = fc.result().astype(np.float64)
    assert np.all(np.abs(got - want) <= bound), np.max(np.abs(got - want) - bound)
    assert _instruction(kernel)["instruction"] == "mma.sync"
