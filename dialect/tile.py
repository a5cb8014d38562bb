"""Python op classes of the `tile` dialect.

The dialect is defined in IRDL (tile.irdl.mlir beside this file). The named
accessors of each class are derived from that definition (definition.py
reads it), not written here:

  operands    one accessor per declared operand: a Value, Optional[Value] for
              an `optional` one, a list for a `variadic` one, sliced as the
              IRDL verifier slices them (by `operandSegmentSizes` where more
              than one operand is optional or variadic);
  attributes  one per declared attribute, as Python data of the kind its IRDL
              base names (DECLARED_KINDS), read through attributes.read: an
              attribute of another kind raises AttributeKindError, which
              tile-verify reports at the op;
  results     one per declared result (`result`, or `id` of tile.block_id).

Written by hand is what IRDL cannot say: the constructors (which infer result
types), optional attributes outside the declaration (`in_bounds`, `padding`,
the facts of `tile.hint`) and, on each class, the rules `tile-verify` checks beyond IRDL
(dialect/verify.py). MLIR finds the classes through the dialect search prefix
`phobos.dialect` (this module is `phobos.dialect.tile`), so `op.opview` of a
parsed `tile.*` op is an instance of the class below.
"""

from __future__ import annotations

from collections.abc import Sequence

from mlir import ir
from mlir._mlir_libs import _mlir as _cext
from mlir.dialects import arith, tensor

from . import attributes as A
from .definition import (
    OPERAND_SEGMENT_SIZES,
    OPTIONAL,
    RESULT_SEGMENT_SIZES,
    SINGLE,
    TILE_OPS,
    VARIADIC,
    Group,
    OpDefinition,
    segment_layout,
)
from .kernel import IN_BOUNDS, PADDING

_cext.globals.register_traceback_file_exclusion(__file__)


@_cext.register_dialect
class _Dialect(ir.Dialect):
    DIALECT_NAMESPACE = "tile"


# The kind of Python data each IRDL base of a declared attribute is read as. IRDL checks only
# the base: `#builtin.dense_array` admits array<i1>, array<f32>, ...; the one declared dense array
# (transpose's permutation) holds dimension indices, so it is read as array<i64>.
DECLARED_KINDS: dict[str, A.Kind] = {
    "#builtin.integer": A.INTEGER,
    "#builtin.string": A.STRING,
    "#builtin.dense_array": A.I64_ARRAY,
}


def _group_accessor(kind: str, segment_sizes: str, groups: Sequence[Group], index: int) -> property:
    """The accessor of declared group `index` among the op's `kind` ("operands" or "results")."""
    group = groups[index]
    flexible = sum(g.variadicity != SINGLE for g in groups)

    def get(self):
        op = self.operation
        values = getattr(op, kind)
        # The sizes matter (and are read) only where more than one group is optional or variadic.
        sizes = A.read_op(op, segment_sizes, A.I32_ARRAY) if flexible > 1 else None
        positions = segment_layout(groups, len(values), sizes)[index]
        if group.variadicity == VARIADIC:
            return [values[i] for i in positions]
        if group.variadicity == OPTIONAL:
            return values[positions.start] if positions else None
        return values[positions.start]

    get.__doc__ = f"The {group.variadicity} {kind[:-1]} `{group.name}` (declared in tile.irdl.mlir)."
    return property(get)


def _attribute_accessor(name: str, base: str | None) -> property:
    if base not in DECLARED_KINDS:
        raise TypeError(f"tile.irdl.mlir declares attribute '{name}' with base {base}, which DECLARED_KINDS lacks")
    kind = DECLARED_KINDS[base]

    def get(self):
        return A.read(self.operation.attributes[name], name, kind)

    get.__doc__ = f"The attribute `{name}` (declared in tile.irdl.mlir), as Python data ({kind.description})."
    return property(get)


