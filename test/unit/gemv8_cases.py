"""The decode GEMV kernels with 8-bit weights (bench/kernels/gemv_i8.ph, gemv_fp8.ph, gemv_q8_0.ph,
gemv_q8_0_rows.ph, gemv_tc_i8.ph;
issue 25, item 5): how each is launched, the float64 references and error bounds, the cases the
tests run. Shared by test_gemv8_interp.py (the interpreter, in CI), test_gemv8_gpu.py (the GPU),
bench/bench_gemv8.py and bench/aot_build.py (gemv8_jobs). The f16 kernels are gemv_cases.py's.

Y[T, N] from X f16 [T, K] and 8-bit weights [N, K], f32 accumulation, f16 out:

  i8    y[t, n] = s[n] * sum_k x[t, k] w[n, k]          w i8, s f32 [N] (per output row)
  fp8   the same with w f8e4m3 (passed as its uint8 codes to the interpreter, float8_e4m3fn on torch)
  q8_0  y[t, n] = sum_b d[n, b] * sum_{k in b} x[t, k] q[n, k]   q i8, d f32 [N, K/32], K % 32 == 0
  q8_0r the same sum, BR rows of W at once and one token per CTA (gemv_q8_0_rows.ph)
  i8tc  i8's sum on the tensor cores, 16 tokens per CTA (gemv_tc_i8.ph: f16(W) widened in registers)
  fp8tc fp8's the same way (gemv_tc_fp8.ph)
  q8tc  q8_0's sum the same way, a dot per block scaled by its d (gemv_tc_q8_0.ph; d passed as [K/32, N])

How the arguments are passed (views of the [T, K], [N, K], [N] or [N, K/32] arrays, no copies):
i8 and fp8 take W as it is stored, [N, K], and X as [T, 1, K] (its tile broadcasts against W's,
gemv_i8.ph); q8_0 takes X as [T, K/32, 32], q as [N, K/32, 32] and d as [N, K/32, 1] (tiles have
rank 3 at most: the block is a dimension, gemv_q8_0.ph); q8_0r the same, and Y as [T, N, 1] (y[:, :, None]);
i8tc and fp8tc take every array as it is stored; q8tc too, but its scales transposed, [K/32, N]
(kernel_scales: a copy made once, as a repacking of the weights would be).
"""

from __future__ import annotations

import numpy as np
from gemv_cases import REDUCE, bound

BLOCK = 32
KERNEL = {"i8": "gemv_i8", "fp8": "gemv_fp8", "q8_0": "gemv_q8_0", "q8_0r": "gemv_q8_0_rows", "i8tc": "gemv_tc_i8",
          "fp8tc": "gemv_tc_fp8", "q8tc": "gemv_tc_q8_0", "i8tcs": "gemv_tc_split_i8",
          "fp8tcs": "gemv_tc_split_fp8"}  # fmt: skip
WDTYPE = {"i8": "i8", "fp8": "f8e4m3", "q8_0": "i8", "q8_0r": "i8", "i8tc": "i8", "fp8tc": "f8e4m3",
          "q8tc": "i8", "i8tcs": "i8", "fp8tcs": "f8e4m3"}  # fmt: skip
FP8 = ("fp8", "fp8tc", "fp8tcs")
Q8 = ("q8_0", "q8_0r", "q8tc")  # the Q8_0 families: a scale per 32-element block
# the tensor-core families: operands copied into shared memory by cp.async
STAGED = ("i8tc", "fp8tc", "q8tc", "i8tcs", "fp8tcs")
SPLIT = ("i8tcs", "fp8tcs")  # K split S ways: f32 partials P [S, T, N], then gemv_reduce_f16 (Split)
TEST_SPLITS = 3  # the splits the tests run (a ragged count: K's chunks do not divide evenly)

# (family, defines) the tests launch: each kernel's first @autotune values and a multi-token,
# multi-chunk form (T = 3 is ragged for TT = 4); for q8_0 also TT = 2 (a T = 16 candidate).
TESTED = [
    ("i8", {"TT": 1, "BN": 2, "KV": 1, "W": 256}),
    ("i8", {"TT": 4, "BN": 1, "KV": 1, "W": 128}),
    ("fp8", {"TT": 1, "BN": 2, "KV": 1, "W": 256}),
    ("fp8", {"TT": 2, "BN": 4, "KV": 1, "W": 128}),
    ("q8_0", {"TT": 1, "BR": 2, "KV": 2, "W": 256}),
    ("q8_0", {"TT": 2, "BR": 2, "KV": 2, "W": 256}),
    ("q8_0", {"TT": 4, "BR": 1, "KV": 1, "W": 128}),
    ("q8_0r", {"BR": 4, "KV": 1, "W": 128}),
    ("q8_0r", {"BR": 2, "KV": 2, "W": 256}),
    ("i8tc", {"BN": 64, "BK": 256, "W": 128, "STAGES": 4}),
    ("i8tc", {"BN": 32, "BK": 128, "W": 128, "STAGES": 3}),
    ("fp8tc", {"BN": 64, "BK": 256, "W": 128, "STAGES": 4}),
    ("q8tc", {"BN": 64, "W": 128, "STAGES": 4}),
    ("q8tc", {"BN": 32, "W": 128, "STAGES": 3}),
]
# The split families' tested configurations (test_gemv8_split.py: their launches are two kernels).
SPLIT_TESTED = [
    ("i8tcs", {"BN": 32, "BK": 256, "W": 128, "STAGES": 4}),
    ("fp8tcs", {"BN": 64, "BK": 256, "W": 128, "STAGES": 3}),
]

