"""Build tile kernels from Python.

The builder follows the MLIR Python conventions (an active `Context`, an
`InsertionPoint`) and adds what makes tile code read like the kernel it
describes: typed parameters, values with arithmetic operators that broadcast
like NumPy, and one function per tile op. Every op it creates carries the
caller's source location (`file:line:col` of the user's line) unless an
explicit `loc=` is given.

    from phobos import builder as tb

    with tb.context(), tb.Location.unknown():
        module = tb.Module.create()
        with tb.InsertionPoint(module.body):

            @tb.kernel(aligned={"M": 32, "N": 128})
            def scale(X: tb.Tensor(tb.f32, "M", "N"), Y: tb.Tensor(tb.f32, "M", "N"), alpha: tb.f32):
                rows = tb.block_id(0) * 32
                cols = tb.block_id(1) * 128
                x = tb.load_slice(X, [rows, cols], [32, 128])
                tb.store_slice(Y, [rows, cols], alpha * x)
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable, Sequence
from typing import Union

from mlir import ir
from mlir.dialects import arith, func, math, memref, scf, tensor
from mlir.ir import Context, InsertionPoint, Location, Module  # noqa: F401  (re-exported)

from phobos.dialect import kernel as K
from phobos.dialect import load_tile_dialect, make_context
from phobos.dialect import tile as T
from phobos.dialect.tile import is_op, upstream_ops

_PHOBOS_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(T.__file__)))


def context() -> ir.Context:
    """A new MLIR context with the tile dialect loaded."""
    return make_context()


# ----------------------------------------------------------------------------- locations


def _is_internal(filename: str) -> bool:
    path = os.path.abspath(filename)
    return path.startswith(_PHOBOS_ROOT) and "/test/" not in path and "/examples/" not in path


def caller_location() -> ir.Location:
    """The `file:line:col` of the innermost caller outside Phobos and MLIR."""
    frame = inspect.currentframe()
    try:
        while frame is not None:
            filename = frame.f_code.co_filename
            if not _is_internal(filename) and "/mlir/" not in filename:
                positions = inspect.getframeinfo(frame).positions
                line = positions.lineno if positions and positions.lineno else frame.f_lineno
                col = (positions.col_offset + 1) if positions and positions.col_offset is not None else 1
                return ir.Location.file(filename, line, col)
            frame = frame.f_back
        return ir.Location.unknown()
    finally:
        del frame


def _loc(loc: ir.Location | None) -> ir.Location:
    return loc if loc is not None else caller_location()


# ----------------------------------------------------------------------------- types


class ScalarType:
    """A scalar element type by name (`f32`, `i32`, ...), built in the active context."""

    _BUILDERS = {
        "f16": lambda: ir.F16Type.get(),
        "bf16": lambda: ir.BF16Type.get(),
        "f32": lambda: ir.F32Type.get(),
        "f64": lambda: ir.F64Type.get(),
        "i1": lambda: ir.IntegerType.get_signless(1),
        "bool": lambda: ir.IntegerType.get_signless(1),
        "i8": lambda: ir.IntegerType.get_signless(8),
        "i16": lambda: ir.IntegerType.get_signless(16),
        "i32": lambda: ir.IntegerType.get_signless(32),
        "i64": lambda: ir.IntegerType.get_signless(64),
        "index": lambda: ir.IndexType.get(),
    }

    def __init__(self, name: str):
        if name not in self._BUILDERS:
            raise ValueError(f"unknown scalar type '{name}'; expected one of {', '.join(self._BUILDERS)}")
        self.name = name

    def mlir(self) -> ir.Type:
        return self._BUILDERS[self.name]()

    def __repr__(self) -> str:
        return self.name


f16, bf16, f32, f64 = ScalarType("f16"), ScalarType("bf16"), ScalarType("f32"), ScalarType("f64")
i1, i8, i16, i32, i64 = ScalarType("i1"), ScalarType("i8"), ScalarType("i16"), ScalarType("i32"), ScalarType("i64")
index = ScalarType("index")


class Tensor:
    """A global tensor parameter: `Tensor(f32, "M", "N")` is a row-major
    `memref<?x?xf32>` whose extents are the symbols M and N (an int gives a
    static extent). `static` gives symbols a compile-time extent (e.g. an
    @autotune constant): the memref dimension is static, the symbol stays
    in tile.dims."""

    def __init__(self, element: ScalarType, *dims: str | int, static: dict[str, int] | None = None):
        if not dims:
            raise ValueError("a tensor parameter needs at least one dimension")
        self.element = element
        self.dims = list(dims)
        self.static = dict(static or {})

    def mlir(self) -> ir.Type:
        dynamic = ir.ShapedType.get_dynamic_size()
        shape = [d if isinstance(d, int) else self.static.get(d, dynamic) for d in self.dims]
        return ir.MemRefType.get(shape, self.element.mlir())

    def dim_names(self) -> list[str]:
        return [str(d) for d in self.dims]


def element_type_of(t: ir.Type) -> ir.Type:
    return ir.ShapedType(t).element_type if isinstance(t, ir.ShapedType) else t


def _is_float(t: ir.Type) -> bool:
    return isinstance(element_type_of(t), ir.FloatType)


def _is_tile(t: ir.Type) -> bool:
    return isinstance(t, ir.RankedTensorType)


# ----------------------------------------------------------------------------- values


Operand = Union["Value", ir.Value, int, float, bool]


class Value:
    """An SSA value with NumPy-style operators that emit `arith` ops.

    Python numbers are turned into constants of the other operand's type;
    scalars and tiles of extent 1 broadcast to the other operand's shape; an
    `index` operand meeting a fixed-width integer is converted to that type.
    Integer `/` and `//` divide with truncation toward zero (`arith.divsi`),
    `%` is the matching remainder (`arith.remsi`), as in C and Triton.
    """

    __slots__ = ("value",)

    def __init__(self, value: ir.Value):
        self.value = value.value if isinstance(value, Value) else value

    @property
    def type(self) -> ir.Type:
        return self.value.type

    @property
    def shape(self) -> list[int]:
        return list(ir.RankedTensorType(self.type).shape) if _is_tile(self.type) else []

    @property
    def element_type(self) -> ir.Type:
        return element_type_of(self.type)

    def __repr__(self) -> str:
        return f"Value({self.value})"

    # arithmetic
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


def unwrap(v: Value | ir.Value) -> ir.Value:
    return v.value if isinstance(v, Value) else v


def constant(value: int | float | bool, type_: ir.Type, *, loc=None) -> Value:
    """A constant of scalar or tile type `type_` (a tile constant is a splat)."""
    loc = _loc(loc)
    element = element_type_of(type_)
    if isinstance(element, ir.FloatType):
        scalar = ir.FloatAttr.get(element, float(value))
    else:
        scalar = ir.IntegerAttr.get(element, int(value))
    attr = ir.DenseElementsAttr.get_splat(type_, scalar) if _is_tile(type_) else scalar
    return Value(arith.ConstantOp(type_, attr, loc=loc).result)


def full(
    shape: Sequence[int], value: int | float | Value | ir.Value, element: ScalarType | None = None, *, loc=None
) -> Value:
    """A tile of `shape` holding `value` everywhere (a constant, or a splat of a scalar value)."""
    loc = _loc(loc)
    if isinstance(value, (Value, ir.Value)):
        v = unwrap(value)
        return Value(tensor.SplatOp(ir.RankedTensorType.get(list(shape), v.type), v, [], loc=loc).result)
    if element is None:
        raise TypeError("full() of a Python number needs an element type")
    return constant(value, ir.RankedTensorType.get(list(shape), element.mlir()), loc=loc)


def zeros(shape: Sequence[int], element: ScalarType = f32, *, loc=None) -> Value:
    return full(shape, 0, element, loc=_loc(loc))


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
    loc = _loc(loc)
    v = Value(unwrap(v))
    if not _is_tile(v.type):
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


def _as_value(x: Operand, like: ir.Type, loc) -> Value:
    if isinstance(x, (Value, ir.Value)):
        return Value(unwrap(x))
    return constant(x, like, loc=loc)


def _index_to(v: Value, element: ir.Type, loc) -> Value:
    target = ir.RankedTensorType.get(v.shape, element) if _is_tile(v.type) else element
    return Value(arith.IndexCastOp(target, v.value, loc=loc).result)


def _coerce_pair(a: Operand, b: Operand, loc) -> tuple:
    """Turns numbers into constants and broadcasts both operands to one shape."""
    if not isinstance(a, (Value, ir.Value)) and not isinstance(b, (Value, ir.Value)):
        raise TypeError("at least one operand must be an IR value")
    like = unwrap(a).type if isinstance(a, (Value, ir.Value)) else unwrap(b).type
    if not isinstance(a, (Value, ir.Value)):
        a = constant(a, element_type_of(like), loc=loc)
    if not isinstance(b, (Value, ir.Value)):
        b = constant(b, element_type_of(like), loc=loc)
    a, b = Value(unwrap(a)), Value(unwrap(b))
    # An index (block id, extent) meets a fixed-width integer: convert the
    # index, as offsets computed from program ids are i32 in Triton.
    if isinstance(a.element_type, ir.IndexType) and isinstance(b.element_type, ir.IntegerType):
        a = _index_to(a, b.element_type, loc)
    elif isinstance(b.element_type, ir.IndexType) and isinstance(a.element_type, ir.IntegerType):
        b = _index_to(b, a.element_type, loc)
    if a.element_type != b.element_type:
        raise TypeError(f"element types differ: {a.element_type} and {b.element_type}")
    if a.type != b.type:
        shape = broadcast_shapes(a.shape, b.shape)
        if shape is None:
            raise TypeError(f"shapes {a.shape} and {b.shape} do not broadcast")
        a, b = broadcast_to(a, shape, loc=loc), broadcast_to(b, shape, loc=loc)
    return a, b


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


def binary(kind: str, a: Operand, b: Operand, *, loc=None) -> Value:
    """`a <kind> b` elementwise with broadcasting (kind: add sub mul div rem shl shr and or xor max min)."""
    loc = _loc(loc)
    a, b = _coerce_pair(a, b, loc)
    table = _FLOAT_OPS if _is_float(a.type) else _INT_OPS
    if kind not in table:
        raise TypeError(f"'{kind}' is not defined on {a.element_type}")
    return Value(table[kind](a.value, b.value, loc=loc).result)


def maximum(a: Operand, b: Operand, *, loc=None) -> Value:
    return binary("max", a, b, loc=_loc(loc))


def minimum(a: Operand, b: Operand, *, loc=None) -> Value:
    return binary("min", a, b, loc=_loc(loc))


def negate(a: Operand, *, loc=None) -> Value:
    loc = _loc(loc)
    a = Value(unwrap(a))
    if _is_float(a.type):
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


def compare(kind: str, a: Operand, b: Operand, *, loc=None) -> Value:
    """Elementwise comparison (signed for integers, ordered for floats) giving i1."""
    loc = _loc(loc)
    a, b = _coerce_pair(a, b, loc)
    if _is_float(a.type):
        return Value(arith.CmpFOp(_CMP_F[kind], a.value, b.value, loc=loc).result)
    return Value(arith.CmpIOp(_CMP_I[kind], a.value, b.value, loc=loc).result)


def where(cond: Operand, a: Operand, b: Operand, *, loc=None) -> Value:
    """`cond ? a : b` elementwise, broadcasting all three."""
    loc = _loc(loc)
    a, b = _coerce_pair(a, b, loc)
    c = Value(unwrap(cond))
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
    loc = _loc(loc)
    a = Value(unwrap(a))
    if kind == "abs" and not _is_float(a.type):
        return Value(math.AbsIOp(a.value, loc=loc).result)
    if not _is_float(a.type):
        raise TypeError(f"{kind} needs a float operand, got {a.element_type}")
    return Value(_MATH[kind](a.value, loc=loc).result)


def exp(a, *, loc=None):
    return unary_math("exp", a, loc=_loc(loc))


def log(a, *, loc=None):
    return unary_math("log", a, loc=_loc(loc))


def sqrt(a, *, loc=None):
    return unary_math("sqrt", a, loc=_loc(loc))


def tanh(a, *, loc=None):
    return unary_math("tanh", a, loc=_loc(loc))


def abs_(a, *, loc=None):
    return unary_math("abs", a, loc=_loc(loc))


def cast(a: Operand, to: ScalarType, *, loc=None) -> Value:
    """Converts a scalar or tile to element type `to` (float/int conversions are signed)."""
    loc = _loc(loc)
    a = Value(unwrap(a))
    dst_elem = to.mlir()
    dst = ir.RankedTensorType.get(a.shape, dst_elem) if _is_tile(a.type) else dst_elem
    src_elem = a.element_type
    if src_elem == dst_elem:
        return a
    src_f, dst_f = isinstance(src_elem, ir.FloatType), isinstance(dst_elem, ir.FloatType)
    if src_f and dst_f:
        wider = ir.FloatType(dst_elem).width > ir.FloatType(src_elem).width
        op = arith.ExtFOp if wider else arith.TruncFOp
    elif src_f:
        op = arith.FPToSIOp
    elif dst_f:
        op = arith.SIToFPOp
    elif isinstance(src_elem, ir.IndexType) or isinstance(dst_elem, ir.IndexType):
        op = arith.IndexCastOp
    else:
        wider = ir.IntegerType(dst_elem).width > ir.IntegerType(src_elem).width
        op = arith.ExtSIOp if wider else arith.TruncIOp
    return Value(op(dst, a.value, loc=loc).result)


# ----------------------------------------------------------------------------- tile ops


def _index(v: Operand, loc) -> ir.Value:
    if isinstance(v, (Value, ir.Value)):
        value = unwrap(v)
        if not isinstance(value.type, ir.IndexType):
            value = arith.IndexCastOp(ir.IndexType.get(), value, loc=loc).result
        return value
    return arith.ConstantOp(ir.IndexType.get(), ir.IntegerAttr.get(ir.IndexType.get(), int(v)), loc=loc).result


def block_id(dim: int, *, loc=None) -> Value:
    """The CTA's index along grid dimension `dim` (0 = x, 1 = y, 2 = z), as `index`."""
    return Value(T.BlockIdOp(dim, loc=_loc(loc)).result)