def accessors(definition: OpDefinition) -> dict[str, property]:
    """The named accessors of an op, by name, derived from its IRDL definition."""
    derived = {}
    for kind, segment_sizes, groups in (
        ("operands", OPERAND_SEGMENT_SIZES, definition.operands),
        ("results", RESULT_SEGMENT_SIZES, definition.results),
    ):
        for index, group in enumerate(groups):
            derived[group.name] = _group_accessor(kind, segment_sizes, groups, index)
    bases = definition.attribute_bases or (None,) * len(definition.attributes)
    for name, base in zip(definition.attributes, bases, strict=True):
        derived[name] = _attribute_accessor(name, base)
    return derived


def _irdl_op(cls):
    """Gives `cls` the accessors that the IRDL definition of its OPERATION_NAME
    declares and registers it as the class of that op."""
    hand_written = {name for base in cls.__mro__[: cls.__mro__.index(ir.OpView)] for name in vars(base)}
    for name, accessor in accessors(TILE_OPS[cls.OPERATION_NAME]).items():
        if name in hand_written:
            raise TypeError(f"{cls.__name__}.{name} restates what tile.irdl.mlir declares")
        setattr(cls, name, accessor)
    return _cext.register_operation(_Dialect)(cls)


def _i64(value: int) -> ir.IntegerAttr:
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), int(value))


def _tensor(shape: Sequence[int], element_type: ir.Type) -> ir.RankedTensorType:
    return ir.RankedTensorType.get(list(shape), element_type)


class _TileOp(ir.OpView):
    """Common constructor: every tile op is built in the generic form."""

    _ODS_REGIONS = (0, True)

    def _build(self, results, operands, attributes=None, loc=None, ip=None):
        super().__init__(
            self.OPERATION_NAME,
            self._ODS_REGIONS,
            None,
            None,
            attributes=attributes or {},
            results=results,
            operands=operands,
            successors=None,
            regions=None,
            loc=loc,
            ip=ip,
        )


class _GridIndexOp(_TileOp):
    """Shared by block_id and grid_dim: an `index` result for grid dimension `dim`."""

    def __init__(self, dim: int, *, loc=None, ip=None):
        self._build([ir.IndexType.get()], [], {"dim": _i64(dim)}, loc, ip)


@_irdl_op
class BlockIdOp(_GridIndexOp):
    """`tile.block_id {dim}`: the CTA's index along grid dimension `dim` (0..2)."""

    OPERATION_NAME = "tile.block_id"


@_irdl_op
class GridDimOp(_GridIndexOp):
    """`tile.grid_dim {dim}`: the number of CTAs along grid dimension `dim` (0..2)."""

    OPERATION_NAME = "tile.grid_dim"


@_irdl_op
class RangeOp(_TileOp):
    """`tile.range {start, end}` -> tensor<(end-start) x iN>: [start, ..., end-1].

    Verified: 0 <= start < end, a 1-D result of extent end - start with an
    integer or index element type.
    """

    OPERATION_NAME = "tile.range"

    def __init__(self, start: int, end: int, element_type: ir.Type | None = None, *, loc=None, ip=None):
        element_type = element_type or ir.IntegerType.get_signless(32)
        self._build(
            [_tensor([end - start], element_type)],
            [],
            {"start": _i64(start), "end": _i64(end)},
            loc,
            ip,
        )


@_irdl_op
class BroadcastOp(_TileOp):
    """`tile.broadcast %t` -> a tile of the same rank and element type whose
    dimensions equal the source's except where the source has extent 1."""

    OPERATION_NAME = "tile.broadcast"

    def __init__(self, source: ir.Value, shape: Sequence[int], *, loc=None, ip=None):
        element_type = ir.RankedTensorType(source.type).element_type
        self._build([_tensor(shape, element_type)], [source], None, loc, ip)


@_irdl_op
class ConvertLayoutOp(_TileOp):
    """`tile.convert_layout %t`: the same tile (same type, same elements), held in
    another placement of the kernel's layout (Triton's ttg.convert_layout)."""

    OPERATION_NAME = "tile.convert_layout"

    def __init__(self, source: ir.Value, *, loc=None, ip=None):
        self._build([source.type], [source], None, loc, ip)


