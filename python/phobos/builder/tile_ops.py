"""The tile ops: grid queries, ranges, loads and stores, dot, reductions, reshapes and hints.

Stores convert the value to the tensor's element type, as a `.ph` store does
(an f32 tile stored into an f16 tensor rounds to nearest even); `dot`
converts operands of different types to the type they meet at.
"""

from __future__ import annotations

from collections.abc import Sequence

from mlir import ir
from mlir.dialects import arith, memref, tensor

from phobos.dialect import tile as T
from phobos.elements import DOT_ACCUMULATOR

from .locations import loc_or_caller
from .types import ScalarType, element_name, i32, refuse_fp8
from .values import Operand, Value, broadcast_to, constant, convert, meet, unwrap, zeros


def as_index(v: Operand, loc) -> ir.Value:
    """An `index` value: integers are cast, Python ints become constants."""
    if isinstance(v, (Value, ir.Value)):
        value = unwrap(v)
        if not isinstance(value.type, ir.IndexType):
            if element_name(value.type) in ("bool",) or isinstance(value.type, (ir.FloatType, ir.ShapedType)):
                raise TypeError(f"an index (slice start, loop bound) must be an integer scalar, got {value.type}")
            value = arith.IndexCastOp(ir.IndexType.get(), value, loc=loc).result
        return value
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(f"an index (slice start, loop bound) must be an integer, got {v!r}")
    return arith.ConstantOp(ir.IndexType.get(), ir.IntegerAttr.get(ir.IndexType.get(), int(v)), loc=loc).result


def block_id(dim: int, *, loc=None) -> Value:
    """The CTA's index along grid dimension `dim` (0 = x, 1 = y, 2 = z), as `index`."""
    return Value(T.BlockIdOp(dim, loc=loc_or_caller(loc)).result)


def grid_dim(dim: int, *, loc=None) -> Value:
    """The number of CTAs along grid dimension `dim`, as `index`."""
    return Value(T.GridDimOp(dim, loc=loc_or_caller(loc)).result)


def arange(start: int, end: int, element: ScalarType = i32, *, loc=None) -> Value:
    """The 1-D tile [start, ..., end - 1]."""
    return Value(T.RangeOp(start, end, element.mlir(), loc=loc_or_caller(loc)).result)


def dim(tensor_value: Operand, axis: int, *, loc=None) -> Value:
    """The runtime extent of a tensor parameter along `axis`, as `index`."""
    loc = loc_or_caller(loc)
    return Value(memref.DimOp(unwrap(tensor_value), as_index(axis, loc), loc=loc).result)


def _stored(base: Operand, value: Operand, shape: Sequence[int], loc) -> Value:
    """`value` as a tile of `shape` in the tensor's element type (numbers become constants)."""
    elem = ir.MemRefType(unwrap(base).type).element_type
    if not isinstance(value, (Value, ir.Value)):
        if isinstance(value, bool) != (element_name(elem) == "bool"):
            raise TypeError(f"cannot store {value!r} into a tensor of {element_name(elem)}")
        return constant(value, ir.RankedTensorType.get(list(shape), elem), loc=loc)
    v = Value(unwrap(value))
    if (element_name(v.type) == "bool") != (element_name(elem) == "bool"):
        raise TypeError(
            f"cannot store {element_name(v.type)} values into a tensor of {element_name(elem)} "
            "(bool and numbers do not mix)"
        )
    return broadcast_to(convert(v, elem, loc=loc), shape, loc=loc)


def load_slice(
    base: Operand, starts: Sequence[Operand], shape: Sequence[int], *, padding: float | int | None = None, loc=None
) -> Value:
    """Reads the tile of `shape` at corner `starts` (masked against the extents):
    elements outside the tensor read as `padding` (a number, converted to the
    element type; default zero), e.g. `float("-inf")` for a masked max."""
    loc = loc_or_caller(loc)
    starts = [as_index(s, loc) for s in starts]
    return Value(T.LoadSliceOp(unwrap(base), starts, shape, padding=padding, loc=loc).result)


def store_slice(
    base: Operand, starts: Sequence[Operand], value: Operand, shape: Sequence[int] | None = None, *, loc=None
) -> None:
    """Writes `value` at corner `starts` of `base`, converted to the tensor's
    element type. A scalar or a number needs `shape`, the slice's extents; a
    tile is broadcast to `shape` where given."""
    loc = loc_or_caller(loc)
    if shape is None:
        if not isinstance(value, (Value, ir.Value)) or not Value(unwrap(value)).shape:
            raise TypeError("store_slice of a scalar needs shape=, the extents of the slice it fills")
        shape = Value(unwrap(value)).shape
    v = _stored(base, value, shape, loc)
    T.StoreSliceOp(v.value, unwrap(base), [as_index(s, loc) for s in starts], loc=loc)


