"""The rules of tile IR that IRDL cannot express, checked with located errors.

IRDL checks each op's operand, attribute and result kinds (tile.irdl.mlir);
`verify_tile_ir` checks the rest: shapes and element types of every tile op
(slice starts per dimension, tile rank, offsets and masks, dot shapes,
reduction axes), hint arrays (one power of two per dimension), where ops may
appear (inside a kernel; `tile.check_multiple` at its top level), the facts
passes record on ops (`in_bounds`, `vector_width`), the fill value of a load
(`padding`, a scalar of the element type), and kernel facts: the type
of every kernel and argument attribute (kernel.py's readers name the
attribute and the type expected), parameters a pass can read (scalars, or
strided memrefs of rank 1 or more holding integers or floats) and a launch
can pass (the element types of the kernel ABI, analysis/abi.py), a body and no
results, dimension symbols consistent across parameters, launch threads a
multiple of 32, every `@aligned` promise positive, about a real dimension and
checked at entry, and fp8 values only loaded, stored, moved and converted
(fp8.py). Every attribute is read through attributes.read: one of the
wrong kind (a float array where array<i64> belongs, an integer wider than 64
bits) is an error at the op naming the attribute and the kind expected. The
rules of each op are documented on its class in
tile.py. The `tile-verify` pass and the front end run it; every other Phobos
pass runs its structural part first (passes/registry.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from mlir import ir

from phobos.elements import LAUNCH_DTYPES

from . import attributes as A
from . import kernel as K
from . import tile as T
from .definition import OPERAND_SEGMENT_SIZES, OPTIONAL, RESULT_SEGMENT_SIZES, SINGLE, TILE_OPS, VARIADIC
from .fp8 import FP8_TYPES, fp8_misuse

# How many values a declared group of each variadicity may hold.
_SEGMENT_FITS: dict[str, Callable[[int], bool]] = {
    SINGLE: lambda n: n == 1,
    OPTIONAL: lambda n: n in (0, 1),
    VARIADIC: lambda n: n >= 0,
}
_SYMBOL = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_LITERAL = re.compile(r"^[0-9]+$")

# The element types a kernel launch carries (phobos.elements.LAUNCH_DTYPES) from MLIR types, for
# these checks and for the ABI a layer above (analysis/abi.py describe_params).
_PARAM_FLOATS = (
    (ir.F16Type, "f16"),
    (ir.BF16Type, "bf16"),
    (ir.F32Type, "f32"),
    (ir.F64Type, "f64"),
    *zip(FP8_TYPES, ("f8e4m3", "f8e5m2")),
)
_UNSIGNED_DTYPES = {"i8": "u8", "i32": "u32"}  # tile.unsigned on a signless i8/i32


def _is_pow2(x: int) -> bool:
    return x > 0 and (x & (x - 1)) == 0


def _is_int_like(t: ir.Type) -> bool:
    return isinstance(t, (ir.IntegerType, ir.IndexType))


def _elem(t: ir.Type) -> ir.Type:
    return t.element_type if isinstance(t, ir.ShapedType) else t


def _tensor(t: ir.Type) -> ir.RankedTensorType | None:
    return t if isinstance(t, ir.RankedTensorType) else None


def param_dtype(t: ir.Type, unsigned: bool, tensor: bool) -> str | None:
    """The contract dtype of a parameter's element type `t` (None: no launch carries it); an
    index scalar is passed as i64, an index tensor has no element size a launch could give."""
    if isinstance(t, ir.IndexType):
        name = None if tensor else "i64"
    elif isinstance(t, ir.IntegerType):
        name = f"i{t.width}" if f"i{t.width}" in LAUNCH_DTYPES else None
    else:
        name = next((n for cls, n in _PARAM_FLOATS if isinstance(t, cls)), None)
    return _UNSIGNED_DTYPES.get(name or "") if unsigned else name


class _Checker:
    """Collects located errors; _DISPATCH names the check of each tile op."""

    def __init__(self, promises: bool = True):
        self.failed = False
        self.promises = promises

    def error(self, op: ir.Operation, message: str) -> None:
        op.location.emit_error(f"'{op.name}' op {message}")
        self.failed = True

    # --------------------------------------------------------------- helpers

    def _tile_of(self, op, value, what) -> ir.RankedTensorType | None:
        t = _tensor(value.type)
        if t is None:
            self.error(op, f"expects {what} to be a ranked tensor, got {value.type}")
        elif not t.has_static_shape:
            self.error(op, f"expects {what} to have a static shape, got {t}")
            return None
        return t

    def _memref_of(self, op, value) -> ir.MemRefType | None:
        t = value.type
        if not isinstance(t, ir.MemRefType):
            self.error(op, f"expects the base to be a memref, got {t}")
            return None
        return t

    def _vector_width(self, op: ir.Operation, tile: ir.RankedTensorType) -> None:
        """`vector_width` (tile-elide-masks) is a power of two of elements along the last dimension."""
        if K.VECTOR_WIDTH not in op.attributes:
            return
        attr = op.attributes[K.VECTOR_WIDTH]
        try:
            width = A.read(attr, K.VECTOR_WIDTH, A.INTEGER)
        except A.AttributeKindError:
            width = 0
        if not _is_pow2(width):
            self.error(op, f"expects vector_width to be a positive power of two integer, got {attr}")
        elif tile.rank and width > tile.shape[-1]:
            self.error(op, f"expects vector_width {width} not to exceed the last tile extent {tile.shape[-1]}")

    def _padding(self, op: ir.Operation, element_type: ir.Type) -> None:
        """`padding` (the fill value of a load) is a float or integer attribute of the element type."""
        if K.PADDING not in op.attributes:
            return
        given = op.attributes[K.PADDING]
        attr = ir.IntegerAttr(given) if isinstance(given, ir.BoolAttr) else given
        if not isinstance(attr, (ir.FloatAttr, ir.IntegerAttr)) or attr.type != element_type:
            self.error(op, f"expects padding to be a scalar attribute of the element type {element_type}, got {given}")

    def segment_sizes(self, op: ir.Operation) -> None:
        """`operandSegmentSizes`/`resultSegmentSizes` on a tile op, where given (IRDL reads them only
        for an op with several optional or variadic groups, which no tile op has; the accessors
        read them there): an array<i32> of one size per declared group that slices the op's values."""
        definition = TILE_OPS[op.name]
        for attr_name, groups, values in (
            (OPERAND_SEGMENT_SIZES, definition.operands, op.operands),
            (RESULT_SEGMENT_SIZES, definition.results, op.results),
        ):
            sizes = A.read_op(op, attr_name, A.I32_ARRAY)
            if sizes is None:
                continue
            fits = len(sizes) == len(groups) and sum(sizes) == len(values)
            if fits:
                fits = all(_SEGMENT_FITS[g.variadicity](n) for g, n in zip(groups, sizes))
            if not fits:
                names = ", ".join(f"{g.name} ({g.variadicity})" for g in groups)
                self.error(
                    op, f"expects {attr_name} to give the {len(values)} values to the groups {names}, got {sizes}"
                )

    def _in_kernel(self, op: ir.Operation) -> bool:
        parent = op.parent
        while parent is not None and parent.name != "func.func":
            parent = parent.parent
        if parent is None or not K.is_kernel(parent):
            self.error(op, "must be inside a tile kernel (a func.func with the tile.kernel attribute)")
            return False
        return True

    # --------------------------------------------------------------- ops

    def grid_index(self, op):
        d = op.opview.dim
        if d not in (0, 1, 2):
            self.error(op, f"expects dim to be 0, 1 or 2, got {d}")
        self._in_kernel(op)

    def range(self, op):
        start, end = op.opview.start, op.opview.end
        t = self._tile_of(op, op.results[0], "the result")
        if t is None:
            return
        if start < 0 or end <= start:
            self.error(op, f"expects 0 <= start < end, got start = {start}, end = {end}")
        elif t.rank != 1 or t.shape[0] != end - start:
            self.error(op, f"expects a 1-D result of extent end - start = {end - start}, got {t}")
        if not _is_int_like(t.element_type):
            self.error(op, f"expects an integer or index element type, got {t.element_type}")

    def broadcast(self, op):
        src = self._tile_of(op, op.opview.source, "the source")
        res = self._tile_of(op, op.results[0], "the result")
        if src is None or res is None:
            return
        if src.element_type != res.element_type:
            self.error(
                op, f"expects the result element type {res.element_type} to equal the source's {src.element_type}"
            )
        elif src.rank != res.rank:
            self.error(op, f"expects the result rank {res.rank} to equal the source rank {src.rank}")
        else:
            for i, (s, r) in enumerate(zip(src.shape, res.shape)):
                if s != r and s != 1:
                    self.error(op, f"cannot broadcast dimension {i} of extent {s} to {r} (only extent 1 broadcasts)")
                    return

    def convert_layout(self, op):
        src = self._tile_of(op, op.opview.source, "the source")
        res = self._tile_of(op, op.results[0], "the result")
        if src is not None and res is not None and src != res:
            self.error(op, f"expects the result type to be the source's, {src}, got {res}")

    def transpose(self, op):
        src = self._tile_of(op, op.opview.source, "the source")
        res = self._tile_of(op, op.results[0], "the result")
        if src is None or res is None:
            return
        perm = op.opview.permutation
        if sorted(perm) != list(range(src.rank)):
            self.error(op, f"expects permutation to be a permutation of 0..{src.rank - 1}, got {perm}")
            return
        expected = [src.shape[p] for p in perm]
        if list(res.shape) != expected or res.element_type != src.element_type:
            self.error(op, f"expects result type {ir.RankedTensorType.get(expected, src.element_type)}, got {res}")

    def _slice(self, op, base, starts, tile_value, what):
        mem = self._memref_of(op, base)
        tile = self._tile_of(op, tile_value, what)
        if mem is None or tile is None:
            return
        if len(starts) != mem.rank:
            self.error(op, f"expects {mem.rank} start indices (one per dimension of the base), got {len(starts)}")
        if tile.rank != mem.rank:
            self.error(op, f"expects the tile rank {tile.rank} to equal the base rank {mem.rank}")
        if tile.element_type != mem.element_type:
            self.error(op, f"expects the tile element type {tile.element_type} to equal the base's {mem.element_type}")
        if any(d <= 0 for d in tile.shape):
            self.error(op, f"expects positive tile extents, got {list(tile.shape)}")
        self._vector_width(op, tile)
        if K.IN_BOUNDS in op.attributes:
            attr = op.attributes[K.IN_BOUNDS]
            if not isinstance(attr, ir.DenseBoolArrayAttr) or len(attr) != mem.rank:
                self.error(op, f"expects in_bounds to be an array<i1> with {mem.rank} entries, got {attr}")

    def load_slice(self, op):
        o = op.opview
        self._slice(op, o.base, o.starts, op.results[0], "the result")
        if isinstance(o.base.type, ir.MemRefType):
            self._padding(op, o.base.type.element_type)

    def store_slice(self, op):
        o = op.opview
        self._slice(op, o.base, o.starts, o.value, "the stored value")

    def _offsets(self, op, base, offsets, mask, data, what):
        mem = self._memref_of(op, base)
        off = self._tile_of(op, offsets, "the offsets")
        tile = self._tile_of(op, data, what)
        if mem is None or off is None or tile is None:
            return
        if not _is_int_like(off.element_type):
            self.error(op, f"expects integer or index offsets, got {off.element_type}")
        if list(tile.shape) != list(off.shape):
            self.error(op, f"expects {what} to have the offsets' shape {list(off.shape)}, got {list(tile.shape)}")
        if tile.element_type != mem.element_type:
            self.error(op, f"expects {what} element type {tile.element_type} to equal the base's {mem.element_type}")
        self._vector_width(op, tile)
        if mask is not None:
            m = self._tile_of(op, mask, "the mask")
            i1 = ir.IntegerType.get_signless(1)
            if m is not None and (list(m.shape) != list(off.shape) or m.element_type != i1):
                self.error(op, f"expects the mask to be {ir.RankedTensorType.get(list(off.shape), i1)}, got {m}")

    def load(self, op):
        o = op.opview
        self._offsets(op, o.base, o.offsets, o.mask, op.results[0], "the result")
        if isinstance(o.base.type, ir.MemRefType):
            self._padding(op, o.base.type.element_type)

    def store(self, op):
        o = op.opview
        self._offsets(op, o.base, o.offsets, o.mask, o.value, "the stored value")

    def atomic(self, op):
        o = op.opview
        self._offsets(op, o.base, o.offsets, o.mask, o.value, "the value")
        if op.results[0].type != o.value.type:
            self.error(op, f"expects the result type {op.results[0].type} to equal the value type {o.value.type}")
        if isinstance(o, T.AtomicCASOp) and o.compare.type != o.value.type:
            self.error(op, f"expects the compare type {o.compare.type} to equal the value type {o.value.type}")
        checks = [("sem", T.ATOMIC_SEMS), ("scope", T.ATOMIC_SCOPES)]
        checks += [("kind", T.ATOMIC_KINDS)] if isinstance(o, T.AtomicRMWOp) else []
        for name, allowed in checks:
            value = getattr(o, name)
            if value not in allowed:
                self.error(op, f"expects {name} to be one of {', '.join(repr(a) for a in allowed)}, got '{value}'")

    def local_rmw(self, op):
        o = op.opview
        tile = self._tile_of(op, o.tile, "the tile")
        off = self._tile_of(op, o.offsets, "the offsets")
        value = self._tile_of(op, o.value, "the value")
        if tile is None or off is None or value is None:
            return
        if tile.rank != 1 or op.results[0].type != o.tile.type:
            self.error(op, f"expects a 1-D tile and a result of its type, got {tile} and {op.results[0].type}")
        if not isinstance(off.element_type, ir.IndexType):
            self.error(op, f"expects index offsets, got {off.element_type}")
        if list(value.shape) != list(off.shape) or value.element_type != tile.element_type:
            want = ir.RankedTensorType.get(list(off.shape), tile.element_type)
            self.error(op, f"expects the value to be {want}, got {value}")
        if o.mask is not None:
            m = self._tile_of(op, o.mask, "the mask")
            i1 = ir.IntegerType.get_signless(1)
            if m is not None and (list(m.shape) != list(off.shape) or m.element_type != i1):
                self.error(op, f"expects the mask to be {ir.RankedTensorType.get(list(off.shape), i1)}, got {m}")
        if o.kind not in T.LOCAL_RMW_KINDS:
            allowed = ", ".join(repr(a) for a in T.LOCAL_RMW_KINDS)
            self.error(op, f"expects kind to be one of {allowed}, got '{o.kind}'")

    def dot(self, op):
        lhs = self._tile_of(op, op.opview.lhs, "lhs")
        rhs = self._tile_of(op, op.opview.rhs, "rhs")
        acc = self._tile_of(op, op.opview.acc, "acc")
        res = self._tile_of(op, op.results[0], "the result")
        if lhs is None or rhs is None or acc is None or res is None:
            return
        if lhs.rank != 2 or rhs.rank != 2 or acc.rank != 2:
            self.error(op, f"expects 2-D operands, got {lhs}, {rhs} and {acc}")
            return
        (m, k), (k2, n) = lhs.shape, rhs.shape
        if k != k2:
            self.error(op, f"expects lhs columns to equal rhs rows, got [{m}, {k}] x [{k2}, {n}]")
        if list(acc.shape) != [m, n]:
            self.error(op, f"expects an accumulator of shape [{m}, {n}], got {list(acc.shape)}")
        if lhs.element_type != rhs.element_type:
            self.error(
                op, f"expects lhs and rhs to share an element type, got {lhs.element_type} and {rhs.element_type}"
            )
        if not isinstance(acc.element_type, ir.FloatType) and not _is_int_like(acc.element_type):
            self.error(op, f"expects a float or integer accumulator, got {acc.element_type}")
        if res != acc:
            self.error(op, f"expects the result type {res} to equal the accumulator type {acc}")
        if T.DOT_UNSIGNED in op.attributes:
            byte = isinstance(lhs.element_type, ir.IntegerType) and ir.IntegerType(lhs.element_type).width == 8
            if not byte or not _is_int_like(acc.element_type):
                self.error(
                    op,
                    f"expects {T.DOT_UNSIGNED} (u8 operands) only on 8-bit integer operands with an integer "
                    f"accumulator, got {lhs.element_type} operands and a {acc.element_type} accumulator",
                )
            elif not isinstance(op.attributes[T.DOT_UNSIGNED], ir.UnitAttr):
                self.error(op, f"expects {T.DOT_UNSIGNED} to be a unit attribute")

    def _axis_op(self, op, kinds):
        src = self._tile_of(op, op.opview.source, "the source")
        if src is None:
            return None
        kind, axis = op.opview.kind, op.opview.axis
        if kind not in kinds:
            self.error(op, f"expects kind to be one of {', '.join(repr(k) for k in kinds)}, got '{kind}'")
        if not 0 <= axis < src.rank:
            self.error(op, f"expects 0 <= axis < {src.rank}, got {axis}")
            return None
        return src, axis

    def reduce(self, op):
        checked = self._axis_op(op, T.REDUCE_KINDS)
        if checked is None:
            return
        src, axis = checked
        expected = T.reduced_type(src, axis)
        if op.results[0].type != expected:
            self.error(op, f"expects result type {expected}, got {op.results[0].type}")

    def scan(self, op):
        checked = self._axis_op(op, T.SCAN_KINDS)
        if checked is not None and op.results[0].type != op.opview.source.type:
            self.error(op, f"expects the result type to equal the source type {op.opview.source.type}")

    def hint(self, op):
        value_type = op.opview.value.type
        if op.results[0].type != value_type:
            self.error(op, f"expects the result type {op.results[0].type} to equal the operand type {value_type}")
            return
        if not _is_int_like(_elem(value_type)):
            self.error(op, f"expects an integer or index scalar or tile, got {value_type}")
            return
        t = _tensor(value_type)
        shape = list(t.shape) if t is not None else [None]
        present = [n for n in T.HINT_NAMES if n in op.attributes]
        if not present:
            self.error(op, f"expects at least one of {', '.join(T.HINT_NAMES)}")
        for name in present:
            attr = op.attributes[name]
            if not isinstance(attr, ir.DenseI64ArrayAttr):
                self.error(op, f"expects {name} to be an array<i64>, got {attr}")
                continue
            facts = list(attr)
            if len(facts) != len(shape):
                entries = "entry" if len(shape) == 1 else "entries"
                self.error(op, f"expects {name} to have {len(shape)} {entries} (one per dimension), got {len(facts)}")
                continue
            for d, (f, extent) in enumerate(zip(facts, shape)):
                if not _is_pow2(f):
                    self.error(op, f"expects {name}[{d}] to be a positive power of two, got {f}")
                elif name != "divisibility" and extent is not None and f > extent:
                    self.error(op, f"expects {name}[{d}] = {f} not to exceed the extent {extent} of dimension {d}")
                elif name != "divisibility" and extent is None and f != 1:
                    self.error(op, f"expects {name} of a scalar to be 1, got {f}")

    def check_multiple(self, op):
        divisor = op.opview.divisor
        if divisor <= 0:
            self.error(op, f"expects a positive divisor, got {divisor}")
        if op.parent is None or not K.is_kernel(op.parent):
            self.error(op, "must be at the top level of a tile kernel (it checks a promise at entry)")

    def check(self, op):
        self._in_kernel(op)
        o = op.opview
        if o.check not in T.CHECK_KINDS:
            self.error(op, f"expects check to be one of {', '.join(T.CHECK_KINDS)}, got {o.check!r}")
        cond, value = o.condition.type, o.value.type
        cond_elem = _elem(cond)
        if not (isinstance(cond_elem, ir.IntegerType) and ir.IntegerType(cond_elem).width == 1):
            self.error(op, f"expects the condition to be an i1 or a tile of i1, got {cond}")
        elif not _is_int_like(_elem(value)):
            self.error(op, f"expects the value to be an integer or index scalar or tile, got {value}")
        else:
            cond_tile, value_tile = _tensor(cond), _tensor(value)
            shape = list(cond_tile.shape) if cond_tile is not None else None
            value_shape = list(value_tile.shape) if value_tile is not None else None
            if shape != value_shape:
                self.error(op, f"expects the value ({value}) to have the condition's shape ({cond})")

    def no_operands(self, op):
        self._in_kernel(op)

    # --------------------------------------------------------------- kernels

    def malformed(self, op: ir.Operation, e: A.AttributeKindError) -> None:
        """Reports an attribute that a check read (attributes.read) and found of the wrong kind."""
        if isinstance(e, K.KernelAttributeError):
            self.attribute_error(op, e)
        else:
            self.error(op, f"expects {e.name} to be {e.expected}, got {e.attr}")

    def attribute_error(self, fn: ir.Operation, e: K.KernelAttributeError) -> None:
        """Reports an attribute of the wrong type at the argument that carries it (else the kernel)."""
        if e.index is None:
            self.error(fn, f"has a malformed kernel attribute: {e}")
            return
        where = fn.location
        if len(fn.regions[0].blocks):
            where = fn.regions[0].blocks[0].arguments[e.index].location
        where.emit_error(f"'{fn.name}' op has a malformed attribute on parameter {e.index}: {e}")
        self.failed = True

    def _read(self, fn: ir.Operation, reader: Callable, *args):
        """`reader(fn, *args)`, or _MALFORMED once its error is reported."""
        try:
            return reader(fn, *args)
        except K.KernelAttributeError as e:
            self.attribute_error(fn, e)
            return _MALFORMED

    def misplaced_kernel(self, op: ir.Operation) -> None:
        self.error(op, f"carries {K.KERNEL}, but only a func.func can be a tile kernel")

    def kernel(self, fn: ir.Operation) -> None:
        fn_type = ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value)
        if len(fn_type.results):
            self.error(fn, "tile kernels return nothing; results are stored to tensor parameters")
        if not len(fn.regions[0].blocks):
            self.error(fn, "is a tile kernel without a body")
        flags = self._read(fn, K.flags)
        self._pipeline_depth(fn, flags)
        blocks = self._read(fn, K.extent_blocks)
        if blocks is not _MALFORMED:
            for symbol, (_, block) in blocks.items():
                if block < 1:
                    self.error(fn, f"expects {K.EXTENT_BLOCKS} {symbol} to have a positive block, got {block}")
        self._kernel_layout(fn)
        launch = self._read(fn, K.launch)
        if launch is not _MALFORMED:
            self._launch(fn, launch)
        space = self._read(fn, K.autotune)
        bindings = self._read(fn, K.bindings)
        aligned = self._read(fn, K.aligned)
        extents: dict[str, list[tuple]] = {}
        for i, arg_type in enumerate(fn_type.inputs):
            self._kernel_arg(fn, i, arg_type, extents)
        if not self.promises:
            return
        if space is not _MALFORMED:
            self._autotune(fn, space, {} if bindings is _MALFORMED else bindings)
        for symbol, uses in extents.items():
            statics = {s for _, s in uses if s is not None}
            if len(statics) > 1:
                names = ", ".join(f"{p}" for p, _ in uses)
                self.error(fn, f"gives symbol '{symbol}' different static extents {sorted(statics)} (in {names})")
        if aligned is not _MALFORMED:
            self._aligned(fn, aligned, extents)

    def _pipeline_depth(self, fn: ir.Operation, flags) -> None:
        depth = self._read(fn, K.pipeline_depth)
        if depth is None or depth is _MALFORMED:
            return
        if flags is not _MALFORMED and K.PIPELINE not in flags:
            self.error(fn, f"carries {K.PIPELINE_DEPTH} without {K.PIPELINE}")
        if not K.MIN_PIPELINE_DEPTH <= depth <= K.MAX_PIPELINE_DEPTH:
            self.error(
                fn, f"expects {K.PIPELINE_DEPTH} from {K.MIN_PIPELINE_DEPTH} to {K.MAX_PIPELINE_DEPTH}, got {depth}"
            )

    def _kernel_layout(self, fn: ir.Operation) -> None:
        # The lowering reads the details (phobos/lowering/layout.py); here only the kind.
        if K.LAYOUT in fn.attributes and not str(fn.attributes[K.LAYOUT]).startswith("#tile.blocked<"):
            self.error(fn, f"expects {K.LAYOUT} to be a #tile.blocked layout, got {fn.attributes[K.LAYOUT]}")

    def _launch(self, fn: ir.Operation, launch: dict[str, int]) -> None:
        t = launch["threads"]
        if t <= 0 or t % 32 or t > 1024:
            self.error(fn, f"expects tile.launch threads to be a multiple of 32 between 32 and 1024, got {t}")
        for hint in ("min_blocks", "max_regs"):  # they become i32 attributes of the gpu.func
            if not 0 <= launch.get(hint, 0) < 2**31:
                self.error(fn, f"expects tile.launch {hint} to be a non-negative 32-bit integer, got {launch[hint]}")

    def _autotune(self, fn: ir.Operation, space: dict[str, list[int]], bindings: dict[str, int]) -> None:
        for name, values in space.items():
            if not values or any(v <= 0 for v in values):
                self.error(fn, f"expects tile.autotune '{name}' to list positive values, got {values}")
        for name, value in bindings.items():
            if name in space and value not in space[name]:
                self.error(fn, f"binds '{name}' = {value}, which is not in its autotune space {space[name]}")

    def _aligned(self, fn: ir.Operation, aligned: dict[str, int], extents: dict[str, list[tuple]]) -> None:
        checks = {}
        body = fn.regions[0].blocks[0] if len(fn.regions[0].blocks) else None
        if body is not None:
            for op in body.operations:
                if op.name == "tile.check_multiple":
                    o = op.opview
                    try:
                        checks[o.symbol] = o.divisor
                    except A.AttributeKindError:
                        continue  # reported at the op by its own check
        for symbol, divisor in aligned.items():
            if divisor <= 0:
                self.error(fn, f"promises '{symbol}' is a multiple of {divisor}; the divisor must be positive")
                continue
            if symbol not in extents:
                self.error(fn, f"promises '{symbol}' is aligned, but no tensor parameter has a dimension '{symbol}'")
                continue
            statics = {s for _, s in extents[symbol] if s is not None}
            if statics:
                extent = statics.pop()
                if extent % divisor:
                    self.error(fn, f"promises '{symbol}' is a multiple of {divisor}, but its static extent is {extent}")
            elif checks.get(symbol) != divisor:
                self.error(
                    fn,
                    f"promises '{symbol}' is a multiple of {divisor} but does not check it at entry (expected a "
                    f'top-level tile.check_multiple with symbol = "{symbol}" and divisor = {divisor})',
                )

    def _kernel_arg(self, fn, i, arg_type, extents) -> None:
        name = self._read(fn, K.arg_name, i)
        dims = self._read(fn, K.arg_dims, i)
        if name is _MALFORMED or dims is _MALFORMED:
            return
        self._arg_facts(fn, i, name, arg_type)
        if isinstance(arg_type, ir.MemRefType):
            self._tensor_param(fn, name, dims, arg_type, extents)
        elif isinstance(arg_type, (ir.IntegerType, ir.IndexType, ir.FloatType)):
            if dims is not None and self.promises:
                self.error(fn, f"gives scalar parameter '{name}' tile.dims")
        else:
            self.error(fn, f"expects parameter '{name}' to be a memref (tensor) or a scalar, got {arg_type}")
            return
        self._launchable(fn, i, name, arg_type)

    def _launchable(self, fn, i, name, arg_type) -> None:
        """A parameter type the launch ABI carries, else the ABI's error (analysis/abi.py) at the
        parameter: passes that read the parameters (the lowering) may then rely on it."""
        tensor = isinstance(arg_type, ir.MemRefType)
        elem = arg_type.element_type if tensor else arg_type
        if not isinstance(elem, (ir.IntegerType, ir.IndexType, ir.FloatType)):
            return  # not a number: _tensor_param said so
        unsigned = K.arg_unsigned(fn, i)
        if param_dtype(elem, unsigned, tensor) is not None:
            return
        shown = f"{'unsigned ' if unsigned else ''}{elem}"
        what = f"tensor parameter '{name}' has element type" if tensor else f"scalar parameter '{name}' has type"
        args = fn.regions[0].blocks[0].arguments if len(fn.regions[0].blocks) else []
        where = args[i].location if i < len(args) else fn.location
        where.emit_error(f"{what} {shown}; supported: {', '.join(LAUNCH_DTYPES)}")
        self.failed = True

    def _arg_facts(self, fn, i, name, arg_type) -> None:
        """The specialisation facts of parameter `i`: per dimension (tensor) or
        one entry (integer scalar), positive powers of two."""
        memref = isinstance(arg_type, ir.MemRefType)
        integer = isinstance(arg_type, (ir.IntegerType, ir.IndexType))
        rank = arg_type.rank if memref else 1
        arrays = ((K.ARG_DIVISIBILITY, rank, memref or integer), (K.ARG_STRIDE_DIVISIBILITY, rank - 1, memref))
        for attr, length, allowed in arrays:
            values = self._read(fn, K.arg_i64_array, i, attr)
            if values is None or values is _MALFORMED:
                continue
            if not allowed:
                self.error(fn, f"gives parameter '{name}' of type {arg_type} {attr}")
            elif len(values) != length:
                entries = "entry" if length == 1 else "entries"
                self.error(fn, f"expects {attr} of '{name}' to have {length} {entries}, got {len(values)}")
            elif not all(_is_pow2(v) for v in values):
                self.error(fn, f"expects {attr} of '{name}' to hold positive powers of two, got {values}")
        align = self._read(fn, K.arg_int, i, K.ARG_PTR_ALIGN)
        if align is None or align is _MALFORMED:
            return
        if not memref:
            self.error(fn, f"gives parameter '{name}' of type {arg_type} {K.ARG_PTR_ALIGN}")
        elif not _is_pow2(align):
            self.error(fn, f"expects {K.ARG_PTR_ALIGN} of '{name}' to be a positive power of two, got {align}")

    def _tensor_param(self, fn, name, dims, arg_type: ir.MemRefType, extents) -> None:
        if arg_type.rank == 0:
            self.error(fn, f"expects tensor parameter '{name}' to have rank 1 or more, got {arg_type}")
            return
        if arg_type.memory_space is not None:  # the lowering passes tensors as global pointers
            self.error(fn, f"expects tensor parameter '{name}' in the default memory space, got {arg_type}")
        elem = arg_type.element_type
        if not isinstance(elem, (ir.IntegerType, ir.IndexType, ir.FloatType)):
            self.error(fn, f"expects tensor parameter '{name}' to hold integers or floats, got {arg_type}")
        try:
            strides, _ = arg_type.get_strides_and_offset()
        except (RuntimeError, ValueError):
            self.error(fn, f"expects tensor parameter '{name}' to have a strided layout, got {arg_type}")
            return
        if strides[-1] != 1:
            self.error(
                fn, f"expects tensor parameter '{name}' to be contiguous along its last dimension, got {arg_type}"
            )
        if dims is None:
            if self.promises:
                self.error(fn, f"expects tensor parameter '{name}' to name its dimensions with tile.dims")
            return
        if len(dims) != arg_type.rank:
            self.error(fn, f"expects tile.dims of '{name}' to have {arg_type.rank} entries, got {len(dims)}")
            return
        if not self.promises:
            return
        for axis, d in enumerate(dims):
            static = None if arg_type.is_dynamic_dim(axis) else arg_type.get_dim_size(axis)
            if _LITERAL.match(d):
                if static is None or static != int(d):
                    self.error(
                        fn, f"gives dimension {axis} of '{name}' the literal extent {d}, but its type is {arg_type}"
                    )
            elif _SYMBOL.match(d):
                extents.setdefault(d, []).append((name, static))
            else:
                self.error(fn, f"expects dimension names of '{name}' to be identifiers or integers, got '{d}'")