@_irdl_op
class TransposeOp(_TileOp):
    """`tile.transpose %t {permutation}`: result dim i is source dim permutation[i]."""

    OPERATION_NAME = "tile.transpose"

    def __init__(self, source: ir.Value, permutation: Sequence[int], *, loc=None, ip=None):
        source_type = ir.RankedTensorType(source.type)
        shape = [source_type.shape[p] for p in permutation]
        self._build(
            [_tensor(shape, source_type.element_type)],
            [source],
            {"permutation": ir.DenseI64ArrayAttr.get(list(permutation))},
            loc,
            ip,
        )


class _SliceAccess(_TileOp):
    """Shared by the slice-form load and store.

    Verified: one `index` start per dimension of `base`, the tile has the rank
    and element type of `base`, static extents of `base` are not smaller than
    the tile when the start is known. Optional attribute `in_bounds`
    (array<i1>, one per dimension) marks dimensions proven never to leave the
    tensor; unmarked dimensions are masked.
    """

    @property
    def in_bounds(self) -> list:
        marked = A.read_op(self, IN_BOUNDS, A.BOOL_ARRAY)
        return [False] * len(self.starts) if marked is None else marked


def padding_attr(element_type: ir.Type, value) -> ir.Attribute:
    """The `padding` attribute that holds `value` as a scalar of `element_type`:
    a FloatAttr (rounded to the type: 1e30 is inf in f16), `true`/`false` for
    i1, else an IntegerAttr; ValueError for an integer that does not fit."""
    if isinstance(element_type, ir.FloatType):
        return ir.FloatAttr.get(element_type, float(value))
    if isinstance(element_type, ir.IntegerType) and element_type.width == 1:
        return ir.BoolAttr.get(bool(value))
    if isinstance(value, float) and not value.is_integer():
        raise ValueError(f"padding {value} is not an integer, but the element type is {element_type}")
    width = element_type.width if isinstance(element_type, ir.IntegerType) else 64
    if not -(2 ** (width - 1)) <= int(value) < 2 ** (width - 1):
        raise ValueError(f"padding {int(value)} does not fit {element_type}")
    return ir.IntegerAttr.get(element_type, int(value))


def padding_value(attr: ir.Attribute) -> float | int:
    """The number a `padding` attribute holds: a float for a FloatAttr, an int
    otherwise (i1: 1 for true, 0 for false); ValueError for any other attribute."""
    if isinstance(attr, ir.FloatAttr):
        return float(attr.value)
    if isinstance(attr, ir.BoolAttr):
        return int(attr.value)
    if isinstance(attr, ir.IntegerAttr):
        if isinstance(attr.type, ir.IntegerType) and attr.type.width == 1:
            return int(attr.value != 0)
        return int(A.read(attr, PADDING, A.INTEGER))
    raise ValueError(f"padding must be a float or integer attribute, got {attr}")


def _padding_attrs(element_type: ir.Type, padding) -> dict:
    return {} if padding is None else {PADDING: padding_attr(element_type, padding)}


def _get_padding(self) -> float | int | None:
    """The fill value as a Python number, or None (the default: zero).

    `padding` is an optional attribute of the two loads: a scalar of the
    element type (`padding = 0xFF800000 : f32` is -inf), the value that
    elements outside the tensor (slice form) or masked off (offset form) read
    as; absent, they read as zero. Verified: its type is the element type.
    Where a mask is proven away the padding is never read, but it stays."""
    attrs = self.operation.attributes
    return padding_value(attrs[PADDING]) if PADDING in attrs else None


