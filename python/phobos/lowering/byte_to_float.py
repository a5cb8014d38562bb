"""8-bit integers to f32 or f16 through the exponent bits, not `cvt`.

`cvt.rn.f32.s8` (SASS `I2F.S8`) issues at a quarter of the FMA rate on sm_80
and sm_90, so a decode GEMV with int8 weights, which converts every weight
byte it reads, ran out of conversion throughput before it ran out of memory
bandwidth (64 `I2F` per 64 weights, 0.71x copy on the H100). An unsigned byte
u placed in the low mantissa bits under the exponent of 2^23 is the f32
2^23 + u exactly; subtracting 2^23 gives u, and for a signed byte v, u = v xor
0x80 = v + 128 and the subtraction is of 2^23 + 128. f16 does the same under
2^10 (1024 + u, u < 256, is exact in f16's 10 mantissa bits). Every step is
exact, so the result is the `cvt`'s bit for bit. In SASS (test/Target/
sass-gemv-8bit.ph) each element is a byte extract (PRMT or LOP3), an OR and
an FADD, and the sign flip one LOP3 per four bytes: all at full or half rate,
where I2F is at a quarter. bf16 keeps `cvt`: its 7 mantissa bits cannot hold
128 + u.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, nvvm, vector

from phobos.lowering.ir_helpers import element_type

# (exponent bits OR-ed over the byte, the float they make with a zero byte) per destination width
_MAGIC = {32: (0x4B000000, 8388608.0), 16: (0x6400, 1024.0)}


def _with_element(t: ir.Type, elem: ir.Type) -> ir.Type:
    return ir.VectorType.get(ir.VectorType(t).shape, elem) if isinstance(t, ir.VectorType) else elem


def _splat(t: ir.Type, value) -> ir.Value:
    elem = element_type(t)
    attr = ir.FloatAttr.get(elem, value) if isinstance(elem, ir.FloatType) else ir.IntegerAttr.get(elem, value)
    if isinstance(t, ir.VectorType):
        attr = ir.DenseElementsAttr.get_splat(t, attr)
    return arith.ConstantOp(t, attr).result


def converts(src: ir.Type, dst: ir.Type) -> bool:
    """Whether byte_to_float converts element type `src` to `dst`: i8 (or u8) to f32 or f16."""
    return isinstance(src, ir.IntegerType) and ir.IntegerType(src).width == 8 and _float_width(dst) in _MAGIC


def is_byte_to_float(op: ir.Operation) -> bool:
    """An `arith.sitofp`/`arith.uitofp` from i8 to f32 or f16."""
    if not isinstance(op.opview, (arith.SIToFPOp, arith.UIToFPOp)):
        return False
    return converts(element_type(op.operands[0].type), element_type(op.results[0].type))


def _float_width(t: ir.Type) -> int | None:
    return 32 if isinstance(t, ir.F32Type) else 16 if isinstance(t, ir.F16Type) else None


def byte_to_float(value: ir.Value, to: ir.Type, signed: bool) -> ir.Value:
    """`value` (i8 or vector of i8) as floats of element type `to` (f32 or f16), exactly."""
    width = _float_width(to)
    assert width in _MAGIC, to
    bits, base = _MAGIC[width]
    byte_t = value.type
    if signed:  # v + 128 as an unsigned byte
        value = arith.XOrIOp(value, _splat(byte_t, -128)).result
    int_t = _with_element(byte_t, ir.IntegerType.get_signless(width))
    wide = arith.ExtUIOp(int_t, value).result
    placed = arith.OrIOp(wide, _splat(int_t, bits)).result
    float_t = _with_element(byte_t, to)
    as_float = arith.BitcastOp(float_t, placed).result
    return arith.SubFOp(as_float, _splat(float_t, base + 128.0 if signed else base)).result


def byte_pair_to_f16x2(pair: ir.Value, signed: bool) -> ir.Value:
    """The two bytes in the low half of an i32 `pair` as a vector<2xf16>, exactly as byte_to_float
    makes them: one `prmt` spreads them to the low byte of each half, one xor puts each under the
    exponent of 2^10 and flips a signed byte's sign bit (the bits do not meet: one immediate), and
    one f16x2 subtraction takes 1024 (+ 128) off. With zero for prmt's other operand ptxas keeps
    the selector as its immediate (a constant there too would cost a move per prmt)."""
    i32, f16 = ir.IntegerType.get_signless(32), ir.F16Type.get()
    bits, base = _MAGIC[16]
    # bytes [pair.0, 0, pair.1, 0]: selector nibbles 0, 4, 1, 4 from the lowest (4: the zero operand's byte 0)
    spread = nvvm.PermuteOp(i32, pair, _splat(i32, 0x4140), nvvm.PermuteMode.DEFAULT, hi=_splat(i32, 0)).result
    exponent = bits * 0x00010001 ^ (0x00800080 if signed else 0)
    placed = arith.XOrIOp(spread, _splat(i32, exponent)).result
    halves = vector.BitCastOp(
        ir.VectorType.get([2], f16), vector.BroadcastOp(ir.VectorType.get([1], i32), placed)
    ).result
    return arith.SubFOp(halves, _splat(ir.VectorType.get([2], f16), base + 128.0 if signed else base)).result


def lower_byte_to_float(values: dict, op: ir.Operation, operand: ir.Value) -> None:
    """Record in `values` the lowered result of `op` (is_byte_to_float) on the lowered `operand`."""
    with op.location:
        to = element_type(op.results[0].type)
        values[op.results[0]] = byte_to_float(operand, to, isinstance(op.opview, arith.SIToFPOp))
