"""Tile IR of `qdot_t` and `qmma_t` (checked by quantized.py): a loop over K in 32-element
Q8_0 blocks of ordinary tile ops, so the interpreter and both GPU paths come for free.

    acc = 0                                         // f32 [R, C]
    for t in range(0, K, 32):
        p = dot(A[r :+ R, k0 + t :+ 32], transpose(W[c :+ C, k0 + t :+ 32]))   // i32, exact
        s = AS[r :+ R, b0 + t/32 :+ 1] * WS[...]^T  // the block's scales: [R, 1] x [1, C]
        acc = acc + f32(p) * s

The i8 block sum is exact (|p| <= 32 * 128 * 128 = 2^19, exact in f32 too); in f32 the
scale product rounds once, `p * s` once and the running sum once per block, in block
order. The i8 `dot` is the one `dot_t` builds (a transpose feeding `tile.dot`), so under
`@tensorcore` it takes mma.sync m16n8k32 .s8 where the tiles fit and CUDA cores otherwise.
Loads are masked against the tensor extents as for any slice: a ragged M or N reads zero
rows (and their stores are dropped), a ragged K under `:` reads zeros past the end.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith

from phobos import builder as tb
from phobos.dialect import tile as TD

from . import ast as A
from .quantized import BLOCK, Operand, Quantized


def lower_quantized(em, e: A.Call, loc: ir.Location) -> tb.Value:
    """The f32 [R, C] result of a checked qdot_t/qmma_t call `e` (em: the KernelEmitter)."""
    q: Quantized = e.quantized
    a, a_s, w, w_s = q.operands
    starts = {op.role: em.slice_starts(op.arg) for op in q.operands}
    index = ir.IndexType.get()
    zero = arith.ConstantOp(index, 0, loc=loc).result
    block = arith.ConstantOp(index, BLOCK, loc=loc).result
    acc = tb.zeros(list(q.shape), loc=loc)
    with tb.for_range(zero, depth(em, q, loc), block, carry=[acc], loc=loc) as loop:
        t = loop.iv.value
        b = arith.DivUIOp(t, block, loc=loc).result
        x = load(em, a, starts["a"], t, BLOCK, loc)
        y = load(em, w, starts["w"], t, BLOCK, loc)
        p = tb.Value(TD.DotOp(x.value, tb.transpose(y, (1, 0), loc=loc).value, zeros_i32(q, loc), loc=loc).result)
        s_a = load(em, a_s, starts["a_scales"], b, 1, loc)  # [R, 1]
        s_w = load(em, w_s, starts["w_scales"], b, 1, loc)  # [C, 1] (qdot_t) or [1, C] (qmma_t)
        if w_s.k_axis == 1:
            s_w = tb.transpose(s_w, (1, 0), loc=loc)
        scale = tb.binary("mul", s_a, s_w, loc=loc)  # the outer product, [R, C]
        term = tb.binary("mul", tb.convert(p, "f32", loc=loc), scale, loc=loc)
        loop.yield_(tb.binary("add", loop.carried[0], term, loc=loc))
    return loop.results[0]


def load(em, op: Operand, starts: list[ir.Value], offset: ir.Value, extent: int, loc) -> tb.Value:
    """The operand's block at `offset` along K (elements, or blocks for scales): a masked slice."""
    corner = list(starts)
    if op.k_sub.kind == "full":  # the bare loop index: the mask pass proves it inside the extent
        corner[op.k_axis] = offset
    else:
        corner[op.k_axis] = arith.AddIOp(starts[op.k_axis], offset, loc=loc).result
    shape = [op.rows, op.rows]
    shape[op.k_axis] = extent
    return tb.load_slice(em.env[op.arg.base.symbol], corner, shape, loc=loc)


def zeros_i32(q: Quantized, loc) -> ir.Value:
    return tb.zeros(list(q.shape), tb.ScalarType("i32"), loc=loc).value


def depth(em, q: Quantized, loc) -> ir.Value:
    """K as an index: the slice's constant extent, or the runtime extent under `:`."""
    a = q.operands[0]
    if a.depth is not None:
        return arith.ConstantOp(ir.IndexType.get(), a.depth, loc=loc).result
    sym = em.info.dims[q.depth_dim]
    if sym.const is not None:
        return arith.ConstantOp(ir.IndexType.get(), sym.const, loc=loc).result
    return em.to_index(em.env[sym], a.arg.pos)
