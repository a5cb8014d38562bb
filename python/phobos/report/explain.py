"""The access report of `phobos explain`, the `tile-explain` remarks and the
`@assert_coalesced` check: what the compiler decided about every global load
and store of a kernel, and why.

Nothing here is a model of its own. The report reads the compiler's
decisions and the facts behind them:

  * the widest legal vector and the facts that limit it, and which slice
    dimensions stay in bounds (analysis/access.py, the code tile-elide-masks
    runs), with the per-dimension reason a mask stays
    (`access.slice_dim_verdict`);
  * the `vector_width` and `in_bounds` tile-elide-masks records, the dropped
    offset masks, and the `tile.layout` tile-assign-layout chooses: those
    two passes (their own functions, which the caller hands in as
    `prepare`) run on a copy of the module when the input has not been
    through them yet;
  * the placement of each tile in that layout and the chunk width the
    lowering gives each access (lowering/placement.py, and the rule of
    `_access_plan` in lowering/ops/memory.py: the op's width, capped by the
    layout's run along the tile's last dimension, one element for i1, at
    most 16 bytes);
  * the axis facts of offset tiles (contiguity and constancy along the
    dimension the lanes walk).

From the layout it derives what warp 0 does in one request (its first
chunk): which tensor dimension neighbouring lanes walk, the multiplier of
that lane-varying index (1: contiguous; a leading stride or an offset
multiplier: strided), and the 128-byte lines the 32 lanes touch against
the fewest lines their bytes could fill (rows whose stride is a runtime
value are counted as separate lines, and each row as starting on a line
boundary: the count at best alignment).

The report is plain data (dataclasses, `to_json()`); `render_text` prints
it for people, `remark_lines` gives the one-line remarks tile-explain
prints. `KernelReport.shared_buffers` and `.barriers` are the places for
the shared-memory planner's buffers and the barriers it keeps or elides;
they stay empty until the planner fills them.

Layering: the report sits above analysis/ and lowering/ and below passes/
(tile-explain and tile-check-coalesced print it), so it imports no pass and
no compiler: `explain_module` takes the passes it runs as an argument, and
`phobos explain`'s entry point from source, which compiles through the tile
stage first, is phobos.compiler.explain.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

from mlir import ir
from mlir.dialects import arith, func, memref, tensor

from phobos.analysis.access import VECTOR_BYTES, access_facts
from phobos.analysis.axis_info import AxisInfoAnalysis
from phobos.analysis.kernel_facts import (
    TensorFacts,
    _entry_checks,
    _identity_layout,
    _strides_and_offset,
    element_bytes,
    type_facts,
)
from phobos.diagnostics import file_location
from phobos.dialect import kernel as K
from phobos.dialect import tile as T
from phobos.dialect.tile import INTEGER_CASTS, RESHAPE_OPS, is_op, ops_of
from phobos.lowering.layout import WARP_SIZE, Blocked

LINE_BYTES = 128

# The fact behind each kind of width limit (access.py), as the report names it.
FACT_OF_KIND = {
    "base": "alignment of the base",
    "stride": "the row stride",
    "extent": "the extent divisibility",
    "start": "contiguity of the lane-varying index (its start)",
    "contiguity": "contiguity of the lane-varying index",
    "offset-alignment": "contiguity of the lane-varying index (its run starts)",
    "mask": "the mask's constancy",
    "layout": "the kernel's layout",
}


# ----------------------------------------------------------------------------- the report


@dataclass
class Limit:
    """One fact that keeps an access narrower than it could be."""

    kind: str  # a key of FACT_OF_KIND
    fact: str
    bound: int  # the width (elements) this fact allows
    text: str


@dataclass
class MaskDim:
    """Slice form: the mask of one dimension."""

    dim: int
    extent: str  # 'M' or 128
    dropped: bool
    by: list[str] = field(default_factory=list)  # what proves it in bounds (dropped)
    why: str = ""  # the missing fact (kept)


@dataclass
class Mask:
    state: str  # "none" (no mask), "dropped", "kept", "partial" (some slice dimensions keep theirs)
    text: str
    dims: list[MaskDim] = field(default_factory=list)


@dataclass
class Term:
    """A term of an offset expression that varies along the lanes' dimension."""

    text: str
    multiplier: int | None  # None: a runtime value (multiplier_text names it)
    multiplier_text: str
    location: str | None = None


@dataclass
class Lanes:
    """How warp 0's lanes walk the tensor in one request."""

    dim: int | None  # the tile dimension neighbouring lanes walk (None: every lane holds the same elements)
    tensor_dim: int | None  # slice form: the tensor dimension (the same index); offset form: None
    stride: int | None  # elements between neighbouring values of the lane-varying index (None: a runtime value)
    stride_text: str
    lane_step: int  # tile positions between neighbouring lanes' first elements along `dim`
    strided: bool
    terms: list[Term] = field(default_factory=list)  # offset form: the lane-varying terms
    text: str = ""


