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
it for people, `remark_message` gives the one-line remarks tile-explain
prints. `KernelReport.shared_buffers` and `.barriers` hold the shared-memory
plan's buffers and the barriers it keeps or elides.

The modules of the report, each imported from here too:

  report/model.py   the data (Access, KernelReport, ...) and the helpers the others share
  report/masks.py   why each mask is dropped or kept
  report/lanes.py   the lane and line picture of each access (warp 0's first request)
  report/text.py    the text renderers (render_text, remark_message, coalescing_error)
  report/explain.py (this one) the report of a kernel and of a module: explain_kernel,
                    explain_module

Layering: the report sits above analysis/ and lowering/ and below passes/
(tile-explain and tile-check-coalesced print it), so it imports no pass and
no compiler: `explain_module` takes the passes it runs as an argument, and
`phobos explain`'s entry point from source, which compiles through the tile
stage first, is phobos.compiler.explain.
"""

from __future__ import annotations

from collections.abc import Callable

from mlir import ir

from phobos.analysis.access import VECTOR_BYTES, access_facts
from phobos.analysis.axis_info import AxisInfoAnalysis
from phobos.analysis.kernel_facts import element_bytes
from phobos.analysis.row_realign import realign_width
from phobos.dialect import kernel as K
from phobos.dialect import tile as T
from phobos.dialect.tile import is_op, ops_of
from phobos.lowering.fp8 import language_name
from phobos.lowering.kernel_layout import access_width
from phobos.lowering.layout import Blocked
from phobos.report.lanes import _count_lines, _lanes_and_lines, element_address
from phobos.report.masks import _offset_mask, _slice_mask
from phobos.report.model import (
    FACT_OF_KIND,
    LINE_BYTES,
    Access,
    Barrier,
    KernelReport,
    Lanes,
    Limit,
    Lines,
    Mask,
    MaskDim,
    SharedBuffer,
    Term,
    _base,
    _Before,
    _memory_ops,
    _tensor,
    _tile_value,
    _where,
)
from phobos.report.text import _plural, coalescing_error, remark_message, render_text

# What other modules import from here (the report's names from before it was split in modules).
__all__ = [
    "FACT_OF_KIND",
    "LINE_BYTES",
    "Access",
    "Barrier",
    "KernelReport",
    "Lanes",
    "Limit",
    "Lines",
    "Mask",
    "MaskDim",
    "Prepare",
    "SharedBuffer",
    "StandInPass",
    "Term",
    "_count_lines",
    "coalescing_error",
    "element_address",
    "explain_kernel",
    "explain_module",
    "remark_message",
    "render_text",
]


# ----------------------------------------------------------------------------- per access


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


def _width_and_limits(
    op: ir.Operation, b: _Before, value: ir.Value, elem: ir.Type, layout: Blocked | None, placement, staged: dict
) -> tuple[int, int, list[Limit]]:
    """The width tile-elide-masks proved, the width as lowered (the layout's runs cap it; the
    dot lowering's copies set a staged load's), and the facts that limit it."""
    facts = b.facts
    proven = max(1, ir.IntegerAttr(op.attributes[K.VECTOR_WIDTH]).value) if K.VECTOR_WIDTH in op.attributes else 1
    limits = [Limit(kind, FACT_OF_KIND[kind], bound, text) for kind, bound, text in facts.limits]
    width = proven
    if op in staged:
        width = staged[op][0]
    elif layout is not None and placement is not None:
        placed = placement.placed_shape(value)
        last = placement.dims_of(value)[-1]
        width = access_width(op, layout, placed, last, elem)
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
    if realign_width(op) and op not in staged:  # tile-realign-rows: the aligned middle of each row in vectors
        width = realign_width(op)
    return proven, width, limits


def _access_notes(access: Access, op: ir.Operation, staged: dict, possible_width: int) -> None:
    """The notes of an access: 16-byte vectors out of reach, a load the dot lowering stages."""
    eb = access.elem_bytes
    if access.vector_bytes < VECTOR_BYTES and possible_width * eb < VECTOR_BYTES:
        access.notes.append(
            f"{VECTOR_BYTES}-byte vectors are out of reach: the tile's last extent {access.tile[-1]} "
            f"and {eb}-byte elements allow at most {possible_width} per access"
        )
    if realign_width(op):
        access.notes.append(
            f"realigned rows (tile-realign-rows): {realign_width(op) * eb}-byte vectors on the aligned middle of "
            "each row, single elements where a rotated row splits, at the tensor's edges and where a row is "
            "misaligned unlike the reference tensor's (docs/realigned-rows.md)"
        )
    if op in staged and staged[op][1]:
        access.notes.append(
            "staged: TMA copies this tile into 128-byte swizzled shared memory (lowering/wgmma.py); "
            "no thread's lanes touch it"
        )
    elif op in staged:
        access.notes.append(
            "staged: the dot lowering copies this tile into shared memory cooperatively "
            f"({_plural(access.vector_width, 'element')} per copy, lowering/shared_region.py); "
            "its lanes are not the kernel layout's and are not reported yet"
        )


def _explain_access(
    index: int, op: ir.Operation, b: _Before, layout: Blocked | None, placement, staged: dict, analysis
) -> Access:
    """The report of one access (`op` after the passes, `b` before them)."""
    loc_text, filename, line, col = _where(b.location)
    value = _tile_value(op)
    tile_t = ir.RankedTensorType(value.type)
    elem = tile_t.element_type
    eb = element_bytes(elem)
    proven, width, limits = _width_and_limits(op, b, value, elem, layout, placement, staged)
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
        element=language_name(elem),
        elem_bytes=eb,
        tile=list(tile_t.shape),
        vector_width=width,
        vector_bytes=width * eb,
        proven_width=proven,
        possible_width=b.facts.possible_width,
        limits=limits,
        mask=b.mask,
    )
    _access_notes(access, op, staged, b.facts.possible_width)
    if op not in staged and placement is not None:
        _lanes_and_lines(access, b, op, layout, placement, analysis)
    if placement is not None:
        access.layout_dims = list(placement.dims_of(value))
    return access


# ----------------------------------------------------------------------------- per kernel


def _kernel_layout(fn: ir.Operation) -> Blocked | None:
    """The layout tile-assign-layout chose for the kernel (None: none or unreadable)."""
    from phobos.lowering.kernel_layout import read_kernel_layout

    try:
        return read_kernel_layout(fn)
    except ValueError:
        return None


def _placement(fn: ir.Operation, layout: Blocked | None, report: KernelReport):
    """Each tile's place in the layout (lowering/placement.py); None without a layout, or where
    the placement refuses the kernel (a note says why)."""
    from phobos.lowering.errors import LoweringError
    from phobos.lowering.placement import Placement

    if layout is None:
        return None
    try:
        return Placement(fn)
    except LoweringError as e:
        report.notes.append(f"no lane picture: {e}")
        return None


def explain_kernel(
    fn: ir.Operation, before: list[_Before], analysis, key: str = "", chip: str | None = None
) -> KernelReport:
    """The report of one kernel after tile-elide-masks and tile-assign-layout;
    `before` holds each access as it was before them (same order). `chip`
    decides the dots' instructions (wgmma on sm_90a)."""
    where, *_ = _where(fn.location)
    layout = _kernel_layout(fn)
    report = KernelReport(
        K.kernel_name(fn),
        where,
        K.launch(fn)["threads"],
        layout.to_text() if layout is not None else None,
        key,
        K.ASSERT_COALESCED in fn.attributes,
    )
    placement = _placement(fn, layout, report)
    ops = _memory_ops(fn)
    staged = _staged_loads(fn, layout, placement, report, chip) if layout is not None else {}
    if ops_of(fn, (T.DotOp,)) and not report.shared_buffers:
        report.shared_memory_reported = False
    for index, (op, b) in enumerate(zip(ops, before)):
        report.accesses.append(_explain_access(index, op, b, layout, placement, staged, analysis))
    _overlap_notes(fn, ops, report)
    return report


def _overlap_notes(fn: ir.Operation, ops: list, report: KernelReport) -> None:
    """A note on each plain store that several CTAs may make to the same elements (analysis/overlap.py)."""
    from phobos.analysis.abi import ParamError, describe_params
    from phobos.analysis.overlap import AXES, overlapping_stores

    try:
        found = overlapping_stores(fn, describe_params(fn))
    except ParamError:
        return
    for op, d, why in found:
        if op in ops:
            report.accesses[ops.index(op)].notes.append(
                f"race: CTAs along grid axis {AXES[d]} may store to the same elements ({why}); use atomic_add"
            )


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
    from phobos.lowering.widened_fragments import widened_report
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
        for d in plan.wgmma8_dots():
            report.notes.append(f"the dot at {d['at']}: {d['instruction']} (both operands K-major, by descriptor)")
        report.notes.extend(_wgmma_schedules(plan))
    elif plan.tensorcore:
        why = f"; not wgmma: {plan.wgmma_refused}" if plan.wgmma_refused else ""
        report.notes.append(f"tensor cores: ldmatrix + mma.sync{why}")
        for d in plan.eight_bit_dots():
            reads = ", ".join(f"{role}: {how}" for role, how in d["reads"].items())
            report.notes.append(f"the dot at {d['at']}: {d['instruction']} ({reads})")
        for w in widened_report(plan.operands):
            report.notes.append(f"the dot at {w['at']}: its {w['operand']} is widened in registers: {w['reads']}")
    elif plan.fma_note:
        report.notes.append(f"@tensorcore: the dots run on CUDA cores (fma), not mma.sync: {plan.fma_note}")
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


def _wgmma_schedules(plan) -> list[str]:
    """The schedule of each TMA ring: its stages, whether its wgmma group stays in flight across
    iterations (lowering/wgmma_overlap.py) or why not, and what it does not do yet."""
    out = []
    for note in plan.pipeline_notes:
        if not note.get("applied"):
            continue
        depth = note.get("wgmma groups in flight", 0)
        roles = note.get("warp roles")
        refill = "each warp frees the stage on its empty mbarrier" if roles else "the CTA barrier and refill"
        how = (
            f"{depth} wgmma group in flight across iterations, {refill} after its wait"
            if depth
            else f"each iteration waits for its wgmmas ({note.get('why not in flight', 'no overlap')})"
        )
        who = roles or f"every warp issuing (no producer warp: {note.get('why no producer warp', 'not planned')})"
        out.append(
            f"schedule of the loop at {note['loop']}: a {note['stages']}-stage TMA ring, {how}; "
            f"one CTA per output tile (no persistent grid), {who}"
        )
    return out
