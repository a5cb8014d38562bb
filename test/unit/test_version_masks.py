"""tile-version-masks on the CPU: a select on a bounds mask in a loop runs the select only on
the blocks it masks (the emulated lowering computes the same elements on full and ragged
extents), and the attention kernel's full key blocks carry no select."""

import numpy as np
import pytest

pytest.importorskip("mlir")

from test_compiler_emulated import run  # noqa: E402

from phobos.compiler import compile_stages  # noqa: E402

RNG = np.random.default_rng(20261207)

_COLUMN_MAX = """
@launch(32)
kernel column_max(X: tensor<f32>[M, N], Y: tensor<f32>[M, 64]) {
  let i = ctx.block.x
  var acc: tile<f32>[1, 64] = -inf
  for j in range(0, N, 64) {
    acc = tmax(acc, where(arange(64) + j < N, X[i :+ 1, j :+ 64], -inf))
  }
  Y[i :+ 1, 0 :+ 64] = acc
}
"""


def test_the_select_is_versioned_in_the_loop():
    from mlir import ir

    from phobos.compiler.pass_manager import run_pipeline
    from phobos.dialect import make_context

    with make_context():
        module = ir.Module.parse(compile_stages(_COLUMN_MAX, until="tile")["tile"])
        run_pipeline(module, "builtin.module(tile-elide-masks, tile-narrow-compares, tile-version-masks)")
        selects = []

        def visit(op):
            if op.name == "arith.select":
                selects.append(op)
            return ir.WalkResult.ADVANCE

        module.operation.walk(visit)
        assert len(selects) == 1
        branch = selects[0].parent
        assert branch.name == "scf.if" and selects[0].block == branch.regions[1].blocks[0]  # the else branch
        assert branch.parent.name == "scf.for"


@pytest.mark.parametrize("n", [256, 200, 64, 37])
def test_versioned_mask_computes_the_same_elements(n):
    # Every value negative: a load past N reads 0, which a skipped mask would let win the max.
    m = 3
    x = -np.abs(RNG.standard_normal((m, n)).astype(np.float32)) - 1.0
    y = np.full((m + 1, 64), np.nan, np.float32)  # a guard row past M
    assert not run(_COLUMN_MAX, (m, 1), x, y[:m])
    want = np.full((m, 64), -np.inf)
    for j in range(0, n, 64):
        block = x[:, j : j + 64].astype(np.float64)
        want[:, : block.shape[1]] = np.maximum(want[:, : block.shape[1]], block)
    np.testing.assert_array_equal(y[:m], want.astype(np.float32))
    assert np.isnan(y[m]).all()