# What Checker._read returns for an attribute whose type error it reported.
_MALFORMED = object()


_DISPATCH: dict[str, Callable] = {
    "tile.block_id": _Checker.grid_index,
    "tile.grid_dim": _Checker.grid_index,
    "tile.range": _Checker.range,
    "tile.broadcast": _Checker.broadcast,
    "tile.transpose": _Checker.transpose,
    "tile.convert_layout": _Checker.convert_layout,
    "tile.load_slice": _Checker.load_slice,
    "tile.store_slice": _Checker.store_slice,
    "tile.load": _Checker.load,
    "tile.store": _Checker.store,
    "tile.dot": _Checker.dot,
    "tile.atomic_rmw": _Checker.atomic,
    "tile.atomic_cas": _Checker.atomic,
    "tile.local_rmw": _Checker.local_rmw,
    "tile.reduce": _Checker.reduce,
    "tile.scan": _Checker.scan,
    "tile.hint": _Checker.hint,
    "tile.check_multiple": _Checker.check_multiple,
    "tile.check": _Checker.check,
    "tile.barrier": _Checker.no_operands,
    "tile.grid_barrier": _Checker.no_operands,
}


def verify_tile_ir(module: ir.Operation, promises: bool = True) -> bool:
    """Runs the checks on `module`, emitting located errors; True when all hold.

    With `promises=False` only what passes read is checked (attribute types
    and lengths, shapes, parameter types): every Phobos pass runs that much
    first. The kernel's own rules (promises checked at entry, one extent per
    symbol, tile.dims on every tensor, bindings inside the autotune space)
    are tile-verify's: passes can then be tested on kernels that state facts
    without their entry checks, as the elide-masks tests do."""
    checker = _Checker(promises)
    context = module.context

    def visit(op):
        name = op.name
        # A check that reads an attribute of the wrong kind (attributes.read) stops there; the
        # error names the attribute and the kind expected, at the op.
        try:
            misuse = fp8_misuse(op) if promises else None  # a kernel rule: tile-verify's
            if misuse is not None:
                checker.error(op, misuse)
            if name in _DISPATCH:
                checker.segment_sizes(op)
                _DISPATCH[name](checker, op)
            elif K.is_kernel(op):
                checker.kernel(op)
            elif K.KERNEL in op.attributes:
                checker.misplaced_kernel(op)
        except A.AttributeKindError as e:
            checker.malformed(op, e)
        return ir.WalkResult.ADVANCE

    # The checks build types (expected results); that needs a default location.
    with context, ir.Location.unknown(context):
        module.walk(visit)
    return not checker.failed
