"""The two compiler fixes behind the decode GEMV kernels with 8-bit weights (issue 25, item 5),
checked through the lowering on the CPU (phobos.lowering.emulate: thread by thread, so small
kernels without barriers) on fresh random data with ragged shapes, poisoned outputs and guard
zones around every buffer, against NumPy in float64:

* the layout counts the proven vector width of a lower-rank memory tile whose last dimension
  sits at the layout's last (kernel_layout._slice_widths): [T, 1, K] f16 tokens times [N, K] i8
  weights, the shape of gemv_i8.ph, gets 16 elements per thread;
* a reshape of a tile whose dimensions all have extent 1 is placed (placement._widen_reshaped):
  the row reduction of a [1, 1, C] accumulator, gemv_q8_0.ph at TT = 1 in small, and
  gemv_q8_0.ph at TT = 1 itself, whose reshapes keep their placed shapes.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("mlir")

from mlir import ir  # noqa: E402
from mlir.dialects import tensor  # noqa: E402

from phobos.analysis.abi import TensorParam, abi_entries, describe_params  # noqa: E402
from phobos.compiler import compile_stages  # noqa: E402
from phobos.contract.specialization import SpecKey, tensor_facts  # noqa: E402
from phobos.dialect import kernel as K  # noqa: E402
from phobos.dialect import make_context  # noqa: E402
from phobos.dialect.tile import ops_of  # noqa: E402
from phobos.lowering.emulate import Emulated  # noqa: E402
from phobos.lowering.placement import Placement  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
RNG = np.random.default_rng()
GUARD = 16  # guard elements before and after every view (16 bytes or more: the view stays aligned)
WEIGHTED = """
@launch(32)
kernel weighted(X: tensor<f16>[T, 1, K], W: tensor<i8>[N, K], Y: tensor<f32>[T, N, K]) {
  let t0 = ctx.block.y * 2
  let n0 = ctx.block.x * 2
  for k in range(0, K, 512) {
    Y[t0 :+ 2, n0 :+ 2, k :+ 512] = f32(X[t0 :+ 2, 0 :+ 1, k :+ 512]) * f32(W[n0 :+ 2, k :+ 512])
  }
}
"""
ROWS = """
@launch(32)
kernel rows(X: tensor<f32>[T, KB, 4], Q: tensor<i8>[N, KB, 4], D: tensor<f32>[N, KB, 1], Y: tensor<f32>[T, N]) {
  let n0 = ctx.block.x * 2
  let t0 = ctx.block.y
  var y: tile<f32>[1, 2] = 0.0
  for r in range(0, 2) {
    var acc: tile<f32>[1, 1, 4] = 0.0
    for b in range(0, KB) {
      let wd = f32(Q[n0 + r :+ 1, b :+ 1, :]) * D[n0 + r :+ 1, b :+ 1, :]
      acc = fma(X[t0 :+ 1, b :+ 1, :], wd, acc)
    }
    y = where(arange(2) == i32(r), rowsum(sum(acc, 1)), y)
  }
  Y[t0 :+ 1, n0 :+ 2] = y
}
"""


class Buffer:
    """A view inside guard zones: `pad` extra elements after each row (the last dimension),
    a 16-byte aligned first element, GUARD elements of `fill` before and after."""

    def __init__(self, shape, dtype, values=None, pad=0, fill=0):
        shape = tuple(shape)
        strides = [1]
        for extent in reversed(shape[1:]):
            strides.insert(0, strides[0] * (extent + pad if len(strides) == 1 else extent))
        size = 2 * GUARD + strides[0] * shape[0]
        raw = np.full(size + 16, fill, dtype=dtype)
        start = (-raw.ctypes.data % 16) // raw.itemsize
        self.buf = raw[start : start + size]
        itemsize = self.buf.itemsize
        self.view = np.lib.stride_tricks.as_strided(self.buf[GUARD:], shape, tuple(s * itemsize for s in strides))
        if values is not None:
            self.view[...] = values
        inside = np.zeros(size, bool)
        offsets = GUARD + sum(np.arange(e).reshape([-1 if i == d else 1 for i in range(len(shape))]) * st
                              for d, (e, st) in enumerate(zip(shape, strides)))  # fmt: skip
        inside[np.ravel(offsets)] = True
        self.outside = ~inside
        self.guards = self.buf[self.outside].copy()

    def guards_intact(self) -> bool:
        return np.array_equal(self.buf[self.outside], self.guards, equal_nan=True)


def launch(source: str, grid, buffers: list[Buffer], aligned: bool):
    """Compiles `source` (the variant for these buffers when `aligned`, else the generic one),
    runs it on the CPU; returns the gpu stage's text."""
    with make_context():
        module = ir.Module.parse(compile_stages(source, until="tile")["tile"])
        fn = next(iter(K.kernels(module)))
        params = describe_params(fn)
        threads = K.launch(fn)["threads"]
        entries = abi_entries(params)
    tensors = dict(zip([p.name for p in params if isinstance(p, TensorParam)], buffers))
    key = None
    if aligned:
        facts = {n: tensor_facts(b.view.ctypes.data, b.view.shape, _elements(b.view)) for n, b in tensors.items()}
        key = SpecKey(facts).to_text()
    gpu = compile_stages(source, key=key, until="gpu")["gpu"]
    values = []
    for e in entries:
        view = buffers[e["param"]].view
        if e["kind"] == "ptr":
            values.append(view)
        elif e["kind"] == "extent":
            values.append(view.shape[e["axis"]])
        else:
            values.append(_elements(view)[e["axis"]])
    assert not Emulated(gpu)(grid, threads, *values)
    return gpu


