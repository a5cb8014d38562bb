"""fp8 conversions on the GPU: PTX `cvt` on pairs of elements, through the NVVM dialect.

LLVM has no fp8 types: MLIR's LLVM lowering carries f8E4M3FN and f8E5M2 as i8
(loads, stores and constants move the bytes as they are) and leaves
`arith.extf`/`arith.truncf` on them unconverted. tile-lower-to-gpu therefore
converts a thread's registers two elements at a time with the NVVM ops that
become `cvt.rn.satfinite.e4m3x2.f32` / `.e5m2x2.f32` (to fp8: nearest even,
saturating to the largest finite value, NaN stays NaN, as phobos.fp8 and the
interpreter do) and `cvt.rn.f16x2.e4m3x2` / `.e5m2x2` (from fp8, exact),
with the exact f16/bf16 <-> f32 and f16 -> f64 conversions around them. Both
instructions need sm_90 with PTX ISA 7.8, or sm_89 with PTX ISA 8.1 (LLVM
cannot select them otherwise, which would end the process): elsewhere the
conversion is a located error naming the requirement. A thread's odd last
element is converted beside a zero, and its half of the result is dropped.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mlir import ir
from mlir.dialects import arith, nvvm, vector

from phobos import elements
from phobos.dialect.fp8 import FP8_TYPES
from phobos.lowering.errors import LoweringError
from phobos.lowering.ir_helpers import element_type, target_ptx
from phobos.target import chip_number

if TYPE_CHECKING:
    from phobos.lowering.context import LoweringContext

MIN_SM = 89  # cvt between f32/f16x2 and e4m3x2/e5m2x2
SM89_PTX = 81  # ... on sm_89 from PTX ISA 8.1 (sm_90 and later: 7.8, below Phobos's floor of 8.0)


def is_fp8_conversion(op: ir.Operation) -> bool:
    """An `arith.extf` from an fp8 type or an `arith.truncf` to one."""
    if isinstance(op.opview, arith.ExtFOp):
        return _is_fp8(op.operands[0].type)
    return isinstance(op.opview, arith.TruncFOp) and _is_fp8(op.results[0].type)


def _is_fp8(t: ir.Type) -> bool:
    return isinstance(element_type(t), FP8_TYPES)


def language_name(t: ir.Type) -> str:
    """The language's spelling of an MLIR element type (f8E4M3FN is f8e4m3, i1 is bool)."""
    return elements.language_name(str(t))


def conversion_refusal(chip: str, src: ir.Type, dst: ir.Type) -> str | None:
    """Why the target cannot convert `src` to `dst` (one of them fp8), or None."""
    sm = chip_number(chip)
    if sm >= 90 or (sm == MIN_SM and target_ptx() >= SM89_PTX):
        return None
    fp8 = src if _is_fp8(src) else dst
    instruction = f"cvt.rn.f16x2.{_ptx_name(fp8)}x2" if _is_fp8(src) else f"cvt.rn.satfinite.{_ptx_name(fp8)}x2.f32"
    what = f"converting {language_name(src)} to {language_name(dst)} needs {instruction}"
    if sm == MIN_SM:
        return f"{what}, which sm_89 has from PTX ISA 8.1: compile with the features +ptx{SM89_PTX}"
    return f"{what}, which needs sm_89 or later; the target is {chip}"


def lower_fp8_conversion(ctx: LoweringContext, op: ir.Operation, value: ir.Value) -> None:
    """The registers of `op` (is_fp8_conversion) from `value`, the registers of its operand."""
    src, dst = element_type(op.operands[0].type), element_type(op.results[0].type)
    refusal = conversion_refusal(ctx.chip, src, dst)
    if refusal is not None:
        raise LoweringError(op, refusal)
    scalar = not isinstance(value.type, ir.VectorType)
    with op.location:
        regs = vector.BroadcastOp(ir.VectorType.get([1], src), value).result if scalar else value
        out = _from_fp8(regs, src, dst) if _is_fp8(src) else _to_fp8(regs, src, dst)
        ctx.values[op.results[0]] = vector.ExtractOp(out, [], [0]).result if scalar else out


def _ptx_name(fp8: ir.Type) -> str:
    return "e4m3" if isinstance(fp8, ir.Float8E4M3FNType) else "e5m2"


def _elements(v: ir.Value) -> list[ir.Value]:
    return [vector.ExtractOp(v, [], [i]).result for i in range(ir.VectorType(v.type).shape[0])]


def _from_fp8(v: ir.Value, fp8: ir.Type, dst: ir.Type) -> ir.Value:
    """vector<n x fp8> -> vector<n x dst>: cvt.rn.f16x2 per pair of bytes, then f16 -> dst (exact)."""
    n = ir.VectorType(v.type).shape[0]
    f16 = ir.F16Type.get()
    codes = arith.BitcastOp(ir.VectorType.get([n], ir.IntegerType.get_signless(8)), v).result
    halves: list[ir.Value] = []
    for i in range(0, n, 2):
        pair = vector.ShuffleOp(codes, codes, [i, min(i + 1, n - 1)]).result
        # Element j of the pair (the low byte first) becomes element j of the f16 pair.
        converted = nvvm.ConvertF8x2ToF16x2Op(ir.VectorType.get([2], f16), pair, ir.TypeAttr.get(fp8)).result
        halves += _elements(converted)
    out = vector.FromElementsOp(ir.VectorType.get([n], f16), halves[:n]).result
    if isinstance(dst, ir.F16Type):
        return out
    wide = dst if isinstance(dst, (ir.F32Type, ir.F64Type)) else ir.F32Type.get()
    out = arith.ExtFOp(ir.VectorType.get([n], wide), out).result
    if wide != dst:  # bf16: every fp8 value is one, so the rounding is exact
        out = arith.TruncFOp(ir.VectorType.get([n], dst), out).result
    return out


def _to_fp8(v: ir.Value, src: ir.Type, fp8: ir.Type) -> ir.Value:
    """vector<n x src> (f16, bf16 or f32) -> vector<n x fp8>: src -> f32 (exact), then cvt.rn.satfinite per pair."""
    n = ir.VectorType(v.type).shape[0]
    f32 = ir.F32Type.get()
    if not isinstance(src, ir.F32Type):
        v = arith.ExtFOp(ir.VectorType.get([n], f32), v).result
    values = _elements(v)
    if n % 2:
        values.append(arith.ConstantOp(f32, ir.FloatAttr.get(f32, 0.0)).result)
    i8 = ir.IntegerType.get_signless(8)
    codes: list[ir.Value] = []
    for i in range(0, n, 2):
        # cvt puts its first operand in the high byte: the pair's second element goes first.
        pair = nvvm.ConvertF32x2ToF8x2Op(
            ir.VectorType.get([2], i8),
            values[i + 1],
            values[i],
            ir.TypeAttr.get(fp8),
            rnd=nvvm.FPRoundingMode.RN,
            sat=nvvm.SaturationMode.SATFINITE,
        ).result
        codes += _elements(pair)
    packed = vector.FromElementsOp(ir.VectorType.get([n], i8), codes[:n]).result
    return arith.BitcastOp(ir.VectorType.get([n], fp8), packed).result
