"""The cases of the gather/scatter/atomic kernels of bench/kernels/ (issue 23, items 3-4 and 7):
for each kernel, inputs on ragged shapes, the grid and the float64 NumPy reference, shared by
test_gather_kernels.py (the interpreter, in CI) and test_gathers_gpu.py (the H200).

A case is (kernel, defines, args, grid, outputs): `args` the NumPy arrays and scalars in the
kernel's order, `outputs` {argument index: (reference, rtol, size)} where `size` is the size
of the terms the tolerance scales (None: |reference|); exact integer results have rtol 0."""

from __future__ import annotations

import numpy as np

EPS32 = 2.0**-24
# (kernel, defines) built ahead of time (bench/aot_build.py gather_jobs): the tests' and bench_gathers.py's.
BUILT = [
    ("gather_rows", {"BB": 16, "BD": 256}),
    ("gather_rows", {"BB": 8, "BD": 512}),
    ("scatter_add_rows", {"BM": 16, "BD": 256}),
    ("scatter_add_rows", {"BM": 8, "BD": 512}),
    ("scatter_add_rows", {"BM": 16, "BD": 512}),  # the benchmark's: eight v4 reds per thread
    ("histogram", {"BLOCK": 2048}),
    ("histogram", {"BLOCK": 4096}),
    # the privatised histogram (shared-memory bins): the tests' and the benchmark's variants
    ("histogram_shared", {"NB": 256, "BLOCK": 2048, "STEPS": 4}),
    ("histogram_shared", {"NB": 256, "BLOCK": 4096, "STEPS": 16}),
    ("histogram_shared", {"NB": 4096, "BLOCK": 4096, "STEPS": 4}),
    ("histogram_shared", {"NB": 4096, "BLOCK": 4096, "STEPS": 16}),
    ("splitk_gemm", {"TM": 64, "TN": 64, "TK": 16, "KS": 256}),
    ("embedding_bag", {"L": 32, "BD": 128}),
    ("conv3x3_nhwc", {"BP": 64, "BK": 64, "BC": 16}),
]


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


def bad_indices(rng, idx: np.ndarray, extent: int, share: int = 16) -> np.ndarray:
    """`idx` with about 1/share of its entries out of [0, extent): negative or past the end."""
    idx = idx.copy()
    bad = rng.random(idx.shape) < 1.0 / share
    idx[bad] = np.where(rng.random(int(bad.sum())) < 0.5, -1 - rng.integers(0, 3, int(bad.sum())), extent + 2)
    return idx


def gather_rows(rng, v=1000, d=1000, b=333, bb=16, bd=256):
    w = rng.standard_normal((v, d)).astype(np.float16)
    idx = bad_indices(rng, rng.integers(0, v, b), v).astype(np.int32)
    ok = (idx >= 0) & (idx < v)
    want = np.zeros((b, d))
    want[ok] = w[idx[ok]].astype(np.float64)
    y = np.full((b, d), np.nan, np.float16)
    return ("gather_rows", {"BB": bb, "BD": bd}, [w, idx, y], (cdiv(b, bb), cdiv(d, bd), 1), {2: (want, 0.0, None)})


def scatter_add_rows(rng, m=301, d=700, r=37, bm=16, bd=256):
    idx = bad_indices(rng, rng.integers(0, r, m), r).astype(np.int32)  # many duplicates
    v = rng.standard_normal((m, d)).astype(np.float32)
    y = rng.standard_normal((r, d)).astype(np.float32)
    want, size = y.astype(np.float64), np.abs(y).astype(np.float64)
    ok = (idx >= 0) & (idx < r)
    np.add.at(want, idx[ok], v[ok].astype(np.float64))
    np.add.at(size, idx[ok], np.abs(v[ok]).astype(np.float64))
    per_row = np.bincount(idx[ok], minlength=r).max() + 2
    grid = (cdiv(m, bm), cdiv(d, bd), 1)
    return ("scatter_add_rows", {"BM": bm, "BD": bd}, [idx, v, y], grid, {2: (want, per_row * EPS32, size)})


def histogram(rng, n=20011, bins=256, block=2048):
    x = (rng.zipf(1.4, n) - 1).astype(np.int64)  # skewed: most values in the first bins
    x = np.where(rng.random(n) < 0.01, -3, np.minimum(x, bins + 7)).astype(np.int32)
    h = np.zeros(bins, np.int32)
    ok = x[(x >= 0) & (x < bins)]
    want = np.bincount(ok, minlength=bins).astype(np.float64)
    return ("histogram", {"BLOCK": block}, [x, h], (cdiv(n, block), 1, 1), {1: (want, 0.0, None)})


