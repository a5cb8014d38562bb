"""tile-convert-layouts: insert a tile.convert_layout where one value would need two placements."""

from __future__ import annotations

from mlir import ir

from phobos.dialect import kernel as K
from phobos.dialect import tile as T
from phobos.lowering.errors import LoweringError
from phobos.lowering.placement import Placement, PlacementConflict
from phobos.passes.registry import tile_pass


def _convert(conflict: PlacementConflict) -> None:
    """Gives the value of `conflict` a second copy for its op: a convert_layout
    before the op when the value is an operand, after it (taking every other
    use) when it is a result. The copy is placed on its own, so the op's
    placement no longer reaches the value's other uses."""
    op, value = conflict.op, conflict.value
    if isinstance(value, ir.OpResult) and value.owner == op:
        convert = T.ConvertLayoutOp(value, loc=op.location, ip=ir.InsertionPoint.after(op))
        value.replace_all_uses_except(convert.result, convert.operation)
        return
    index = next(i for i, v in enumerate(op.operands) if v == value)
    convert = T.ConvertLayoutOp(value, loc=op.location, ip=ir.InsertionPoint(op))
    op.operands[index] = convert.result


@tile_pass("tile-convert-layouts")
def tile_convert_layouts(module: ir.Operation, pass_) -> None:
    """Makes every tile of a kernel placeable in its one layout. A kernel holds
    its tiles in one blocked layout, lower-rank tiles as slices of it; a
    value used both as a row and as a column (a 1-D tile stored into a row
    and, scaled, into a column; a row statistic reshaped both ways) would need
    two placements. Where the placement analysis finds one, this pass inserts
    `tile.convert_layout` (Triton's convert_layout): the same tile, placed on
    its own, which tile-lower-to-gpu moves between threads through shared
    memory (a write, a barrier, a read; tile-allocate-shared gives it a buffer
    and tile-insert-barriers its barriers). Kernels that need none are unchanged.

    Before: `%v` of type tensor<32xf32> reshaped to tensor<1x32xf32> and, via
    `%w = arith.mulf %v, ...`, to tensor<32x1xf32>.
    After: the second reshape reads `%c = "tile.convert_layout"(%w)`.
    """
    for fn in K.kernels(module):
        limit = sum(1 for _ in T.ops_of(fn)) + 1  # each conversion cuts one constraint
        for _ in range(limit):
            try:
                Placement(fn)
                break
            except PlacementConflict as conflict:
                _convert(conflict)
            except LoweringError:
                break  # not placeable for another reason: tile-lower-to-gpu reports it