# (T, N, K): ragged N and K (rows not 16-byte pitched: the generic variant), 16-byte pitched rows
# (the vectorised variants); for q8_0 K is a multiple of 32 (the format), N still ragged.
GPU_SHAPES = [(1, 4097, 3001), (3, 4097, 3001), (16, 4097, 3001), (1, 4112, 3008), (16, 1040, 8192)]
Q8_GPU_SHAPES = [(1, 4097, 3008), (3, 4097, 3008), (16, 4097, 3008), (1, 4112, 4096), (16, 1040, 8192)]
INTERP_SHAPES = [(1, 37, 301), (3, 45, 2500)]
Q8_INTERP_SHAPES = [(1, 37, 320), (3, 45, 4832)]


def gpu_shapes(family: str) -> list[tuple]:
    return Q8_GPU_SHAPES if family in Q8 else GPU_SHAPES


def interp_shapes(family: str) -> list[tuple]:
    return Q8_INTERP_SHAPES if family in Q8 else INTERP_SHAPES


def pitched(n: int, k: int) -> bool:
    """Rows of W (1-byte elements) 16-byte pitched and X's (f16) too: the vectorised variants."""
    return k % 16 == 0 and n % 8 == 0


def weights(rng, family: str, n: int, k: int):
    """(w as stored: int8 quants or uint8 fp8 codes [N, K], its float64 values, scales f32: [N]
    per row, or [N, K/32] per block for q8_0), scales as quantisation makes them (small, > 0)."""
    if family in FP8:
        from phobos.fp8 import decode

        codes = rng.integers(0, 256, (n, k)).astype(np.uint8)
        codes[(codes & 0x7F) == 0x7F] = 0x3C  # no NaN codes (0x7F, 0xFF): 1.5 instead
        values = decode(codes, "f8e4m3").astype(np.float64)
        return codes, values, rng.uniform(1e-3, 2e-2, n).astype(np.float32)
    q = rng.integers(-128, 128, (n, k)).astype(np.int8)
    cols = k // BLOCK if family in Q8 else None
    scales = rng.uniform(1e-3, 2e-2, (n, cols) if cols else n).astype(np.float32)
    return q, q.astype(np.float64), scales


def kernel_scales(family: str, s):
    """The scales as `family`'s kernel takes them: q8tc's transposed, [K/32, N] (a contiguous copy)."""
    if family != "q8tc":
        return s
    return np.ascontiguousarray(s.T) if isinstance(s, np.ndarray) else s.t().contiguous()


def dequantised(family: str, wvals: np.ndarray, scales: np.ndarray) -> np.ndarray:
    """The weights the kernel multiplies by, in float64: w s[n], or q d[n, k / 32]."""
    s = scales.astype(np.float64)
    if family in Q8:
        return wvals * np.repeat(s, BLOCK, axis=1)
    return wvals * s[:, None]


def reference(x: np.ndarray, family: str, wvals, scales) -> tuple[np.ndarray, np.ndarray]:
    """(Y in float64, the size of the terms each output adds: sum_k |x| |w| s)."""
    x64 = x.astype(np.float64)
    deq = dequantised(family, wvals, scales)
    return x64 @ deq.T, np.abs(x64) @ np.abs(deq).T


def error_bound(want: np.ndarray, size: np.ndarray, k: int, splits: int = 1) -> np.ndarray:
    """gemv_cases.bound with one more rounding per term: each f16 x i8 (or x f8e4m3) product is
    exact in f32, the scale costs one rounding (i8, fp8: the row sum times s[n]; q8_0: q d before
    the fma), the f32 sums one per addition (a chain of at most K plus the reduction tree, and
    the `splits` partials' sum), then one rounding to f16."""
    return bound(want, size, k + 1 + (splits - 1))


class Split:
    """One launch of a split family, called as the unsplit kernel is (x, w, s, y): the split kernel
    writes `splits` f32 partials and gemv_reduce_f16 adds them into y. The partials' buffer is made
    once per output shape and kind, NaN-poisoned when made (a partial a split failed to write shows
    in the first launch's y), and reused, so a timed launch is the two kernels and nothing else."""

    def __init__(self, kernel, reduce, splits: int):
        self.kernel, self.reduce, self.splits = kernel, reduce, splits
        self._partials: dict = {}

    def partials(self, y):
        shape = (self.splits, y.shape[0], y.shape[1])
        key = (shape, str(getattr(y, "device", "host")))
        if key not in self._partials:
            if isinstance(y, np.ndarray):
                self._partials[key] = np.full(shape, np.nan, np.float32)
            else:
                import torch

                self._partials[key] = torch.full(shape, float("nan"), dtype=torch.float32, device=y.device)
        return self._partials[key]

    def __call__(self, x, w, s, y):
        p = self.partials(y)
        self.kernel(x, w, s, p)
        self.reduce(p, y)


