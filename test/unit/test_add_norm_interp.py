"""bench/kernels/add_rmsnorm_f16.ph in the interpreter: the residual H = X + Res rounded to f16 once,
and Y = H / rms(H) * Wt from that rounded H (as torch's f16 residual stream holds it), on ragged
rows and columns with a last CTA half past the tensor, against float64 NumPy."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import phobos

KERNEL = Path(__file__).resolve().parents[2] / "bench" / "kernels" / "add_rmsnorm_f16.ph"
EPS = 1e-5


@pytest.mark.parametrize("rows", [1, 2, 4])
@pytest.mark.parametrize("shape", [(5, 3001), (4, 4096)])
def test_add_rmsnorm_f16(rows, shape):
    m, n = shape
    rng = np.random.default_rng(27 + rows + n)
    x = (rng.standard_normal((m, n)) * 3).astype(np.float16)
    res = rng.standard_normal((m, n)).astype(np.float16)
    w = (rng.random(n) + 0.5).astype(np.float32)
    h = np.full((m, n), np.nan, np.float16)
    y = np.full((m, n), np.nan, np.float16)
    k = phobos.compile(KERNEL, defines={"BN": 4096, "R": rows, "W": 128})
    k.interpret(x, res, w, h, y, EPS, grid=(-(-m // rows), 1, 1))
    want_h = (x.astype(np.float64) + res).astype(np.float16)
    assert np.array_equal(h, want_h)  # one rounding of the exact sum
    v = want_h.astype(np.float64)
    want_y = v / np.sqrt((v * v).mean(axis=1, keepdims=True) + EPS) * w
    # f32 math, then one rounding to f16: half an f16 ulp and f32's few ulps over the row's sum
    np.testing.assert_allclose(y.astype(np.float64), want_y, rtol=2**-11 + 1e-5, atol=2**-24)
