"""GPU tests of the fused kernels in examples/ (pytest -m gpu; skipped without a GPU).

Row softmax (one pass and the two-pass long-row path), layer norm, running
sums along rows, flash attention (f32 and f16) and chunkwise linear
attention, built ahead of time by bench/aot_build.py (fused_jobs). Every test
draws fresh random data, uses ragged shapes, poisons the outputs inside guard
zones, and compares with numpy in float64.
"""

from __future__ import annotations

import numpy as np
import pytest
from aot_folders import aot
from guarded import RNG, Guarded

pytestmark = pytest.mark.gpu

EPS = 2.0**-24

# The variants the tests launch (bench/aot_build.py builds the same ones).
SOFTMAX = [{"BN": 4096, "W": 512}, {"BN": 1024, "W": 256}]
LAYERNORM = [{"BN": 4096, "W": 512}, {"BN": 1024, "W": 256}, {"BN": 4096, "W": 256, "MINB": 4}]
CUMSUM = [{"BR": 4, "BN": 256, "W": 128}]
ATTENTION = [{"BM": 64, "BN": 64, "D": 64, "W": 256}]
# f16 on the tensor cores, (BM, BN, W) each for D = 64 and 128: every warp along
# the rows (BM = 16 x warps or a multiple). The same tilings run on sm_90a with
# both dots on wgmma, A (Q, then P) from registers, K and V by TMA (wgmma.py).
F16_TILES = [(64, 64, 128), (128, 64, 256), (64, 128, 128), (128, 128, 256)]
ATTENTION_F16 = [{"BM": m, "BN": n, "D": d, "W": w} for d in (64, 128) for m, n, w in F16_TILES]
ATTENTION_WGMMA = ATTENTION_F16
ATTENTION_SHAPES = [(1, 1), (2, 100), (3, 257), (1, 1024)]  # (heads, sequence)
LINEAR_ATTENTION = [{"C": 32, "D": 32, "W": 128}]


