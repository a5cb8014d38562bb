"""The decode GEMV / skinny GEMM kernels of bench/kernels/gemv_*.ph (issue 25, item 5): how each
family is launched, the float64 references and error bounds, and the cases the tests run.
Shared by test_gemv_interp.py (the interpreter, in CI), test_gemv_gpu.py (the GPU), and
bench/bench_gemv.py and bench/aot_build.py (gemv_jobs).

Y[T, N] = X[T, K] @ W[N, K]^T, f16 in, f32 accumulation, f16 out. Six families:

  cuda        gemv_f16: CUDA cores, X passed as [T, 1, K]
  cuda_wave   gemv_wave_f16: gemv_f16 with @aligned(N = BN, K = BK) and @launch(W, MINB)
  cuda_split  gemv_split_f16 (f32 partials P[S, T, N]) + gemv_reduce_f16
  tc          gemv_tc_f16: mma.sync, X as [T, K]
  tc_sync     gemv_tc_sync_f16: gemv_tc_f16 without the cp.async ring (ld.global, st.shared)
  tc_split    gemv_tc_split_f16 + gemv_reduce_f16
"""

from __future__ import annotations

import numpy as np

EPS32 = 2.0**-24  # f32 unit roundoff
U16 = 2.0**-11  # f16 unit roundoff
F16_TINY = 2.0**-24  # f16's smallest subnormal: below 2^-14 the spacing is fixed

KERNEL = {
    "cuda": "gemv_f16",
    "cuda_wave": "gemv_wave_f16",
    "cuda_split": "gemv_split_f16",
    "tc": "gemv_tc_f16",
    "tc_sync": "gemv_tc_sync_f16",
    "tc_split": "gemv_tc_split_f16",
}
REDUCE = ("gemv_reduce_f16", {"BR": 1024, "W": 256, "SB": 4})

# (family, defines) the tests launch: each family's first @autotune values, a multi-chunk and
# multi-token cuda form, and a multi-row tc form.
TESTED = [
    ("cuda", {"TT": 1, "BN": 2, "KV": 1, "W": 256}),
    ("cuda", {"TT": 4, "BN": 1, "KV": 1, "W": 128}),
    ("cuda_split", {"TT": 1, "BN": 2, "KV": 1, "W": 128}),
    ("tc", {"BN": 64, "BK": 128, "W": 128}),
    ("tc", {"BN": 32, "BK": 64, "W": 128}),
    ("tc", {"BN": 64, "BK": 128, "W": 128, "STAGES": 5}),  # a 5-stage ring (@pipeline(STAGES))
    ("tc_sync", {"BN": 64, "BK": 256, "W": 128}),
    ("tc_split", {"BN": 64, "BK": 128, "W": 128}),
]

# gemv_wave_f16.ph promises N % BN == 0 and K % BK == 0 (the launcher refuses other shapes), so it
# has shapes of its own: its first @autotune values and a two-token form, on rows pitched and
# not (12 x 1024 is padded and misaligned in the tests: the generic variant), T ragged for TT = 2.
WAVE_TESTED = [
    ("cuda_wave", {"TT": 1, "BN": 4, "BK": 1024, "W": 128, "MINB": 8}),
    ("cuda_wave", {"TT": 2, "BN": 4, "BK": 1024, "W": 128, "MINB": 4}),
]


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


def chunk(family: str, defines: dict) -> int:
    """The K chunk a CTA takes per loop step (BK)."""
    if family.startswith("tc") or family == "cuda_wave":
        return defines["BK"]
    return 8 * defines["KV"] * defines["W"]


def split_ranges(k: int, bk: int, s: int) -> list[tuple[int, int]]:
    """The K range of each of the s splits, as the split kernels compute it: runs of whole chunks."""
    per = cdiv(cdiv(k, bk), s) * bk
    return [(min(k, i * per), min(k, (i + 1) * per)) for i in range(s)]


