"""The original Phobos's constructs in kernels of our own (test/Frontend/original-constructs/),
run in the interpreter against float64 NumPy at their default configurations: what the
kernels mean does not depend on the dot path (the lit tests check that the @tensorcore
dots the tensor cores cannot run compile on CUDA cores, with a warning)."""

from __future__ import annotations

import os

import numpy as np
import pytest
from test_interpreter import ROOT, bf16_reference, guard_intact, guarded, program

from phobos.interpreter import run_program

RNG = np.random.default_rng()
DIR = os.path.join(ROOT, "test", "Frontend", "original-constructs")


def _program(name: str):
    with open(os.path.join(DIR, name), encoding="utf-8") as f:
        return program(f.read(), name)


@pytest.mark.parametrize("nx,ny", [(4, 4), (9, 13), (16, 7)])
def test_online_softmax_attention(nx, ny):
    """softmax_attend (R = C = 4, E = 64): softmax(t X Y^T) Z row by row, in f16 out."""
    e, t = 64, 0.125
    x, y, z = (RNG.standard_normal((n, e)).astype(np.float16) for n in (nx, ny, ny))
    out, buf = guarded((nx, e), np.float16)
    run_program(_program("online-softmax-small.ph"), [x, y, z, out, t], (-(-nx // 4), 1, 1))
    # A ragged last chunk reads zero rows past Ny (as in the original): they score 0 and add 0.
    padded = -(-ny // 4) * 4
    yd, zd = np.zeros((padded, e)), np.zeros((padded, e))
    yd[:ny], zd[:ny] = y, z
    s = t * (x.astype(np.float64) @ yd.T)
    p = np.exp(s - s.max(axis=1, keepdims=True))
    ref = (p / p.sum(axis=1, keepdims=True)) @ zd
    np.testing.assert_allclose(out.astype(np.float64), ref, rtol=2e-3, atol=2e-3)
    assert guard_intact(buf, np.nan)


@pytest.mark.parametrize("nx,ny", [(16, 16), (20, 40)])
def test_routed_chunks(nx, ny):
    """routed (R = C = 16): the row max over chunks of X Y_c^T + inv X (1^T Y_c)^T."""
    e, c, inv = 64, 16, 1.0 / 16
    x, y = (RNG.standard_normal((n, e)).astype(np.float16) for n in (nx, ny))
    out, buf = guarded((nx, 1))
    run_program(_program("routed-chunks.ph"), [x, y, out, inv], (-(-nx // 16), 1, 1))
    xd, yd = x.astype(np.float64), y.astype(np.float64)
    best = np.full((nx, 1), -65504.0)
    for j in range(0, ny, c):
        chunk = np.zeros((c, e))
        chunk[: min(c, ny - j)] = yd[j : j + c]
        col = chunk.sum(axis=0, keepdims=True).astype(np.float16).astype(np.float64)  # `let col` is f16: dot's type
        s = xd @ chunk.T + inv * (xd @ col.T)
        best = np.maximum(best, s.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out, best, rtol=1e-4, atol=1e-3)
    assert guard_intact(buf, np.nan)


@pytest.mark.parametrize("k,n", [(32, 64), (96, 100)])
def test_quantized_block(k, n):
    """block_scaled (TN = 64, BLK = 32): sum over blocks b of (A_b W_b) * S[b], rounded to bf16, plus H.
    bf16 tensors are float32 arrays of bf16 values in the interpreter."""
    a = RNG.standard_normal((1, k)).astype(np.float32)
    w = RNG.integers(-128, 128, (k, n)).astype(np.int8)
    kb = -(-k // 32)
    scales = bf16_reference(RNG.uniform(0.001, 0.02, (kb, n)))
    h = RNG.standard_normal((1, n)).astype(np.float16)
    out, buf = guarded((1, n))
    run_program(_program("quantized-block.ph"), [a, w, scales, h, out], (-(-n // 64), 1, 1))
    acc = np.zeros((1, n))
    for b in range(kb):
        acc += (a[:, 32 * b : 32 * b + 32].astype(np.float64) @ w[32 * b : 32 * b + 32].astype(np.float64)) * scales[b]
    ref = h.astype(np.float64) + bf16_reference(acc)
    np.testing.assert_allclose(out, ref, rtol=2**-7, atol=1e-6)
    assert guard_intact(buf, np.nan)