def grid_dim(dim: int, *, loc=None) -> Value:
    """The number of CTAs along grid dimension `dim`, as `index`."""
    return Value(T.GridDimOp(dim, loc=_loc(loc)).result)


def arange(start: int, end: int, element: ScalarType = i32, *, loc=None) -> Value:
    """The 1-D tile [start, ..., end - 1]."""
    return Value(T.RangeOp(start, end, element.mlir(), loc=_loc(loc)).result)


def dim(tensor_value: Operand, axis: int, *, loc=None) -> Value:
    """The runtime extent of a tensor parameter along `axis`, as `index`."""
    loc = _loc(loc)
    return Value(memref.DimOp(unwrap(tensor_value), _index(axis, loc), loc=loc).result)


def load_slice(
    base: Operand, starts: Sequence[Operand], shape: Sequence[int], *, padding: float | int | None = None, loc=None
) -> Value:
    """Reads the tile of `shape` at corner `starts` (masked against the extents):
    elements outside the tensor read as `padding` (a number, converted to the
    element type; default zero), e.g. `float("-inf")` for a masked max."""
    loc = _loc(loc)
    starts = [_index(s, loc) for s in starts]
    return Value(T.LoadSliceOp(unwrap(base), starts, shape, padding=padding, loc=loc).result)