def reference(x: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(X W^T in float64, |X| |W|^T: the size of the terms each output adds)."""
    x64, w64 = x.astype(np.float64), w.astype(np.float64)
    return x64 @ w64.T, np.abs(x64) @ np.abs(w64).T


def bound(want: np.ndarray, size: np.ndarray, k: int, f16_out: bool = True) -> np.ndarray:
    """The largest error allowed per output: f16 products are exact in f32, each addition of the
    f32 sums rounds (a chain of at most K of them, plus the reduction tree), then one rounding
    to f16 (absolute below f16's normal range)."""
    err = (k + 64) * EPS32 * size
    if f16_out:
        err = err + U16 * np.abs(want) + F16_TINY
    return err


def launch(kernels, family: str, x, w, y, p=None) -> None:
    """One GEMV: `kernels` = (main kernel, reduce kernel or None), x [T, K], w [N, K], y [T, N]
    (numpy arrays or torch tensors, views allowed); p [S, T, N] f32 for the split families."""
    main, reduce = kernels
    xin = x[:, None, :] if family.startswith("cuda") else x
    if family.endswith("split"):
        main(xin, w, p)
        reduce(p, y)
    else:
        main(xin, w, y)


def layouts(family: str, shape, like) -> list[tuple[str, tuple]]:
    """The argument layouts one launch of `family` at shape (T, N, K, S) passes, per kernel it
    runs ((name, args) of the main kernel, then of the reduction), for bench/aot_build.py:
    contiguous, 16-byte aligned tensors, as the benchmark and the pitched test cases pass them."""
    t, n, k, s = shape
    x = like("f16", (t, 1, k)) if family.startswith("cuda") else like("f16", (t, k))
    y = like("f16", (t, n))
    if not family.endswith("split"):
        return [(KERNEL[family], (x, like("f16", (n, k)), y))]
    p = like("f32", (s, t, n))
    return [(KERNEL[family], (x, like("f16", (n, k)), p)), (REDUCE[0], (p, y))]


def as_3d(view, s: int, t: int):
    """A contiguous 2-D [S * T, N] view as [S, T, N], sharing its memory."""
    if isinstance(view, np.ndarray):
        out = view.reshape(s, t, view.shape[1])
        assert np.shares_memory(out, view)
        return out
    return view.view(s, t, view.shape[1])


def run_case(kernels, family: str, defines: dict, shape, framework: str = "torch") -> None:
    """Launch one family on fresh random data inside guard zones (outputs poisoned) and check
    Y, the split partials P, and that nothing else changed. shape = (T, N, K, S)."""
    from guarded import Guarded

    t, n, k, s = shape
    pitched = k % 8 == 0 and n % 8 == 0  # 16-byte rows: the vectorised variants
    x = Guarded(framework, (t, k), dtype=np.float16, pad=0 if pitched else 3, misalign=0 if pitched else 1)
    w = Guarded(framework, (n, k), dtype=np.float16, pad=0 if pitched else 5)
    y = Guarded(framework, (t, n), dtype=np.float16, pad=0 if pitched else 7, poison=True)
    p = Guarded(framework, (s * t, n), dtype=np.float32, poison=True) if family.endswith("split") else None
    launch(kernels, family, x.view, w.view, y.view, None if p is None else as_3d(p.view, s, t))
    want, size = reference(x.values, w.values)
    y.check(want, rtol=1.0, size=bound(want, size, k))
    if p is not None:
        parts = [reference(x.values[:, a:b], w.values[:, a:b]) for a, b in split_ranges(k, chunk(family, defines), s)]
        want_p = np.concatenate([pw for pw, _ in parts])
        size_p = np.concatenate([ps for _, ps in parts])
        p.check(want_p, rtol=1.0, size=bound(want_p, size_p, k, f16_out=False) + 1e-300)
    x.unchanged()
    w.unchanged()


# (T, N, K, S): ragged N and K (no row 16-byte pitched: 2-byte accesses, the generic variant),
# then pitched rows of ragged length: K a multiple of 16 (16-byte vectors) and of 8 only (the
# specialisation key's next class, 4 elements: 8-byte vectors), on the GPU.
GPU_SHAPES = [(1, 4097, 3001, 3), (3, 4097, 3001, 3), (16, 4097, 3001, 3), (1, 4112, 3008, 4), (16, 1040, 8200, 3)]
INTERP_SHAPES = [(1, 37, 301, 2), (3, 45, 2500, 3)]
WAVE_GPU_SHAPES = [(1, 1048, 6144, 1), (3, 4104, 2048, 1), (16, 520, 4096, 1), (3, 12, 1024, 1)]
WAVE_INTERP_SHAPES = [(1, 8, 2048, 1), (3, 12, 1024, 1)]