@_irdl_op
class LoadSliceOp(_SliceAccess):
    """`tile.load_slice %base, %starts... {padding?}` -> the tile at `starts`
    (see _SliceAccess); elements outside the tensor read as `padding` (default zero)."""

    OPERATION_NAME = "tile.load_slice"
    padding = property(_get_padding)

    def __init__(
        self, base: ir.Value, starts: Sequence[ir.Value], shape: Sequence[int], *, padding=None, loc=None, ip=None
    ):
        element_type = ir.MemRefType(base.type).element_type
        self._build([_tensor(shape, element_type)], [base, *starts], _padding_attrs(element_type, padding), loc, ip)


@_irdl_op
class StoreSliceOp(_SliceAccess):
    """`tile.store_slice %value, %base, %starts...` (see _SliceAccess)."""

    OPERATION_NAME = "tile.store_slice"

    def __init__(self, value: ir.Value, base: ir.Value, starts: Sequence[ir.Value], *, loc=None, ip=None):
        self._build([], [value, base, *starts], None, loc, ip)


@_irdl_op
class LoadOp(_TileOp):
    """`tile.load %base, %offsets[, %mask] {padding?}` -> base.flat[offsets]
    where mask, `padding` (default zero) where not.

    Verified: integer/index offsets; the mask is i1 of the offsets' shape; the
    result has the offsets' shape and the base's element type; `padding` (the
    fill value) has the element type.
    """

    OPERATION_NAME = "tile.load"
    padding = property(_get_padding)

    def __init__(
        self, base: ir.Value, offsets: ir.Value, mask: ir.Value | None = None, *, padding=None, loc=None, ip=None
    ):
        shape = ir.RankedTensorType(offsets.type).shape
        element_type = ir.MemRefType(base.type).element_type
        operands = [base, offsets] + ([mask] if mask is not None else [])
        self._build([_tensor(shape, element_type)], operands, _padding_attrs(element_type, padding), loc, ip)


@_irdl_op
class StoreOp(_TileOp):
    """`tile.store %value, %base, %offsets[, %mask]`: base.flat[offsets] = value where mask.

    Verified as `tile.load`, and the value has the offsets' shape and the
    base's element type.
    """

    OPERATION_NAME = "tile.store"

    def __init__(
        self, value: ir.Value, base: ir.Value, offsets: ir.Value, mask: ir.Value | None = None, *, loc=None, ip=None
    ):
        operands = [value, base, offsets] + ([mask] if mask is not None else [])
        self._build([], operands, None, loc, ip)


def _atomic_attrs(sem: str, scope: str, kind: str | None = None) -> dict:
    attrs = {"sem": ir.StringAttr.get(sem), "scope": ir.StringAttr.get(scope)}
    if kind is not None:
        attrs["kind"] = ir.StringAttr.get(kind)
    return attrs


@_irdl_op
class AtomicRMWOp(_TileOp):
    """`tile.atomic_rmw %value, %base, %offsets[, %mask] {kind, sem, scope}` -> the old values.

    Verified as `tile.store` (offsets, mask, a value of the offsets' shape and the
    base's element type), the result of the value's type, `kind` one of ATOMIC_KINDS,
    `sem` one of ATOMIC_SEMS, `scope` one of ATOMIC_SCOPES.
    """

    OPERATION_NAME = "tile.atomic_rmw"

    def __init__(self, kind, value, base, offsets, mask=None, *, sem="relaxed", scope="gpu", loc=None, ip=None):
        operands = [value, base, offsets] + ([mask] if mask is not None else [])
        self._build([value.type], operands, _atomic_attrs(sem, scope, kind), loc, ip)


@_irdl_op
class AtomicCASOp(_TileOp):
    """`tile.atomic_cas %compare, %value, %base, %offsets[, %mask] {sem, scope}` -> the old values.

    Verified as `tile.atomic_rmw`, and `compare` has the value's type.
    """

    OPERATION_NAME = "tile.atomic_cas"

    def __init__(self, compare, value, base, offsets, mask=None, *, sem="relaxed", scope="gpu", loc=None, ip=None):
        operands = [compare, value, base, offsets] + ([mask] if mask is not None else [])
        self._build([value.type], operands, _atomic_attrs(sem, scope), loc, ip)