def store_slice(base: Operand, starts: Sequence[Operand], value: Operand, *, loc=None) -> None:
    """Writes `value` (a tile, or a scalar broadcast to...) at corner `starts` of `base`."""
    loc = _loc(loc)
    T.StoreSliceOp(unwrap(value), unwrap(base), [_index(s, loc) for s in starts], loc=loc)


def load(
    base: Operand, offsets: Operand, mask: Operand | None = None, *, padding: float | int | None = None, loc=None
) -> Value:
    """Reads base.flat[offsets] where `mask` holds, `padding` elsewhere (a
    number, converted to the element type; default zero)."""
    loc = _loc(loc)
    m = broadcast_to(mask, Value(unwrap(offsets)).shape, loc=loc).value if mask is not None else None
    return Value(T.LoadOp(unwrap(base), unwrap(offsets), m, padding=padding, loc=loc).result)


def store(base: Operand, offsets: Operand, value: Operand, mask: Operand | None = None, *, loc=None) -> None:
    """Writes base.flat[offsets] = value where `mask` holds."""
    loc = _loc(loc)
    shape = Value(unwrap(offsets)).shape
    elem = ir.MemRefType(unwrap(base).type).element_type
    if isinstance(value, (int, float)):
        value = constant(value, ir.RankedTensorType.get(shape, elem), loc=loc)
    v = broadcast_to(value, shape, loc=loc)
    m = broadcast_to(mask, shape, loc=loc).value if mask is not None else None
    T.StoreOp(v.value, unwrap(base), unwrap(offsets), m, loc=loc)