def load(
    base: Operand, offsets: Operand, mask: Operand | None = None, *, padding: float | int | None = None, loc=None
) -> Value:
    """Reads base.flat[offsets] where `mask` holds, `padding` elsewhere (a
    number, converted to the element type; default zero)."""
    loc = loc_or_caller(loc)
    m = broadcast_to(mask, Value(unwrap(offsets)).shape, loc=loc).value if mask is not None else None
    return Value(T.LoadOp(unwrap(base), unwrap(offsets), m, padding=padding, loc=loc).result)


def store(base: Operand, offsets: Operand, value: Operand, mask: Operand | None = None, *, loc=None) -> None:
    """Writes base.flat[offsets] = value where `mask` holds, converted to the tensor's element type."""
    loc = loc_or_caller(loc)
    shape = Value(unwrap(offsets)).shape
    v = _stored(base, value, shape, loc)
    m = broadcast_to(mask, shape, loc=loc).value if mask is not None else None
    T.StoreOp(v.value, unwrap(base), unwrap(offsets), m, loc=loc)


def dot(a: Operand, b: Operand, acc: Operand | None = None, *, unsigned: bool = False, loc=None) -> Value:
    """acc + a x b for [M, K] x [K, N] tiles. Operands of different types are
    converted to the type they meet at; `acc` defaults to zeros of the type
    the language accumulates in (f32 for f16/bf16/f32, i32 for i8, u8 and i32).
    `unsigned`: 8-bit integer operands are u8 (as the other ops' `unsigned=`)."""
    loc = loc_or_caller(loc)
    a, b = Value(unwrap(a)), Value(unwrap(b))
    elem = meet(a, b)
    if unsigned and elem != "i8":
        raise TypeError(f"dot(unsigned=True) takes 8-bit integer (u8) operands, not {elem}")
    if elem not in DOT_ACCUMULATOR:
        raise TypeError(f"dot is not defined on {elem} tiles")
    a, b = convert(a, elem, loc=loc), convert(b, elem, loc=loc)
    if acc is None:
        acc = zeros([a.shape[0], b.shape[1]], ScalarType(DOT_ACCUMULATOR[elem]), loc=loc)
    return Value(T.DotOp(a.value, b.value, unwrap(acc), unsigned=unsigned, loc=loc).result)


def reduce(source: Operand, kind: str, axis: int, *, loc=None) -> Value:
    """Reduces along `axis` (kind "sum", "max" or "min"); the axis leaves the shape."""
    refuse_fp8(f"reduce {kind}", unwrap(source))
    return Value(T.ReduceOp(unwrap(source), kind, axis, loc=loc_or_caller(loc)).result)


def scan(source: Operand, kind: str, axis: int, *, loc=None) -> Value:
    """Inclusive prefix scan along `axis` (kind "sum")."""
    refuse_fp8(f"scan {kind}", unwrap(source))
    return Value(T.ScanOp(unwrap(source), kind, axis, loc=loc_or_caller(loc)).result)


def transpose(source: Operand, permutation: Sequence[int] = (1, 0), *, loc=None) -> Value:
    refuse_fp8("transpose", unwrap(source))  # moves elements between threads: not for 1-byte floats yet
    return Value(T.TransposeOp(unwrap(source), permutation, loc=loc_or_caller(loc)).result)


def expand_dims(source: Operand, axis: int, *, loc=None) -> Value:
    """Inserts a dimension of extent 1 at `axis` (tensor.expand_shape)."""
    loc = loc_or_caller(loc)
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
            unwrap(value),
            divisibility=divisibility,
            contiguity=contiguity,
            constancy=constancy,
            loc=loc_or_caller(loc),
        ).result
    )


def multiple_of(value: Operand, divisor: int | Sequence[int], *, loc=None) -> Value:
    """Triton's `multiple_of`: every element (scalar: the value) is a multiple of `divisor`."""
    v = Value(unwrap(value))
    facts = [divisor] * max(1, len(v.shape)) if isinstance(divisor, int) else list(divisor)
    return hint(v, divisibility=facts, loc=loc_or_caller(loc))


def max_contiguous(value: Operand, run: int | Sequence[int], *, loc=None) -> Value:
    """Triton's `max_contiguous`: runs of `run` consecutive integers along each dimension."""
    v = Value(unwrap(value))
    facts = [run] * max(1, len(v.shape)) if isinstance(run, int) else list(run)
    return hint(v, contiguity=facts, loc=loc_or_caller(loc))


def barrier(*, loc=None) -> None:
    T.BarrierOp(loc=loc_or_caller(loc))
