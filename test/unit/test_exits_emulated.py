"""`while`, `break`, `continue`, `return` and single elements lowered to the GPU's form
(ops/loops.py: scf.while, scf.condition, tensor.extract) and run on the CPU thread by
thread (phobos.lowering.emulate) against Python/NumPy references on ragged shapes: the
kernels of test_exits_interp.py that need no barrier."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("mlir")

from test_compiler_emulated import run  # noqa: E402
from test_exits_interp import (  # noqa: E402
    EARLY,
    ELEMENTS,
    FIRST_ABOVE,
    MASKED_ELEMENTS,
    NESTED,
    masked_elements_reference,
)

from phobos.compiler import compile_stages  # noqa: E402

RNG = np.random.default_rng(2323)


def _values(shape, dtype=np.float32):
    return (RNG.uniform(0.5, 2.0, shape) * RNG.choice([-1, 1], shape)).astype(dtype)


@pytest.mark.parametrize("shape", [(1, 1), (5, 9), (13, 40)])
def test_while_break_single_element_read(shape):
    x = _values(shape)
    out = np.full(shape[0], -77, np.int32)
    assert not run(FIRST_ABOVE, (shape[0],), x, out, np.float32(1.5))
    want = [next((c for c in range(shape[1]) if x[r, c] > 1.5), -1) for r in range(shape[0])]
    np.testing.assert_array_equal(out, want)
    assert "scf.while" in compile_stages(FIRST_ABOVE, until="gpu")["gpu"]


@pytest.mark.parametrize("n,limit", [(0, 9), (4, 2), (9, 1), (3, 0)])
def test_return_continue_break(n, limit):
    size = 150
    x = _values(size)
    y = np.full(size, np.nan, np.float32)
    assert not run(EARLY, (3,), x, y, np.int32(n), np.int32(limit))
    scale = sum(i for i in range(n) if i != 2 and i <= 5)
    for b in range(3):
        part = slice(64 * b, min(64 * b + 64, size))
        if b >= limit:
            assert np.all(np.isnan(y[part])), b
        else:
            np.testing.assert_allclose(y[part], scale * x[part].astype(np.float64), rtol=1e-6)


@pytest.mark.parametrize("n", [0, 3, 6])
def test_nested_loops_return_from_inner(n):
    out = np.full(4, -77, np.int32)
    assert not run(NESTED, (4,), out, np.int32(n))

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

    np.testing.assert_array_equal(out, [reference(r) for r in range(4)])


@pytest.mark.parametrize("shape", [(1, 1), (6, 11)])
def test_single_elements_masked(shape):
    a = _values(shape)
    n, m = shape[::-1]
    flat = np.full(n * m + 6000, np.nan, np.float32)  # b, then memory the masked writes would hit
    b = flat[: n * m].reshape(n, m)
    assert not run(ELEMENTS, (shape[0],), a, b)
    np.testing.assert_array_equal(b, (a.astype(np.float64) + 1.0).T.astype(np.float32))
    assert np.all(np.isnan(flat[n * m :]))


@pytest.mark.parametrize("shape", [(1, 1), (6, 11)])
def test_masked_single_elements(shape):
    """masked(X[i, j], m) read and written: a tile of one element on the GPU (rank-0 tiles have no
    lowering; this was an internal error, found by the fuzzer)."""
    a = _values(shape)
    n, m = shape[::-1]
    flat = np.full(n * m + 6000, np.nan, np.float32)  # b, then memory the masked writes would hit
    b = flat[: n * m].reshape(n, m)
    assert not run(MASKED_ELEMENTS, (shape[0],), a, b, np.float32(0.25))
    np.testing.assert_array_equal(b, masked_elements_reference(a, 0.25))
    assert np.all(np.isnan(flat[n * m :]))


PLACED = """
kernel placed(X: tensor<f32>[M, 64], Z: tensor<f32>[M, 64], Y: tensor<f32>[M, 64], n: i32) {
  let r = ctx.block.x * 4
  var acc: tile<f32>[64] = 0.0           // a row, carried by a while in a kernel of 2-D tiles
  var i = 0
  while i < n {
    if i == 5 {
      break
    }
    acc += X[r + i % 4, 0 :+ 64]
    i = i + 1
  }
  Y[r :+ 4, 0 :+ 64] = Z[r :+ 4, 0 :+ 64] + acc
}
"""


@pytest.mark.parametrize("n", [0, 3, 9])
def test_while_carries_a_row_in_a_2d_kernel(n):
    """The carried row keeps the placement of its initial value in both regions (placement.py)."""
    m = 10
    x, z = _values((m, 64)), _values((m, 64))
    y = np.full((m, 64), np.nan, np.float32)
    assert not run(PLACED, (3,), x, z, y, np.int32(n))
    xp = np.zeros((12, 64))
    xp[:m] = x
    for b in range(3):
        acc = sum(xp[4 * b + i % 4] for i in range(min(n, 5))) if n else np.zeros(64)
        rows = slice(4 * b, min(4 * b + 4, m))
        np.testing.assert_allclose(y[rows], z[rows] + acc, rtol=1e-6, atol=1e-6)