def _softmax_ref(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("defines", SOFTMAX, ids=str)
@pytest.mark.parametrize("shape", [(1, 1), (37, 1000), (5, 4096), (3, 5000), (2, 12345)], ids=str)
def test_softmax(defines, shape):
    """Rows that fit one tile (N <= BN) and rows that take the two-pass path (N > BN)."""
    kernel = aot("softmax", defines)
    m, n = shape
    x = Guarded("torch", shape)
    y = Guarded("torch", shape, poison=True)
    kernel(x.view, y.view)
    xv = x.values.astype(np.float64)
    ref = _softmax_ref(xv)
    # exp's ulps plus the row sum's rounding, relative to each element
    y.check(ref, rtol=(16 + np.log2(n + 1)) * 8 * EPS)
    x.check(xv, rtol=0)


@pytest.mark.parametrize("defines", CUMSUM, ids=str)
@pytest.mark.parametrize("shape", [(1, 1), (7, 1000), (33, 256), (5, 3001)], ids=str)
def test_cumsum_rows(defines, shape):
    kernel = aot("cumsum_rows", defines)
    x = Guarded("torch", shape)
    y = Guarded("torch", shape, poison=True)
    kernel(x.view, y.view)
    xv = x.values.astype(np.float64)
    n = shape[1]
    # a carry per tile plus a scan inside it: error grows with the row's length
    y.check(np.cumsum(xv, axis=1), rtol=(2 * np.log2(n + 1) + 8) * EPS * 4, size=np.cumsum(np.abs(xv), axis=1))
    x.check(xv, rtol=0)


def _heads(h, s, d, positive=False):
    """Q, K, V as [h * s, d] buffers; `positive`: feature maps elu(x) + 1 > 0."""
    out = []
    for _ in range(3):
        x = RNG.standard_normal((h * s, d))
        out.append(Guarded("torch", (h * s, d), values=np.where(x > 0, x + 1, np.exp(x)) if positive else x))
    return out


@pytest.mark.parametrize("defines", LINEAR_ATTENTION, ids=str)
@pytest.mark.parametrize("h,s", [(1, 1), (2, 100), (3, 257)])
def test_linear_attention(defines, h, s):
    d = defines["D"]
    kernel = aot("linear_attention", defines)
    q, k, v = _heads(h, s, d, positive=True)
    o = Guarded("torch", (h * s, d), poison=True)
    view = lambda g: g.view.view(h, s, d)  # noqa: E731
    kernel(view(q), view(k), view(v), view(o))
    qv, kv, vv = (g.values.astype(np.float64).reshape(h, s, d) for g in (q, k, v))
    scores = np.tril(qv @ kv.transpose(0, 2, 1))  # [h, s, s], causal
    num = scores @ vv
    den = scores.sum(axis=2, keepdims=True)
    size = (scores @ np.abs(vv)) / den + np.abs(num / den)
    o.check((num / den).reshape(h * s, d), rtol=(s + d + 16) * 8 * EPS, size=size.reshape(h * s, d))


@pytest.mark.parametrize("defines", LAYERNORM, ids=str)
@pytest.mark.parametrize("shape", [(1, 1), (37, 1000), (5, 4096), (3, 5000), (2, 12345)], ids=str)
def test_layernorm(defines, shape):
    """Rows that fit one tile and rows read three times (N > BN)."""
    kernel = aot("layernorm", defines)
    m, n = shape
    x = Guarded("torch", shape, values=RNG.standard_normal(shape) * 3 + 1)
    w = Guarded("torch", (n,))
    b = Guarded("torch", (n,))
    y = Guarded("torch", shape, poison=True)
    eps = 1e-5
    kernel(x.view, w.view, b.view, y.view, eps)
    xv, wv, bv = (g.values.astype(np.float64) for g in (x, w, b))
    mean = xv.mean(axis=1, keepdims=True)
    rstd = 1 / np.sqrt(((xv - mean) ** 2).mean(axis=1, keepdims=True) + eps)
    ref = (xv - mean) * rstd * wv + bv
    size = (np.abs(xv) + np.abs(mean)) * rstd * np.abs(wv) + np.abs(bv)
    y.check(ref, rtol=(np.log2(n + 1) + 8) * 8 * EPS, size=size)
    x.check(xv, rtol=0)


def _attention_ref(q, k, v, scale):
    s = q @ k.transpose(0, 2, 1) * scale
    p = np.exp(s - s.max(axis=2, keepdims=True))
    p /= p.sum(axis=2, keepdims=True)
    return p @ v, p @ np.abs(v)


@pytest.mark.parametrize(
    "name,dtype,defines,chip",
    [("attention", np.float32, d, None) for d in ATTENTION]
    + [("attention_f16", np.float16, d, None) for d in ATTENTION_F16]
    + [("attention_f16", np.float16, d, "sm_90a") for d in ATTENTION_WGMMA],
    ids=str,
)
@pytest.mark.parametrize("h,s", ATTENTION_SHAPES)
def test_attention(defines, name, dtype, chip, h, s):
    d = defines["D"]
    kernel = aot(name, defines, chip=chip)
    q, k, v = (Guarded("torch", (h * s, d), dtype=dtype) for _ in range(3))
    o = Guarded("torch", (h * s, d), dtype=dtype, poison=True)
    scale = 1 / np.sqrt(d)
    view = lambda g: g.view.view(h, s, d)  # noqa: E731
    kernel(view(q), view(k), view(v), view(o), float(scale))
    qv, kv, vv = (g.values.astype(np.float64).reshape(h, s, d) for g in (q, k, v))
    ref, size = _attention_ref(qv, kv, vv, scale)
    # f32 inside: the scores' and the online softmax's rounding; f16 adds the output's rounding
    rtol = (d + 64) * 16 * EPS + (2.0**-10 if dtype == np.float16 else 0)
    o.check(ref.reshape(h * s, d), rtol=rtol, size=(size + np.abs(ref)).reshape(h * s, d))
    if chip == "sm_90a":  # rows of 64 or 128 f16 are whole 16-byte pieces: the wgmma variant runs
        path = kernel._last.contract["shared_memory"]["tensor_cores"]
        assert path["instruction"] == "wgmma", path
