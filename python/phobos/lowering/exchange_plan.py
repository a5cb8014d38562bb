"""What reductions, scans and transposes need from the plan: their exchanges and scratch buffers.

`exchange` says how a tile's dimension splits over lanes and warps (and so
whether a reduction along it crosses warps); `plan_scratch` lists the shared
memory each reduce/scan/transpose/layout conversion needs, which shared_plan.py places with
the dots' buffers under one barrier plan. The emitters are ops/exchange.py.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from mlir import ir

from phobos.dialect import tile as T
from phobos.dialect.tile import is_op
from phobos.lowering.errors import LoweringError
from phobos.lowering.ir_helpers import tile_type
from phobos.lowering.layout import Blocked

KINDS = ("sum", "max", "min")


@dataclass
class Scratch:
    """Shared memory one reduction, scan or transpose exchanges values through."""

    op: ir.Operation
    rows: int
    cols: int
    ld: int
    element: ir.Type
    what: str


@dataclass(frozen=True)
class Exchange:
    """How the threads along layout dimension d split a tile extent."""

    d: int
    inner_lanes: int  # lane-index stride of one step along d
    lane_groups: int  # distinct lane positions along d (the rest are replicas)
    warp_groups: int  # distinct warp positions along d

    @property
    def crosses_warps(self) -> bool:
        return self.warp_groups > 1


def exchange(layout: Blocked, d: int, extent: int) -> Exchange:
    inner_lanes, _ = layout.inner_strides(d)
    run = layout.run(d, extent)
    threads = layout.threads_per_warp[d] * layout.warps_per_cta[d]
    distinct = min(threads, extent // run)
    lane_groups = min(layout.threads_per_warp[d], distinct)
    return Exchange(d, inner_lanes, lane_groups, max(1, distinct // lane_groups))


def compute_type(t: ir.Type) -> ir.Type:
    """The type elements are combined in."""
    if isinstance(t, (ir.F16Type, ir.BF16Type)):
        return ir.F32Type.get()
    if isinstance(t, ir.IntegerType) and t.width < 32:
        return ir.IntegerType.get_signless(32)
    return t


def check(op: ir.Operation, layout: Blocked | None) -> None:
    """Raises LoweringError for what this lowering does not do."""
    src = tile_type(op.operands[0])
    elem = src.element_type
    if is_op(op, T.ReduceOp, T.ScanOp):
        kind = op.opview.kind
        if kind not in KINDS:
            raise LoweringError(op, f"'{op.name}' of kind '{kind}' is not supported (expected sum, max or min)")
        if isinstance(elem, ir.IntegerType) and elem.width == 1:
            raise LoweringError(op, f"'{op.name}' of i1 tiles is not supported: convert to an integer type first")
    if is_op(op, T.TransposeOp) and (src.rank != 2 or layout is None or layout.rank != 2):
        raise LoweringError(op, "tile-lower-to-gpu lowers 'tile.transpose' only of 2-D tiles in a 2-D kernel layout")


def _conversion_scratch(op: ir.Operation) -> Scratch:
    """A layout conversion's buffer: the tile row-major in its own shape (i1 kept as i8)."""
    t = tile_type(op.operands[0])
    shape = list(t.shape) or [1]
    element = t.element_type
    if isinstance(element, ir.IntegerType) and element.width == 1:
        element = ir.IntegerType.get_signless(8)
    return Scratch(op, math.prod(shape[:-1]), shape[-1], shape[-1], element, "the layout conversion")


def plan_scratch(fn: ir.Operation, layout: Blocked | None, placement, folded) -> list[Scratch]:
    """The shared memory each reduction, scan and (unfolded) transpose needs.
    `folded(op)` says whether a transpose is done by the dot lowering instead."""
    if layout is None:
        return []
    needs: list[ir.Operation] = []

    def visit(op):
        if is_op(op, *T.EXCHANGE_OPS, *T.LOCAL_OPS):
            needs.append(op)
        return ir.WalkResult.ADVANCE

    fn.walk(visit)
    out = []
    for op in needs:
        if is_op(op, *T.LOCAL_OPS):  # the local tile in shared memory for the op (ops/local_atomics.py)
            t = tile_type(op.operands[0])
            out.append(Scratch(op, 1, t.shape[0], t.shape[0], t.element_type, "the local tile"))
            continue
        check(op, layout)
        src = op.operands[0]
        shape = placement.placed_shape(src)
        if is_op(op, T.ConvertLayoutOp):
            out.append(_conversion_scratch(op))
            continue
        if is_op(op, T.TransposeOp):
            if folded(op):
                continue
            rows, cols = tile_type(src).shape
            out.append(Scratch(op, rows, cols, cols + 1, tile_type(src).element_type, "the transpose"))
            continue
        d = placement.dims_of(src)[op.opview.axis]
        if d is None:  # a unit dimension: nothing moves
            continue
        x = exchange(layout, d, shape[d])
        if not x.crosses_warps:
            continue
        lines = math.prod(s for i, s in enumerate(shape) if i != d)
        chunks = layout.count(d, shape[d]) // layout.run(d, shape[d]) if is_op(op, T.ScanOp) else 1
        what = "the reduction" if is_op(op, T.ReduceOp) else "the scan"
        out.append(
            Scratch(op, lines * chunks, x.warp_groups, x.warp_groups, compute_type(tile_type(src).element_type), what)
        )
    return out
