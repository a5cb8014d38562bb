"""What is proven about one memory access: in-bounds dimensions, an all-true
mask, and the widest legal vector access along the last dimension.

Used by tile-elide-masks (which records the results as attributes for the
lowering) and by anything that wants the reasons behind a width.

Vector width. A vector of w elements along the last dimension of a tile
covers tile positions j..j+w-1 with w | j, so w must divide the tile's last
extent, and the vector is legal when

  * its first address is a multiple of w elements: for a slice that is
    start_last + sum_k (start_k + i_k) * stride_k over the leading dims k, so
    w must divide start_last and every leading stride (for a leading tile
    extent of 1 it is enough that w divides start_k * stride_k); for the
    offset form it is the offset at j, so the offsets must hold runs of >= w
    consecutive integers whose first elements are multiples of w;
  * the base pointer is aligned to w elements (`tile.ptr_align`; otherwise
    only element alignment is assumed);
  * it moves at most 16 bytes;
  * a mask along the last dimension is constant over the vector: for a
    masked slice the extent must be a multiple of w (then the edge falls
    between vectors); for the offset form the mask's constancy must be >= w.

In bounds (slices). Dimension d of extent E never leaves the tensor when a
constant start c satisfies 0 <= c and c + T <= E (E static), or when

  * the start is a non-negative multiple of the tile extent T and E is a
    multiple of T (exact integers: T need not be a power of two; E from the
    static shape, @aligned promises and entry checks, or specialisation), and
  * the start lies inside the tensor (start < E), which holds for the two
    shapes of start that walk a tensor tile by tile:
      - `block_id(k) * c`: the grid rule the compiler infers for axis k is
        exactly cdiv(E, c) (a grid given by the caller must not be larger).
        An axis whose uses disagree (say `block_id(0) * 32` along extents M
        and K) has no rule: the caller sizes the grid, and nothing is known;
      - the induction variable of an enclosing `scf.for` whose upper bound is
        this extent (the same symbol) or a constant no larger than it.
    Any other start (say `(block_id + 1) * T`, the next tile) stays masked.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mlir import ir
from mlir.dialects import arith, func, memref, scf

from phobos.analysis.abi import describe_params
from phobos.analysis.grid import infer_grid
from phobos.dialect import tile as T
from phobos.dialect.tile import INTEGER_CASTS, is_op

from .axis_info import AxisInfoAnalysis
from .kernel_facts import TensorFacts, type_facts
from .lattice import MAX_DIVISOR, pow2_part
from .transfer import aligned_run

VECTOR_BYTES = 16


@dataclass
class AccessFacts:
    in_bounds: list[bool] | None = None  # slice ops: per dimension
    drop_mask: bool = False  # offset ops: the mask is proven all-true
    vector_width: int = 1
    possible_width: int = 1  # what the element size and tile shape would allow
    missing: list[str] = field(default_factory=list)  # why not possible_width
    # The same reasons with their kind, for reports (phobos explain): (kind, bound, text), kind one of
    # "start", "stride", "base", "extent", "contiguity", "offset-alignment", "mask".
    limits: list[tuple[str, int, str]] = field(default_factory=list)
    # Slice ops: per dimension, why the mask stays (or "" where it is dropped; "promised" for in_bounds
    # already on the op).
    mask_reasons: list[str] | None = None


def _pow2(multiple: int) -> int:
    return MAX_DIVISOR if multiple == 0 else min(pow2_part(abs(multiple)), MAX_DIVISOR)


def _tensor_facts(analysis: AxisInfoAnalysis, base: ir.Value) -> TensorFacts:
    found = analysis.tensor_argument(base)
    return found[1] if found is not None else type_facts(ir.MemRefType(base.type))


class _Widths:
    """Collects upper bounds on the vector width with the reason for each."""

    def __init__(self, possible: int, elem_bytes: int):
        self.possible = possible
        self.elem_bytes = elem_bytes
        self.width = possible
        self.missing: list[str] = []
        self.limits: list[tuple[str, int, str]] = []

    def limit(self, bound: int, reason: str, kind: str) -> None:
        if bound < self.possible:
            text = reason.format(n=self.possible, bytes=self.possible * self.elem_bytes)
            self.missing.append(text)
            self.limits.append((kind, bound, text))
        self.width = min(self.width, bound)

    def facts(self, **kw) -> AccessFacts:
        width = 1
        while width * 2 <= self.width:
            width *= 2
        return AccessFacts(
            vector_width=width, possible_width=self.possible, missing=self.missing, limits=self.limits, **kw
        )


def _aligned_hint(t: TensorFacts, symbol_dims: list[int]) -> str:
    names = [t.dims[d] for d in symbol_dims if t.static[d] is None]
    if not names:
        return ""
    return f" (add @aligned({', '.join(f'{n} = ...' for n in names)}) or pass aligned data)"


def slice_facts(op: ir.Operation, analysis: AxisInfoAnalysis) -> AccessFacts:
    op = op.operation
    view = op.opview
    starts = view.starts
    tile = list(ir.RankedTensorType((op.results[0] if isinstance(view, T.LoadSliceOp) else view.value).type).shape)
    t = _tensor_facts(analysis, view.base)
    rank = len(starts)
    promised = view.in_bounds
    verdicts = [
        (True, "promised") if promised[d] else slice_dim_verdict(analysis, t, starts[d], tile[d], d)
        for d in range(rank)
    ]
    in_bounds = [ok for ok, _ in verdicts]

    last = rank - 1
    widths = _Widths(min(max(1, VECTOR_BYTES // t.elem_bytes), pow2_part(tile[last])), t.elem_bytes)
    widths.limit(
        _pow2(analysis.known_multiple(starts[last])),
        "the start of the last dimension is not known to be a multiple of {n}",
        "start",
    )
    for k in range(last):
        stride = t.stride_multiple[k]
        if tile[k] == 1:
            stride *= analysis.known_multiple(starts[k])
        widths.limit(
            _pow2(stride),
            f"the stride of dimension {k} of '{t.name}' is not known to be a multiple of {{n}} "
            f"(leading strides are runtime values: a specialisation key with '{t.name}=...s16' provides it)",
            "stride",
        )
    widths.limit(
        t.ptr_align // t.elem_bytes,
        f"the base of '{t.name}' is not known to be "
        f"{{bytes}}-byte aligned (a specialisation key with '{t.name}=a16...' provides it)",
        "base",
    )
    if not in_bounds[last]:
        widths.limit(
            _pow2(t.extent_multiple[last]),
            f"the extent {t.extent_text(last)} is not known to be a multiple of {{n}}" + _aligned_hint(t, [last]),
            "extent",
        )
    return widths.facts(in_bounds=in_bounds, mask_reasons=[why if not ok else "" for ok, why in verdicts])


def _slice_dim_in_bounds(analysis: AxisInfoAnalysis, t: TensorFacts, start: ir.Value, extent: int, d: int) -> bool:
    return slice_dim_verdict(analysis, t, start, extent, d)[0]


def slice_dim_verdict(
    analysis: AxisInfoAnalysis, t: TensorFacts, start: ir.Value, extent: int, d: int
) -> tuple[bool, str]:
    """Whether dimension d of a slice (start, tile extent) never leaves the
    tensor, and when it may, the first fact that is missing (for reports)."""
    info = analysis.get(start)
    static = t.static[d]
    if info.constant is not None:
        c = info.constant
        if static is None:
            return False, f"the start {c} is a constant but the extent {t.extent_text(d)} is a runtime value"
        if 0 <= c and c + extent <= static:
            return True, ""
        return False, f"the constant start {c} plus the tile extent {extent} is not inside the extent {static}"
    if not info.non_negative:
        return False, "the start is not known to be non-negative"
    if not _inside(analysis, t, start, d):
        return False, (
            "the start is not known to lie inside the tensor (only block_id * tile under the grid rule "
            "and a loop index bounded by the extent are)"
        )
    if analysis.known_multiple(start) % extent:
        return False, f"the start is not known to be a multiple of the tile extent {extent}"
    if t.extent_multiple[d] % extent:
        return False, (
            f"the extent {t.extent_text(d)} is not known to be a multiple of {extent}" + _aligned_hint(t, [d])
        )
    return True, ""


def _strip(v: ir.Value, through: tuple[type, ...] = INTEGER_CASTS) -> ir.Value:
    while isinstance(v, ir.OpResult) and is_op(v.owner, *through):
        v = v.owner.operands[0]
    return v


def _constant(analysis: AxisInfoAnalysis, v: ir.Value) -> int | None:
    info = analysis.get(v)
    return info.constant if info is not None else None


def _inside(analysis: AxisInfoAnalysis, t: TensorFacts, start: ir.Value, d: int) -> bool:
    """Whether `start` has one of the shapes that keep it below the extent
    (see the module docstring)."""
    v = _strip(start)
    if isinstance(v, ir.BlockArgument):
        loop = v.owner.owner
        if loop is None or not is_op(loop, scf.ForOp) or v.arg_number != 0:
            return False
        return _bounded_by_extent(analysis, t, loop.operation.operands[1], d)
    op = v.owner
    if is_op(op, T.BlockIdOp):
        return _grid_covers(t, op, 1, d)
    if is_op(op, arith.MulIOp):
        for a, b in ((op.operands[0], op.operands[1]), (op.operands[1], op.operands[0])):
            c = _constant(analysis, b)
            block = _strip(a)
            if isinstance(block, ir.OpResult) and is_op(block.owner, T.BlockIdOp) and c is not None and c > 0:
                return _grid_covers(t, block.owner, c, d)
    return False


def _grid_covers(t: TensorFacts, block: ir.Operation, c: int, d: int) -> bool:
    """Whether the kernel's grid rule for the axis of `block` (a tile.block_id) is
    cdiv(extent d of `t`, c): then block_id * c < the extent."""
    fn = block.operation.parent
    while fn is not None and not is_op(fn, func.FuncOp):
        fn = fn.parent
    if fn is None:
        return False
    rule = infer_grid(fn, describe_params(fn))[block.opview.dim]
    if t.static[d] is not None:
        return rule == -(-t.static[d] // c)
    return rule == {"symbol": t.dims[d], "tile": c}


def _bounded_by_extent(analysis: AxisInfoAnalysis, t: TensorFacts, bound: ir.Value, d: int) -> bool:
    """Whether the loop bound `bound` is at most extent d of `t`."""
    c = _constant(analysis, bound)
    if c is not None:
        return t.static[d] is not None and c <= t.static[d]
    v = _strip(bound, INTEGER_CASTS + (T.CheckMultipleOp,))
    if not isinstance(v, ir.OpResult) or not is_op(v.owner, memref.DimOp):
        return False
    axis = _constant(analysis, v.owner.operands[1])
    found = analysis.tensor_argument(v.owner.operands[0])
    if found is None or axis is None or not 0 <= axis < found[1].rank:
        return False
    other = found[1]
    if other.static[axis] is not None:
        return t.static[d] is not None and other.static[axis] <= t.static[d]
    return other.dims[axis] == t.dims[d]


def offset_facts(op: ir.Operation, analysis: AxisInfoAnalysis) -> AccessFacts:
    op = op.operation
    view = op.opview
    offsets = analysis.get(view.offsets)
    shape = list(ir.RankedTensorType(view.offsets.type).shape)
    t = _tensor_facts(analysis, view.base)
    last = len(shape) - 1
    if last < 0:  # one element (a masked single-element access): nothing to widen
        return _Widths(1, t.elem_bytes).facts(drop_mask=False)
    mask = view.mask
    # no facts for a mask of no static integer shape (a rank-0 one of a single element): kept
    mask_facts = analysis.get(mask) if mask is not None else None
    drop_mask = mask_facts is not None and mask_facts.is_true()

    widths = _Widths(min(max(1, VECTOR_BYTES // t.elem_bytes), pow2_part(shape[last])), t.elem_bytes)
    run = min(offsets.contiguity[last], widths.possible)
    if run < widths.possible:
        widths.limit(
            run,
            f"the offsets are contiguous only in runs of {run} along the last dimension "
            "(max_contiguous can promise more)",
            "contiguity",
        )
    # A short run must start aligned too: [1, 2, 3, 4] is a run of 4 but no 4-wide access.
    aligned = aligned_run(offsets, last, run)
    if aligned < run:
        widths.limit(
            aligned,
            "the offsets that start each run are not known to be multiples of {n} (multiple_of can promise it)",
            "offset-alignment",
        )
    widths.limit(
        t.ptr_align // t.elem_bytes,
        f"the base of '{t.name}' is not known to be "
        f"{{bytes}}-byte aligned (a specialisation key with '{t.name}=a16...' provides it)",
        "base",
    )
    if mask is not None and not drop_mask:
        constancy = mask_facts.constancy[last] if mask_facts is not None else 1
        widths.limit(constancy, f"the mask is constant only over runs of {constancy} along the last dimension", "mask")
    return widths.facts(drop_mask=drop_mask)


def access_facts(op: ir.Operation, analysis: AxisInfoAnalysis) -> AccessFacts | None:
    """The facts of a tile memory op (None for other ops)."""
    if is_op(op, *T.SLICE_OPS):
        return slice_facts(op, analysis)
    if is_op(op, *T.OFFSET_OPS, *T.ATOMIC_OPS):  # atomics have offsets, a base and a mask too
        return offset_facts(op, analysis)
    return None
