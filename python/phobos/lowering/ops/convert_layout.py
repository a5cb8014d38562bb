"""tile.convert_layout: a tile moved between the threads of a CTA through shared memory.

tile-convert-layouts gives a value a second placement where it needs one (a
1-D tile used as a row and as a column of the kernel's layout). Each thread
writes the elements it holds in the source placement to a scratch buffer laid
out row-major in the tile's own shape (one replica of each element: the
owner guard), a barrier follows, and each thread reads the elements the
result placement gives it. The buffer and both barriers come from the plan
(exchange_plan.plan_scratch, shared_sync), like a transpose's.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, memref, vector

from phobos.dialect import tile as T
from phobos.lowering.context import LoweringContext
from phobos.lowering.ir_helpers import tile_type
from phobos.lowering.registry import lowers
from phobos.lowering.shared_region import row_major_addresses


@lowers(T.ConvertLayoutOp)
def lower_convert_layout(ctx: LoweringContext, op: ir.Operation) -> None:
    src_old, res_old = op.operands[0], op.results[0]
    shared = ctx.shared
    buffer = shared.plan.scratch[op]
    smem, stored = shared.views[buffer], shared.plan.elements[buffer]
    element = tile_type(src_old).element_type
    with op.location:
        src = ctx.get(src_old, op)
        start, offsets = row_major_addresses(ctx, src_old)
        shared.barrier_if((op, "write"))

        def write():
            for flat, offset in enumerate(offsets):
                value = vector.ExtractOp(src, [], [flat]).result
                if stored != element:  # i1 is kept as i8 in shared memory
                    value = arith.ExtUIOp(stored, value).result
                memref.StoreOp(value, smem, [arith.AddIOp(start, ctx.index(offset)).result])

        shared._guarded(ctx.owner_guard(ctx.placement.placed_shape(src_old), None), write)
        shared.barrier_if((op, "read"))
        start, offsets = row_major_addresses(ctx, res_old)
        parts = []
        for offset in offsets:
            value = memref.LoadOp(smem, [arith.AddIOp(start, ctx.index(offset)).result]).result
            parts.append(value if stored == element else arith.TruncIOp(element, value).result)
        ctx.values[res_old] = vector.FromElementsOp(ctx.vtype(res_old), parts).result
