"""Gathers and scatters with index tiles (issue 23, item 3): `X[idx]`, `X[rows, 0 :+ D]`,
`X[rows, cols]`, `masked(X[...], m)`, as reads and assignment targets.

Each kernel runs in the interpreter and, lowered to gpu.func, on the CPU emulator
(phobos.lowering.emulate), on random data with ragged shapes, out-of-bounds and
negative indices, poisoned outputs and guard zones, against NumPy in float64.
"""

import numpy as np
import pytest

pytest.importorskip("mlir")

from test_compiler_emulated import run as run_emulated  # noqa: E402
from test_interpreter import guard_intact, guarded, program  # noqa: E402

from phobos.compiler import CompileError  # noqa: E402
from phobos.frontend import check_source  # noqa: E402
from phobos.interpreter import run_program  # noqa: E402

RNG = np.random.default_rng(2323)

EMBED = """
kernel embed(W: tensor<f32>[V, D], I: tensor<i32>[B], Y: tensor<f32>[B, D]) {
  let b = ctx.block.x
  let c = ctx.block.y
  let rows = I[b * 16 :+ 16]
  Y[b * 16 :+ 16, c * 32 :+ 32] = W[rows, c * 32 :+ 32]
}
"""

PAIRS = """
kernel pairs(X: tensor<f32>[M, N], R: tensor<i64>[B], C: tensor<i32>[B], Y: tensor<f32>[B]) {
  let b = ctx.block.x * 64
  Y[b :+ 64] = X[R[b :+ 64], C[b :+ 64]] + 1.0
}
"""

COLUMNS = """
kernel columns(X: tensor<f32>[M, N], C: tensor<i32>[K], Y: tensor<f32>[M, K]) {
  let r = ctx.block.x * 8
  let cols = C[0 :+ 16]
  Y[r :+ 8, 0 :+ 16] = X[r :+ 8, cols]
}
"""

SCATTER = """
kernel scatter(X: tensor<f32>[N], I: tensor<i32>[M], V: tensor<f32>[M]) {
  let b = ctx.block.x * 64
  let idx = I[b :+ 64]
  let v = V[b :+ 64]
  masked(X[idx], v > 0.0) = v
}
"""

MASKED_READ = """
kernel masked_read(X: tensor<f32>[N], I: tensor<i32>[M], Y: tensor<f32>[M]) {
  let b = ctx.block.x * 32
  let idx = I[b :+ 32]
  Y[b :+ 32] = masked(X[idx], idx % 2 == 0)
}
"""


