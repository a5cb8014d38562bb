"""`tile.dot` on CUDA cores: register-blocked FMAs over operands in shared memory.

The kernel's layout for a dot kernel gives each thread an rm x rn sub-tile of
the accumulator (kernel_layout.dot_layout), held in registers across the loop
over K. For each k the thread reads its rm values of the left operand and rn
of the right one from their buffers (16-byte `ld.shared` where the buffer is
contiguous along the thread's run, else along k) and does rm * rn FMAs on the
accumulator vector. A dot with a long K loops over chunks of K_CHUNK.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, memref, scf, vector

from phobos.analysis.kernel_facts import element_bytes
from phobos.dialect import tile as T
from phobos.lowering.byte_to_float import byte_to_float
from phobos.lowering.byte_to_float import converts as byte_converts
from phobos.lowering.context import LoweringContext
from phobos.lowering.ir_helpers import tile_type
from phobos.lowering.registry import lowers
from phobos.lowering.shared_plan import K_CHUNK, Operand, read_vector


@lowers(T.DotOp)
def lower_dot(ctx: LoweringContext, op: ir.Operation) -> None:
    with op.location:
        lhs, rhs = ctx.shared.prepare_operands(op)
        acc = ctx.get(op.operands[2], op)
        m, n = tile_type(op.results[0]).shape
        k_extent = tile_type(op.operands[0]).shape[1]
        if k_extent > K_CHUNK and k_extent % K_CHUNK == 0:
            loop = scf.ForOp(ctx.index(0), ctx.index(k_extent), ctx.index(K_CHUNK), [acc])
            with ir.InsertionPoint(loop.body):
                inner = _products(ctx, op, lhs, rhs, loop.inner_iter_args[0], m, n, K_CHUNK, loop.induction_variable)
                scf.YieldOp([inner])
            result = loop.results[0]
        else:
            result = _products(ctx, op, lhs, rhs, acc, m, n, k_extent, None)
        ctx.values[op.results[0]] = result


def _products(ctx: LoweringContext, op, lhs: Operand, rhs: Operand, acc, m, n, k_count, k_base):
    L = ctx.layout
    acc_t = ir.VectorType(acc.type)
    acc_elem = acc_t.element_type
    a_cols = _fragments(ctx, lhs, 0, m, k_count, k_base)
    b_rows = _fragments(ctx, rhs, 1, n, k_count, k_base)
    cm, cn = len(L.offsets(0, m)), len(L.offsets(1, n))
    a_bcast = [i for i in range(cm) for _ in range(cn)]
    b_bcast = [j for _ in range(cm) for j in range(cn)]
    signed = not T.dot_unsigned(op)  # u8 operands widen by zero extension
    for k in range(k_count):
        a = vector.FromElementsOp(ir.VectorType.get([cm], a_cols[k][0].type), a_cols[k]).result
        b = vector.FromElementsOp(ir.VectorType.get([cn], b_rows[k][0].type), b_rows[k]).result
        a, b = _convert(a, acc_elem, signed), _convert(b, acc_elem, signed)
        aa = vector.ShuffleOp(a, a, a_bcast).result
        bb = vector.ShuffleOp(b, b, b_bcast).result
        if isinstance(acc_elem, ir.FloatType):
            acc = vector.FMAOp(aa, bb, acc).result
        else:
            acc = arith.AddIOp(acc, arith.MulIOp(aa, bb).result).result
    return acc


def _convert(v: ir.Value, to: ir.Type, signed: bool) -> ir.Value:
    src = ir.VectorType(v.type).element_type
    if src == to:
        return v
    t = ir.VectorType.get(ir.VectorType(v.type).shape, to)
    if isinstance(src, ir.FloatType) and isinstance(to, ir.FloatType):
        wider = ir.FloatType(to).width > ir.FloatType(src).width
        return (arith.ExtFOp(t, v) if wider else arith.TruncFOp(t, v)).result
    if isinstance(src, ir.IntegerType) and isinstance(to, ir.IntegerType):
        if to.width <= src.width:
            return arith.TruncIOp(t, v).result
        return (arith.ExtSIOp(t, v) if signed else arith.ExtUIOp(t, v)).result
    if isinstance(to, ir.FloatType):
        if byte_converts(src, to):
            return byte_to_float(v, to, signed=signed)
        return (arith.SIToFPOp(t, v) if signed else arith.UIToFPOp(t, v)).result
    return arith.FPToSIOp(t, v).result


def _fragments(ctx: LoweringContext, operand: Operand, d: int, extent: int, k_count: int, k_base):
    """For each k < k_count: the scalars of this thread's rows (lhs) or columns
    (rhs) of the operand, in register order."""
    L = ctx.layout
    buf = ctx.shared.plan.buffers[operand.buffer]
    smem = ctx.shared.views[operand.buffer]
    elem = tile_type(operand.value).element_type
    eb = element_bytes(elem)
    base = ctx.coordinate_base(d, extent)
    offs = L.offsets(d, extent)
    stage = ctx.shared.stage_offset.get(operand.source) if operand.source is not None else None
    w = read_vector(L, d, extent, k_count, eb, operand.contiguous_out)
    out = [[None] * len(offs) for _ in range(k_count)]
    if operand.contiguous_out:
        # buffer[k][o]: runs of the thread's consecutive coordinates
        start = base
        if stage is not None:
            start = arith.AddIOp(start, stage).result
        if k_base is not None:
            start = arith.AddIOp(start, arith.MulIOp(k_base, ctx.index(buf.ld)).result).result
        for k in range(k_count):
            for j in range(0, len(offs), w):
                idx = arith.AddIOp(start, ctx.index(k * buf.ld + offs[j])).result
                for x, s in enumerate(_read(smem, idx, w, elem, eb)):
                    out[k][j + x] = s
    else:
        # buffer[o][k]: vectors along k for each coordinate
        start = arith.MulIOp(base, ctx.index(buf.ld)).result
        if stage is not None:
            start = arith.AddIOp(start, stage).result
        if k_base is not None:
            start = arith.AddIOp(start, k_base).result
        for j, off in enumerate(offs):
            for k0 in range(0, k_count, w):
                idx = arith.AddIOp(start, ctx.index(off * buf.ld + k0)).result
                for x, s in enumerate(_read(smem, idx, w, elem, eb)):
                    out[k0 + x][j] = s
    return out


def _read(smem, idx, w, elem, eb) -> list[ir.Value]:
    if w == 1:
        return [memref.LoadOp(smem, [idx]).result]
    v = vector.LoadOp(ir.VectorType.get([w], elem), smem, [idx], alignment=w * eb).result
    return [vector.ExtractOp(v, [], [x]).result for x in range(w)]
