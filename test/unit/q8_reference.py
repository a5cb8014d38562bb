"""Q8_0 contractions on the host: data, the float64 reference, the f32 order of the tile IR,
and the bound between them (test_quantized.py; test_quantized_gpu.py, which runs without MLIR).

    out[i, j] = sum_b (sum_{k in block b} a[i, k] * w[j, k]) * a_scales[i, b] * w_scales[j, b]

with blocks of 32 along K and ceil(K / 32) of them (a last partial block sums what there is).
"""

from __future__ import annotations

import numpy as np

BLOCK = 32
U = 2.0**-24  # f32's unit roundoff


def blocks(k: int) -> int:
    return -(-k // BLOCK)


def operands(rng, m: int, n: int, k: int):
    """i8 a [M, K] and w [N, K] over the whole range, f32 scales [M, KB] and [N, KB] (as Q8_0
    makes them: max|x| / 127, so positive and small)."""
    a = rng.integers(-128, 128, (m, k)).astype(np.int8)
    w = rng.integers(-128, 128, (n, k)).astype(np.int8)
    a_s = rng.uniform(1e-3, 2e-2, (m, blocks(k))).astype(np.float32)
    w_s = rng.uniform(1e-3, 2e-2, (n, blocks(k))).astype(np.float32)
    return a, a_s, w, w_s


def block_sums(a, w) -> list[np.ndarray]:
    """The exact integer sum of each block, [M, N] int64 per block."""
    a64, w64 = a.astype(np.int64), w.astype(np.int64)
    return [a64[:, s : s + BLOCK] @ w64[:, s : s + BLOCK].T for s in range(0, a.shape[1], BLOCK)]


def reference(a, a_s, w, w_s) -> np.ndarray:
    """The definition in float64 (w_s [N, KB])."""
    out = np.zeros((a.shape[0], w.shape[0]))
    for b, p in enumerate(block_sums(a, w)):
        out += p * a_s[:, b : b + 1].astype(np.float64) * w_s[:, b].astype(np.float64)[None, :]
    return out


def in_f32_order(a, a_s, w, w_s) -> np.ndarray:
    """What the tile IR computes, rounding for rounding: per block, s = a_s[i, b] * w_s[j, b]
    and f32(p) * s rounded in f32, added to the running f32 sum in block order."""
    acc = np.zeros((a.shape[0], w.shape[0]), np.float32)
    for b, p in enumerate(block_sums(a, w)):
        s = a_s[:, b : b + 1] * w_s[:, b][None, :]
        acc = acc + p.astype(np.float32) * s
    return acc


def bound(a, a_s, w, w_s) -> np.ndarray:
    """|f32 result - float64 reference|: the block sums are exact, each term has two roundings
    (the scale product, the product) and the sum one per block: (KB + 2) u sum_b |term_b|."""
    size = np.zeros((a.shape[0], w.shape[0]))
    for b, p in enumerate(block_sums(a, w)):
        size += np.abs(p) * a_s[:, b : b + 1].astype(np.float64) * w_s[:, b].astype(np.float64)[None, :]
    return (len(block_sums(a, w)) + 2) * U * size * 1.0001


def assert_close(got, want, limit) -> None:
    over = np.abs(got.astype(np.float64) - want) > limit
    assert not over.any(), f"{int(over.sum())} elements past the f32 bound, first at {np.argwhere(over)[0]}"
