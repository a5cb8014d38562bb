"""`while`, `break`, `continue`, `return` and single elements (issue 23, items 1 and 2) in the
interpreter against NumPy: each kernel goes through the real front end (checker, the rewrite of
exits into flags in frontend/exit_ir.py, tile IR) and runs on ragged shapes, with poisoned
outputs in guard zones. The references are plain Python/NumPy loops in float64."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("mlir")

from test_interpreter import cdiv, guard_intact, guarded, program, random_tensor  # noqa: E402

from phobos.interpreter import run_program  # noqa: E402

RNG = np.random.default_rng(23)

FIRST_ABOVE = """
kernel first_above(X: tensor<f32>[M, N], I: tensor<i32>[M], t: f32) {
  let r = ctx.block.x
  var found: i32 = -1
  var c = 0
  while c < N {
    if X[r, c] > t {
      found = i32(c)
      break
    }
    c = c + 1
  }
  I[r] = found
}
"""


@pytest.mark.parametrize("shape", [(1, 1), (5, 9), (13, 40)])
def test_while_break_single_element_read(shape):
    x, xbuf = random_tensor(shape)
    out, obuf = guarded((shape[0],), np.int32, fill=-77)
    run_program(program(FIRST_ABOVE), [x, out, 1.5], (shape[0], 1, 1))
    want = [next((c for c in range(shape[1]) if x[r, c] > 1.5), -1) for r in range(shape[0])]
    np.testing.assert_array_equal(out, want)
    assert guard_intact(obuf, -77) and guard_intact(xbuf, np.nan)


TOPK = """
@autotune(BN in [64])
kernel topk(X: tensor<f32>[M, N], V: tensor<f32>[M, K], I: tensor<i32>[M, K]) {
  let r = ctx.block.x
  var x = padded(X[r :+ 1, 0 :+ BN], -inf)   // N <= BN
  var j = 0
  while j < K {
    let m = max(x)
    if m == -inf {
      break                                   // fewer than K elements in the row
    }
    let at = argmax(x)
    V[r, j] = m
    I[r, j] = at
    x = where(arange(BN) == at, -inf, x)
    j = j + 1
  }
}
"""


@pytest.mark.parametrize("m,n,k", [(1, 1, 3), (7, 50, 5), (3, 4, 8)])
def test_row_topk_while_break(m, n, k):
    x, _ = random_tensor((m, n))
    v, vbuf = guarded((m, k))
    i, ibuf = guarded((m, k), np.int32, fill=-77)
    run_program(program(TOPK), [x, v, i], (m, 1, 1))
    for r in range(m):
        order = np.argsort(-x[r].astype(np.float64), kind="stable")[:k]
        got = min(k, n)
        np.testing.assert_array_equal(v[r, :got], x[r, order])
        np.testing.assert_array_equal(i[r, :got], order)
        assert np.all(np.isnan(v[r, got:])) and np.all(i[r, got:] == -77)  # past the break: untouched
    assert guard_intact(vbuf, np.nan) and guard_intact(ibuf, -77)


EARLY = """
kernel early(X: tensor<f32>[N], Y: tensor<f32>[N], n: i32, limit: i32) {
  let s = ctx.block.x * 64
  if i32(ctx.block.x) >= limit {
    return
  }
  var acc: tile<f32>[64] = 0.0
  for i in range(0, n) {
    if i == 2 {
      continue
    }
    if i > 5 {
      break
    }
    acc += f32(i) * X[s :+ 64]
  }
  Y[s :+ 64] = acc
}
"""


@pytest.mark.parametrize("n,limit", [(0, 9), (4, 2), (9, 1), (3, 0)])
def test_return_continue_break(n, limit):
    size = 150
    x, _ = random_tensor((size,))
    y, ybuf = guarded((size,))
    run_program(program(EARLY), [x, y, n, limit], (cdiv(size, 64), 1, 1))
    scale = sum(i for i in range(n) if i != 2 and i <= 5)
    for b in range(cdiv(size, 64)):
        part = slice(64 * b, min(64 * b + 64, size))
        if b >= limit:
            assert np.all(np.isnan(y[part])), b  # the CTA returned before its store
        else:
            np.testing.assert_allclose(y[part], scale * x[part].astype(np.float64), rtol=1e-6)
    assert guard_intact(ybuf, np.nan)


NESTED = """
kernel nested(C: tensor<i32>[R], n: i32) {
  let r = ctx.block.x
  var count: i32 = 0
  for i in range(0, n) {
    for j in range(0, n) {
      if j > i {
        break                                 // the inner loop only
      }
      if (i + j) % 3 == 0 {
        continue
      }
      count = count + 1
      if count == 7 + i32(r) {
        C[r] = count * 100
        return
      }
    }
  }
  C[r] = count
}
"""


@pytest.mark.parametrize("n", [0, 3, 6])
def test_nested_loops_return_from_inner(n):
    rows = 4
    out, obuf = guarded((rows,), np.int32, fill=-77)
    run_program(program(NESTED), [out, n], (rows, 1, 1))

    def reference(r):
        count = 0
        for i in range(n):
            for j in range(n):
                if j > i:
                    break
                if (i + j) % 3 == 0:
                    continue
                count += 1
                if count == 7 + r:
                    return count * 100
        return count

    np.testing.assert_array_equal(out, [reference(r) for r in range(rows)])
    assert guard_intact(obuf, -77)


ELEMENTS = """
kernel transpose_elems(A: tensor<f32>[M, N], B: tensor<f32>[N, M]) {
  let i = ctx.block.x
  for j in range(0, N + 2) {                  // two past the end: masked read 0, dropped write
    B[j, i] = A[i, j] + 1.0
  }
  B[0, i + 5000] = 7.0                        // out of bounds: dropped
}
"""


@pytest.mark.parametrize("shape", [(1, 1), (6, 11)])
def test_single_elements_masked(shape):
    a, abuf = random_tensor(shape)
    b, bbuf = guarded(shape[::-1])
    run_program(program(ELEMENTS), [a, b], (shape[0], 1, 1))
    np.testing.assert_array_equal(b, (a.astype(np.float64) + 1.0).T.astype(np.float32))
    assert guard_intact(bbuf, np.nan) and guard_intact(abuf, np.nan)


MASKED_ELEMENTS = """
kernel masked_elems(A: tensor<f32>[M, N], B: tensor<f32>[N, M], lim: f32) {
  let i = ctx.block.x
  for j in range(0, N + 2) {                  // two past the end: the bounds mask as well
    let v = masked(A[i, j], A[i, j] > lim)    // zero where not above lim
    masked(B[j, i], j % 2 == 0) = v + 1.0     // even j only: the odd ones keep their poison
  }
}
"""


def masked_elements_reference(a: np.ndarray, lim: float) -> np.ndarray:
    """B of MASKED_ELEMENTS: NaN (the poison) in the odd rows."""
    v = np.where(a > lim, a, 0.0).astype(np.float64) + 1.0
    b = v.T.astype(np.float32)
    b[1::2, :] = np.nan
    return b


@pytest.mark.parametrize("shape", [(1, 1), (6, 11)])
def test_masked_single_elements(shape):
    a, abuf = random_tensor(shape)
    b, bbuf = guarded(shape[::-1])
    run_program(program(MASKED_ELEMENTS), [a, b, np.float32(0.25)], (shape[0], 1, 1))
    np.testing.assert_array_equal(b, masked_elements_reference(a, 0.25))
    assert guard_intact(bbuf, np.nan) and guard_intact(abuf, np.nan)


def test_topk_rows_bench_kernel():
    """bench/kernels/topk_rows.ph (the GPU test's kernel): N <= BN, fewer than K elements stop early."""
    from test_interpreter import example

    prog = example("bench/kernels/topk_rows.ph")
    for m, n, k in ((3, 1000, 16), (4, 5, 9)):
        x, _ = random_tensor((m, n))
        v, vbuf = guarded((m, k))
        i, ibuf = guarded((m, k), np.int32, fill=-77)
        run_program(prog, [x, v, i], (m, 1, 1))
        got = min(k, n)
        order = np.argsort(-x.astype(np.float64), axis=1, kind="stable")[:, :got]
        np.testing.assert_array_equal(i[:, :got], order)
        np.testing.assert_array_equal(v[:, :got], np.take_along_axis(x, order, axis=1))
        assert np.all(i[:, got:] == -77) and guard_intact(vbuf, np.nan) and guard_intact(ibuf, -77)
