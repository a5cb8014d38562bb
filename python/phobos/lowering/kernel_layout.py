"""The layout of a kernel's tiles: chosen by tile-assign-layout, read by the lowering.

A kernel holds all its tiles in one blocked layout (see layout.py): tiles of
the kernel's highest rank use it directly, lower-rank tiles sit in it as
slices. The layout is recorded on the kernel as `tile.layout` (K.LAYOUT).
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import tensor

from phobos.analysis.access import VECTOR_BYTES
from phobos.analysis.kernel_facts import element_bytes
from phobos.dialect import kernel as K
from phobos.dialect import tile as T
from phobos.dialect.tile import is_op, ops_of
from phobos.lowering.errors import LoweringError
from phobos.lowering.layout import Blocked, choose_blocked
from phobos.lowering.mma import shape_refusal
from phobos.lowering.mma8 import FP8_MMA_PTX, fp8_refusal, is_fp8
from phobos.lowering.placement import Placement, layout_rank, unit_dims_dropped
from phobos.lowering.wgmma8 import TYPES as WGMMA8_TYPES
from phobos.lowering.wgmma8 import k_major_refusal
from phobos.target import DEFAULT_CHIP


def memory_tile(op: ir.Operation) -> ir.RankedTensorType:
    """The tile type a memory op reads or writes."""
    if is_op(op, T.LoadSliceOp, T.LoadOp):
        return ir.RankedTensorType(op.results[0].type)
    return ir.RankedTensorType(op.operands[0].type)


def vector_width(op: ir.Operation) -> int:
    """The `vector_width` fact tile-elide-masks put on a memory op (1 when absent)."""
    if K.VECTOR_WIDTH not in op.attributes:
        return 1
    return max(1, ir.IntegerAttr(op.attributes[K.VECTOR_WIDTH]).value)


def access_width(op: ir.Operation, layout: Blocked, placed: tuple[int, ...], last: int | None, element) -> int:
    """Elements per global access of a memory op from registers: its proven
    vector width, capped by the layout's run along the tile's last dimension
    (`last`, its layout dimension; None when placed nowhere: one element),
    one for i1 (a byte in memory; a vector<Nxi1> would be packed bits), and
    at most 16 bytes. The lowering (ops/memory.py) and `phobos explain` both use it."""
    width = 1 if last is None else min(vector_width(op), layout.run(last, placed[last]))
    if isinstance(element, ir.IntegerType) and element.width == 1:
        width = 1
    while width * element_bytes(element) > VECTOR_BYTES:
        width //= 2
    return max(1, width)


def _tile_shapes(fn: ir.Operation) -> list[tuple[int, ...]]:
    shapes = []
    for op in ops_of(fn):
        for v in list(op.results) + list(op.operands):
            if isinstance(v.type, ir.RankedTensorType):
                shapes.append(tuple(ir.RankedTensorType(v.type).shape))
    return shapes


def choose_kernel_layout(fn: ir.Operation, chip: str = DEFAULT_CHIP) -> Blocked | None:
    """The layout for `fn`'s tiles (None when it has none): shaped by its
    largest tile of the highest rank, preferring tiles that touch memory, with
    lanes along the last dimension, the widest proven vector width of its
    memory ops of the highest rank per thread (longer where a lower-rank
    tile along the last dimension proves a wider vector and the lanes and
    warps stay: _with_longer_runs), and warps from `tile.launch`. A kernel with a
    `tile.dot` is laid out for its largest accumulator instead (dot_layout;
    under `@tensorcore` the mma accumulator layout, with all warps along M on
    a chip with wgmma, or where rows_in_warps says the rows should stay in
    one warp)."""
    rank = layout_rank(fn)
    shapes = [unit_dims_dropped(s, rank) for s in _tile_shapes(fn)]
    if not shapes:
        return None
    dot_ops = ops_of(fn, (T.DotOp,))
    dots = [tuple(ir.RankedTensorType(op.results[0].type).shape) for op in dot_ops]
    if dots and rank == 2:
        shape = max(dots, key=lambda s: (_size(s), s))
        if K.TENSORCORE in fn.attributes and all(tensor_core_operands(op) for op in dot_ops):
            for layout in _mma_candidates(fn, dot_ops, chip):
                if all(shape_refusal(dot, layout) is None for dot in dot_ops):
                    return layout
        return dot_layout(shape, K.launch(fn)["threads"])
    memory_ops = ops_of(fn, T.MEMORY_OPS)
    memory = [(unit_dims_dropped(memory_tile(op).shape, rank), vector_width(op)) for op in memory_ops]
    top = [m for m in memory if len(m[0]) == rank]
    candidates = [s for s, _ in top] or [s for s in shapes if len(s) == rank]
    shape = max(candidates, key=_size)  # the first of the largest: reads come before what they feed
    threads = K.launch(fn)["threads"]
    if not top:
        return choose_blocked(shape, threads, max([w for _, w in memory] or [1]))
    layout = choose_blocked(shape, threads, max(w for _, w in top))
    return _with_longer_runs(layout, shape, threads, _slice_widths(fn, memory_ops, rank))


def _with_longer_runs(layout: Blocked, shape, threads: int, widths: list[int]) -> Blocked:
    """`layout` with the widest of `widths` per thread along the last dimension where that
    keeps its lanes and warps (the runs only get longer: no thread moves to another
    dimension, so no reduction or broadcast changes hands); else `layout` itself."""
    for width in sorted({w for w in widths if w > layout.size_per_thread[-1]}, reverse=True):
        longer = choose_blocked(shape, threads, width)
        if (longer.threads_per_warp, longer.warps_per_cta) == (layout.threads_per_warp, layout.warps_per_cta):
            return longer
    return layout


def _slice_widths(fn: ir.Operation, memory_ops: list[ir.Operation], rank: int) -> list[int]:
    """The proven vector widths of the memory ops whose tiles have a lower rank than the
    layout but whose last dimension sits at the layout's last dimension (a [BN, BK] tile of
    weights beside [TT, 1, BK] tiles of tokens): the runs the layout gives along that
    dimension are that tile's runs too. A tile placed elsewhere (the row sums of a
    [T, N, K] tile, stored as [T, N]) does not count, and none does when the kernel cannot
    be placed (tile-lower-to-gpu reports why)."""
    lower = [op for op in memory_ops if len(unit_dims_dropped(memory_tile(op).shape, rank)) < rank]
    if not lower:
        return []
    try:
        placement = Placement(fn)
    except LoweringError:
        return []
    tiles = [op.results[0] if is_op(op, *T.LOAD_OPS) else op.operands[0] for op in lower]
    return [vector_width(op) for op, tile in zip(lower, tiles) if placement.dims_of(tile)[-1:] == (rank - 1,)]


def _mma_candidates(fn: ir.Operation, dot_ops: list[ir.Operation], chip: str) -> list[Blocked]:
    """The mma accumulator layouts a @tensorcore kernel may take, preferred first: all warps
    along M for wgmma or where rows_in_warps says so, then the squarest split."""
    shape = max((tuple(ir.RankedTensorType(op.results[0].type).shape) for op in dot_ops), key=lambda s: (_size(s), s))
    threads = K.launch(fn)["threads"]
    candidates = []
    if has_wgmma(chip) and _tma_readable(fn, dot_ops):
        candidates.append(wgmma_layout(shape, threads))
    if rows_in_warps(fn, dot_ops):
        candidates.append(mma_layout(shape, threads, rows_only=True))
    candidates.append(mma_layout(shape, threads))
    return [c for c in candidates if c is not None]


def tensor_core_refusal(
    fn: ir.Operation, dots: list[ir.Operation], layout: Blocked, chip: str
) -> tuple[ir.Operation, str] | None:
    """Why the dots of a @tensorcore kernel whose tiles sit in `layout` cannot run on
    the tensor cores (the dot and the reason), or None when they can. The original
    Phobos runs such dots on CUDA cores instead: tile-plan-dots records "fma" and
    warns. The reason is the rule that fails for the mma layouts the kernel could
    take (choose_kernel_layout gives the FMA dot layout when none fits), or for
    `layout` itself where a hand-written tile.layout is not one of them."""
    for dot in dots:
        elem = ir.RankedTensorType(dot.operands[0].type).element_type
        chip_rule = fp8_refusal(chip, FP8_MMA_PTX) if is_fp8(elem) else None
        if chip_rule is not None:
            return dot, chip_rule
        if not tensor_core_operands(dot):
            a, b = (ir.RankedTensorType(v.type).element_type for v in list(dot.operands)[:2])
            acc = ir.RankedTensorType(dot.results[0].type).element_type
            return dot, (
                f"a dot of {a} x {b} into {acc} has no tensor-core instruction (mma.sync takes "
                "f16 x f16 into f32 or f16, bf16 x bf16 into f32, f32 x f32 into f32 as tf32, "
                "i8 x i8 into i32, and f8e4m3 or f8e5m2 (each with itself) into f32)"
            )
    given: list[tuple[ir.Operation, str]] = []
    for dot in dots:
        why = shape_refusal(dot, layout)
        if why is not None:
            given.append((dot, why))
    if not given:
        return None
    candidates = _mma_candidates(fn, dots, chip)
    if any(all(shape_refusal(dot, c) is None for dot in dots) for c in candidates):
        return given[0]  # a hand-written layout the tensor cores cannot use
    for dot in dots:
        why = shape_refusal(dot, candidates[-1]) if candidates else None
        if why is not None:
            return dot, why
    return given[0]


def dot_layout(shape: tuple[int, ...], threads: int) -> Blocked:
    """Register blocking for a [M, N] accumulator: each thread owns an rm x rn
    sub-tile (rm * rn = M * N / threads, rn >= rm, squarish), held as runs of
    up to 4 consecutive elements per dimension (16-byte shared-memory reads
    for f32 operands) that wrap across the tile; lanes are 4 x 8 (rows x
    columns) where the tile allows, so a warp reads few distinct rows of the
    left operand and 8 runs of the right one's row. Tiles too small to give
    every thread a 2 x 2 sub-tile take the elementwise layout."""
    m, n = shape
    per_thread = m * n // threads
    if per_thread < 4:
        return choose_blocked(shape, threads)
    rm = 1
    while (rm * 2) * (rm * 2) <= per_thread and rm * 2 <= m:
        rm *= 2
    rn = per_thread // rm
    while rn > n:
        rn //= 2
        rm *= 2
    tm, tn = m // rm, n // rn  # threads along each dimension
    tpw_n = min(8, tn)
    tpw_m = 32 // tpw_n
    if tpw_m > tm:
        return choose_blocked(shape, threads)
    layout = Blocked((min(4, rm), min(4, rn)), (tpw_m, tpw_n), (tm // tpw_m, tn // tpw_n), (1, 0))
    layout.check()
    return layout


# (operand, accumulator) element types the tensor-core path takes: mma.sync m16n8k16 for
# f16 (into f32 or f16) and bf16 (into f32), m16n8k8 on tf32 for f32 operands, m16n8k32
# for i8 (into i32) and the fp8 types (into f32; sm_89 and PTX ISA 8.4: mma8.fp8_refusal).
MMA_TYPES = (
    ("f16", "f32"),
    ("f16", "f16"),
    ("bf16", "f32"),
    ("f32", "f32"),
    ("i8", "i32"),
    ("f8E4M3FN", "f32"),
    ("f8E5M2", "f32"),
)


def tensor_core_operands(dot: ir.Operation) -> bool:
    """Whether a tile.dot's operands and accumulator are of types the tensor-core path takes."""
    types = [str(ir.RankedTensorType(v.type).element_type) for v in list(dot.operands)[:2]]
    acc = str(ir.RankedTensorType(dot.results[0].type).element_type)
    return types[0] == types[1] and (types[0], acc) in MMA_TYPES