@dataclass
class Lines:
    touched: int  # 128-byte lines one warp request touches
    ideal: int  # the fewest lines its bytes fit in
    bytes: int  # distinct bytes the request moves
    elements_per_lane: int
    # The request itself: per lane of warp 0, the tile coordinates of the elements of its first
    # chunk, and the element stride per tile dimension the count used (None: a runtime value,
    # each row counted as its own lines); `element_address` places each element.
    lanes: list[list[list[int]]] = field(default_factory=list)
    strides: list[int | None] = field(default_factory=list)


@dataclass
class Access:
    index: int
    op: str
    kind: str  # "load" | "store"
    form: str  # "slice" | "offset"
    location: str  # file:line:col (or "<unknown>")
    filename: str | None
    line: int
    col: int
    tensor: str
    element: str
    elem_bytes: int
    tile: list[int]
    vector_width: int  # elements per access as lowered
    vector_bytes: int
    proven_width: int  # tile-elide-masks' vector_width
    possible_width: int  # what the element size and the tile's last extent allow
    limits: list[Limit] = field(default_factory=list)
    mask: Mask | None = None
    lanes: Lanes | None = None
    lines: Lines | None = None
    notes: list[str] = field(default_factory=list)
    # The layout dimensions the tile occupies, one per tile dimension (lowering/placement.py:
    # None for a unit dimension placed nowhere); None without a layout.
    layout_dims: list[int | None] | None = None

    @property
    def narrow(self) -> bool:
        return self.vector_bytes < VECTOR_BYTES


@dataclass
class SharedBuffer:
    """Hook for the shared-memory planner (filled once it exists)."""

    name: str
    offset: int
    bytes: int
    bank_conflicts: int | None = None
    location: str | None = None


@dataclass
class Barrier:
    """Hook for the barriers the planner keeps or elides (filled once it exists)."""

    location: str
    kept: bool
    why: str = ""


@dataclass
class KernelReport:
    name: str
    location: str
    threads: int
    layout: str | None
    key: str
    assert_coalesced: bool
    accesses: list[Access] = field(default_factory=list)
    shared_buffers: list[SharedBuffer] = field(default_factory=list)
    barriers: list[Barrier] = field(default_factory=list)
    # False where the lowering plans shared memory (tile.dot) that the two lists above do not show yet
    shared_memory_reported: bool = True
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return asdict(self)


# ----------------------------------------------------------------------------- helpers


def _where(loc: ir.Location) -> tuple[str, str | None, int, int]:
    found = file_location(loc)
    if found is None:
        return "<unknown>", None, 0, 0
    filename, line, col = found
    return f"{filename}:{line}:{col}", filename, line, col


def _tile_value(op: ir.Operation) -> ir.Value:
    return op.results[0] if is_op(op, *T.LOAD_OPS) else op.operands[0]


def _base(op: ir.Operation) -> ir.Value:
    return op.opview.base


def _tensor(analysis: AxisInfoAnalysis, base: ir.Value) -> TensorFacts:
    found = analysis.tensor_argument(base)
    return found[1] if found is not None else type_facts(ir.MemRefType(base.type))


def _memory_ops(root: ir.Operation) -> list[ir.Operation]:
    return ops_of(root, T.MEMORY_OPS)


def _fmt_shape(shape) -> str:
    return "x".join(str(s) for s in shape)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


class _Describer:
    """Names scalar values for messages: constants, extents ('N'), parameters."""

    def __init__(self, analysis: AxisInfoAnalysis):
        self.analysis = analysis

    def constant(self, v: ir.Value) -> int | None:
        info = self.analysis.get(v)
        return info.constant if info is not None else None

    def text(self, v: ir.Value, depth: int = 0) -> str:
        c = self.constant(v)
        if c is not None:
            return str(c)
        if depth > 16:
            return "a runtime value"
        if isinstance(v, ir.BlockArgument):
            parent = v.owner.owner
            if parent is not None and is_op(parent, func.FuncOp):
                try:
                    return f"'{K.arg_name(parent.operation, v.arg_number)}'"
                except ValueError:
                    return f"argument {v.arg_number}"
            return "a loop-carried value"
        op = v.owner
        if is_op(op, *T.LOOK_THROUGH_OPS) and len(op.operands):
            return self.text(op.operands[0], depth + 1)
        if is_op(op, memref.DimOp):
            found = self.analysis.tensor_argument(op.operands[0])
            axis = self.constant(op.operands[1])
            if found is not None and axis is not None and 0 <= axis < found[1].rank:
                t = found[1]
                return str(t.static[axis]) if t.static[axis] is not None else t.dims[axis]
        if is_op(op, arith.MulIOp):
            return f"{self.text(op.operands[0], depth + 1)}*{self.text(op.operands[1], depth + 1)}"
        where, *_ = _where(op.location)
        return f"the {op.name} at {where}"


