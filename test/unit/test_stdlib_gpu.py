"""GPU test of the standard library (pytest -m gpu; skipped without a GPU or its ahead-of-time folders).

The kernels of bench_stdlib.py (bench/kernels/std_<op>_<type>.ph, written with std.nn, and
hand_<op>_<type>.ph, the same computation written out; bench/stdlib_kernels.py writes them,
bench/aot_build.py builds them) run on ragged row counts and row lengths (N <= 4096), on
fresh random data, with poisoned outputs inside guard zones and padded rows. Each std kernel is
compared with NumPy in float64 (torch's definitions) at a bound fit for its type, and its output
must equal the hand-written kernel's bit for bit: inlining leaves the same code.
The interpreter tests of every library function are test_stdlib_interp.py.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from aot_folders import aot
from guarded import RNG, Guarded

pytestmark = pytest.mark.gpu

ERF = np.vectorize(math.erf)
SHAPES = [(37, 4096), (5, 3001), (1, 1)]
DTYPE = {"f32": np.float32, "f16": np.float16}
RTOL = {"f32": 2e-5, "f16": 4e-3}  # f16: one rounding of the f32 result, plus the f16 inputs
EPS = 1e-5
# Below the smallest normal number the output's spacing is fixed (f16: 2^-24), so relative error
# grows without bound: every size gets the smallest normal added (rtol x 2^-14 > f16's half spacing).
FLOOR = {"f32": 2.0**-126, "f16": 2.0**-14}
# 1 + erf(z) cancels for negative z: its absolute error, a few ulps of 1 (2^-23), times |s| / 2.
ERF_CANCEL = 2.0**-22


def inputs(op, m, n, t, framework="torch"):
    """(argument buffers, the output buffer, the float64 reference, its size, the scalars) for op
    (also used by the interpreter test, test_stdlib_bench_kernels.py, with framework="numpy")."""
    args, y, want, size, scalars = _inputs(op, m, n, t, framework)
    return args, y, want, size + FLOOR[t], scalars


def _inputs(op, m, n, t, framework):
    dt = DTYPE[t]
    x = Guarded(framework, (m, n), dtype=dt, pad=3, misalign=1)
    y = Guarded(framework, (m, n), dtype=dt, pad=5, poison=True)
    v = x.values.astype(np.float64)
    if op == "softmax":
        e = np.exp(v - v.max(axis=1, keepdims=True))
        want = e / e.sum(axis=1, keepdims=True)
        return [x], y, want, np.abs(want), []
    if op in ("layernorm", "rmsnorm"):
        w = Guarded(framework, (n,), values=RNG.uniform(0.5, 1.5, n))
        b = Guarded(framework, (n,))
        wv, bv = w.values.astype(np.float64), b.values.astype(np.float64)
        if op == "layernorm":
            d = v - v.mean(axis=1, keepdims=True)
            rstd = 1.0 / np.sqrt((d * d).mean(axis=1, keepdims=True) + EPS)
            return [x, w, b], y, d * rstd * wv + bv, np.abs(d * rstd * wv) + np.abs(bv), [EPS]
        rstd = 1.0 / np.sqrt((v * v).mean(axis=1, keepdims=True) + EPS)
        return [x, w], y, v * rstd * wv, np.abs(v * rstd * wv), [EPS]
    if op == "gelu_bias":
        b = Guarded(framework, (n,), dtype=dt)
        s = (x.values + b.values).astype(np.float64)  # the kernel adds in the input type
        want = 0.5 * s * (1.0 + ERF(s / math.sqrt(2.0)))
        return [x, b], y, want, np.abs(want) + np.abs(s) * max(1e-3, ERF_CANCEL / RTOL[t]), []
    h = n // 2
    theta = RNG.uniform(0.0, 2 * np.pi, (m, 2048))
    c = Guarded(framework, (m, 2048), values=np.cos(theta))
    s = Guarded(framework, (m, 2048), values=np.sin(theta))
    cv, sv = c.values.astype(np.float64)[:, :h], s.values.astype(np.float64)[:, :h]
    x1, x2 = v[:, :h], v[:, h : 2 * h]
    want = np.concatenate([x1 * cv - x2 * sv, x2 * cv + x1 * sv], axis=1)
    size = np.concatenate([np.abs(x1 * cv) + np.abs(x2 * sv), np.abs(x2 * cv) + np.abs(x1 * sv)], axis=1)
    return [x, c, s], y, want, size, []


@pytest.mark.parametrize("t", ["f32", "f16"])
@pytest.mark.parametrize("op", ["softmax", "layernorm", "rmsnorm", "gelu_bias", "rotary"])
@pytest.mark.parametrize("shape", SHAPES)
def test_std_kernel_against_numpy_and_the_hand_written_one(op, t, shape):
    m, n = shape
    if op == "rotary":
        n = 4096  # the kernel reads halves at column 2048: rows of exactly 2 x 2048
    std, hand = aot(f"std_{op}_{t}", {"W": 512}), aot(f"hand_{op}_{t}", {"W": 512})
    args, y, want, size, scalars = inputs(op, m, n, t)
    std(*(a.view for a in args), y.view, *scalars)
    y.check(want, rtol=RTOL[t], size=size)
    mine = y.download()
    y2 = Guarded("torch", (m, n), dtype=DTYPE[t], pad=5, poison=True)
    hand(*(a.view for a in args), y2.view, *scalars)
    theirs = y2.download()
    assert np.array_equal(mine[y.region].view(np.uint8), theirs[y2.region].view(np.uint8))
