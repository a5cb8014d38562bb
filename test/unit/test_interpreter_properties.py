"""Properties of the interpreter's reductions, scans and dots over random ragged tiles.

Each example compiles a kernel whose tile shape is drawn at random, reads a
tensor that may be smaller than the tile (the masked elements are zeros, and
zeros take part in a reduction like any value; or the fill value of
`padded(..., -inf)`, which a max ignores) and compares with NumPy.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("mlir")

from test_interpreter import program  # noqa: E402

from phobos.interpreter import run_program  # noqa: E402

REDUCTIONS = """
kernel reductions(X: tensor<f32>[R, C], RS: tensor<f32>[{tr}, 1], RM: tensor<f32>[{tr}, 1],
                  CS: tensor<f32>[{tr}, {tc}], S0: tensor<f32>[{tc}]) {{
  let x = X[0 :+ {tr}, 0 :+ {tc}]
  RS[0 :+ {tr}, 0 :+ 1] = rowsum(x)
  RM[0 :+ {tr}, 0 :+ 1] = rowmax(x)
  CS[0 :+ {tr}, 0 :+ {tc}] = cumsum(x, 1)
  S0[0 :+ {tc}] = sum(x, 0)
}}
"""

DOT = """
kernel products(A: tensor<f32>[M, K], B: tensor<f32>[N, K], C: tensor<f32>[{tm}, {tn}]) {{
  C[0 :+ {tm}, 0 :+ {tn}] = dot_t(A[0 :+ {tm}, 0 :+ {tk}], B[0 :+ {tn}, 0 :+ {tk}])
}}
"""

PADDED_MAX = """
kernel padded_max(X: tensor<f32>[R, C], RM: tensor<f32>[{tr}, 1], S0: tensor<f32>[{tc}]) {{
  let x = padded(X[0 :+ {tr}, 0 :+ {tc}], -inf)
  RM[0 :+ {tr}, 0 :+ 1] = rowmax(x)
  S0[0 :+ {tc}] = sum(where(x > -inf, x, 0.0), 0)
}}
"""

extents = st.integers(1, 24)
SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def padded(x, shape, fill=0.0):
    """`x` cut or padded with `fill` to `shape`: what a slice at the origin reads."""
    out = np.full(shape, fill)
    rows, cols = min(shape[0], x.shape[0]), min(shape[1], x.shape[1])
    out[:rows, :cols] = x[:rows, :cols]
    return out


@SETTINGS
@given(tr=extents, tc=extents, rows=extents, cols=extents, seed=st.integers(0, 2**32 - 1))
def test_reductions_and_scans_equal_numpy(tr, tc, rows, cols, seed):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-4, 4, (rows, cols)).astype(np.float32)
    outs = [np.full(s, np.nan, np.float32) for s in [(tr, 1), (tr, 1), (tr, tc), (tc,)]]
    run_program(program(REDUCTIONS.format(tr=tr, tc=tc)), [x, *outs], (1, 1, 1))
    tile = padded(x.astype(np.float64), (tr, tc))
    row_sum, row_max, running, column_sum = outs
    np.testing.assert_allclose(row_sum[:, 0], tile.sum(axis=1), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(row_max[:, 0], tile.max(axis=1).astype(np.float32))
    np.testing.assert_allclose(running, np.cumsum(tile, axis=1), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(column_sum, tile.sum(axis=0), rtol=1e-5, atol=1e-5)


@SETTINGS
@given(tr=extents, tc=extents, rows=extents, cols=extents, seed=st.integers(0, 2**32 - 1))
def test_padded_max_sees_only_the_valid_part(tr, tc, rows, cols, seed):
    """With padded(..., -inf) a row max over a ragged tile is numpy's max over
    the elements inside the tensor (-inf for a row wholly outside it)."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-4, -1, (rows, cols)).astype(np.float32)
    row_max, column_sum = np.full((tr, 1), np.nan, np.float32), np.full((tc,), np.nan, np.float32)
    run_program(program(PADDED_MAX.format(tr=tr, tc=tc)), [x, row_max, column_sum], (1, 1, 1))
    tile = padded(x.astype(np.float64), (tr, tc), fill=-np.inf)
    np.testing.assert_array_equal(row_max[:, 0], tile.max(axis=1).astype(np.float32))
    valid = x[: min(tr, rows), : min(tc, cols)].astype(np.float64).sum(axis=0)
    np.testing.assert_allclose(column_sum, padded(valid[None, :], (1, tc))[0], rtol=1e-5, atol=1e-5)


@SETTINGS
@given(tm=extents, tn=extents, tk=extents, m=extents, n=extents, k=extents, seed=st.integers(0, 2**32 - 1))
def test_dot_t_equals_numpy(tm, tn, tk, m, n, k, seed):
    rng = np.random.default_rng(seed)
    a = rng.uniform(-2, 2, (m, k)).astype(np.float32)
    b = rng.uniform(-2, 2, (n, k)).astype(np.float32)
    c = np.full((tm, tn), np.nan, np.float32)
    run_program(program(DOT.format(tm=tm, tn=tn, tk=tk)), [a, b, c], (1, 1, 1))
    expected = padded(a.astype(np.float64), (tm, tk)) @ padded(b.astype(np.float64), (tn, tk)).T
    np.testing.assert_allclose(c, expected, rtol=1e-5, atol=1e-5 * tk)