# ----------------------------------------------------------------------------- masks


def _dropped_by(fn: ir.Operation, analysis: AxisInfoAnalysis, t: TensorFacts, d: int, start: ir.Value, extent: int):
    """What proves dimension d of a slice in bounds (for a dimension tile-elide-masks kept in bounds)."""
    info = analysis.get(start)
    static = t.static[d]
    if info is not None and info.constant is not None and static is not None:
        return [f"the constant start {info.constant} inside the literal extent {static}"]
    if static is not None:
        return [f"the literal extent {static}"]
    if extent == 1:
        return ["a tile extent of 1 whose start stays inside the tensor (the grid rule or a loop bound)"]
    symbol = t.dims[d]
    by = []
    try:
        promised = K.aligned(fn)
    except ValueError:
        promised = {}
    if symbol in promised and promised[symbol] % extent == 0:
        by.append(f"@aligned({symbol} = {promised[symbol]})")
    checks = _entry_checks(fn)
    if symbol in checks and symbol not in promised and checks[symbol] % extent == 0:
        by.append(f"the entry check tile.check_multiple({symbol}, {checks[symbol]})")
    fn_type = ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value)
    for i, ty in enumerate(fn_type.inputs):
        if not isinstance(ty, ir.MemRefType):
            continue
        other = analysis.kernel_facts(fn).tensors.get(i)
        if other is None:
            continue
        for dd, name in enumerate(other.dims):
            if name != symbol:
                continue
            if other.static[dd] is not None and other.static[dd] % extent == 0:
                by.append(f"the literal extent {other.static[dd]} of '{other.name}'")
            try:
                spec = K.arg_i64_array(fn, i, K.ARG_DIVISIBILITY)
            except ValueError:
                spec = None
            if spec is not None and dd < len(spec) and spec[dd] % extent == 0:
                by.append(f"the specialisation key ('{other.name}' extent {dd} a multiple of {spec[dd]})")
    if not by:
        by.append(f"the combined facts about '{symbol}' (a multiple of {t.extent_multiple[d]})")
    return by


def _slice_mask(fn, analysis, op, t: TensorFacts, facts, tile) -> Mask:
    view = op.opview
    promised = view.in_bounds
    dims = []
    for d, start in enumerate(view.starts):
        extent_text = t.extent_text(d)
        if promised[d]:
            dims.append(MaskDim(d, extent_text, True, ["in_bounds already on the op (tile-elide-masks ran)"]))
        elif facts.in_bounds[d]:
            dims.append(MaskDim(d, extent_text, True, _dropped_by(fn, analysis, t, d, start, tile[d])))
        else:
            dims.append(MaskDim(d, extent_text, False, why=facts.mask_reasons[d]))
    kept = [m for m in dims if not m.dropped]
    parts = []
    for m in dims:
        if m.dropped:
            parts.append(f"dim {m.dim} dropped by {' and '.join(m.by)}")
        else:
            parts.append(f"dim {m.dim} kept: {m.why}")
    state = "dropped" if not kept else ("kept" if len(kept) == len(dims) else "partial")
    return Mask(state, "; ".join(parts), dims)


def _offset_mask(analysis, mask: ir.Value | None, dropped: bool) -> Mask:
    if mask is None:
        return Mask("none", "none")
    if dropped:
        return Mask("dropped", "dropped: the axis facts prove it all-true")
    text = "kept: it is not proven all-true"
    if isinstance(mask, ir.OpResult):
        where, *_ = _where(mask.owner.location)
        text += f" (it is {mask.owner.name} at {where})"
    return Mask("kept", text)


# ----------------------------------------------------------------------------- lanes


