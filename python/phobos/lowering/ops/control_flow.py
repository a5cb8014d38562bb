"""Control flow: scf.for, scf.if and their yields carry per-thread registers; the kernel's
return and tile.barrier become the gpu dialect's.

Loop-carried values and branch results change type with the tiles they carry
(tensors become the registers' vectors); the bodies are lowered in place.
Pipelined loops are not lowered here: the plan gives them their own emitter
(ops/dots.py).
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import func, gpu, scf

from phobos.dialect import tile as T
from phobos.lowering.context import LoweringContext
from phobos.lowering.registry import lowers


@lowers(T.BarrierOp)
def lower_barrier(ctx: LoweringContext, op: ir.Operation) -> None:
    gpu.BarrierOp(loc=op.location)


@lowers(scf.ForOp)
def lower_for(ctx: LoweringContext, op: ir.Operation) -> None:
    o = op.opview
    lb, ub, step = (ctx.get(v, op) for v in (o.lowerBound, o.upperBound, o.step))
    inits = [ctx.get(v, op) for v in o.initArgs]
    loop = scf.ForOp(lb, ub, step, inits, loc=op.location)
    body = o.body
    ctx.values[body.arguments[0]] = loop.induction_variable
    for old, new in zip(list(body.arguments)[1:], loop.inner_iter_args):
        ctx.values[old] = new
    with ir.InsertionPoint(loop.body):
        ctx.lower_block(body)
    for old, new in zip(op.results, loop.results):
        ctx.values[old] = new


@lowers(scf.IfOp)
def lower_if(ctx: LoweringContext, op: ir.Operation) -> None:
    o = op.opview
    has_else = len(op.regions[1].blocks) > 0
    new = scf.IfOp(ctx.get(o.condition, op), [ctx.vtype(r) for r in op.results], has_else=has_else, loc=op.location)
    with ir.InsertionPoint(new.then_block):
        ctx.lower_block(op.regions[0].blocks[0])
    if has_else:
        with ir.InsertionPoint(new.else_block):
            ctx.lower_block(op.regions[1].blocks[0])
    for old, r in zip(op.results, new.results):
        ctx.values[old] = r


@lowers(scf.YieldOp)
def lower_yield(ctx: LoweringContext, op: ir.Operation) -> None:
    scf.YieldOp([ctx.get(v, op) for v in op.operands], loc=op.location)


@lowers(func.ReturnOp)
def lower_return(ctx: LoweringContext, op: ir.Operation) -> None:
    gpu.ReturnOp([], loc=op.location)