def _split_last(view, parts: int, width: int):
    """A [R, parts * width] view (rows of any pitch) as [R, parts, width], sharing its memory."""
    if isinstance(view, np.ndarray):
        out = view.reshape(view.shape[0], parts, width)
        assert np.shares_memory(out, view)
        return out
    return view.unflatten(1, (parts, width))


def kernel_args(family: str, x, w, s, y) -> tuple:
    """The arguments of one launch from x [T, K], w [N, K] (i8, or fp8 codes / float8 tensor),
    s ([N] or [N, K/32]; kernel_scales for q8tc) and y [T, N] (numpy arrays or torch tensors, views
    allowed)."""
    if family in STAGED:
        return (x, w, s, y)
    if family in Q8:
        kb = x.shape[1] // BLOCK
        out = y[:, :, None] if family == "q8_0r" else y
        return (_split_last(x, kb, BLOCK), _split_last(w, kb, BLOCK), s[:, :, None], out)
    return (x[:, None, :], w, s, y)


def layouts(family: str, shape, like, splits: int = TEST_SPLITS) -> list[tuple]:
    """(kernel, args) of a launch at shape (T, N, K) on contiguous, 16-byte aligned tensors, for
    bench/aot_build.py (the benchmark's and the pitched test cases' layouts)."""
    t, n, k = shape
    wd = WDTYPE[family]
    if family == "q8tc":
        args = (like("f16", (t, k)), like(wd, (n, k)), like("f32", (k // BLOCK, n)), like("f16", (t, n)))
    elif family in Q8:
        kb = k // BLOCK
        out = like("f16", (t, n, 1)) if family == "q8_0r" else like("f16", (t, n))
        args = (like("f16", (t, kb, BLOCK)), like(wd, (n, kb, BLOCK)), like("f32", (n, kb, 1)), out)
    elif family in SPLIT:
        p = like("f32", (splits, t, n))
        args = (like("f16", (t, k)), like(wd, (n, k)), like("f32", (n,)), p)
        return [(KERNEL[family], args), (REDUCE[0], (p, like("f16", (t, n))))]
    elif family in STAGED:
        args = (like("f16", (t, k)), like(wd, (n, k)), like("f32", (n,)), like("f16", (t, n)))
    else:
        args = (like("f16", (t, 1, k)), like(wd, (n, k)), like("f32", (n,)), like("f16", (t, n)))
    return [(KERNEL[family], args)]


def skip_without_fp8(family: str) -> None:
    """Skip a GPU test of an fp8 family where torch has no float8 dtypes."""
    if family in FP8:
        import pytest

        torch = pytest.importorskip("torch")
        if not hasattr(torch, "float8_e4m3fn"):
            pytest.skip(f"torch {torch.__version__} has no float8 dtypes")


def run_case(kernel, family: str, shape, framework: str = "torch", plant: bool = False) -> None:
    """Launch one kernel on fresh random data inside guard zones (Y poisoned) and check Y against
    float64 and that no input changed. shape = (T, N, K). `plant` checks against a reference with
    one error planted (row 0's weights negated; for q8_0 also the block scales shifted by one
    block), which must fail: the bound is tight enough to see it."""
    from guarded import RNG, Guarded

    t, n, k = shape
    flat = pitched(n, k)
    wq, wvals, scales = weights(RNG, family, n, k)
    x = Guarded(framework, (t, k), dtype=np.float16, pad=0 if flat else 3, misalign=0)
    w = Guarded(framework, (n, k), dtype=wq.dtype, pad=0 if flat else 5, values=wq)
    passed = kernel_scales(family, scales)
    s = Guarded(framework, passed.shape, dtype=np.float32, pad=0 if flat else 1, values=passed)
    y = Guarded(framework, (t, n), dtype=np.float16, pad=0 if flat else 7, poison=True)
    wv = w.view
    if family in FP8 and framework == "torch":
        import torch

        wv = wv.view(torch.float8_e4m3fn)
    elif family in FP8:
        import ml_dtypes

        wv = wv.view(ml_dtypes.float8_e4m3fn)
    kernel(*kernel_args(family, x.view, wv, s.view, y.view))
    if plant:
        wvals = wvals.copy()
        wvals[0] = -wvals[0]
        if family in Q8:
            scales = np.roll(scales, 1, axis=1)
    want, size = reference(x.values, family, wvals, scales)
    splits = kernel.splits if isinstance(kernel, Split) else 1
    y.check(want, rtol=1.0, size=error_bound(want, size, k, splits))
    x.unchanged()
    w.unchanged()
    s.unchanged()