class _Terms:
    """The terms of an offset expression that vary along one tile dimension,
    each with its multiplier (a product of constants and runtime values)."""

    def __init__(self, analysis: AxisInfoAnalysis):
        self.analysis = analysis
        self.names = _Describer(analysis)

    def _constant_along(self, v: ir.Value, d: int) -> bool:
        t = v.type
        if not isinstance(t, ir.RankedTensorType):
            return True
        shape = list(ir.RankedTensorType(t).shape)
        if d >= len(shape) or shape[d] == 1:
            return True
        info = self.analysis.get(v)
        return info is not None and info.constancy[d] >= shape[d]

    def find(self, v: ir.Value, d: int, factors=(), depth: int = 0) -> list[Term]:
        if self._constant_along(v, d):
            return []
        if depth > 64 or isinstance(v, ir.BlockArgument):
            return [self._term(v, factors)]
        op = v.owner
        if is_op(op, arith.AddIOp, arith.SubIOp):
            right = factors + ((-1,),) if is_op(op, arith.SubIOp) else factors
            return self.find(op.operands[0], d, factors, depth + 1) + self.find(op.operands[1], d, right, depth + 1)
        if is_op(op, *INTEGER_CASTS, T.HintOp):
            return self.find(op.operands[0], d, factors, depth + 1)
        if is_op(op, T.BroadcastOp):
            return self.find(op.operands[0], d, factors, depth + 1)
        if is_op(op, *RESHAPE_OPS):
            src = self._reshaped_dim(op, d)
            return [self._term(v, factors)] if src is None else self.find(op.operands[0], src, factors, depth + 1)
        if is_op(op, arith.MulIOp):
            a, b = op.operands[0], op.operands[1]
            if self._constant_along(b, d):
                return self.find(a, d, factors + ((b,),), depth + 1)
            if self._constant_along(a, d):
                return self.find(b, d, factors + ((a,),), depth + 1)
        if is_op(op, arith.ShLIOp):
            k = self.names.constant(op.operands[1])
            if k is not None and 0 <= k < 63:
                return self.find(op.operands[0], d, factors + ((1 << k,),), depth + 1)
        return [self._term(v, factors)]

    def _reshaped_dim(self, op: ir.Operation, d: int) -> int | None:
        groups = [
            [ir.IntegerAttr(i).value for i in ir.ArrayAttr(g)] for g in ir.ArrayAttr(op.attributes["reassociation"])
        ]
        if is_op(op, tensor.ExpandShapeOp):  # result dim d lies in group g; the source dim is g
            for g, group in enumerate(groups):
                if d in group:
                    return g
            return None
        # collapse: result dim d is group d; the source dim is its non-unit member
        if d >= len(groups):
            return None
        src_shape = list(ir.RankedTensorType(op.operands[0].type).shape)
        wide = [i for i in groups[d] if src_shape[i] != 1]
        return wide[0] if len(wide) == 1 else (groups[d][0] if not wide else None)

    def _term(self, v: ir.Value, factors) -> Term:
        value, runtime = 1, []
        for (f,) in factors:
            c = f if isinstance(f, int) else self.names.constant(f)
            if c is not None:
                value *= c
            else:
                runtime.append(self.names.text(f))
        if runtime:
            multiplier = None
            multiplier_text = ("" if value == 1 else f"{value}*") + "*".join(runtime)
        else:
            multiplier, multiplier_text = value, str(value)
        if isinstance(v, ir.OpResult):
            where, *_ = _where(v.owner.location)
            if is_op(v.owner, T.RangeOp):
                view = v.owner.opview
                text = f"tile.range [{view.start}, {view.end})"
            else:
                text = f"the {v.owner.name} value"
            return Term(text, multiplier, multiplier_text, where)
        return Term("a block argument", multiplier, multiplier_text, None)


def _lane_coordinates(layout: Blocked, placed) -> list[list[int]]:
    """The placed coordinates of each lane of warp 0's first element."""
    return [[layout.coordinates(d, placed[d], lane)[0] for d in range(layout.rank)] for lane in range(WARP_SIZE)]


def _packed_stride(t: TensorFacts, d: int) -> str:
    names = [str(t.static[k]) if t.static[k] is not None else t.dims[k] for k in range(d + 1, t.rank)]
    return "*".join(names) or "1"


def _slice_strides(t: TensorFacts, mem: ir.MemRefType) -> list[int | None]:
    """Element strides of each dimension: 1 for the last, a static stride of a strided layout, else None."""
    strides, _ = _strides_and_offset(mem)
    dynamic = ir.ShapedType.get_dynamic_stride_or_offset()
    identity = _identity_layout(mem)
    out = []
    for d in range(t.rank):
        if d == t.rank - 1:
            out.append(1)
        elif identity or strides is None or strides[d] == dynamic:
            out.append(None)  # a runtime value (padded rows are allowed)
        else:
            out.append(strides[d])
    return out


def element_address(coords, strides, elem_bytes: int) -> tuple[tuple, int]:
    """Where one element of a request lies for the line count: (its group, its byte address
    in the group). Dimensions whose stride is a runtime value (None) form the group (rows
    counted apart, each starting on a line boundary); the others give the address."""
    group = tuple(c for c, s in zip(coords, strides) if s is None)
    return group, sum(c * s for c, s in zip(coords, strides) if s is not None) * elem_bytes


