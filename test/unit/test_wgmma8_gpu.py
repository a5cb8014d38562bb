"""GPU tests of 8-bit and tf32 operands on sm_90a's wgmma (pytest -m gpu; skipped without a GPU
or the ahead-of-time folders, which bench/aot_build.py builds: wgmma8_jobs).

bench/kernels/wgmma_i8.ph (i8 into i32, .s32.s8.s8), wgmma_fp8.ph (e4m3 into f32) and
wgmma_fp8_scaled.ph (e4m3, C = f16(scale * acc)) take dot_t with B as [N, K]. Shapes whose rows
TMA reads (K a multiple of 16) must run wgmma; the others run the generic mma.sync variant.
Fresh random data, ragged M, N and K, poisoned outputs between guard zones that must come back
untouched, inputs unchanged. i8 is exact against int64 numpy. fp8 is checked against the float64
sum of the decoded values: within K f32 roundings (2^-24 each) of the sum of |products| on
mma.sync; on wgmma within 2^-12 per k32 step of one promoted K tile (four steps) more, because
Hopper's fp8 wgmma keeps about 13 bits in its internal accumulation (measured: 2^-13 for one
step, 2^-10.7 for four); each dot's partial is promoted into f32, so that error does not grow
with K (at K = 1040 the error is 1.9x the f32 bound). wgmma_fp8_fast.ph (@fastmath) keeps the
sums in the tensor cores for the whole K: within 2^-12 per k32 step of all K. The test prints
the error against the f32 bound.
wgmma_tf32.ph (f32 operands as tf32, dot_t) is checked against the float64 product within the
truncation of each operand to tf32 (2^-10 relative each) plus K f32 roundings.
"""

from __future__ import annotations

import numpy as np
import pytest
from aot_folders import aot

pytestmark = pytest.mark.gpu

RNG = np.random.default_rng()
GUARD = 256  # elements each side: every view stays 16-byte aligned (TMA needs it)
# (source, operand dtype, output dtype, defines) of each variant built for sm_90a
VARIANTS = [
    ("wgmma_i8", "i8", "i32", {"TN": 128}),
    ("wgmma_i8", "i8", "i32", {"TN": 256}),
    ("wgmma_u8", "u8", "i32", {"TN": 128}),
    ("wgmma_fp8", "f8e4m3", "f32", {"TN": 128}),
    ("wgmma_fp8_scaled", "f8e4m3", "f16", {"TN": 128}),
    ("wgmma_fp8_fast", "f8e4m3", "f32", {"TN": 128}),
]
TF32_VARIANTS = [("wgmma_tf32", {"TN": 128}), ("wgmma_tf32", {"TN": 256})]
SHAPES = [(1000, 1008, 1040), (17, 64, 16), (255, 272, 144), (256, 512, 128), (129, 200, 384)]
RAGGED_K = [(100, 70, 97), (255, 257, 129), (1, 1, 1)]  # rows TMA cannot read: mma.sync
POISON = {"i32": -0x5A5A5A5A, "f32": np.nan, "f16": np.nan}
SCALE = 2.0**-4


def _codes(shape, fmt: str) -> np.ndarray:
    """fp8 codes of random sign, a narrow exponent range (|x| in [2^-3, 15]: the scaled f16
    result stays finite) and random mantissa."""
    sign = RNG.integers(0, 2, shape).astype(np.uint8) << 7
    if fmt == "f8e4m3":  # bias 7, 3 mantissa bits
        return sign | (RNG.integers(4, 11, shape).astype(np.uint8) << 3) | RNG.integers(0, 8, shape).astype(np.uint8)
    return sign | (RNG.integers(12, 19, shape).astype(np.uint8) << 2) | RNG.integers(0, 4, shape).astype(np.uint8)


class Flat:
    """`values` on the device between GUARD random elements each side; 8-bit codes travel as
    uint8 and are viewed as `torch_dtype`."""

    def __init__(self, torch, values: np.ndarray, torch_dtype=None):
        self.shape, self.n = values.shape, values.size
        bits = values.reshape(-1)
        guards = [RNG.integers(-100, 100, GUARD).astype(bits.dtype) for _ in range(2)]
        self.host = np.concatenate([guards[0], bits, guards[1]])
        self.flat = torch.from_numpy(self.host.copy()).cuda()
        view = self.flat[GUARD : GUARD + self.n]
        self.view = (view.view(torch_dtype) if torch_dtype is not None else view).view(*self.shape)

    def result(self) -> np.ndarray:
        got = self.flat.cpu().numpy()
        assert np.array_equal(got[:GUARD], self.host[:GUARD], equal_nan=got.dtype.kind == "f"), "guard before"
        assert np.array_equal(got[-GUARD:], self.host[-GUARD:], equal_nan=got.dtype.kind == "f"), "guard after"
        return got[GUARD:-GUARD].reshape(self.shape)


def _instruction(kernel) -> dict:
    return kernel._last.contract.get("shared_memory", {}).get("tensor_cores", {})


def _operands(torch, operand: str, m: int, n: int, k: int):
    if operand in ("i8", "u8"):
        low, high, dtype = (-128, 128, np.int8) if operand == "i8" else (0, 256, np.uint8)
        a = RNG.integers(low, high, (m, k)).astype(dtype)
        b = RNG.integers(low, high, (n, k)).astype(dtype)
        return a, b, Flat(torch, a), Flat(torch, b)
    from phobos import fp8

    dtype = torch.float8_e4m3fn if operand == "f8e4m3" else torch.float8_e5m2
    codes = [_codes(s, operand) for s in ((m, k), (n, k))]
    a, b = (fp8.decode(c, operand).astype(np.float64) for c in codes)
    return a, b, Flat(torch, codes[0], dtype), Flat(torch, codes[1], dtype)