def indices(n, extent, dtype=np.int32):
    """Random indices of [0, extent) with a few out of bounds (negative and past the end)."""
    idx = RNG.integers(0, extent, size=n).astype(dtype)
    bad = RNG.choice(n, size=max(1, n // 8), replace=False)
    idx[bad[: len(bad) // 2]] = -RNG.integers(1, 5, size=len(bad) // 2)
    idx[bad[len(bad) // 2 :]] = extent + RNG.integers(0, 5, size=len(bad) - len(bad) // 2)
    return idx


def gathered(table, idx):
    out = np.zeros((len(idx),) + table.shape[1:], np.float64)
    ok = (idx >= 0) & (idx < table.shape[0])
    out[ok] = table[idx[ok]]
    return out


def both(src, grid, *args):
    """Runs `src` in the interpreter and on the emulator on copies of `args`; returns both copies."""
    a = [x.copy() if isinstance(x, np.ndarray) else x for x in args]
    run_program(program(src), a, grid)
    b = [x.copy() if isinstance(x, np.ndarray) else x for x in args]
    run_emulated(src, grid[:2], *b)
    return a, b


@pytest.mark.parametrize("v,d,b", [(50, 40, 37), (7, 32, 16)])
def test_embedding_rows_gather(v, d, b):
    w = RNG.standard_normal((v, d)).astype(np.float32)
    idx = indices(b, v)
    y, ybuf = guarded((b, d))
    grid = (-(-b // 16), -(-d // 32), 1)
    run_program(program(EMBED), [w, idx, y], grid)
    np.testing.assert_array_equal(y, gathered(w.astype(np.float64), idx))
    assert guard_intact(ybuf, np.nan)
    y2 = np.full((b, d), np.nan, np.float32)
    run_emulated(EMBED, grid[:2], w, idx, y2)
    np.testing.assert_array_equal(y2, y)


def test_elementwise_pairs_gather():
    m, n, b = 13, 29, 100
    x = RNG.standard_normal((m, n)).astype(np.float32)
    r, c = indices(b, m, np.int64), indices(b, n)
    a, e = both(PAIRS, (2, 1, 1), x, r, c, np.full(b, np.nan, np.float32))
    ok = (r >= 0) & (r < m) & (c >= 0) & (c < n)
    want = np.where(ok, x.astype(np.float64)[np.clip(r, 0, m - 1), np.clip(c, 0, n - 1)], 0.0) + 1.0
    np.testing.assert_array_equal(a[3], want.astype(np.float32))
    np.testing.assert_array_equal(e[3], a[3])


def test_span_then_index_tile_gathers_columns():
    m, n, k = 19, 23, 16
    x = RNG.standard_normal((m, n)).astype(np.float32)
    c = indices(k, n)
    a, e = both(COLUMNS, (3, 1, 1), x, c, np.full((m, k), np.nan, np.float32))
    want = gathered(x.T.astype(np.float64), c).T
    np.testing.assert_array_equal(a[2], want.astype(np.float32))
    np.testing.assert_array_equal(e[2], a[2])


def test_masked_scatter_writes_only_where_the_mask_holds_and_in_bounds():
    n, m = 300, 128
    idx = RNG.permutation(n + 40)[:m].astype(np.int32) - 20  # distinct, some out of bounds
    v = RNG.standard_normal(m).astype(np.float32)
    a, e = both(SCATTER, (2, 1, 1), np.full(n, -7.0, np.float32), idx, v)
    want = np.full(n, -7.0, np.float32)
    ok = (idx >= 0) & (idx < n) & (v > 0)
    want[idx[ok]] = v[ok]
    np.testing.assert_array_equal(a[0], want)
    np.testing.assert_array_equal(e[0], want)


def test_masked_read_gives_zero_where_masked_off():
    n, m = 45, 64
    x = RNG.standard_normal(n).astype(np.float32)
    idx = indices(m, n)
    a, e = both(MASKED_READ, (2, 1, 1), x, idx, np.full(m, np.nan, np.float32))
    want = np.where(idx % 2 == 0, gathered(x.astype(np.float64), idx), 0.0)
    np.testing.assert_array_equal(a[2], want.astype(np.float32))
    np.testing.assert_array_equal(e[2], a[2])


def errors(src):
    with pytest.raises(CompileError) as info:
        check_source(src, "bad.ph")
    return str(info.value)


def test_index_tile_of_floats_is_an_error_at_the_subscript():
    text = errors("kernel k(X: tensor<f32>[N], Y: tensor<f32>[N]) {\n  let f = X[0 :+ 32]\n  Y[0 :+ 32] = X[f]\n}\n")
    assert "bad.ph:3:18: error: an index tile must hold integers, got tile<f32>[32]" in text


def test_index_tiles_that_do_not_broadcast_are_an_error():
    text = errors(
        "kernel k(X: tensor<f32>[M, N], I: tensor<i32>[N], Y: tensor<f32>[N]) {\n"
        "  Y[0 :+ 32] = X[I[0 :+ 32], I[0 :+ 16]]\n"
        "}\n"
    )
    assert "do not broadcast: [32] and [16]" in text


def test_mask_of_masked_must_be_bool_of_a_broadcasting_shape():
    text = errors(
        "kernel k(X: tensor<f32>[N], I: tensor<i32>[N], Y: tensor<f32>[N]) {\n"
        "  let i = I[0 :+ 32]\n"
        "  Y[0 :+ 32] = masked(X[i], i)\n"
        "  Y[0 :+ 32] = masked(X[i], I[0 :+ 16] > 0)\n"
        "}\n"
    )
    assert "bad.ph:3:29: error: the mask of 'masked' must be bool, got tile<i32>[32]" in text
    assert "has shape [16], which does not broadcast to the access's [32] (nor is it the index tiles' shape)" in text
