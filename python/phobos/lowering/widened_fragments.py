"""Dot operands widened from 8 bits in registers: `dot_t(x, f16(w_i8))` on mma.sync.

A decode GEMV or skinny GEMM with 8-bit weights multiplies f16 activations by
f16(W): the weights are bytes in memory and the tensor cores take f16 here.
Converting the tile before the dot gives the converted tile the accumulator's
layout, so W was loaded two bytes per thread and stored back as f16 (the
8-bit GEMV at 16 tokens ran at 0.03-0.09x the copy ceiling). Instead the plan
folds the conversion into the dot (shared_plan._widened_load): the load is
staged as bytes, 16 per cp.async and so through @pipeline's rings, and the
emitter reads each thread's fragment as byte pairs from the buffer and widens
them exactly (byte_to_float: exponent bits, no cvt).

mma.sync m16n8k16's f16 fragments hold pairs of elements consecutive along k
(fragments.py: b0, b1 at k = 2t, 2t + 1 and b2, b3 at 2t + 8, 2t + 9 of
column g; A likewise for rows g and g + 8), so a buffer that runs along k
([n][k] for B, as `dot_t` writes it; [m][k] for A) gives each pair as one
2-byte `ld.shared`, widened by one `prmt`, one xor and one f16x2 subtraction
(byte_to_float.byte_pair_to_f16x2), or for fp8 by one `cvt.rn.f16x2.e4m3x2`
(or e5m2; sm_89 and newer, as fp8.py's conversions). With rows padded by 16 bytes (mma.padded_ld) the 8 rows a
warp reads at once start in 8 different bank groups and the 4 threads of a
row share two words: no bank conflicts.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, memref, nvvm, vector

from phobos.dialect.fp8 import FP8_TYPES
from phobos.lowering.byte_to_float import byte_pair_to_f16x2, is_byte_to_float
from phobos.lowering.errors import LoweringError
from phobos.lowering.fp8 import conversion_refusal, is_fp8_conversion, language_name
from phobos.lowering.ir_helpers import element_type, where


def widens(op: ir.Operation) -> bool:
    """Whether `op` is a conversion the mma.sync dot folds into its fragment reads: i8, u8, f8e4m3 or
    f8e5m2 to f16."""
    if not isinstance(element_type(op.results[0].type), ir.F16Type):
        return False
    return is_byte_to_float(op) or (isinstance(op.opview, arith.ExtFOp) and is_fp8_conversion(op))


def widened_report(operands: dict) -> list[dict]:
    """For each planned dot operand ((dot, role) -> shared_plan.Operand) widened in registers: where
    its dot is, which operand, how it is read (the contract's tensor_cores.widened, phobos explain)."""
    out = []
    for (dot, role), o in operands.items():
        if o.widened is None:
            continue
        elem = element_type(o.value.type)
        how = "cvt.rn.f16x2 per pair" if isinstance(elem, FP8_TYPES) else "prmt, xor, sub.f16x2"
        reads = f"{language_name(elem)} bytes staged as they are, each fragment pair one 2-byte ld.shared"
        out.append({"at": where(dot), "operand": role, "reads": f"{reads} widened to f16 ({how})"})
    return out


class WidenedReader:
    """Reads f16 fragments of one widened operand's byte buffer (an operand with `widened` set)."""

    def __init__(self, smem, operand, stage: ir.Value | None):
        ctx = smem.ctx
        self.ctx = ctx
        convert = operand.widened
        self.signed = isinstance(convert.opview, arith.SIToFPOp)
        self.fp8 = element_type(convert.operands[0].type) if isinstance(convert.opview, arith.ExtFOp) else None
        if self.fp8 is not None:
            refusal = conversion_refusal(ctx.chip, self.fp8, ir.F16Type.get())
            if refusal is not None:
                raise LoweringError(convert, refusal)
        self.half_ld = smem.plan.buffers[operand.buffer].ld // 2  # rows in 2-byte words (padded_ld: whole)
        self.view = smem.view_as(
            operand.buffer, ir.IntegerType.get_signless(16), 2
        )  # its offset and rows are whole 16 bytes
        self.stage = None if stage is None else arith.DivUIOp(stage, ctx.index(2)).result
        lane = ctx.at_entry(lambda: arith.RemUIOp(ctx.tid, ctx.index(32)).result)
        self.group = ctx.at_entry(lambda: arith.DivUIOp(lane, ctx.index(4)).result)  # g: the row a lane holds
        self.pair = ctx.at_entry(lambda: arith.RemUIOp(lane, ctx.index(4)).result)  # t: its pair along k

    def a_fragment(self, row0: ir.Value, row_step: int, k0: int) -> ir.Value:
        """m16n8k16's A fragment (vector<4x2xf16>): rows g and g + row_step of the tile from `row0`
        (the warps' rows interleave: mma_accumulator), at k0 + 2t and k0 + 8 + 2t."""
        top = arith.AddIOp(row0, self.group).result
        bottom = arith.AddIOp(top, self.ctx.index(row_step)).result
        return self._fragment([(top, k0), (bottom, k0), (top, k0 + 8), (bottom, k0 + 8)])

    def b_fragment(self, col0: ir.Value, k0: int) -> ir.Value:
        """m16n8k16's B fragment (vector<2x2xf16>) of the n8 tile from `col0`: column g at k0 + 2t
        and k0 + 8 + 2t, from a buffer holding B^T as [n][k]."""
        col = arith.AddIOp(col0, self.group).result
        return self._fragment([(col, k0), (col, k0 + 8)])

    def _fragment(self, pairs: list[tuple[ir.Value, int]]) -> ir.Value:
        """vector<N x 2 x f16>: row x is the byte pair pairs[x] = (row, k): elements k + 2t, k + 2t + 1."""
        ctx = self.ctx
        f16 = ir.F16Type.get()
        out = vector.BroadcastOp(ir.VectorType.get([len(pairs), 2], f16), ctx.const(0.0, f16)).result
        for x, (row, k) in enumerate(pairs):  # 2-byte word k / 2 + t of the row
            idx = arith.AddIOp(arith.MulIOp(row, ctx.index(self.half_ld)).result, self.pair).result
            idx = arith.AddIOp(idx, ctx.index(k // 2)).result
            if self.stage is not None:
                idx = arith.AddIOp(idx, self.stage).result
            out = vector.InsertOp(self._widen(memref.LoadOp(self.view, [idx]).result), out, [], [x]).result
        return out

    def _widen(self, pair: ir.Value) -> ir.Value:
        """Two bytes (an i16, the first in its low half) as vector<2xf16>."""
        if self.fp8 is None:
            return byte_pair_to_f16x2(arith.ExtUIOp(ir.IntegerType.get_signless(32), pair).result, self.signed)
        i16, i8 = ir.IntegerType.get_signless(16), ir.IntegerType.get_signless(8)
        codes = vector.BitCastOp(ir.VectorType.get([2], i8), vector.BroadcastOp(ir.VectorType.get([1], i16), pair))
        f16x2 = ir.VectorType.get([2], ir.F16Type.get())
        return nvvm.ConvertF8x2ToF16x2Op(f16x2, codes.result, ir.TypeAttr.get(self.fp8)).result  # cvt.rn.f16x2.e4m3x2
