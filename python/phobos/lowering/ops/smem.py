"""Loads the plan staged into shared memory, and transposes it folded into a buffer's read order.

A staged `tile.load_slice` never visits registers: at its place it becomes a
cooperative copy from global memory into its buffer (after the barrier the
plan asks for), or nothing inside a pipelined loop, whose ring issued the
copy ahead. A folded `tile.transpose` emits nothing: its dot reads the buffer
in the transposed order; nor does a folded widening (`f16(w_i8)`), whose dot
widens the bytes it reads (widened_fragments.py).
"""

from __future__ import annotations

from mlir import ir

from phobos.lowering.context import LoweringContext
from phobos.lowering.registry import lowers


@lowers(role="staged")
def lower_staged_load(ctx: LoweringContext, op: ir.Operation) -> None:
    smem = ctx.shared
    if op in smem.plan.ring_of:
        return
    operand = smem.plan.staged[op]
    with op.location:
        smem.barrier_if((op, "copy"))
        smem.copy(op, operand.buffer, None, asynchronous=False)


@lowers(role="folded")
def lower_folded_transpose(ctx: LoweringContext, op: ir.Operation) -> None:
    """Nothing to emit: the operand's buffer is read in the transposed order, or widened as it is read."""