def dot(a: Operand, b: Operand, acc: Operand | None = None, *, loc=None) -> Value:
    """acc + a x b for [M, K] x [K, N] tiles (acc defaults to f32 zeros)."""
    loc = _loc(loc)
    a, b = Value(unwrap(a)), Value(unwrap(b))
    if acc is None:
        acc = zeros([a.shape[0], b.shape[1]], f32, loc=loc)
    return Value(T.DotOp(a.value, b.value, unwrap(acc), loc=loc).result)


def reduce(source: Operand, kind: str, axis: int, *, loc=None) -> Value:
    """Reduces along `axis` (kind "sum" or "max"); the axis leaves the shape."""
    return Value(T.ReduceOp(unwrap(source), kind, axis, loc=_loc(loc)).result)


def scan(source: Operand, kind: str, axis: int, *, loc=None) -> Value:
    """Inclusive prefix scan along `axis` (kind "sum")."""
    return Value(T.ScanOp(unwrap(source), kind, axis, loc=_loc(loc)).result)


def transpose(source: Operand, permutation: Sequence[int] = (1, 0), *, loc=None) -> Value:
    return Value(T.TransposeOp(unwrap(source), permutation, loc=_loc(loc)).result)


def expand_dims(source: Operand, axis: int, *, loc=None) -> Value:
    """Inserts a dimension of extent 1 at `axis` (tensor.expand_shape)."""
    loc = _loc(loc)
    v = Value(unwrap(source))
    shape = v.shape
    rank = len(shape)
    new_shape = shape[:axis] + [1] + shape[axis:]
    # Each source dim maps to itself (shifted past the new one); the new unit
    # dim joins its right neighbour, or its left one when appended last.
    reassoc = [[i] if i < axis else [i + 1] for i in range(rank)]
    if axis < rank:
        reassoc[axis] = [axis, axis + 1]
    else:
        reassoc[rank - 1] = [rank - 1, rank]
    result_type = ir.RankedTensorType.get(new_shape, v.element_type)
    return Value(tensor.ExpandShapeOp(result_type, v.value, reassoc, [], new_shape, loc=loc).result)