def _count_lines(lane_elements, strides, elem_bytes) -> Lines:
    """lane_elements: per lane, the tile coordinates it accesses; strides: element
    stride per tile dimension (None: a runtime value, counted as its own lines)."""
    lines, addresses = set(), set()
    for elements in lane_elements:
        for coords in elements:
            group, address = element_address(coords, strides, elem_bytes)
            addresses.add((group, address))
            lines.add((group, address // LINE_BYTES))
            lines.add((group, (address + elem_bytes - 1) // LINE_BYTES))
    total = len(addresses) * elem_bytes
    per_lane = len(lane_elements[0]) if lane_elements else 0
    return Lines(
        len(lines),
        max(1, math.ceil(total / LINE_BYTES)),
        total,
        per_lane,
        [[list(c) for c in elements] for elements in lane_elements],
        list(strides),
    )


# ----------------------------------------------------------------------------- per kernel


@dataclass
class _Before:
    """What an access looked like before tile-elide-masks rewrote it."""

    op: ir.Operation
    name: str  # the op's name, as the report shows it
    kind: str  # "load" | "store"
    form: str  # "slice" | "offset"
    location: ir.Location
    facts: object
    tensor: TensorFacts
    mask: Mask
    offsets: ir.Value | None


def _before(fn: ir.Operation, analysis: AxisInfoAnalysis) -> list[_Before]:
    out = []
    for op in _memory_ops(fn):
        facts = access_facts(op, analysis)
        t = _tensor(analysis, _base(op))
        tile = list(ir.RankedTensorType(_tile_value(op).type).shape)
        if is_op(op, *T.SLICE_OPS):
            mask = _slice_mask(fn, analysis, op, t, facts, tile)
            offsets = None
        else:
            mask = _offset_mask(analysis, op.opview.mask, facts.drop_mask)
            offsets = op.opview.offsets
        kind = "load" if is_op(op, *T.LOAD_OPS) else "store"
        form = "slice" if is_op(op, *T.SLICE_OPS) else "offset"
        out.append(_Before(op, op.name, kind, form, op.location, facts, t, mask, offsets))
    return out


def _chunk_width(op: ir.Operation, layout: Blocked, placed, last: int, elem: ir.Type) -> int:
    """The width the lowering gives the access (lowering/ops/memory.py, _access_plan)."""
    vw = max(1, ir.IntegerAttr(op.attributes[K.VECTOR_WIDTH]).value) if K.VECTOR_WIDTH in op.attributes else 1
    # a last dimension placed nowhere (placement.py) has extent 1: one element per chunk
    width = 1 if last is None else min(vw, layout.run(last, placed[last]))
    if isinstance(elem, ir.IntegerType) and elem.width == 1:
        width = 1
    while width * element_bytes(elem) > VECTOR_BYTES:
        width //= 2
    return max(1, width)


def _lanes_and_lines(access: Access, before: _Before, op, layout: Blocked, placement, analysis) -> None:
    value = _tile_value(op)
    placed = placement.placed_shape(value)
    dims = placement.dims_of(value)
    rank = len(dims)
    t = before.tensor
    tile = access.tile
    lanes = _lane_coordinates(layout, placed)
    # the layout dimension neighbouring lanes walk: the first in the layout's order along which they differ
    walk = None
    for d in layout.order:
        if any(c[d] != lanes[0][d] for c in lanes):
            walk = d
            break
    width = access.vector_width
    lane_elements = []
    for c in lanes:
        elements = []
        for j in range(width):
            coords = [c[dims[i]] if dims[i] is not None else 0 for i in range(rank)]
            coords[-1] += j
            elements.append(tuple(coords))
        lane_elements.append(elements)
    tdim = dims.index(walk) if walk is not None and walk in dims else None
    step = 0
    if walk is not None:
        nxt = next(c for c in lanes if c[walk] != lanes[0][walk])
        step = nxt[walk] - lanes[0][walk]

    if before.offsets is None:  # slice form
        strides = _slice_strides(t, ir.MemRefType(_base(op).type))
        if tdim is None:
            lanes_fact = Lanes(None, None, 0, "0", 0, False, text="every lane of a warp reads the same elements")
        else:
            stride = strides[tdim]
            if tdim == rank - 1:
                stride_text = "1"
            elif stride is not None:
                stride_text = str(stride)
            else:
                stride_text = (
                    f"the stride of dimension {tdim} of '{t.name}' "
                    f"({_packed_stride(t, tdim)} elements when rows are packed)"
                )
            strided = stride != 1
            text = (
                f"neighbouring lanes walk dimension {tdim} of '{t.name}', "
                + (
                    "the contiguous one (stride 1)"
                    if not strided
                    else f"whose index is multiplied by {stride_text}: strided"
                )
                + f"; lanes start {_plural(step, 'element')} apart along it"
            )
            lanes_fact = Lanes(tdim, tdim, stride, stride_text, step, strided, text=text)
    else:  # offset form
        info = analysis.get(before.offsets)
        terms_of = _Terms(analysis)
        strides = []
        for i in range(rank):
            d = dims[i]
            span = 1 if d is None else min(tile[i], layout.size_per_thread[d] * layout.threads_per_warp[d])
            if tile[i] == 1 or info.constancy[i] >= tile[i]:
                strides.append(0)
            elif info.contiguity[i] >= span:
                strides.append(1)
            else:
                found = terms_of.find(before.offsets, i)
                strides.append(found[0].multiplier if len(found) == 1 else None)
        if tdim is None:
            lanes_fact = Lanes(None, None, 0, "0", 0, False, text="every lane of a warp reads the same elements")
        else:
            stride = strides[tdim]
            found = terms_of.find(before.offsets, tdim)
            strided = stride not in (0, 1)
            if stride in (0, 1):
                stride_text = str(stride)
            elif stride is not None:
                stride_text = str(stride)
            else:
                offending = [x for x in found if x.multiplier != 1] or found
                stride_text = offending[0].multiplier_text if offending else "unknown"
            desc = ", ".join(f"{x.text} at {x.location} times {x.multiplier_text}" for x in found) or "none"
            text = (
                f"neighbouring lanes walk dimension {tdim} of the offsets"
                + (
                    f" (contiguous: stride {stride_text})"
                    if not strided
                    else f", whose lane-varying term is multiplied by {stride_text}: strided"
                )
                + f"; lane-varying terms: {desc}"
            )
            lanes_fact = Lanes(tdim, None, stride, stride_text, step, strided, found, text)
    access.lanes = lanes_fact
    access.lines = _count_lines(lane_elements, strides, access.elem_bytes)


def explain_kernel(
    fn: ir.Operation, before: list[_Before], analysis, key: str = "", chip: str | None = None
) -> KernelReport:
    """The report of one kernel after tile-elide-masks and tile-assign-layout;
    `before` holds each access as it was before them (same order). `chip`
    decides the dots' instructions (wgmma on sm_90a)."""
    from phobos.lowering.errors import LoweringError
    from phobos.lowering.kernel_layout import read_kernel_layout
    from phobos.lowering.placement import Placement

    where, *_ = _where(fn.location)
    try:
        layout = read_kernel_layout(fn)
    except ValueError:
        layout = None
    report = KernelReport(
        K.kernel_name(fn),
        where,
        K.launch(fn)["threads"],
        layout.to_text() if layout is not None else None,
        key,
        K.ASSERT_COALESCED in fn.attributes,
    )
    placement = None
    if layout is not None:
        try:
            placement = Placement(fn)
        except LoweringError as e:
            report.notes.append(f"no lane picture: {e}")
    ops = _memory_ops(fn)
    staged = _staged_loads(fn, layout, placement, report, chip) if layout is not None else {}
    if ops_of(fn, (T.DotOp,)) and not report.shared_buffers:
        report.shared_memory_reported = False
    for index, (op, b) in enumerate(zip(ops, before)):
        loc_text, filename, line, col = _where(b.location)
        value = _tile_value(op)
        tile_t = ir.RankedTensorType(value.type)
        elem = tile_t.element_type
        eb = element_bytes(elem)
        facts = b.facts
        proven = max(1, ir.IntegerAttr(op.attributes[K.VECTOR_WIDTH]).value) if K.VECTOR_WIDTH in op.attributes else 1
        limits = [Limit(kind, FACT_OF_KIND[kind], bound, text) for kind, bound, text in facts.limits]
        width = proven
        if op in staged:
            width = staged[op][0]
        elif layout is not None and placement is not None:
            placed = placement.placed_shape(value)
            last = placement.dims_of(value)[-1]
            width = _chunk_width(op, layout, placed, last, elem)
            if width < proven:
                limits.append(
                    Limit(
                        "layout",
                        FACT_OF_KIND["layout"],
                        width,
                        f"the kernel's layout gives each thread runs of "
                        f"{1 if last is None else layout.run(last, placed[last])} "
                        "elements along this tile's last dimension",
                    )
                )
        access = Access(
            index=index,
            op=b.name,
            kind=b.kind,
            form=b.form,
            location=loc_text,
            filename=filename,
            line=line,
            col=col,
            tensor=b.tensor.name,
            element=str(elem),
            elem_bytes=eb,
            tile=list(tile_t.shape),
            vector_width=width,
            vector_bytes=width * eb,
            proven_width=proven,
            possible_width=facts.possible_width,
            limits=limits,
            mask=b.mask,
        )
        if access.vector_bytes < VECTOR_BYTES and facts.possible_width * eb < VECTOR_BYTES:
            access.notes.append(
                f"{VECTOR_BYTES}-byte vectors are out of reach: the tile's last extent {access.tile[-1]} "
                f"and {eb}-byte elements allow at most {facts.possible_width} per access"
            )
        if op in staged and staged[op][1]:
            access.notes.append(
                "staged: TMA copies this tile into 128-byte swizzled shared memory (lowering/wgmma.py); "
                "no thread's lanes touch it"
            )
        elif op in staged:
            access.notes.append(
                "staged: the dot lowering copies this tile into shared memory cooperatively "
                f"({_plural(width, 'element')} per copy, lowering/shared_region.py); "
                "its lanes are not the kernel layout's and are not reported yet"
            )
        elif placement is not None:
            _lanes_and_lines(access, b, op, layout, placement, analysis)
        if placement is not None:
            access.layout_dims = list(placement.dims_of(value))
        report.accesses.append(access)
    return report


def _staged_loads(fn: ir.Operation, layout: Blocked, placement, report: KernelReport, chip: str | None) -> dict:
    """The kernel's shared-memory plan (lowering/shared_plan.py: the dots' operands and
    the scratch of reductions, scans and transposes) into the report; returns
    the loads the dot lowering stages, each with (its copy width, whether TMA copies it)."""
    exchanges = ops_of(fn, T.EXCHANGE_OPS)
    if not _memory_ops(fn) or not (ops_of(fn, (T.DotOp,)) or exchanges):
        return {}
    from phobos.lowering.errors import LoweringError
    from phobos.lowering.exchange_plan import plan_scratch
    from phobos.lowering.shared_plan import copy_width, folded_transpose, plan_dots
    from phobos.target import DEFAULT_CHIP

    try:
        scratch = plan_scratch(fn, layout, placement, folded_transpose) if placement is not None else []
        plan = plan_dots(fn, layout, K.launch(fn)["threads"], chip or DEFAULT_CHIP, scratch)
    except LoweringError as e:
        report.notes.append(f"the lowering refuses this kernel's shared memory: {e}")
        return {}
    if plan is None:
        return {}
    if plan.wgmma:
        report.notes.append("tensor cores: wgmma, its operands copied by TMA (lowering/wgmma.py)")
    elif plan.tensorcore:
        why = f"; not wgmma: {plan.wgmma_refused}" if plan.wgmma_refused else ""
        report.notes.append(f"tensor cores: ldmatrix + mma.sync{why}")
    report.shared_buffers = [
        SharedBuffer(
            b.name,
            b.offset,
            b.bytes,
            b.read_wavefronts - b.ideal_read_wavefronts if b.reads is not None else None,
            b.where,
        )
        for b in plan.buffers
    ]
    report.barriers = [Barrier(d.what, d.kept, d.reason) for d in plan.sync.decisions]
    report.shared_memory_reported = True
    return {op: (copy_width(op), plan.wgmma) for op in plan.staged}


class StandInPass:
    """Stands in for the pass object when a pass's function runs outside a pass manager
    (`prepare` of explain_module): `failed` tells whether it signalled failure."""

    def __init__(self):
        self.failed = False

    def signal_pass_failure(self) -> None:
        self.failed = True


# prepare(module, pass_, chip): runs tile-elide-masks and tile-assign-layout on `module`.
Prepare = Callable[[ir.Operation, StandInPass, str], None]


def _prepared(module: ir.Operation) -> bool:
    """Whether tile-elide-masks and tile-assign-layout have run on every kernel."""
    for fn in K.kernels(module):
        ops = _memory_ops(fn)
        if ops and (K.LAYOUT not in fn.attributes or any(K.VECTOR_WIDTH not in op.attributes for op in ops)):
            return False
    return True


def explain_module(
    module: ir.Operation, prepare: Prepare, key: str = "", chip: str | None = None
) -> tuple[list[KernelReport], bool]:
    """The reports of every kernel of `module` (tile IR, verified), and whether
    the passes it ran succeeded (their errors are emitted at their ops). The
    module itself is not changed: when tile-elide-masks and tile-assign-layout
    have not run yet, `prepare(copy, pass_, chip)` runs them on a copy
    (`prepare_report` in passes/tile_explain.py: the report sits below the
    passes and imports none of them)."""
    module = module.operation
    if _prepared(module):
        analysis = AxisInfoAnalysis(module)
        return [explain_kernel(fn, _before(fn, analysis), analysis, key, chip) for fn in K.kernels(module)], True

    from phobos.target import DEFAULT_CHIP

    copy = ir.Module.parse(module.get_asm(enable_debug_info=True), module.context)
    work = copy.operation
    analysis = AxisInfoAnalysis(work)
    before = {K.kernel_name(fn): _before(fn, analysis) for fn in K.kernels(work)}
    runner = StandInPass()
    with ir.Location.unknown(module.context):
        prepare(work, runner, chip or DEFAULT_CHIP)
    reports = [explain_kernel(fn, before[K.kernel_name(fn)], analysis, key, chip) for fn in K.kernels(work)]
    return reports, not runner.failed


# ----------------------------------------------------------------------------- text


def _width_text(a: Access) -> str:
    return f"{_plural(a.vector_width, 'element')} ({_plural(a.vector_bytes, 'byte')}) per access"


def render_text(reports: list[KernelReport]) -> str:
    """The report for people: a block per kernel, an entry per access, each at its file:line:col."""
    out = []
    for r in reports:
        out.append(
            f"{r.location}: kernel '{r.name}': {r.threads} threads, layout {r.layout or 'none'}, "
            f"key {r.key or '(generic)'}" + (", @assert_coalesced" if r.assert_coalesced else "")
        )
        for a in r.accesses:
            out.append(f"{a.location}: {a.kind} of '{a.tensor}' ({a.op}, tile {_fmt_shape(a.tile)} x {a.element})")
            vec = f"  vector: {_width_text(a)}"
            if a.narrow:
                vec += f", narrower than {VECTOR_BYTES} bytes"
            out.append(vec)
            for limit in a.limits:
                out.append(f"    missing ({limit.fact}): {limit.text}")
            for note in a.notes:
                out.append(f"    {note}")
            if a.mask is not None:
                out.append(f"  mask: {a.mask.text}")
            if a.lanes is not None:
                out.append(f"  lanes: {'strided' if a.lanes.strided else 'coalesced'}: {a.lanes.text}")
            if a.lines is not None:
                out.append(
                    f"  lines: one warp request touches {_plural(a.lines.touched, '128-byte line')} "
                    f"(ideal {a.lines.ideal}) for {a.lines.bytes} bytes"
                )
        unreported = "planned by the dot lowering, not reported yet"
        buffers = ", ".join(f"{b.name} at {b.offset} ({b.bytes} bytes)" for b in r.shared_buffers)
        barriers = ", ".join(f"{b.location} {'kept' if b.kept else 'elided'}" for b in r.barriers)
        out.append("  shared memory: " + (buffers or ("none planned" if r.shared_memory_reported else unreported)))
        out.append("  barriers: " + (barriers or ("none" if r.shared_memory_reported else unreported)))
        for note in r.notes:
            out.append(f"  note: {note}")
    return "\n".join(out) + ("\n" if out else "")


def remark_message(a: Access) -> str:
    """One access as one remark line (tile-explain)."""
    parts = [f"{a.op} of '{a.tensor}': {_width_text(a)}"]
    if a.limits:
        parts += [f"narrower than 16 bytes, missing {x.fact}: {x.text}" for x in a.limits]
    parts += a.notes
    if a.mask is not None:
        parts.append(f"mask: {a.mask.text}")
    if a.lanes is not None:
        kind = "strided" if a.lanes.strided else "coalesced"
        if a.lanes.dim is None:
            parts.append(f"lanes {kind}: all lanes read the same elements")
        else:
            parts.append(f"lanes {kind}: dimension {a.lanes.dim}, stride {a.lanes.stride_text}")
    if a.lines is not None:
        parts.append(f"128-byte lines per warp request: {a.lines.touched} (ideal {a.lines.ideal})")
    return "; ".join(parts)


def coalescing_error(a: Access) -> str:
    """The message of @assert_coalesced for a strided access."""
    lanes = a.lanes
    if a.form == "slice":
        term = f"the index along dimension {lanes.dim} of '{a.tensor}'"
    else:
        offending = [t for t in lanes.terms if t.multiplier != 1] or lanes.terms
        term = ", ".join(f"{t.text} at {t.location}" for t in offending) or "the lane-varying offsets"
    lines = f"; one warp request touches {a.lines.touched} 128-byte lines (ideal {a.lines.ideal})" if a.lines else ""
    return (
        f"@assert_coalesced: the lanes of this {a.kind} of '{a.tensor}' are strided: "
        f"the lane-varying term ({term}) is multiplied by {lanes.stride_text}{lines}"
    )
