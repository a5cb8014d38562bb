"""Values with NumPy-style operators, and the elementwise ops, under the language's type rules.

Operands of different element types meet where `.ph` operands meet
(`phobos.elements.promote`: f16 with bf16 at f32, a float with an integer at
the float, a narrower integer at the wider, `i32 + index` at `index`) and are
converted there first (`convert.convert_value`). A Python number takes the
other operand's type (a float with an integer value makes both f32, as a
float literal does), and a scalar constant meets a tile at the tile's element
type where its value converts exactly (`x_f16 * c` stays f16). Scalars and
tiles of extent 1 broadcast to the other operand's shape.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Union

from mlir import ir
from mlir.dialects import arith, math, tensor

from phobos.dialect import tile as T
from phobos.dialect.tile import is_op
from phobos.elements import INT_WIDTH, UNSIGNED, exactly, promote

from .convert import convert_value
from .locations import loc_or_caller
from .types import ScalarType, as_mlir_element, element_name, element_type_of, f32, is_float, is_tile, refuse_fp8

Operand = Union["Value", ir.Value, int, float, bool]


class Value:
    """An SSA value with NumPy-style operators that emit `arith` ops.

    Integer `/` and `//` divide with truncation toward zero (`arith.divsi`),
    `%` is the matching remainder (`arith.remsi`), as in C and the language.
    """

    __slots__ = ("value",)

    def __init__(self, value: ir.Value):
        self.value = value.value if isinstance(value, Value) else value

    @property
    def type(self) -> ir.Type:
        return self.value.type

    @property
    def shape(self) -> list[int]:
        return list(ir.RankedTensorType(self.type).shape) if is_tile(self.type) else []

    @property
    def element_type(self) -> ir.Type:
        return element_type_of(self.type)

    def __repr__(self) -> str:
        return f"Value({self.value})"

    def __add__(self, o):
        return binary("add", self, o)

    def __radd__(self, o):
        return binary("add", o, self)

    def __sub__(self, o):
        return binary("sub", self, o)

    def __rsub__(self, o):
        return binary("sub", o, self)

    def __mul__(self, o):
        return binary("mul", self, o)

    def __rmul__(self, o):
        return binary("mul", o, self)

    def __truediv__(self, o):
        return binary("div", self, o)

    def __rtruediv__(self, o):
        return binary("div", o, self)

    def __floordiv__(self, o):
        return binary("div", self, o)

    def __rfloordiv__(self, o):
        return binary("div", o, self)

    def __mod__(self, o):
        return binary("rem", self, o)

    def __rmod__(self, o):
        return binary("rem", o, self)

    def __lshift__(self, o):
        return binary("shl", self, o)

    def __rshift__(self, o):
        return binary("shr", self, o)

    def __and__(self, o):
        return binary("and", self, o)

    def __rand__(self, o):
        return binary("and", o, self)

    def __or__(self, o):
        return binary("or", self, o)

    def __ror__(self, o):
        return binary("or", o, self)

    def __neg__(self):
        return negate(self)

    # comparisons build i1 values (so Value is not hashable by identity of content)
    def __lt__(self, o):
        return compare("lt", self, o)

    def __le__(self, o):
        return compare("le", self, o)

    def __gt__(self, o):
        return compare("gt", self, o)

    def __ge__(self, o):
        return compare("ge", self, o)

    def __eq__(self, o):
        return compare("eq", self, o)  # type: ignore[override]

    def __ne__(self, o):
        return compare("ne", self, o)  # type: ignore[override]

    __hash__ = object.__hash__

    def __bool__(self):
        raise TypeError(
            "an IR value has no Python truth value (it is known when the kernel runs): "
            "use tb.if_(cond) for a branch, tb.where(cond, a, b) to select"
        )


def unwrap(v: Value | ir.Value) -> ir.Value:
    return v.value if isinstance(v, Value) else v


def _is_value(x) -> bool:
    return isinstance(x, (Value, ir.Value))


def constant(value: int | float | bool, type_: ir.Type, *, loc=None) -> Value:
    """A constant of scalar or tile type `type_` (a tile constant is a splat)."""
    loc = loc_or_caller(loc)
    element = element_type_of(type_)
    if isinstance(element, ir.FloatType):
        scalar = ir.FloatAttr.get(element, float(value))
    else:
        scalar = ir.IntegerAttr.get(element, int(value))
    attr = ir.DenseElementsAttr.get_splat(type_, scalar) if is_tile(type_) else scalar
    return Value(arith.ConstantOp(type_, attr, loc=loc).result)


def full(
    shape: Sequence[int], value: int | float | Value | ir.Value, element: ScalarType | None = None, *, loc=None
) -> Value:
    """A tile of `shape` holding `value` everywhere (a constant, or a splat of a scalar value)."""
    loc = loc_or_caller(loc)
    if _is_value(value):
        v = unwrap(value)
        return Value(tensor.SplatOp(ir.RankedTensorType.get(list(shape), v.type), v, [], loc=loc).result)
    if element is None:
        raise TypeError("full() of a Python number needs an element type")
    return constant(value, ir.RankedTensorType.get(list(shape), element.mlir()), loc=loc)


def zeros(shape: Sequence[int], element: ScalarType = f32, *, loc=None) -> Value:
    return full(shape, 0, element, loc=loc_or_caller(loc))


def broadcast_shapes(a: Sequence[int], b: Sequence[int]) -> list[int] | None:
    """NumPy's broadcast of two shapes (None if they do not broadcast)."""
    rank = max(len(a), len(b))
    a = [1] * (rank - len(a)) + list(a)
    b = [1] * (rank - len(b)) + list(b)
    out = []
    for x, y in zip(a, b):
        if x != y and 1 not in (x, y):
            return None
        out.append(max(x, y))
    return out