@_irdl_op
class LocalRMWOp(_TileOp):
    """`tile.local_rmw %tile, %value, %offsets[, %mask] {kind}` -> the updated tile.

    Verified: `tile` 1-D and of the result's type, `value` of the offsets' shape and the
    tile's element type, offsets of `index`, the mask i1 of their shape, `kind` one of
    LOCAL_RMW_KINDS.
    """

    OPERATION_NAME = "tile.local_rmw"

    def __init__(self, kind, tile, value, offsets, mask=None, *, loc=None, ip=None):
        operands = [tile, value, offsets] + ([mask] if mask is not None else [])
        self._build([tile.type], operands, {"kind": ir.StringAttr.get(kind)}, loc, ip)


LOCAL_RMW_KINDS = ("add", "max", "min")
ATOMIC_KINDS = ("add", "max", "min", "xchg")
ATOMIC_SEMS = ("relaxed", "acquire", "release", "acq_rel")
ATOMIC_SCOPES = ("cta", "gpu", "sys")


@_irdl_op
class DotOp(_TileOp):
    """`tile.dot %lhs, %rhs, %acc`: acc + lhs x rhs.

    Verified: 2-D [M, K] x [K, N] with an [M, N] accumulator and result; lhs
    and rhs share an element type; acc and result share theirs (a float type
    at least as wide as the inputs'). `tile.unsigned` (a unit attribute)
    makes i8 operands u8: only on 8-bit integer operands with an integer
    accumulator.
    """

    OPERATION_NAME = "tile.dot"

    def __init__(self, lhs: ir.Value, rhs: ir.Value, acc: ir.Value, *, unsigned: bool = False, loc=None, ip=None):
        self._build([acc.type], [lhs, rhs, acc], None, loc, ip)
        if unsigned:
            self.operation.attributes[DOT_UNSIGNED] = ir.UnitAttr.get()


# On a tile.dot of 8-bit integer operands: they are u8 (the IR's i8 is signless), multiplied unsigned.
DOT_UNSIGNED = "tile.unsigned"


def dot_unsigned(op: ir.Operation) -> bool:
    """Whether a tile.dot multiplies its 8-bit integer operands as u8 (DOT_UNSIGNED)."""
    return DOT_UNSIGNED in op.attributes


REDUCE_KINDS = ("sum", "max", "min")
SCAN_KINDS = ("sum",)


def reduced_type(source_type: ir.RankedTensorType, axis: int) -> ir.Type:
    """The type of `source_type` reduced along `axis`: the element type itself for a 1-D source."""
    shape = [d for i, d in enumerate(source_type.shape) if i != axis]
    return _tensor(shape, source_type.element_type) if shape else source_type.element_type


class _AxisOp(_TileOp):
    """Shared by reduce and scan: one source tile, a `kind` and an `axis`."""

    def _build_axis(self, result_type, source, kind, axis, loc, ip):
        self._build([result_type], [source], {"kind": ir.StringAttr.get(kind), "axis": _i64(axis)}, loc, ip)


@_irdl_op
class ReduceOp(_AxisOp):
    """`tile.reduce %t {kind, axis}`: reduces along `axis`, which leaves the shape.

    Verified: kind in REDUCE_KINDS, 0 <= axis < rank, the result is the source
    shape without `axis` (the element type itself for a 1-D source).
    """

    OPERATION_NAME = "tile.reduce"

    def __init__(self, source: ir.Value, kind: str, axis: int, *, loc=None, ip=None):
        self._build_axis(reduced_type(ir.RankedTensorType(source.type), axis), source, kind, axis, loc, ip)


