"""Element type conversions, shared by the builder's `cast` and the `.ph` front end.

`convert_value(v, dst, loc)` converts a scalar or tile to element type `dst`
with `arith` ops, one element type per op, as the language converts:

- bool to a number is 0 or 1 (`uitofp`, `extui`); nothing converts to bool
  (compare with zero instead);
- floats widen and narrow (`extf`, `truncf`, rounding to nearest even); f16
  and bf16 go through f32;
- float to integer truncates toward zero (`fptosi`), integer to float rounds
  (`sitofp`); integers are signed and wrap when narrowed (`extsi`, `trunci`);
- `index` converts to fixed-width integers by `index_cast`, and to and from
  floats through i64 (`arith.sitofp`/`fptosi` take no `index`);
- an unsigned source (`src_unsigned`: u8, u32) widens by `extui`, becomes a
  float by `uitofp` and an index by `index_castui`; an unsigned destination
  (`dst_unsigned`) takes a float by `fptoui` (truncating toward zero,
  saturating at 0 and the largest value on the GPU);
- the fp8 types (f8e4m3, f8e5m2) convert by `extf` to f16, bf16, f32 and f64
  (exact) and by `truncf` from f16, bf16 and f32 (nearest even, saturating:
  phobos.fp8); everything else goes through f32, which is exact on the way
  (integers beyond f32's 24 bits are beyond fp8's range too). f64 does not
  convert to fp8 (through f32 it would round twice).
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith

from .types import element_name, element_type_of, is_fp8, with_element


def _i64() -> ir.Type:
    return ir.IntegerType.get_signless(64)


def convert_value(
    v: ir.Value, dst: ir.Type, loc: ir.Location, src_unsigned: bool = False, dst_unsigned: bool = False
) -> ir.Value:
    """`v` (a scalar or tile) converted to element type `dst`."""
    src = element_type_of(v.type)
    if src == dst:
        return v
    if is_fp8(src) or is_fp8(dst):
        return _fp8(v, src, dst, loc, src_unsigned, dst_unsigned)
    if src_unsigned or dst_unsigned:
        return _unsigned(v, src, dst, loc, src_unsigned, dst_unsigned)
    s, d = element_name(src), element_name(dst)
    if d == "bool":
        raise TypeError(f"cannot convert {s} to bool: compare instead (x != 0)")
    src_f, dst_f = isinstance(src, ir.FloatType), isinstance(dst, ir.FloatType)
    if s == "bool":
        if dst_f:
            return arith.UIToFPOp(with_element(v.type, dst), v, loc=loc).result
        wide = _i64() if d == "index" else dst
        v = arith.ExtUIOp(with_element(v.type, wide), v, loc=loc).result
        return convert_value(v, dst, loc)
    if s == "index" and dst_f:
        v = arith.IndexCastOp(with_element(v.type, _i64()), v, loc=loc).result
        return convert_value(v, dst, loc)
    if src_f and d == "index":
        v = arith.FPToSIOp(with_element(v.type, _i64()), v, loc=loc).result
        return convert_value(v, dst, loc)
    if {s, d} == {"f16", "bf16"}:
        v = arith.ExtFOp(with_element(v.type, ir.F32Type.get()), v, loc=loc).result
        return convert_value(v, dst, loc)
    return _one_step(v, src, dst, loc)


def _one_step(v: ir.Value, src: ir.Type, dst: ir.Type, loc: ir.Location) -> ir.Value:
    """The single `arith` conversion between two element types that need no intermediate."""
    target = with_element(v.type, dst)
    src_f, dst_f = isinstance(src, ir.FloatType), isinstance(dst, ir.FloatType)
    if src_f and dst_f:
        wider = ir.FloatType(dst).width > ir.FloatType(src).width
        op = arith.ExtFOp if wider else arith.TruncFOp
    elif src_f:
        op = arith.FPToSIOp
    elif dst_f:
        op = arith.SIToFPOp
    elif isinstance(src, ir.IndexType) or isinstance(dst, ir.IndexType):
        op = arith.IndexCastOp
    else:
        wider = ir.IntegerType(dst).width > ir.IntegerType(src).width
        op = arith.ExtSIOp if wider else arith.TruncIOp
    return op(target, v, loc=loc).result


_FP8_DIRECT = ("f16", "bf16", "f32")  # the float types an fp8 value converts to and from in one op


def _fp8(v: ir.Value, src: ir.Type, dst: ir.Type, loc: ir.Location, src_u: bool, dst_u: bool) -> ir.Value:
    """Conversions with an fp8 side (see the module's docstring)."""
    s, d = element_name(src), element_name(dst)
    f32 = ir.F32Type.get()
    if is_fp8(src):
        if d in _FP8_DIRECT + ("f64",):
            return arith.ExtFOp(with_element(v.type, dst), v, loc=loc).result
        wide = arith.ExtFOp(with_element(v.type, f32), v, loc=loc).result
        return convert_value(wide, dst, loc, dst_unsigned=dst_u)
    if s == "f64":
        raise TypeError(f"cannot convert f64 to {d} directly (through f32 it would round twice): convert to f32 first")
    if s not in _FP8_DIRECT:
        v = convert_value(v, f32, loc, src_unsigned=src_u)
    return arith.TruncFOp(with_element(v.type, dst), v, loc=loc).result


def _unsigned(v: ir.Value, src: ir.Type, dst: ir.Type, loc: ir.Location, src_u: bool, dst_u: bool) -> ir.Value:
    """Conversions with an unsigned side (u8, u32 are signless i8, i32 in tile IR)."""
    target = with_element(v.type, dst)
    src_f, dst_f = isinstance(src, ir.FloatType), isinstance(dst, ir.FloatType)
    if src_u and dst_f:
        return arith.UIToFPOp(target, v, loc=loc).result
    if src_f:  # to an unsigned integer (dst_u), through u32 for a narrower one, or to a signed one
        if not dst_u:
            return convert_value(v, dst, loc)
        width = ir.IntegerType(dst).width
        if width < 32:  # saturate as a conversion to u32 does (cvt.rzi.u32), then at the narrow maximum
            i32 = ir.IntegerType.get_signless(32)
            wide = arith.FPToUIOp(with_element(v.type, i32), v, loc=loc).result
            limit = _splat(v.type, i32, (1 << width) - 1, loc)
            wide = arith.MinUIOp(wide, limit, loc=loc).result
            return arith.TruncIOp(target, wide, loc=loc).result
        return arith.FPToUIOp(target, v, loc=loc).result
    if isinstance(dst, ir.IndexType):
        op = arith.IndexCastUIOp if src_u else arith.IndexCastOp
        return op(target, v, loc=loc).result
    if isinstance(src, ir.IndexType) or element_name(src) == "bool":
        return convert_value(v, dst, loc)
    wider = ir.IntegerType(dst).width > ir.IntegerType(src).width
    if not wider:
        return arith.TruncIOp(target, v, loc=loc).result if ir.IntegerType(dst).width < ir.IntegerType(src).width else v
    return (arith.ExtUIOp if src_u else arith.ExtSIOp)(target, v, loc=loc).result


def _splat(like: ir.Type, element: ir.Type, value: int, loc: ir.Location) -> ir.Value:
    """The integer constant `value` of `element`, a splat where `like` is a tile."""
    t = with_element(like, element)
    attr = ir.IntegerAttr.get(element, value)
    if isinstance(t, ir.RankedTensorType):
        attr = ir.DenseElementsAttr.get_splat(t, attr)
    return arith.ConstantOp(t, attr, loc=loc).result