def broadcast_to(v: Operand, shape: Sequence[int], *, loc=None) -> Value:
    """Broadcasts a scalar or tile to `shape` (leading dims added, extent-1 dims expanded)."""
    loc = loc_or_caller(loc)
    v = Value(unwrap(v))
    if not is_tile(v.type):
        return full(shape, v, loc=loc)
    src = v.shape
    if src == list(shape):
        return v
    if len(src) < len(shape):
        # Add leading dimensions of extent 1 with tensor.expand_shape.
        lead = len(shape) - len(src)
        new_shape = [1] * lead + src
        reassoc = [list(range(lead + 1))] + [[lead + i] for i in range(1, len(src))] if src else []
        expanded_type = ir.RankedTensorType.get(new_shape, v.element_type)
        v = Value(tensor.ExpandShapeOp(expanded_type, v.value, reassoc, [], new_shape, loc=loc).result)
    if v.shape != list(shape):
        v = Value(T.BroadcastOp(v.value, shape, loc=loc).result)
    return v


def convert(a: Operand, to: ScalarType | ir.Type | str, *, loc=None, src_unsigned: bool = False) -> Value:
    """Converts a scalar or tile to element type `to`, as the language converts
    (see `phobos.builder.convert`): float to int truncates toward zero, floats
    round to nearest even, integers are signed and wrap, bool gives 0 or 1.
    `src_unsigned`: `a` holds u8/u32 values; `to` named "u8"/"u32" is unsigned."""
    loc = loc_or_caller(loc)
    dst_unsigned = str(to) in UNSIGNED
    return Value(convert_value(unwrap(a), as_mlir_element(to), loc, src_unsigned, dst_unsigned))


cast = convert


# ----------------------------------------------------------------------------- operands meeting


def _constant_of(v: Value) -> int | float | None:
    """The value of a scalar `arith.constant`, else None."""
    owner = v.value.owner
    if is_tile(v.type) or not isinstance(owner, ir.OpView) or not is_op(owner.operation, arith.ConstantOp):
        return None
    attr = owner.operation.attributes["value"]
    if isinstance(attr, ir.FloatAttr):
        return ir.FloatAttr(attr).value
    if isinstance(attr, ir.IntegerAttr) and element_name(v.type) != "bool":
        return ir.IntegerAttr(attr).value
    return None


def _constant_meets_tile(scalar: Value, tile: Value) -> str | None:
    """A scalar constant meets a tile at the tile's element type where its value
    converts exactly; a float constant never turns an integer tile into integers."""
    if is_tile(scalar.type) or not is_tile(tile.type):
        return None
    value = _constant_of(scalar)
    if value is None or (is_float(scalar.type) and not is_float(tile.type)):
        return None
    te = element_name(tile.type)
    return te if exactly(value, te) else None