@_irdl_op
class ScanOp(_AxisOp):
    """`tile.scan %t {kind, axis}`: inclusive prefix scan along `axis`.

    Verified: kind in SCAN_KINDS, 0 <= axis < rank, result type = source type.
    """

    OPERATION_NAME = "tile.scan"

    def __init__(self, source: ir.Value, kind: str, axis: int, *, loc=None, ip=None):
        self._build_axis(source.type, source, kind, axis, loc, ip)


HINT_NAMES = ("divisibility", "contiguity", "constancy")


@_irdl_op
class HintOp(_TileOp):
    """`tile.hint %v {divisibility?, contiguity?, constancy?}` -> %v with user facts.

    Verified: an integer/index scalar or tile operand, result type = operand
    type, at least one hint, each an array<i64> of positive powers of two with
    one entry per dimension (one for a scalar); contiguity and constancy do not
    exceed the extent of their dimension.
    """

    OPERATION_NAME = "tile.hint"

    def __init__(
        self,
        value: ir.Value,
        *,
        divisibility: Sequence[int] | None = None,
        contiguity: Sequence[int] | None = None,
        constancy: Sequence[int] | None = None,
        loc=None,
        ip=None,
    ):
        attributes = {}
        for name, facts in zip(HINT_NAMES, (divisibility, contiguity, constancy)):
            if facts is not None:
                attributes[name] = ir.DenseI64ArrayAttr.get([int(f) for f in facts])
        self._build([value.type], [value], attributes, loc, ip)

    def facts(self, name: str) -> list | None:
        """The hinted array for `name` (one of HINT_NAMES), or None."""
        return A.read_op(self, name, A.I64_ARRAY)


@_irdl_op
class CheckMultipleOp(_TileOp):
    """`tile.check_multiple %extent {divisor, symbol}` -> %extent, trapping if
    `extent % divisor != 0` (the entry check of `@aligned(symbol = divisor)`).

    Verified: divisor > 0; used only at the top level of a kernel.
    """

    OPERATION_NAME = "tile.check_multiple"

    def __init__(self, value: ir.Value, divisor: int, symbol: str, *, loc=None, ip=None):
        self._build(
            [value.type],
            [value],
            {"divisor": _i64(divisor), "symbol": ir.StringAttr.get(symbol)},
            loc,
            ip,
        )


# What a tile.check verifies (its `check` attribute), as the launch's PromiseBroken names it.
CHECK_KINDS = (
    "hint",  # a tile.hint's divisibility holds for the actual values
    "aligned",  # an @aligned extent is a multiple of its divisor
    "mask",  # a mask tile-elide-masks dropped as all-true is all-true
    "bounds",  # a slice marked in bounds, or an unmasked access, stays inside its tensor
    "contiguity",  # a vector access's elements are consecutive
    "alignment",  # a vector access's address is a multiple of its size
    "uniform mask",  # a vector access's mask is one value over the vector
    "shared",  # a shared-memory access stays inside the buffer the planner placed
    "overlap",  # no two CTAs of a launch store to one element (a store tile-check-overlap reported)
)


@_irdl_op
class CheckOp(_TileOp):
    """`tile.check %condition, %value {check, message}`: a promise verified on the device.

    Verified: `condition` is an i1 or a tile of i1; `value` an integer or index
    scalar, or a tile of the condition's shape; `check` one of CHECK_KINDS.
    """

    OPERATION_NAME = "tile.check"

    def __init__(self, condition: ir.Value, value: ir.Value, check: str, message: str, *, loc=None, ip=None):
        attributes = {"check": ir.StringAttr.get(check), "message": ir.StringAttr.get(message)}
        self._build([], [condition, value], attributes, loc, ip)


@_irdl_op
class BarrierOp(_TileOp):
    """`tile.barrier`: all threads of the CTA reach it before any continues."""

    OPERATION_NAME = "tile.barrier"

    def __init__(self, *, loc=None, ip=None):
        self._build([], [], None, loc, ip)


