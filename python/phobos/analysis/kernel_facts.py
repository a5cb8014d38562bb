"""What a kernel knows about its tensor and scalar parameters at entry.

A tensor parameter is a `memref` argument (row-major, last dimension
contiguous). Its facts come from four places, combined:

  * the type: static extents, static strides and offset;
  * `tile.aligned = {M = 32}` promises about the dimension symbols named by
    the argument attribute `tile.dims` (a symbol names one extent in every
    parameter that uses it), and the entry checks `tile.check_multiple`;
  * launch-time specialisation (tile-specialize): `tile.divisibility` (per
    extent), `tile.stride_divisibility` (per leading stride), `tile.ptr_align`
    (bytes dividing the base address);
  * the runtime contract: a tensor is contiguous along its last dimension
    only; its leading strides are runtime values (views of padded rows are
    accepted), so nothing about them follows from the extents: they are
    known only from a static strided layout or from the key's stride classes
    (`tile.stride_divisibility`). A base pointer is at least element-aligned;
    a 16-byte aligned base is only known from `tile.ptr_align` (the
    launcher's key records it as `a16`).

Multiples here are exact positive integers (not only powers of two), because
a tile extent such as 96 needs them; 0 stands for the value 0.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import gcd

from mlir import ir

from phobos.dialect import kernel as K
from phobos.dialect import tile as T
from phobos.dialect.tile import is_op


def lcm(a: int, b: int) -> int:
    """Least common multiple, where 0 (the value zero) absorbs everything."""
    if a == 0 or b == 0:
        return 0
    return a * b // gcd(a, b)


def element_bytes(t: ir.Type) -> int:
    width = t.width if hasattr(t, "width") else 64  # index: 64 bits
    return max(1, width // 8)


@dataclass
class TensorFacts:
    """Facts about one memref parameter."""

    index: int
    name: str
    dims: list[str]  # the symbol (or literal) of each dimension
    static: list[int | None]  # static extents (None: dynamic)
    elem_bytes: int
    extent_multiple: list[int]  # an exact integer dividing each extent
    stride_multiple: list[int]  # an exact integer dividing each stride (in elements)
    ptr_align: int  # bytes dividing the address of element 0

    @property
    def rank(self) -> int:
        return len(self.dims)

    def extent_text(self, d: int) -> str:
        """How a message names extent d: 'N' or 100."""
        if self.static[d] is not None:
            return str(self.static[d])
        return f"'{self.dims[d]}'"


@dataclass
class KernelFacts:
    """Facts of every parameter of one function, by argument index."""

    tensors: dict[int, TensorFacts] = field(default_factory=dict)
    scalar_divisibility: dict[int, int] = field(default_factory=dict)
    symbol_multiple: dict[str, int] = field(default_factory=dict)


def _identity_layout(t: ir.MemRefType) -> bool:
    layout = t.layout
    if not isinstance(layout, ir.AffineMapAttr):
        return False
    amap = layout.value
    return amap == ir.AffineMap.get_identity(amap.n_dims)


def _strides_and_offset(t: ir.MemRefType) -> tuple[list[int] | None, int | None]:
    """The static strides and offset of `t`; (None, None) for a layout that is not strided."""
    try:
        return t.get_strides_and_offset()
    except (RuntimeError, ValueError):
        return None, None


def _name(fn: ir.Operation, i: int) -> str:
    """The parameter's name for messages; a malformed tile.name is the verifier's business."""
    try:
        return K.arg_name(fn, i)
    except ValueError:
        return f"arg{i}"


def _entry_checks(fn: ir.Operation) -> dict[str, int]:
    """symbol -> divisor of the top-level tile.check_multiple ops."""
    checks: dict[str, int] = {}
    if not len(fn.regions[0].blocks):
        return checks
    for op in fn.regions[0].blocks[0].operations:
        if is_op(op, T.CheckMultipleOp):
            symbol, divisor = op.opview.symbol, op.opview.divisor
            if divisor > 0:
                checks[symbol] = lcm(checks.get(symbol, 1), divisor)
    return checks


def kernel_facts(fn: ir.Operation) -> KernelFacts:
    """Collects the parameter facts of the func.func `fn` (kernel or not)."""
    fn = fn.operation
    fn_type = ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value)
    facts = KernelFacts()
    try:
        aligned = K.aligned(fn)
    except (ValueError, TypeError):
        aligned = {}

    # What each symbol is known to be a multiple of, over all parameters.
    symbols: dict[str, int] = {}

    def note(symbol: str, multiple: int) -> None:
        symbols[symbol] = lcm(symbols.get(symbol, 1), multiple)

    for symbol, divisor in list(aligned.items()) + list(_entry_checks(fn).items()):
        if divisor > 0:
            note(symbol, divisor)
    memrefs = []
    for i, t in enumerate(fn_type.inputs):
        if isinstance(t, ir.MemRefType):
            dims = _dims(fn, i, t)
            spec = _i64s(fn, i, K.ARG_DIVISIBILITY, t.rank)
            for d, symbol in enumerate(dims):
                if not t.is_dynamic_dim(d):
                    note(symbol, t.get_dim_size(d))
                elif spec[d] > 1:
                    note(symbol, spec[d])
            memrefs.append((i, t, dims))
        elif isinstance(t, (ir.IntegerType, ir.IndexType)):
            spec = _i64s(fn, i, K.ARG_DIVISIBILITY, 1)
            facts.scalar_divisibility[i] = spec[0]
    facts.symbol_multiple = symbols

    for i, t, dims in memrefs:
        static = [None if t.is_dynamic_dim(d) else t.get_dim_size(d) for d in range(t.rank)]
        spec = _i64s(fn, i, K.ARG_DIVISIBILITY, t.rank)
        extents = []
        for d in range(t.rank):
            if static[d] is not None:
                extents.append(static[d])
            else:
                extents.append(lcm(symbols.get(dims[d], 1), spec[d]))
        strides = _stride_multiples(fn, i, t, extents)
        elem = element_bytes(t.element_type)
        align = max(elem, _attr_int(fn, i, K.ARG_PTR_ALIGN, elem))
        _, offset = _strides_and_offset(t)
        if offset is None or offset == ir.ShapedType.get_dynamic_stride_or_offset():
            align = elem
        elif offset:
            align = gcd(align, offset * elem)
        facts.tensors[i] = TensorFacts(i, _name(fn, i), dims, static, elem, extents, strides, align)
    return facts


def _dims(fn: ir.Operation, i: int, t: ir.MemRefType) -> list[str]:
    try:
        dims = K.arg_dims(fn, i)
    except ValueError:
        dims = None
    if dims is None or len(dims) != t.rank:
        # Unnamed dimensions: each is its own symbol (nothing is shared).
        return [str(t.get_dim_size(d)) if not t.is_dynamic_dim(d) else f"{_name(fn, i)}#{d}" for d in range(t.rank)]
    return dims


def _i64s(fn: ir.Operation, i: int, name: str, rank: int) -> list[int]:
    """A per-dimension power-of-two array argument attribute (1s when absent or malformed)."""
    try:
        values = K.arg_i64_array(fn, i, name)
    except ValueError:
        values = None
    if values is None or len(values) != rank or any(v <= 0 for v in values):
        return [1] * rank
    return [int(v) for v in values]


def _attr_int(fn: ir.Operation, i: int, name: str, default: int) -> int:
    try:
        value = K.arg_int(fn, i, name)
    except ValueError:
        value = None
    return default if value is None else max(1, value)


def _stride_multiples(fn: ir.Operation, i: int, t: ir.MemRefType, extents: list[int]) -> list[int]:
    rank = t.rank
    spec = _i64s(fn, i, K.ARG_STRIDE_DIVISIBILITY, max(rank - 1, 0)) + [1]
    strides, _ = _strides_and_offset(t)
    dynamic = ir.ShapedType.get_dynamic_stride_or_offset()
    result = []
    for d in range(rank):
        if _identity_layout(t) or strides is None:
            known = 1  # a leading stride is a runtime value (padded rows are allowed)
        elif strides[d] != dynamic:
            known = strides[d]
        else:
            known = 1
        result.append(lcm(known, spec[d]) if d < rank - 1 else known)
    return result


def pointer_alignment_facts(fn: ir.Operation) -> dict[int, dict]:
    """For the lowering: per memref argument index, what its base pointer may
    be declared as. `align` is a byte alignment of element 0 that the
    compiler may assume (`llvm.align`; >= the element size); `elem_bytes` the
    element size. No aliasing facts are proven here: two tensor parameters
    may be the same tensor (in-place kernels), so `noalias` needs its own
    promise."""
    return {i: {"align": f.ptr_align, "elem_bytes": f.elem_bytes} for i, f in kernel_facts(fn).tensors.items()}


def type_facts(t: ir.MemRefType, name: str = "?") -> TensorFacts:
    """Facts from a memref type alone (a base that is not a parameter)."""
    static = [None if t.is_dynamic_dim(d) else t.get_dim_size(d) for d in range(t.rank)]
    extents = [s if s is not None else 1 for s in static]
    strides, _ = _strides_and_offset(t)
    dynamic = ir.ShapedType.get_dynamic_stride_or_offset()
    if _identity_layout(t) or strides is None:
        stride_multiples = [1] * t.rank  # runtime leading strides, as for parameters
    else:
        stride_multiples = [s if s != dynamic else 1 for s in strides]
    elem = element_bytes(t.element_type)
    dims = [str(s) if s is not None else f"{name}#{d}" for d, s in enumerate(static)]
    return TensorFacts(-1, name, dims, static, elem, extents, stride_multiples, elem)
