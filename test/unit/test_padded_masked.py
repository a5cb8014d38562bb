"""`padded(masked(X[...], m), v)`: a masked access (a gather or a slice) read with `v` where the
mask is off and where it leaves the tensor, as docs/language.md says `padded` may be put around
it (it was refused: "the first argument of 'padded' must be a slice"). Checked in the interpreter
and through the GPU lowering on the CPU (phobos.lowering.emulate), on fresh random data with
indices outside the tensor, ragged extents, poisoned outputs and guard zones, against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("mlir")

from test_gemv8_lowering import Buffer, launch  # noqa: E402

import phobos  # noqa: E402

RNG = np.random.default_rng()
GATHER = """
@launch(128)
kernel gather(X: tensor<f32>[N], I: tensor<i32>[B], Y: tensor<f32>[B]) {
  let b = ctx.block.x * 256
  let idx = I[b :+ 256]
  Y[b :+ 256] = padded(masked(X[idx], idx % 3 != 0), -7.5)
}
"""
SLICE = """
@launch(128)
kernel rows(X: tensor<f32>[N], M: tensor<i32>[N], Y: tensor<f32>[N]) {
  let b = ctx.block.x * 256
  Y[b :+ 256] = padded(masked(X[b :+ 256], M[b :+ 256] > 0), -inf)
}
"""


def _check_both_ways(monkeypatch, tmp_path, source: str, grid, inputs: list, want: np.ndarray) -> None:
    """`source` on `inputs` and a poisoned f32 output, through the emulated GPU lowering inside
    guard zones and in the interpreter: both must give `want` exactly."""
    buffers = [Buffer(a.shape, a.dtype, a, fill=3) for a in inputs]
    buffers.append(Buffer(want.shape, np.float32, np.nan, fill=9))
    launch(source, grid, buffers, aligned=False)
    np.testing.assert_array_equal(buffers[-1].view, want)
    assert all(buf.guards_intact() for buf in buffers)
    monkeypatch.setenv("PHOBOS_CACHE_DIR", str(tmp_path))
    out = np.full(want.shape, np.nan, np.float32)
    phobos.compile(source).interpret(*inputs, out)
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("n, b", [(100, 300), (1, 256), (4097, 513)])
def test_padded_masked_gather(monkeypatch, tmp_path, n, b):
    x = RNG.standard_normal(n).astype(np.float32)
    i = RNG.integers(-5, n + 5, b).astype(np.int32)  # some outside the tensor, both sides
    inside = (i >= 0) & (i < n)
    want = np.where(inside & (i % 3 != 0), x[np.clip(i, 0, n - 1)], np.float32(-7.5))
    _check_both_ways(monkeypatch, tmp_path, GATHER, (-(-b // 256),), [x, i], want)


@pytest.mark.parametrize("n", [256, 300, 7])
def test_padded_masked_slice(monkeypatch, tmp_path, n):
    x = RNG.standard_normal(n).astype(np.float32)
    m = RNG.integers(-1, 2, n).astype(np.int32)
    want = np.where(m > 0, x, np.float32(-np.inf))
    _check_both_ways(monkeypatch, tmp_path, SLICE, (-(-n // 256),), [x, m], want)
