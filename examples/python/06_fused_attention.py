# ruff: noqa: F821, E741
"""Triton's tutorial 06 (fused attention, forward) as Phobos kernels, causal and not.

O = softmax(Q K^T * scale) V per head, in f16 with f32 statistics (online softmax, FlashAttention
style), on the tensor cores. Heads are the first dimension (Triton's Z * H). The causal kernel
walks the key blocks up to the query block's diagonal in two loops, as Triton's tutorial does: the
blocks below the diagonal unmasked, then the diagonal band with the causal mask, so that only the
band pays for the mask and BN is free of BM (the loops run the non-causal kernel's schedule).
"""

import numpy as np

import phobos
from phobos.lang import (
    arange,
    ctx,
    dot,
    dot_t,
    exp,
    f16,
    f32,
    i32,
    inf,
    rowmax,
    rowsum,
    span,
    tensor,
    tile,
    tmax,
    transpose,
    where,
)


@phobos.kernel(
    autotune={"BM": [128, 64, 32], "BN": [64, 128, 32], "D": [64, 128, 32, 256], "W": [256, 128]},
    launch="W",
    fastmath=True,
    pipeline=True,
    tensorcore=True,
)
def attention_fwd(
    Q: tensor[f16, "H", "S", "D"],
    K: tensor[f16, "H", "S", "D"],
    V: tensor[f16, "H", "S", "D"],
    O: tensor[f16, "H", "S", "D"],
    scale: f32,
):
    i = ctx.block.x * BM
    h = ctx.block.y
    q = Q[h, span(i, BM), span(0, D)]
    m: tile[f32, BM, 1] = -inf
    l: tile[f32, BM, 1] = 0.0
    acc: tile[f32, BM, D] = 0.0
    for j in range(0, S, BN):
        s = where(arange(BN) + j < S, dot_t(q, K[h, span(j, BN), span(0, D)]) * scale, -inf)
        mj = tmax(m, rowmax(s))
        p = exp(s - mj)
        alpha = exp(m - mj)
        l = l * alpha + rowsum(p)
        acc = acc * alpha + dot(f16(p), V[h, span(j, BN), span(0, D)])
        m = mj
    O[h, span(i, BM), span(0, D)] = acc / l


@phobos.kernel(
    autotune={"BM": [128, 64, 32], "BN": [64, 128, 32], "D": [64, 128, 32, 256], "W": [256, 128]},
    launch="W",
    fastmath=True,
    pipeline=True,
    tensorcore=True,
)
def attention_fwd_causal(
    Q: tensor[f16, "H", "S", "D"],
    K: tensor[f16, "H", "S", "D"],
    V: tensor[f16, "H", "S", "D"],
    O: tensor[f16, "H", "S", "D"],
    scale: f32,
):
    i = ctx.block.x * BM
    h = ctx.block.y
    q = Q[h, span(i, BM), span(0, D)]
    first: tile[i32, 1, BM] = 0
    rows = transpose(first + arange(BM))  # [BM, 1]: each query's row in the block
    band = i - i % BN  # the first key block reaching the query block (i itself where BN divides BM)
    m: tile[f32, BM, 1] = -inf
    l: tile[f32, BM, 1] = 0.0
    acc: tile[f32, BM, D] = 0.0
    for j in range(0, band, BN):  # below the diagonal: every key counts, no mask
        s = dot_t(q, K[h, span(j, BN), span(0, D)]) * scale
        mj = tmax(m, rowmax(s))
        p = exp(s - mj)
        alpha = exp(m - mj)
        l = l * alpha + rowsum(p)
        acc = acc * alpha + dot(f16(p), V[h, span(j, BN), span(0, D)])
        m = mj
    for j in range(band, i + BM, BN):  # the diagonal band: key j + c counts for query i + r if j + c <= i + r
        s = where(arange(BN) + (j - i) <= rows, dot_t(q, K[h, span(j, BN), span(0, D)]) * scale, -inf)
        mj = tmax(m, rowmax(s))
        p = exp(s - mj)
        alpha = exp(m - mj)
        l = l * alpha + rowsum(p)
        acc = acc * alpha + dot(f16(p), V[h, span(j, BN), span(0, D)])
        m = mj
    O[h, span(i, BM), span(0, D)] = acc / l


def reference(q, k, v, scale: float, causal: bool) -> np.ndarray:
    q, k, v = (a.astype(np.float64) for a in (q, k, v))
    s = np.einsum("hid,hjd->hij", q, k) * scale
    if causal:
        s = np.where(np.tril(np.ones(s.shape[1:], bool)), s, -np.inf)
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    return np.einsum("hij,hjd->hid", p / p.sum(axis=-1, keepdims=True), v)


def run(h: int = 8, s: int = 1000, d: int = 64, causal: bool = False, interpret: bool = False, seed: int = 0):
    """The largest error against float64, in units of f16 rounding of the output's scale."""
    rng = np.random.default_rng(seed)
    q, k, v = (rng.standard_normal((h, s, d)).astype(np.float16) for _ in range(3))
    o = np.full((h, s, d), np.nan, np.float16)
    scale = 1.0 / np.sqrt(d)
    kernel = attention_fwd_causal if causal else attention_fwd
    if interpret:
        small = {"BM": 32, "BN": 32, "D": d, "W": 128}
        kernel = kernel.with_defines(**small)
    else:
        kernel = kernel.with_defines(D=d)
    (kernel.interpret if interpret else kernel)(q, k, v, o, scale)
    want = reference(q, k, v, scale, causal)
    return float(np.max(np.abs(o - want)) / 2.0**-11)


if __name__ == "__main__":
    for causal in (False, True):
        print(f"fused attention (causal={causal}): max error {run(causal=causal):.3g} f16 units")