def histogram_shared(rng, n=20011, bins=256, nb=256, block=2048, steps=4):
    """histogram_shared.ph: skewed values, some negative and some past the bins (dropped); bins <= nb."""
    _, _, (x, h), _, outputs = histogram(rng, n, bins, block)
    defines = {"NB": nb, "BLOCK": block, "STEPS": steps}
    return ("histogram_shared", defines, [x, h], (cdiv(n, block * steps), 1, 1), outputs)


def splitk_gemm(rng, m=130, n=77, k=700):
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    c = rng.standard_normal((m, n)).astype(np.float32)
    want = c.astype(np.float64) + a.astype(np.float64) @ b.astype(np.float64)
    size = np.abs(c) + np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64)
    grid = (cdiv(m, 64), cdiv(n, 64), cdiv(k, 256))
    return (
        "splitk_gemm",
        {"TM": 64, "TN": 64, "TK": 16, "KS": 256},
        [a, b, c],
        grid,
        {2: (want, (k + 8) * EPS32, size)},
    )


def hgemm_splitk(rng, m=130, n=80, k=700, defines=None):
    """The f16 split-K GEMM on the tensor cores: f16 operands (products exact in f32), C starting
    at random values; each split's f32 sum and its add into C round (k + splits + 8 terms)."""
    defines = defines or {"TM": 64, "TN": 128, "TK": 64, "KS": 1024, "W": 128}
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = rng.standard_normal((m, n)).astype(np.float32)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    want = c.astype(np.float64) + a64 @ b64
    size = np.abs(c) + np.abs(a64) @ np.abs(b64)
    grid = (cdiv(m, defines["TM"]), cdiv(n, defines["TN"]), cdiv(k, defines["KS"]))
    rtol = (k + cdiv(k, defines["KS"]) + 8) * EPS32
    return ("hgemm_splitk", defines, [a, b, c], grid, {2: (want, rtol, size)})


def embedding_bag(rng, v=500, d=300, nb=45, bag=32):
    w = rng.standard_normal((v, d)).astype(np.float32)
    idx = rng.integers(0, v, (nb, bag)).astype(np.int32)
    lengths = rng.integers(0, bag + 1, nb)
    idx[np.arange(bag)[None, :] >= lengths[:, None]] = -1  # padding: reads zero rows
    w64 = np.vstack([w.astype(np.float64), np.zeros((1, d))])
    want = w64[np.where(idx < 0, v, idx)].sum(axis=1)
    size = np.abs(w64)[np.where(idx < 0, v, idx)].sum(axis=1)
    y = np.full((nb, d), np.nan, np.float32)
    return (
        "embedding_bag",
        {"L": 32, "BD": 128},
        [w, idx, y],
        (nb, cdiv(d, 128), 1),
        {2: (want, (bag + 4) * EPS32, size)},
    )


def conv3x3_reference(x: np.ndarray, wt: np.ndarray, n: int, h: int, w: int) -> tuple[np.ndarray, np.ndarray]:
    """(Y, |terms|) of the 3x3 convolution, padding 1, NHWC in float64; wt is [9 * C, K]."""
    c = x.shape[1]
    img = np.zeros((n, h + 2, w + 2, c))
    img[:, 1:-1, 1:-1, :] = x.reshape(n, h, w, c)
    out, size = 0.0, 0.0
    for rs in range(9):
        r, s = divmod(rs, 3)
        patch = img[:, r : r + h, s : s + w, :].reshape(n * h * w, c)
        weights = wt[rs * c : (rs + 1) * c].astype(np.float64)
        out = out + patch @ weights
        size = size + np.abs(patch) @ np.abs(weights)
    return out, size


def conv3x3_nhwc(rng, n=2, h=13, w=9, c=24, k=40):
    x = rng.standard_normal((n * h * w, c)).astype(np.float32)
    wt = rng.standard_normal((9 * c, k)).astype(np.float32)
    y = np.full((n * h * w, k), np.nan, np.float32)
    want, size = conv3x3_reference(x, wt, n, h, w)
    grid = (cdiv(n * h * w, 64), cdiv(k, 64), 1)
    return (
        "conv3x3_nhwc",
        {"BP": 64, "BK": 64, "BC": 16},
        [x, wt, y, h, w],
        grid,
        {2: (want, (9 * c + 8) * EPS32, size)},
    )


def check(got: np.ndarray, want: np.ndarray, rtol: float, size) -> None:
    got = np.asarray(got, np.float64)
    assert not np.isnan(got).any(), "some outputs were never written"
    err = np.abs(got - want)
    bound = rtol * (np.abs(want) if size is None else size)
    assert (err <= bound).all(), f"max error {err.max()} at {np.unravel_index(err.argmax(), err.shape)}"