@_irdl_op
class GridBarrierOp(_TileOp):
    """`tile.grid_barrier`: all CTAs of a `tile.persistent` kernel reach it
    before any continues."""

    OPERATION_NAME = "tile.grid_barrier"

    def __init__(self, *, loc=None, ip=None):
        self._build([], [], None, loc, ip)


# The base of every tile op class: `isinstance(op.opview, TileOp)` asks whether an op is a tile op.
TileOp = _TileOp

# Op groups, defined once (compare with `isinstance(op.opview, GROUP)`).
SLICE_OPS = (LoadSliceOp, StoreSliceOp)  # block-pointer form: base tensor, starts, tile shape
OFFSET_OPS = (LoadOp, StoreOp)  # arange form: a tile of element offsets and a mask
MEMORY_OPS = SLICE_OPS + OFFSET_OPS  # every op that reads or writes a global tensor
LOAD_OPS = (LoadSliceOp, LoadOp)
STORE_OPS = (StoreSliceOp, StoreOp)
EXCHANGE_OPS = (ReduceOp, ScanOp, TransposeOp, ConvertLayoutOp)  # ops that move data between threads
BARRIER_OPS = (BarrierOp, GridBarrierOp)
ATOMIC_OPS = (AtomicRMWOp, AtomicCASOp)  # read-modify-writes of a global tensor at element offsets
LOCAL_OPS = (LocalRMWOp,)  # ops that update a CTA-local tile in shared memory
GRID_INDEX_OPS = (BlockIdOp, GridDimOp)  # hardware ids: non-negative scalars
# Upstream ops that more than one analysis groups the same way.
RESHAPE_OPS = (tensor.ExpandShapeOp, tensor.CollapseShapeOp)
INTEGER_CASTS = (arith.IndexCastOp, arith.IndexCastUIOp, arith.ExtSIOp, arith.ExtUIOp)  # keep the value; not trunci
# Ops whose result is their first operand's value, cast, splat, broadcast, reshaped, hinted or
# checked: what the grid rule and the explain report look through to name a value.
LOOK_THROUGH_OPS = (
    *INTEGER_CASTS,
    arith.TruncIOp,
    tensor.SplatOp,
    BroadcastOp,
    *RESHAPE_OPS,
    HintOp,
    CheckMultipleOp,
    ConvertLayoutOp,
)


def is_op(op: ir.Operation | ir.OpView, *classes: type) -> bool:
    """Whether `op` is an instance of one of `classes` (OpView classes of any dialect)."""
    return isinstance(op.opview if isinstance(op, ir.Operation) else op, classes)


def defining_op(v: ir.Value) -> ir.Operation | None:
    """The op whose result `v` is; None for a block argument."""
    return v.owner.operation if isinstance(v, ir.OpResult) else None


def yielded(block: ir.Block) -> list[ir.Value]:
    """The operands of the block's terminator (what an scf region yields); none for an empty block."""
    ops = list(block.operations)
    return list(ops[-1].operation.operands) if ops else []


def region_yields(op: ir.Operation) -> list[ir.Value]:
    """Every value the regions of `op` yield (an scf.if's branches, a loop's carried values)."""
    return [v for region in op.regions for block in region.blocks for v in yielded(block)]


def upstream_ops(*modules) -> tuple[type, ...]:
    """Every OpView class of upstream dialect modules (`upstream_ops(arith, index)`), for
    questions about a whole dialect ("is this an arith op?") asked by class."""
    return tuple(
        c
        for m in modules
        for c in vars(m).values()
        if isinstance(c, type) and issubclass(c, ir.OpView) and c is not ir.OpView
    )


def ops_of(root: ir.Operation, classes: tuple[type, ...] | None = None) -> list[ir.Operation]:
    """The ops under `root` (itself included) that are instances of `classes` (all of them when
    None), in walk order."""
    found: list[ir.Operation] = []

    def visit(op):
        if classes is None or isinstance(op.opview, classes):
            found.append(op)
        return ir.WalkResult.ADVANCE

    root.walk(visit)
    return found
