"""The builtins of issue 29 (cumsum's axis, math, argmax, iota, bit operations) in the
interpreter against NumPy, on ragged shapes with poisoned outputs in guard zones.

Each kernel is compiled by the real front end to tile IR and run by the interpreter;
the references are NumPy in float64 (or exact integers)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("mlir")

from test_interpreter import cdiv, guard_intact, guarded, program, random_tensor  # noqa: E402

from phobos.interpreter import run_program  # noqa: E402

CUMSUM = """
@autotune(BR in [16], BC in [32])
kernel cs(X: tensor<f32>[M, N], Y0: tensor<f32>[M, N], Y1: tensor<f32>[M, N], YD: tensor<f32>[M, N]) {
  let r = ctx.block.x * BR
  let c = ctx.block.y * BC
  let x = X[r :+ BR, c :+ BC]
  Y0[r :+ BR, c :+ BC] = cumsum(x, 0)
  Y1[r :+ BR, c :+ BC] = cumsum(x, 1)
  YD[r :+ BR, c :+ BC] = cumsum(x)
}
"""


def _tile_cumsum(x: np.ndarray, axis: int, br: int, bc: int) -> np.ndarray:
    """cumsum of each [br, bc] tile of x along `axis` (elements outside x read as zero)."""
    m, n = x.shape
    pad = np.zeros((cdiv(m, br) * br, cdiv(n, bc) * bc))
    pad[:m, :n] = x
    tiles = pad.reshape(cdiv(m, br), br, cdiv(n, bc), bc)
    return np.cumsum(tiles, axis=1 + 2 * axis).reshape(pad.shape)[:m, :n]


@pytest.mark.parametrize("shape", [(1, 1), (17, 33), (40, 70)])
def test_cumsum_axes_against_numpy(shape):
    prog = program(CUMSUM)
    x, xbuf = random_tensor(shape)
    outs = [guarded(shape) for _ in range(3)]
    run_program(prog, [x] + [o for o, _ in outs], (cdiv(shape[0], 16), cdiv(shape[1], 32), 1))
    x64 = x.astype(np.float64)
    for (out, buf), axis in zip(outs, (0, 1, 0)):
        np.testing.assert_allclose(out, _tile_cumsum(x64, axis, 16, 32), rtol=1e-5, atol=1e-5)
        assert guard_intact(buf, np.nan)
    assert not np.allclose(outs[0][0], outs[1][0]) or shape == (1, 1)  # the two axes differ
    assert guard_intact(xbuf, np.nan)