def hint(value: Operand, *, divisibility=None, contiguity=None, constancy=None, loc=None) -> Value:
    """Attaches user facts to an integer scalar or tile (see tile.hint)."""
    return Value(
        T.HintOp(
            unwrap(value), divisibility=divisibility, contiguity=contiguity, constancy=constancy, loc=_loc(loc)
        ).result
    )


def multiple_of(value: Operand, divisor: int | Sequence[int], *, loc=None) -> Value:
    """Triton's `multiple_of`: every element (scalar: the value) is a multiple of `divisor`."""
    v = Value(unwrap(value))
    facts = [divisor] * max(1, len(v.shape)) if isinstance(divisor, int) else list(divisor)
    return hint(v, divisibility=facts, loc=_loc(loc))


def max_contiguous(value: Operand, run: int | Sequence[int], *, loc=None) -> Value:
    """Triton's `max_contiguous`: runs of `run` consecutive integers along each dimension."""
    v = Value(unwrap(value))
    facts = [run] * max(1, len(v.shape)) if isinstance(run, int) else list(run)
    return hint(v, contiguity=facts, loc=_loc(loc))


def barrier(*, loc=None) -> None:
    T.BarrierOp(loc=_loc(loc))


# ----------------------------------------------------------------------------- control flow


class ForLoop:
    """`with for_range(lb, ub, step, carry=[...]) as loop:` builds an `scf.for`.

    Inside, `loop.iv` is the induction variable and `loop.carried` the
    loop-carried values; end the body with `loop.yield_(...)` when values are
    carried. After the block, `loop.results` holds the final values.
    """

    def __init__(self, lb: Operand, ub: Operand, step: Operand, carry: Sequence[Operand] = (), loc=None):
        self._loc = _loc(loc)
        self._op = scf.ForOp(
            _index(lb, self._loc),
            _index(ub, self._loc),
            _index(step, self._loc),
            [unwrap(c) for c in carry],
            loc=self._loc,
        )
        self._ip: ir.InsertionPoint | None = None
        self._yielded = False

    @property
    def iv(self) -> Value:
        return Value(self._op.induction_variable)

    @property
    def carried(self) -> list[Value]:
        return [Value(a) for a in self._op.inner_iter_args]

    @property
    def results(self) -> list[Value]:
        return [Value(r) for r in self._op.results]

    def yield_(self, *values: Operand) -> None:
        scf.YieldOp([unwrap(v) for v in values], loc=self._loc)
        self._yielded = True

    def __enter__(self) -> ForLoop:
        self._ip = ir.InsertionPoint(self._op.body)
        self._ip.__enter__()
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None and not self._yielded:
            if len(self._op.results):
                raise ValueError("a loop with carried values must end with loop.yield_(...)")
            scf.YieldOp([], loc=self._loc)
        self._ip.__exit__(exc_type, exc, tb)