def mma_layout(shape: tuple[int, ...], threads: int, rows_only: bool = False) -> Blocked | None:
    """The accumulator layout of mma.sync m16n8k16: lanes 8 x 4, two columns
    each (a C fragment: lane l holds row l / 4 and columns 2 (l % 4) + 0, 1 of
    every 8 x 8 piece), warps split the tile wm x wn, and each thread's rows
    wrap every 8 wm rows (pairs of wraps make the m16 tiles) and its columns
    every 8 wn (the n8 tiles). The split is the squarest per warp, or, with
    `rows_only`, every warp along M (wn = 1). None when the tile does not
    split into whole m16 x n8 tiles per warp."""
    m, n = shape
    warps = threads // 32
    best = None
    wm = warps if rows_only else 1
    while wm <= warps:
        wn = warps // wm
        if m % (16 * wm) == 0 and n % (8 * wn) == 0:
            per_m, per_n = m // wm, n // wn  # the warp's sub-tile
            score = (abs(per_m - per_n), -per_m)
            if best is None or score < best[0]:
                best = (score, wm, wn)
        wm *= 2
    if best is None:
        return None
    _, wm, wn = best
    layout = Blocked((1, 2), (8, 4), (wm, wn), (1, 0))
    layout.check()
    return layout


WGMMA_ELEMENTS = ("f16", "bf16")  # operand types the wgmma path takes (into f32)


