"""`while` loops and single elements: scf.while with its scf.condition, and tensor.extract.

scf.while carries per-thread registers like scf.for (ops/control_flow.py):
the loop's operands, block arguments and results change type with the tiles
they carry, and both regions are lowered in place. Its condition is a
scalar, the same in every thread of the CTA (the language's conditions are
scalars; frontend/exit_ir.py turns `break`, `continue` and `return` into
such loops and flags), so the threads of a CTA never diverge around a barrier
inside the loop. Upstream lowers scf.while to branches in the llvm stage.

A single element `A[i, j]` is a slice with every extent 1 and a
`tensor.extract` of its only element: every thread holds that element (a
tile of extent 1 is replicated over the layout), so the extract is the
thread's one register. The slice is masked like any other: out of bounds it
reads zero (or its fill value), and a store of one element is made by one
thread only, under the slice's mask (ops/memory.py).
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import scf, tensor, vector

from phobos.lowering.context import LoweringContext
from phobos.lowering.errors import PASS, LoweringError
from phobos.lowering.registry import lowers


def _lower_region(ctx: LoweringContext, old: ir.Block, region: ir.Region) -> None:
    """Lowers the one block of `old` into a new block of `region`, arguments retyped."""
    block = region.blocks.append(*[ctx.vtype(a) for a in old.arguments], arg_locs=[a.location for a in old.arguments])
    for a, b in zip(old.arguments, block.arguments):
        ctx.values[a] = b
    with ir.InsertionPoint(block):
        ctx.lower_block(old)


@lowers(scf.WhileOp)
def lower_while(ctx: LoweringContext, op: ir.Operation) -> None:
    inits = [ctx.get(v, op) for v in op.operands]
    loop = scf.WhileOp([ctx.vtype(r) for r in op.results], inits, loc=op.location)
    _lower_region(ctx, op.regions[0].blocks[0], loop.before)
    _lower_region(ctx, op.regions[1].blocks[0], loop.after)
    for old, new in zip(op.results, loop.results):
        ctx.values[old] = new


@lowers(scf.ConditionOp)
def lower_condition(ctx: LoweringContext, op: ir.Operation) -> None:
    cond, *carried = (ctx.get(v, op) for v in op.operands)
    scf.ConditionOp(cond, carried, loc=op.location)


@lowers(tensor.ExtractOp)
def lower_extract(ctx: LoweringContext, op: ir.Operation) -> None:
    source = op.operands[0]
    shape = list(ir.RankedTensorType(source.type).shape)
    if any(n != 1 for n in shape):
        raise LoweringError(
            op,
            f"'{op.name}' op reads one element of a tile of {shape}; {PASS} reads single elements "
            "of slices with every extent 1 (A[i, j])",
        )
    registers = ctx.get(source, op)
    ctx.values[op.results[0]] = vector.ExtractOp(registers, static_position=[0], dynamic_position=[]).result