def for_range(lb: Operand, ub: Operand, step: Operand = 1, carry: Sequence[Operand] = (), *, loc=None) -> ForLoop:
    return ForLoop(lb, ub, step, carry, loc=_loc(loc))


# ----------------------------------------------------------------------------- kernels


def _dict_attr(values: dict[str, int]) -> ir.DictAttr:
    i64 = ir.IntegerType.get_signless(64)
    return ir.DictAttr.get({k: ir.IntegerAttr.get(i64, int(v)) for k, v in values.items()})


def build_kernel(
    name: str,
    params: Sequence[tuple],
    body: Callable[..., None],
    *,
    launch: int | None = None,
    aligned: dict[str, int] | None = None,
    autotune: dict[str, Sequence[int]] | None = None,
    bindings: dict[str, int] | None = None,
    pipeline: bool = False,
    tensorcore: bool = False,
    persistent: bool = False,
    assert_coalesced: bool = False,
    fastmath: bool = False,
    loc=None,
    arg_locs: Sequence[ir.Location] | None = None,
) -> func.FuncOp:
    """Builds a kernel `func.func` at the current insertion point.

    `params` is a list of (name, Tensor | ScalarType). `body(*args)` is called
    inside the entry block with the parameters as `Value`s, and with
    `extents=` (each dimension symbol's runtime extent, checked against the
    `@aligned` promises at entry) when it has a parameter of that name.
    `arg_locs` locates each parameter (default: the kernel's location).
    `fastmath` records `tile.fastmath` and puts `fastmath<afn>` on the body's
    float math ops and divisions (see `apply_fastmath`).
    """
    loc = _loc(loc)
    load_tile_dialect(ir.Context.current)
    arg_types = [spec.mlir() for _, spec in params]
    fn = func.FuncOp(name, ir.FunctionType.get(arg_types, []), loc=loc)
    fn.attributes[K.KERNEL] = ir.UnitAttr.get()
    if launch is not None:
        fn.attributes[K.LAUNCH] = _dict_attr({"threads": launch})
    if aligned:
        fn.attributes[K.ALIGNED] = _dict_attr(aligned)
    if autotune:
        fn.attributes[K.AUTOTUNE] = ir.DictAttr.get({k: ir.DenseI64ArrayAttr.get(list(v)) for k, v in autotune.items()})
    if bindings:
        fn.attributes[K.BINDINGS] = _dict_attr(bindings)
    flags = ((K.PIPELINE, pipeline), (K.TENSORCORE, tensorcore), (K.PERSISTENT, persistent))
    for flag, on in flags + ((K.ASSERT_COALESCED, assert_coalesced), (K.FASTMATH, fastmath)):
        if on:
            fn.attributes[flag] = ir.UnitAttr.get()
    arg_attrs = []
    for pname, spec in params:
        attrs = {K.ARG_NAME: ir.StringAttr.get(pname)}
        if isinstance(spec, Tensor):
            attrs[K.ARG_DIMS] = ir.ArrayAttr.get([ir.StringAttr.get(d) for d in spec.dim_names()])
        arg_attrs.append(ir.DictAttr.get(attrs))
    fn.arg_attrs = ir.ArrayAttr.get(arg_attrs)
    entry = fn.add_entry_block(arg_locs=list(arg_locs) if arg_locs is not None else [loc] * len(arg_types))
    with ir.InsertionPoint(entry):
        args = [Value(a) for a in entry.arguments]
        extents: dict[str, Value] = {}
        for (_pname, spec), arg in zip(params, args):
            if not isinstance(spec, Tensor):
                continue
            for axis, d in enumerate(spec.dims):
                if isinstance(d, str) and d not in extents:
                    extent = dim(arg, axis, loc=loc)
                    if aligned and d in aligned:
                        extent = Value(T.CheckMultipleOp(extent.value, aligned[d], d, loc=loc).result)
                    extents[d] = extent
        if _wants_extents(body):
            body(*args, extents=extents)
        else:
            body(*args)
        func.ReturnOp([], loc=loc)
    if fastmath:
        apply_fastmath(fn.operation)
    return fn