def tma_rows(tensor) -> bool:
    """Whether a tensor's facts (kernel_facts.TensorFacts) give the 16-byte aligned
    base and row pitch TMA needs."""
    return tensor.ptr_align % 16 == 0 and (tensor.stride_multiple[0] * tensor.elem_bytes) % 16 == 0


def _tma_readable(fn: ir.Operation, dots: list[ir.Operation]) -> bool:
    """Whether the dots may run on wgmma: f16/bf16 into f32, loaded from tensors TMA can
    read (tma_rows; wgmma.why_not's first conditions), or for the left operand
    computed in registers. Otherwise they run on mma.sync, which the squarer
    mma_layout suits better."""
    from phobos.analysis.kernel_facts import kernel_facts

    facts = kernel_facts(fn)
    args = list(fn.regions[0].blocks[0].arguments)
    for dot in dots:
        operand = str(ir.RankedTensorType(dot.operands[0].type).element_type)
        acc = str(ir.RankedTensorType(dot.results[0].type).element_type)
        eight = operand in WGMMA8_TYPES  # K-major only: 8-bit, and f32 as tf32
        if eight and not _wgmma8_shaped(dot):
            return False  # the mma.sync layout, as before 8-bit and tf32 wgmma: the kernel runs there
        if not eight and (operand not in WGMMA_ELEMENTS or acc != "f32"):
            return False  # f16 accumulators run on mma.sync
        for role, v in enumerate(list(dot.operands)[:2]):
            op = _source(v, (T.TransposeOp, tensor.CollapseShapeOp))
            if role == 0 and not eight and not _loaded_beside(dot, op):
                continue  # a left operand computed (or loaded before the loop) comes from registers
            if op is None or not is_op(op, T.LoadSliceOp) or op.operands[0] not in args:
                return False
            if not tma_rows(facts.tensors[args.index(op.operands[0])]):
                return False
    return True


