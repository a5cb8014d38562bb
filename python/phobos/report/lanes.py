"""The lane and line picture of each access in the access report: which tensor dimension
warp 0's neighbouring lanes walk in one request (its first chunk), the multiplier of that
lane-varying index (1: contiguous; a leading stride or an offset multiplier: strided), and the
128-byte lines the 32 lanes touch against the fewest lines their bytes could fill (rows whose
stride is a runtime value are counted as separate lines, and each row as starting on a line
boundary: the count at best alignment). `phobos view` draws the same request
(`element_address`, `_count_lines`)."""

from __future__ import annotations

import math

from mlir import ir
from mlir.dialects import arith, func, memref, tensor

from phobos.analysis.axis_info import AxisInfoAnalysis
from phobos.analysis.kernel_facts import TensorFacts, _identity_layout, _strides_and_offset
from phobos.dialect import kernel as K
from phobos.dialect import tile as T
from phobos.dialect.tile import INTEGER_CASTS, RESHAPE_OPS, is_op
from phobos.lowering.layout import WARP_SIZE, Blocked
from phobos.report.model import LINE_BYTES, Access, Lanes, Lines, Term, _base, _Before, _tile_value, _where
from phobos.report.text import _plural


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


def _same_elements() -> Lanes:
    return Lanes(None, None, 0, "0", 0, False, text="every lane of a warp reads the same elements")


def _walked_dimension(layout: Blocked, lanes: list[list[int]]) -> int | None:
    """The layout dimension neighbouring lanes walk: the first in the layout's order along which they differ."""
    for d in layout.order:
        if any(c[d] != lanes[0][d] for c in lanes):
            return d
    return None


def _lane_step(lanes: list[list[int]], walk: int | None) -> int:
    """Tile positions between neighbouring lanes' first elements along the walked dimension."""
    if walk is None:
        return 0
    nxt = next(c for c in lanes if c[walk] != lanes[0][walk])
    return nxt[walk] - lanes[0][walk]


def _lane_elements(lanes: list[list[int]], dims, width: int) -> list[list[tuple]]:
    """Per lane, the tile coordinates of the `width` elements of its first chunk."""
    rank = len(dims)
    lane_elements = []
    for c in lanes:
        elements = []
        for j in range(width):
            coords = [c[dims[i]] if dims[i] is not None else 0 for i in range(rank)]
            coords[-1] += j
            elements.append(tuple(coords))
        lane_elements.append(elements)
    return lane_elements


def _slice_lanes(t: TensorFacts, strides: list[int | None], tdim: int | None, rank: int, step: int) -> Lanes:
    """Slice form: the lanes walk tensor dimension `tdim`, its index multiplied by its stride."""
    if tdim is None:
        return _same_elements()
    stride = strides[tdim]
    if tdim == rank - 1:
        stride_text = "1"
    elif stride is not None:
        stride_text = str(stride)
    else:
        stride_text = (
            f"the stride of dimension {tdim} of '{t.name}' ({_packed_stride(t, tdim)} elements when rows are packed)"
        )
    strided = stride != 1
    text = (
        f"neighbouring lanes walk dimension {tdim} of '{t.name}', "
        + ("the contiguous one (stride 1)" if not strided else f"whose index is multiplied by {stride_text}: strided")
        + f"; lanes start {_plural(step, 'element')} apart along it"
    )
    return Lanes(tdim, tdim, stride, stride_text, step, strided, text=text)


def _offset_strides(terms_of: _Terms, analysis, offsets: ir.Value, layout: Blocked, dims, tile) -> list[int | None]:
    """Offset form: the element stride per tile dimension, from the offsets' axis facts (0: constant,
    1: contiguous over what a warp spans) or the multiplier of its one lane-varying term (None: a
    runtime value or several terms)."""
    info = analysis.get(offsets)
    strides: list[int | None] = []
    for i in range(len(dims)):
        d = dims[i]
        span = 1 if d is None else min(tile[i], layout.size_per_thread[d] * layout.threads_per_warp[d])
        if tile[i] == 1 or info.constancy[i] >= tile[i]:
            strides.append(0)
        elif info.contiguity[i] >= span:
            strides.append(1)
        else:
            found = terms_of.find(offsets, i)
            strides.append(found[0].multiplier if len(found) == 1 else None)
    return strides


def _offset_lanes(terms_of: _Terms, offsets: ir.Value, strides: list[int | None], tdim: int | None, step: int) -> Lanes:
    """Offset form: the lanes walk dimension `tdim` of the offsets; its lane-varying terms and their multipliers."""
    if tdim is None:
        return _same_elements()
    stride = strides[tdim]
    found = terms_of.find(offsets, tdim)
    strided = stride not in (0, 1)
    if stride is not None:
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
    return Lanes(tdim, None, stride, stride_text, step, strided, found, text)


def _lanes_and_lines(access: Access, before: _Before, op, layout: Blocked, placement, analysis) -> None:
    """Fills `access.lanes` and `access.lines`: warp 0's first request in the kernel's layout."""
    value = _tile_value(op)
    dims = placement.dims_of(value)
    lanes = _lane_coordinates(layout, placement.placed_shape(value))
    walk = _walked_dimension(layout, lanes)
    lane_elements = _lane_elements(lanes, dims, access.vector_width)
    tdim = dims.index(walk) if walk is not None and walk in dims else None
    step = _lane_step(lanes, walk)
    if before.offsets is None:  # slice form
        strides = _slice_strides(before.tensor, ir.MemRefType(_base(op).type))
        access.lanes = _slice_lanes(before.tensor, strides, tdim, len(dims), step)
    else:  # offset form
        terms_of = _Terms(analysis)
        strides = _offset_strides(terms_of, analysis, before.offsets, layout, dims, access.tile)
        access.lanes = _offset_lanes(terms_of, before.offsets, strides, tdim, step)
    access.lines = _count_lines(lane_elements, strides, access.elem_bytes)