def _elements(view: np.ndarray) -> tuple[int, ...]:
    return tuple(s // view.itemsize for s in view.strides)


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


@pytest.mark.parametrize("aligned, shape", [(True, (3, 5, 1040)), (True, (1, 2, 512)), (False, (3, 5, 1001))])
def test_lower_rank_weights_get_16_element_runs(aligned, shape):
    """Y[t, n, k] = x[t, k] w[n, k]: in the aligned variant W's [2, 512] tile gives each thread
    16 i8 per run (one 16-byte load), X's two 8-element halves; ragged T, N and K (a partial
    chunk); the generic variant on padded rows computes the same."""
    t, n, k = shape
    pad = 0 if aligned else 3
    x = Buffer((t, 1, k), np.float16, RNG.standard_normal((t, 1, k)), pad=pad, fill=7)
    w = Buffer((n, k), np.int8, RNG.integers(-128, 128, (n, k)), pad=pad, fill=7)
    y = Buffer((t, n, k), np.float32, np.nan, pad=pad, fill=7)
    gpu = launch(WEIGHTED, (_cdiv(n, 2), _cdiv(t, 2)), [x, w, y], aligned)
    if aligned:
        assert set(re.findall(r"vector\.load .*: memref<\?xi8>, (vector<\w+>)", gpu)) == {"vector<16xi8>"}
        assert set(re.findall(r"vector\.load .*: memref<\?xf16>, (vector<\w+>)", gpu)) == {"vector<8xf16>"}
    want = x.view.astype(np.float64) * w.view.astype(np.float64)[None]
    np.testing.assert_array_equal(y.view, want)  # an f16 x i8 product is exact in f32
    assert all(b.guards_intact() for b in (x, w, y))


@pytest.mark.parametrize("shape", [(1, 5, 3), (2, 4, 7), (3, 1, 1)])
def test_row_reduction_of_a_unit_accumulator(shape):
    """gemv_q8_0.ph at TT = 1 in small: the [1, 1, 4] accumulator's rowsum(sum(acc, 1)) is a
    [1] tile reshaped to [1, 1], whose one dimension the placement may move. Every thread holds
    the whole tile (4 f32 per run, no lane across it): no shuffle, no barrier."""
    t, n, kb = shape
    x = Buffer((t, kb, 4), np.float32, RNG.standard_normal((t, kb, 4)), fill=7)
    q = Buffer((n, kb, 4), np.int8, RNG.integers(-128, 128, (n, kb, 4)), fill=7)
    d = Buffer((n, kb, 1), np.float32, RNG.uniform(1e-3, 2e-2, (n, kb, 1)), fill=7)
    y = Buffer((t, n), np.float32, np.nan, pad=3, fill=7)
    gpu = launch(ROWS, (_cdiv(n, 2), t), [x, q, d, y], aligned=True)
    assert "gpu.shuffle" not in gpu
    terms = np.einsum("tbj,nbj->tnbj", x.view.astype(np.float64), q.view * d.view.astype(np.float64))
    want, size = terms.sum(axis=(2, 3)), np.abs(terms).sum(axis=(2, 3))
    bound = (4 * kb + 2) * 2.0**-24 * size  # one rounding of q d, one per addition
    assert np.all(np.abs(y.view - want) <= bound), np.max(np.abs(y.view - want) / np.maximum(bound, 1e-30))
    assert all(b.guards_intact() for b in (x, q, d, y))


def test_gemv_q8_0_at_one_token_keeps_placed_shapes():
    """The reshapes of gemv_q8_0.ph at TT = 1 (rowsum's [1] to [1, 1] among them) are placed,
    and each keeps its placed shape (the lowering passes their registers through)."""
    path = ROOT / "bench" / "kernels" / "gemv_q8_0.ph"
    text = compile_stages(str(path), defines={"TT": 1, "BR": 2, "KV": 2, "W": 256}, until="tile")["tile"]
    with make_context():
        module = ir.Module.parse(text)  # kept alive: the ops below live in it
        fn = next(iter(K.kernels(module)))
        placement = Placement(fn)
        reshapes = ops_of(fn, (tensor.ExpandShapeOp, tensor.CollapseShapeOp))
        assert reshapes
        for op in reshapes:
            assert placement.placed_shape(op.operands[0]) == placement.placed_shape(op.results[0]), op
