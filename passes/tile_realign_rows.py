"""tile-realign-rows: 16-byte accesses on rows whose pitch is not a multiple of 16 bytes."""

from __future__ import annotations

from mlir import ir

from phobos.analysis.row_realign import REALIGN_REFERENCE, REALIGN_WIDTH, realign_plan
from phobos.dialect import kernel as K
from phobos.lowering.device_checks import in_check_mode
from phobos.lowering.kernel_layout import layout_attr, read_kernel_layout
from phobos.lowering.layout import choose_blocked
from phobos.passes.registry import tile_pass


@tile_pass("tile-realign-rows")
def tile_realign_rows(module: ir.Operation, pass_) -> None:
    """Rotates the tile rows of elementwise 2-D kernels so that rows with an odd pitch are
    read and written in 16-byte vectors. A kernel qualifies when its tiles are all one 2-D
    shape, its only tile ops are slice loads and stores with the same starts, elementwise
    arith/math and splats (analysis/row_realign.py says why that makes the rotation
    invisible), and some access is narrower than 16 bytes because a row pitch is not known
    to be a multiple of 16 bytes. Each access is marked with `tile.realign_width` (W,
    elements per 16-byte vector) and `tile.realign_reference` (the tensor whose row
    addresses set the rotation), and the kernel gets a layout with W elements per thread
    along the rows (an existing `tile.layout` is kept when it has that shape; otherwise
    the kernel is left alone). Kernels in check mode are left alone: their accesses keep
    the checked lowering.

    Before: `"tile.load_slice"(%X, %r, %c) {vector_width = 1 : i64}` in a scale kernel
    whose X has an odd pitch.
    After: the same op with `tile.realign_width = 4 : i64, tile.realign_reference = 0 : i64`
    and the kernel with `tile.layout = #tile.blocked<array<i64: 1, 4>, ...>`.
    """
    i64 = ir.IntegerType.get_signless(64)
    for fn in K.kernels(module):
        if in_check_mode(fn):
            continue
        plan = realign_plan(fn)
        if plan is None:
            continue
        given = read_kernel_layout(fn)
        layout = given or choose_blocked(plan.shape, K.launch(fn)["threads"], plan.width)
        if layout.rank != 2 or layout.order[0] != 1 or layout.run(1, plan.shape[1]) != plan.width:
            continue  # a hand-written layout whose threads do not hold 16-byte runs along the rows
        if given is None:
            fn.attributes[K.LAYOUT] = layout_attr(layout)
        for op in plan.accesses:
            op.attributes[REALIGN_WIDTH] = ir.IntegerAttr.get(i64, plan.width)
            op.attributes[REALIGN_REFERENCE] = ir.IntegerAttr.get(i64, plan.reference)
