"""GPU test of the linear layer on sm_90a's tensor cores (issue 26: Y = X W^T + b, f16 in and out;
pytest -m gpu): bench/kernels/linear_f16.ph, TMA + wgmma with the weight read K-major as stored,
the bias added and the sum rounded to f16 in the epilogue. Built ahead of time by
bench/aot_build.py (--only linear_f16). Fresh random operands and bias, Y poisoned inside guard
zones (every element must be written, nothing outside), M, N and K ragged against the tiles, rows
TMA cannot read (the runtime repacks X and W), against NumPy in float64: the f32 sum's bound plus
one f16 rounding of the result."""

from __future__ import annotations

import numpy as np
import pytest
from aot_folders import aot
from guarded import RNG, Guarded

pytestmark = pytest.mark.gpu

VARIANTS = [{"TN": 256}, {"TN": 128}]  # TM = 128, TK = 64, W = 256 (the first of each space)
# M, N, K with N and K multiples of 8 (16-byte rows); bench_linear.py's shapes are among them
PITCHED = [(1000, 1008, 1040), (17, 64, 16), (4096, 4096, 4096), (4000, 11008, 4096)]
REPACKED = [(255, 257, 129)]  # rows of odd length: the launch copies X and W into pitched rows


def linear_inputs(m: int, n: int, k: int):
    """(X, W, b, Y64, size) with f16 values; size bounds the f32 sum's terms."""
    x = RNG.standard_normal((m, k)).astype(np.float16)
    w = RNG.standard_normal((n, k)).astype(np.float16)
    b = RNG.standard_normal(n).astype(np.float16)
    x64, w64, b64 = (v.astype(np.float64) for v in (x, w, b))
    return x, w, b, x64 @ w64.T + b64, np.abs(x64) @ np.abs(w64).T + np.abs(b64)


@pytest.mark.parametrize("defines", VARIANTS, ids=str)
@pytest.mark.parametrize("shape", PITCHED + REPACKED, ids=str)
def test_linear_f16(defines, shape):
    m, n, k = shape
    kernel = aot("linear_f16", defines, chip="sm_90a")
    x, w, b, want, size = linear_inputs(m, n, k)
    xg, wg, bg = (Guarded("torch", v.shape, dtype=np.float16, values=v) for v in (x, w, b))
    y = Guarded("torch", (m, n), dtype=np.float16, poison=True)
    kernel(xg.view, wg.view, bg.view, y.view)
    path = kernel._last.contract.get("shared_memory", {}).get("tensor_cores", {})
    assert path.get("instruction") == "wgmma", path
    # f32 sum of k products (each exact) plus the bias, then one f16 rounding of |Y|
    now = y.download()
    got = now[y._indices()].reshape(m, n).astype(np.float64)
    assert not np.isnan(got).any(), "some outputs were never written"
    bound = (k + 8) * 2.0**-24 * size + 2.0**-11 * np.abs(want) + 2.0**-24
    assert (np.abs(got - want) <= bound).all(), f"max error {np.max(np.abs(got - want) / bound)} of the bound"
    y.check(got, rtol=0)  # and nothing outside Y changed (guard zones, row padding)
    for g in (xg, wg, bg):
        g.unchanged()