def _run(name, operand, out, defines, shape):
    torch = pytest.importorskip("torch")
    m, n, k = shape
    kernel = aot(name, defines, chip="sm_90a")
    a, b, fa, fb = _operands(torch, operand, m, n, k)
    out_np = {"i32": np.int32, "f32": np.float32, "f16": np.float16}[out]
    fc = Flat(torch, np.full((m, n), POISON[out], out_np))
    scalars = (SCALE,) if name == "wgmma_fp8_scaled" else ()
    kernel(fa.view, fb.view, fc.view, *scalars)
    torch.cuda.synchronize()
    a_host, b_host = fa.host.copy(), fb.host.copy()
    fa.result(), fb.result()  # inputs and their guards unchanged
    assert np.array_equal(fa.host, a_host) and np.array_equal(fb.host, b_host)
    return kernel, a, b, fc.result()


@pytest.mark.parametrize("name,operand,out,defines", VARIANTS, ids=str)
@pytest.mark.parametrize("shape", SHAPES + RAGGED_K, ids=str)
def test_8bit_gemm_on_wgmma(name, operand, out, defines, shape):
    kernel, a, b, c = _run(name, operand, out, defines, shape)
    m, n, k = shape
    used = _instruction(kernel)
    wgmma = k % 16 == 0
    assert used["instruction"] == ("wgmma" if wgmma else "mma.sync"), used
    if operand in ("i8", "u8"):
        want = a.astype(np.int64) @ b.astype(np.int64).T
        np.testing.assert_array_equal(c, want.astype(np.int32))
        if wgmma:
            t = "u8" if operand == "u8" else "s8"
            assert used["dots"][0]["instruction"].endswith(f".s32.{t}.{t}"), used
        return
    want = a @ b.T
    magnitude = np.abs(a) @ np.abs(b).T
    f32_bound = k * 2.0**-24 * magnitude
    # fp8 wgmma keeps about 13 bits in its own sums: measured on the H100, up to 2^-13 of the
    # magnitude for one k32 step and 2^-10.7 for four. Each dot (a K tile of 128: four steps) is
    # promoted into f32, so that error is per tile, and the tiles' sums are f32 (f32_bound)
    # (under @fastmath, wgmma_fp8_fast, nothing is promoted: the error is every step's)
    steps = -(-k // 32) if name == "wgmma_fp8_fast" else min(-(-k // 32), 4)
    bound = steps * 2.0**-12 * magnitude + f32_bound if wgmma else f32_bound
    got = c.astype(np.float64)
    if name == "wgmma_fp8_scaled":
        want, bound, f32_bound = SCALE * want, SCALE * bound, SCALE * f32_bound
        bound = bound + np.maximum(np.abs(want) * 2.0**-11, 2.0**-25)  # f16's rounding
    err = np.abs(got - want)
    print(f"{name} {shape}: max error / f32 bound = {np.max(err / np.maximum(f32_bound, 1e-300)):.3g}")
    assert np.all(np.isfinite(got)) and np.all(err <= bound), np.max(err - bound)


def test_i8_sums_pass_i16_on_wgmma():
    """Every product -128 x -128: a K = 384 sum of 6 291 456 (past i16, inside i32)."""
    torch = pytest.importorskip("torch")
    kernel = aot("wgmma_i8", {"TN": 128}, chip="sm_90a")
    m, n, k = 129, 200, 384
    a, b = np.full((m, k), -128, np.int8), np.full((n, k), -128, np.int8)
    fa, fb, fc = Flat(torch, a), Flat(torch, b), Flat(torch, np.zeros((m, n), np.int32))
    kernel(fa.view, fb.view, fc.view)
    assert _instruction(kernel)["instruction"] == "wgmma"
    assert (fc.result() == 128 * 128 * k).all()


@pytest.mark.parametrize("name,defines", TF32_VARIANTS, ids=str)
@pytest.mark.parametrize("shape", SHAPES + RAGGED_K, ids=str)
def test_tf32_gemm_on_wgmma(name, defines, shape):
    """f32 operands as tf32: wgmma m64nNk8 where the rows are 16-byte pitched (K a multiple of
    4), mma.sync m16n8k8 otherwise; both within the tf32 bound of the float64 product."""
    torch = pytest.importorskip("torch")
    m, n, k = shape
    kernel = aot(name, defines, chip="sm_90a")
    a = RNG.standard_normal((m, k)).astype(np.float32)
    b = RNG.standard_normal((n, k)).astype(np.float32)
    fa, fb = Flat(torch, a), Flat(torch, b)
    fc = Flat(torch, np.full((m, n), np.nan, np.float32))
    kernel(fa.view, fb.view, fc.view)
    torch.cuda.synchronize()
    assert _instruction(kernel)["instruction"] == ("wgmma" if k % 4 == 0 else "mma.sync")
    assert np.array_equal(fa.result(), a) and np.array_equal(fb.result(), b)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    want, magnitude = a64 @ b64.T, np.abs(a64) @ np.abs(b64).T
    bound = (2 * 2.0**-10 + 2.0**-20 + (k + 8) * 2.0**-24) * magnitude
    got = fc.result().astype(np.float64)
    err = np.abs(got - want)
    print(f"{name} {defines} {shape}: max error / |A||B| = {np.max(err / np.maximum(magnitude, 1e-300)):.3g}")
    assert np.all(np.isfinite(got)) and np.all(err <= bound), np.max(err - bound)