def _literal_element(number: int | float | bool, other: Value) -> str:
    """The element type a Python number takes beside `other` (as a `.ph` literal does)."""
    oe = element_name(other.type)
    if isinstance(number, bool) or oe == "bool":
        if isinstance(number, bool) and oe == "bool":
            return "bool"
        what = f"the bool {number}" if isinstance(number, bool) else f"the number {number}"
        raise TypeError(f"cannot combine {what} with a {oe} value (bool and numbers do not mix)")
    if isinstance(number, float) and not is_float(other.type):
        return "f32"  # a float with an integer goes to the float, as a float literal does
    if isinstance(number, int) and (oe in INT_WIDTH or oe == "i16"):
        width = INT_WIDTH.get(oe, 16)
        if not -(2 ** (width - 1)) <= number < 2 ** (width - 1):
            raise TypeError(f"the constant {number} does not fit {oe}")
    return oe


def meet(a: Value, b: Value) -> str:
    """The element type two values meet at (see the module's docstring)."""
    ea, eb = element_name(a.type), element_name(b.type)
    if ea == eb:
        return ea
    joined = _constant_meets_tile(a, b) or _constant_meets_tile(b, a) or promote(ea, eb)
    if joined is None:
        hint = " (bool and numbers do not mix: compare, or convert with tb.cast)" if "bool" in (ea, eb) else ""
        raise TypeError(f"element types differ: {ea} and {eb} do not meet{hint}")
    return joined


def coerce_pair(a: Operand, b: Operand, loc) -> tuple[Value, Value]:
    """Both operands as values of one element type and one shape."""
    if not _is_value(a) and not _is_value(b):
        raise TypeError("at least one operand must be an IR value")
    refuse_fp8("arithmetic", *(unwrap(x) for x in (a, b) if _is_value(x)))
    if not _is_value(a) or not _is_value(b):
        value, number = (Value(unwrap(a)), b) if _is_value(a) else (Value(unwrap(b)), a)
        elem = _literal_element(number, value)
        value = convert(value, elem, loc=loc)
        const = constant(number, element_type_of(ScalarType(elem).mlir()), loc=loc)
        a, b = (value, const) if _is_value(a) else (const, value)
    else:
        a, b = Value(unwrap(a)), Value(unwrap(b))
        elem = meet(a, b)
        a, b = convert(a, elem, loc=loc), convert(b, elem, loc=loc)
    if a.type != b.type:
        shape = broadcast_shapes(a.shape, b.shape)
        if shape is None:
            raise TypeError(f"shapes {a.shape} and {b.shape} do not broadcast")
        a, b = broadcast_to(a, shape, loc=loc), broadcast_to(b, shape, loc=loc)
    return a, b


# ----------------------------------------------------------------------------- elementwise ops


_FLOAT_OPS = {
    "add": arith.AddFOp,
    "sub": arith.SubFOp,
    "mul": arith.MulFOp,
    "div": arith.DivFOp,
    "rem": arith.RemFOp,
    "max": arith.MaximumFOp,
    "min": arith.MinimumFOp,
}
_INT_OPS = {
    "add": arith.AddIOp,
    "sub": arith.SubIOp,
    "mul": arith.MulIOp,
    "div": arith.DivSIOp,
    "rem": arith.RemSIOp,
    "shl": arith.ShLIOp,
    "shr": arith.ShRSIOp,
    "and": arith.AndIOp,
    "or": arith.OrIOp,
    "xor": arith.XOrIOp,
    "max": arith.MaxSIOp,
    "min": arith.MinSIOp,
}


_UNSIGNED_OPS = {
    **_INT_OPS,
    "div": arith.DivUIOp,
    "rem": arith.RemUIOp,
    "shr": arith.ShRUIOp,
    "max": arith.MaxUIOp,
    "min": arith.MinUIOp,
}


def binary(kind: str, a: Operand, b: Operand, *, loc=None, unsigned: bool = False) -> Value:
    """`a <kind> b` elementwise with broadcasting (kind: add sub mul div rem shl shr and or xor max min);
    `unsigned`: integers are u8/u32 (div, rem, shr, max, min take the unsigned ops)."""
    loc = loc_or_caller(loc)
    a, b = coerce_pair(a, b, loc)
    table = _FLOAT_OPS if is_float(a.type) else _UNSIGNED_OPS if unsigned else _INT_OPS
    if kind not in table:
        raise TypeError(f"'{kind}' is not defined on {element_name(a.type)}")
    return Value(table[kind](a.value, b.value, loc=loc).result)


def maximum(a: Operand, b: Operand, *, loc=None, unsigned: bool = False) -> Value:
    return binary("max", a, b, loc=loc_or_caller(loc), unsigned=unsigned)


def minimum(a: Operand, b: Operand, *, loc=None, unsigned: bool = False) -> Value:
    return binary("min", a, b, loc=loc_or_caller(loc), unsigned=unsigned)


