"""tile.local_rmw: a CTA-local tile updated by atomics, through shared memory.

The plan gives the op a buffer of the tile's elements (exchange_plan.plan_scratch, "the
local tile") and barriers (shared_sync): each thread stores the elements of the tile it
holds (one replica each), a barrier, each thread applies `red.shared` for the updates it
holds where their mask holds (one replica each; the front end masked off indices outside
the tile), a barrier, and each thread reads the tile back in its own placement. Shared
atomics are exact for integers and order-free for add/max/min, so the result is the
interpreter's row-major one (f32 add up to rounding order).
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, llvm, memref, scf, vector

from phobos.analysis.kernel_facts import element_bytes
from phobos.dialect import tile as T
from phobos.lowering.context import LoweringContext
from phobos.lowering.errors import LoweringError
from phobos.lowering.ir_helpers import tile_type
from phobos.lowering.ops.atomics import REGISTER_CLASS, atomic_instruction, atomic_type_name
from phobos.lowering.registry import lowers
from phobos.lowering.shared_checks import check_shared_index
from phobos.lowering.shared_region import row_major_addresses

# (kind, element) that red.shared takes here; its operation and type are the global atomics'
# (ops/atomics.py: add.u32, add.f32, max.s64, ...)
_SHARED = {("add", "i32"), ("add", "i64"), ("add", "f32")} | {(k, t) for k in ("max", "min") for t in ("i32", "i64")}


def _store_tile(ctx: LoweringContext, smem: ir.Value, tile_old: ir.Value, op: ir.Operation) -> None:
    regs = ctx.get(tile_old, op)
    start, offsets = row_major_addresses(ctx, tile_old)

    def write():
        for flat, offset in enumerate(offsets):
            value = vector.ExtractOp(regs, [], [flat]).result
            memref.StoreOp(value, smem, [arith.AddIOp(start, ctx.index(offset)).result])

    ctx.shared._guarded(ctx.owner_guard(ctx.placement.placed_shape(tile_old), None), write)


def _apply(ctx: LoweringContext, op: ir.Operation, buffer: int, ptx: tuple[str, str], eb: int) -> None:
    """One red.shared per update this thread owns, under its mask."""
    o = op.opview
    smem = ctx.shared.views[buffer]
    i32 = ir.IntegerType.get_signless(32)
    base = ctx.at_entry(lambda: arith.IndexCastOp(i32, memref.ExtractAlignedPointerAsIndexOp(smem).result).result)
    offsets, values = ctx.get(o.offsets, op), ctx.get(o.value, op)
    mask = ctx.get(o.mask, op) if o.mask is not None else None
    guard = ctx.owner_guard(ctx.placement.placed_shape(o.offsets), ctx.placement.dims_of(o.offsets))
    text = f"red.shared.{ptx[0]} [$0], $1;"
    bits = ir.IntegerType.get_signless(eb * 8)
    for j in range(ir.VectorType(ctx.vtype(o.offsets)).shape[0]):
        cond = vector.ExtractOp(mask, [], [j]).result if mask is not None else None
        if guard is not None:
            cond = guard if cond is None else arith.AndIOp(cond, guard).result
        index = vector.ExtractOp(offsets, [], [j]).result
        value = vector.ExtractOp(values, [], [j]).result
        branch = scf.IfOp(cond) if cond is not None else None
        with ir.InsertionPoint(branch.then_block) if branch is not None else _here():
            check_shared_index(ctx, op, buffer, index)
            offset = arith.MulIOp(arith.IndexCastOp(i32, index).result, ctx.const(eb, i32)).result
            address = arith.AddIOp(base, offset).result
            if value.type != bits:
                value = arith.BitcastOp(bits, value).result
            llvm.InlineAsmOp(None, [address, value], text, f"r,{ptx[1]}", has_side_effects=True)
            if branch is not None:
                scf.YieldOp([])


def _here() -> ir.InsertionPoint:
    return ir.InsertionPoint.current


@lowers(T.LocalRMWOp)
def lower_local_rmw(ctx: LoweringContext, op: ir.Operation) -> None:
    o = op.opview
    element = tile_type(o.tile).element_type
    name, eb = atomic_type_name(element), element_bytes(element)
    if (o.kind, name) not in _SHARED:
        raise LoweringError(op, f"'{op.name}' op: no shared-memory atomic {o.kind} on {element}")
    ptx = (atomic_instruction(o.kind, name), REGISTER_CLASS[8 * eb])
    shared = ctx.shared
    buffer = shared.plan.scratch[op]
    smem = shared.views[buffer]
    with op.location:
        shared.barrier_if((op, "write"))
        _store_tile(ctx, smem, o.tile, op)
        shared.barrier_if((op, "atomic"))
        _apply(ctx, op, buffer, ptx, eb)
        shared.barrier_if((op, "read"))
        res = op.results[0]
        start, offsets = row_major_addresses(ctx, res)
        parts = [memref.LoadOp(smem, [arith.AddIOp(start, ctx.index(k)).result]).result for k in offsets]
        ctx.values[res] = vector.FromElementsOp(ctx.vtype(res), parts).result