def _wgmma8_shaped(dot: ir.Operation) -> bool:
    """Whether a dot of K-major-only operands (8-bit, tf32) has what their wgmma needs of its
    source: its accumulator type, both operands K-major, and one 128-byte swizzled row of k
    per tile (128 8-bit elements, 32 tf32 ones)."""
    elem = ir.RankedTensorType(dot.operands[0].type).element_type
    acc = str(ir.RankedTensorType(dot.results[0].type).element_type)
    k = ir.RankedTensorType(dot.operands[0].type).shape[1]
    row = 128 // (4 if isinstance(elem, ir.F32Type) else 1)
    return acc == WGMMA8_TYPES[str(elem)] and k_major_refusal(dot) is None and k == row


def has_wgmma(chip: str) -> bool:
    """Whether `chip` has warpgroup wgmma (Hopper's arch-specific sm_90a)."""
    return chip == "sm_90a"


WGMMA_MAX_N = 256


def wgmma_layout(shape: tuple[int, ...], threads: int) -> Blocked | None:
    """The mma accumulator layout with every warp along M (wm = warps, wn = 1):
    a warpgroup (4 warps) covers m64 tiles of the whole N, as one wgmma
    m64nNk16 per k16 step does; each thread's row wraps pair up into its
    warpgroup's m64 tiles (wgmma.py says how). None when the warps do not form
    whole warpgroups, M is not a multiple of 16 x warps, or N does not fit one
    instruction (8 to 256, a multiple of 8)."""
    m, n = shape
    warps = threads // 32
    if warps % 4 or n > WGMMA_MAX_N:
        return None
    return mma_layout(shape, threads, rows_only=True)


def rows_in_warps(fn: ir.Operation, dots: list[ir.Operation]) -> bool:
    """Whether a tensor-core kernel wants every warp along M: it reduces along
    the rows of a 2-D tile (rowmax, rowsum: with one warp across each row the
    reduction is two shuffles, with several it goes through shared memory and
    a barrier), or a dot takes its left operand from registers rather than
    straight from a load (with wn = 1 a thread holds whole rows of the
    operand's m16 tiles, which are its mma A fragments: mma.a_in_registers)."""
    for op in ops_of(fn, (T.ReduceOp,)):
        src = ir.RankedTensorType(op.operands[0].type)
        if src.rank == 2 and ir.IntegerAttr(op.attributes["axis"]).value == 1:
            return True
    return any(not _loaded_beside(dot, _source(dot.operands[0], (tensor.CollapseShapeOp,))) for dot in dots)


def _source(v: ir.Value, through: tuple[type, ...]) -> ir.Operation | None:
    """The op that defines `v`, looking past ops of the classes in `through` (None for a block argument)."""
    op = v.owner if isinstance(v, ir.OpResult) else None
    while op is not None and is_op(op, *through):
        inner = op.operands[0]
        op = inner.owner if isinstance(inner, ir.OpResult) else None
    return op


def _loaded_beside(dot: ir.Operation, op: ir.Operation | None) -> bool:
    """Whether `op` is a tile.load_slice in the dot's own block (one the dot can stage)."""
    return op is not None and is_op(op, T.LoadSliceOp) and op.parent == dot.parent


def _size(shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def read_kernel_layout(fn: ir.Operation) -> Blocked | None:
    """The `tile.layout` of `fn`, or None when none was assigned.
    Raises ValueError for a malformed one."""
    if K.LAYOUT not in fn.attributes:
        return None
    return Blocked.from_text(str(fn.attributes[K.LAYOUT]))


def layout_attr(layout: Blocked) -> ir.Attribute:
    return ir.Attribute.parse(layout.to_text())
