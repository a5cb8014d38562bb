"""tile-elide-masks: drop the masks the axis facts make unnecessary and record
the widest legal vector access of every tile memory op."""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, memref

from phobos.analysis.access import AccessFacts, access_facts
from phobos.analysis.axis_info import AxisInfoAnalysis
from phobos.analysis.remarks import emit_remark
from phobos.dialect import kernel as K
from phobos.dialect import tile as T
from phobos.dialect.tile import is_op, ops_of
from phobos.passes.registry import Option, tile_pass


def _without_mask(op: ir.Operation) -> ir.Operation:
    """The offset-form op rebuilt without its mask operand (same attributes and location)."""
    view = op.opview
    with ir.InsertionPoint(op), op.location:
        if isinstance(view, T.LoadOp):
            new = T.LoadOp(view.base, view.offsets).operation
            op.results[0].replace_all_uses_with(new.results[0])
        else:
            new = T.StoreOp(view.value, view.base, view.offsets).operation
    for name in op.attributes:  # iterating attributes gives their names
        new.attributes[name] = op.attributes[name]
    op.erase()
    return new


def _check_dropped_mask(op: ir.Operation) -> None:
    """Check mode: the mask about to be dropped is verified all-true on the device instead."""
    view = op.opview
    message = f"tile-elide-masks dropped this {op.name}'s mask, proven all-true"
    with ir.InsertionPoint(op), op.location:
        T.CheckOp(view.mask, view.offsets, "mask", message)


def _check_in_bounds(op: ir.Operation, in_bounds: list[bool]) -> None:
    """Check mode: each dimension of a slice access marked in bounds is verified on the
    device: 0 <= start and start + tile extent <= the tensor's extent."""
    view = op.opview
    tile = ir.RankedTensorType((op.results[0] if is_op(op, T.LoadSliceOp) else view.value).type).shape
    index = ir.IndexType.get()
    with ir.InsertionPoint(op), op.location:
        for d, start in enumerate(view.starts):
            if not in_bounds[d]:
                continue
            extent = memref.DimOp(view.base, arith.ConstantOp(index, d).result).result
            end = arith.AddIOp(start, arith.ConstantOp(index, tile[d]).result).result
            inside = arith.AndIOp(
                arith.CmpIOp(arith.CmpIPredicate.sge, start, arith.ConstantOp(index, 0).result).result,
                arith.CmpIOp(arith.CmpIPredicate.sle, end, extent).result,
            ).result
            message = (
                f"this {op.name} lies inside its tensor along dimension {d} (0 <= start, start + {tile[d]} "
                "<= extent), so its mask there was dropped; the value is the start"
            )
            T.CheckOp(inside, start, "bounds", message)


def _apply(op: ir.Operation, facts: AccessFacts, checked: bool) -> ir.Operation:
    drop_mask = facts.drop_mask and not is_op(op, *T.ATOMIC_OPS)
    if checked and facts.in_bounds is not None and any(facts.in_bounds):
        _check_in_bounds(op, facts.in_bounds)
    if checked and drop_mask:
        _check_dropped_mask(op)
    if facts.in_bounds is not None:
        op.attributes[K.IN_BOUNDS] = ir.DenseBoolArrayAttr.get(facts.in_bounds)
    if drop_mask:
        op = _without_mask(op)
    op.attributes[K.VECTOR_WIDTH] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), facts.vector_width)
    return op


def _in_check_mode(op: ir.Operation) -> bool:
    parent = op.parent
    while parent is not None and not K.is_kernel(parent):
        parent = parent.parent
    return parent is not None and K.CHECK_MODE in parent.attributes


@tile_pass(
    "tile-elide-masks",
    options={
        "remarks": Option(
            bool, False, "print a remark for each access narrower than 16 bytes, naming the missing fact"
        ),
    },
)
def tile_elide_masks(module: ir.Operation, pass_, remarks: bool = False) -> None:
    """Marks what the axis facts prove about each tile memory access, for the
    lowering. Slice accesses (`tile.load_slice`, `tile.store_slice`) get
    `in_bounds = array<i1: ...>`: true for each dimension that never leaves
    the tensor (the start is a non-negative multiple of the tile extent and
    the extent a whole number of tiles, from @aligned, static shapes or
    specialisation; a tile is taken to start inside its tensor, as the launch
    grid and loop bounds make it). Offset accesses (`tile.load`,
    `tile.store`) lose their mask operand when it is proven all-true. Every
    one of the four gets `vector_width = N : i64`: the widest access, in
    elements along the last dimension (a power of two, at most 16 bytes),
    that alignment, contiguity and masks allow (phobos/analysis/access.py).
    With `remarks=true`, each access narrower than it could be gets a remark
    naming the missing fact. In a kernel in check mode (tile.check_mode,
    tile-insert-checks) each dropped mask and each in-bounds dimension becomes a
    tile.check, verified on the device.

    Before: "tile.load_slice"(%X, %r, %c) : (memref<?x?xf32>, index, index) -> tensor<32x128xf32>
    After:  "tile.load_slice"(%X, %r, %c) {in_bounds = array<i1: true, true>, vector_width = 4 : i64} : ...
    """
    analysis = AxisInfoAnalysis(module)
    accesses = ops_of(module, T.MEMORY_OPS + T.ATOMIC_OPS)  # atomics: the width that pairs f16 adds
    # Decide everything first: rewriting an op creates new values.
    decided = [(op, access_facts(op, analysis)) for op in accesses]
    for op, facts in decided:
        assert facts is not None  # every access collected is a slice or offset op
        name, location = op.name, op.location
        _apply(op, facts, _in_check_mode(op))
        if remarks and facts.vector_width < facts.possible_width and facts.missing:
            emit_remark(location, f"{name}: {facts.vector_width}-element accesses: " + "; ".join(facts.missing))