# The flags `@fastmath` gives: `afn` alone (approximate functions) selects the
# fast forms (sqrt.approx, __nv_fast_expf/logf, div.approx) and nothing else.
# Not `fast`: ninf/nnan would let LLVM assume away the -inf fills and NaNs
# that masked max and softmax rely on, and reassoc/contract would reorder or
# fuse the kernel's sums so results stop matching the interpreter.
FASTMATH_FLAGS = "afn"
_FASTMATH_OPS = upstream_ops(math) + (arith.DivFOp,)  # every math op, and arith.divf


def apply_fastmath(fn: ir.Operation, flags: str = FASTMATH_FLAGS) -> None:
    """Puts `fastmath<flags>` on every float `math` op and `arith.divf` inside `fn`."""
    attr = ir.Attribute.parse(f"#arith.fastmath<{flags}>")

    def visit(op: ir.Operation):
        if is_op(op, *_FASTMATH_OPS) and op.results:
            if isinstance(element_type_of(op.results[0].type), ir.FloatType):
                op.attributes["fastmath"] = attr
        return ir.WalkResult.ADVANCE

    fn.walk(visit)


def _wants_extents(body: Callable) -> bool:
    try:
        return "extents" in inspect.signature(body).parameters
    except (TypeError, ValueError):
        return False


def kernel(fn: Callable | None = None, **options):
    """Decorator: builds the decorated Python function as a tile kernel.

    Parameter annotations give the types (`Tensor(f32, "M", "N")`, `f32`, ...);
    keyword options are those of `build_kernel`. A parameter named `extents`
    receives the symbol -> extent map. Returns the built `func.FuncOp`.
    """

    def wrap(body: Callable) -> func.FuncOp:
        sig = inspect.signature(body)
        params = []
        for p in sig.parameters.values():
            if p.name == "extents":
                continue
            if not isinstance(p.annotation, (Tensor, ScalarType)):
                raise TypeError(f"kernel parameter '{p.name}' needs a Tensor(...) or scalar type annotation")
            params.append((p.name, p.annotation))
        loc = options.pop("loc", None) or caller_location()
        return build_kernel(options.pop("name", body.__name__), params, body, loc=loc, **options)

    return wrap(fn) if fn is not None else wrap