def negate(a: Operand, *, loc=None) -> Value:
    loc = loc_or_caller(loc)
    a = Value(unwrap(a))
    refuse_fp8("negation", a.value)
    if is_float(a.type):
        return Value(arith.NegFOp(a.value, loc=loc).result)
    return binary("sub", 0, a, loc=loc)


_CMP_F = {
    "lt": arith.CmpFPredicate.OLT,
    "le": arith.CmpFPredicate.OLE,
    "gt": arith.CmpFPredicate.OGT,
    "ge": arith.CmpFPredicate.OGE,
    "eq": arith.CmpFPredicate.OEQ,
    "ne": arith.CmpFPredicate.UNE,
}
_CMP_I = {
    "lt": arith.CmpIPredicate.slt,
    "le": arith.CmpIPredicate.sle,
    "gt": arith.CmpIPredicate.sgt,
    "ge": arith.CmpIPredicate.sge,
    "eq": arith.CmpIPredicate.eq,
    "ne": arith.CmpIPredicate.ne,
}


_CMP_U = {
    **_CMP_I,
    "lt": arith.CmpIPredicate.ult,
    "le": arith.CmpIPredicate.ule,
    "gt": arith.CmpIPredicate.ugt,
    "ge": arith.CmpIPredicate.uge,
}


def compare(kind: str, a: Operand, b: Operand, *, loc=None, unsigned: bool = False) -> Value:
    """Elementwise comparison (signed for integers, unsigned with `unsigned`, ordered for floats) giving i1."""
    loc = loc_or_caller(loc)
    a, b = coerce_pair(a, b, loc)
    if is_float(a.type):
        return Value(arith.CmpFOp(_CMP_F[kind], a.value, b.value, loc=loc).result)
    return Value(arith.CmpIOp((_CMP_U if unsigned else _CMP_I)[kind], a.value, b.value, loc=loc).result)


def where(cond: Operand, a: Operand, b: Operand, *, loc=None) -> Value:
    """`cond ? a : b` elementwise, broadcasting all three (`a` and `b` meet as in arithmetic)."""
    loc = loc_or_caller(loc)
    a, b = coerce_pair(a, b, loc)
    c = Value(unwrap(cond))
    if element_name(c.type) != "bool":
        raise TypeError(f"where() needs a bool condition, got {element_name(c.type)} (compare first)")
    if not any(is_tile(x.type) for x in (c, a, b)):
        # Three scalars select a scalar: broadcasting them to shape () would give a rank-0 tile.
        return Value(arith.SelectOp(c.value, a.value, b.value, loc=loc).result)
    shape = broadcast_shapes(c.shape, a.shape)
    if shape is None:
        raise TypeError(f"condition shape {c.shape} does not broadcast with {a.shape}")
    c, a, b = (broadcast_to(x, shape, loc=loc) for x in (c, a, b))
    return Value(arith.SelectOp(c.value, a.value, b.value, loc=loc).result)


_MATH = {
    "exp": math.ExpOp,
    "log": math.LogOp,
    "sqrt": math.SqrtOp,
    "tanh": math.TanhOp,
    "abs": math.AbsFOp,
    "exp2": math.Exp2Op,
    "rsqrt": math.RsqrtOp,
}


def unary_math(kind: str, a: Operand, *, loc=None) -> Value:
    """Elementwise `math` ops on floats: exp log sqrt tanh abs exp2 rsqrt (abs also on integers)."""
    loc = loc_or_caller(loc)
    a = Value(unwrap(a))
    refuse_fp8(kind, a.value)
    if kind == "abs" and not is_float(a.type):
        return Value(math.AbsIOp(a.value, loc=loc).result)
    if not is_float(a.type):
        raise TypeError(f"{kind} needs a float operand, got {element_name(a.type)} (convert with tb.cast)")
    return Value(_MATH[kind](a.value, loc=loc).result)


def exp(a, *, loc=None):
    return unary_math("exp", a, loc=loc_or_caller(loc))


def log(a, *, loc=None):
    return unary_math("log", a, loc=loc_or_caller(loc))


def sqrt(a, *, loc=None):
    return unary_math("sqrt", a, loc=loc_or_caller(loc))


def rsqrt(a, *, loc=None):
    return unary_math("rsqrt", a, loc=loc_or_caller(loc))


def tanh(a, *, loc=None):
    return unary_math("tanh", a, loc=loc_or_caller(loc))


def abs_(a, *, loc=None):
    return unary_math("abs", a, loc=loc_or_caller(loc))
