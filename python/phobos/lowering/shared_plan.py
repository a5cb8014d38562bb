"""The kernel's shared-memory plan: dot operands, exchange scratch, barriers, rings, the dot path.

Made before any code is emitted (Triton's Allocation, Membar, pipeliner and
AccelerateMatmul decisions in one place); the emitters (ops/) follow it.

Dots on CUDA cores: operands staged through shared memory, register-blocked FMAs.

The kernel's layout for a dot kernel gives each thread an rm x rn sub-tile
of the accumulator (kernel_layout.dot_layout), held in registers across the
loop over K. A dot reads both operands from shared memory:

  * an operand that is a `tile.load_slice` used only by the dot (possibly
    through a `tile.transpose`, as `dot_t` writes it) is *staged*: the load
    becomes a cooperative copy from global memory straight into its buffer,
    in rows of the tensor (coalesced, `vector_width` elements per copy, masked
    chunks zero-filled), and never visits registers;
  * any other operand (a computed tile) is written to its buffer from the
    registers that hold it.

For each k the thread reads its rm values of the left operand and rn of the
right one (16-byte `ld.shared` where the buffer is contiguous along the
thread's run, else along k) and does rm * rn FMAs on the accumulator vector.
Buffers are rows x ld with ld padded against bank conflicts, at offsets from
the planner (shared_memory.py); barriers go where shared_sync.py finds a
hazard. In a kernel with `@pipeline`, loops whose staged loads depend only on
the induction variable become a ring of cp.async stages (ops/pipelined_for.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mlir import ir
from mlir.dialects import arith, index, scf, tensor

from phobos.analysis.kernel_facts import element_bytes, kernel_facts
from phobos.dialect import kernel as K
from phobos.dialect import tile as T
from phobos.dialect.tile import is_op, ops_of, upstream_ops
from phobos.lowering import plan_records as records
from phobos.lowering.errors import LoweringError
from phobos.lowering.fp8 import language_name
from phobos.lowering.ir_helpers import tile_type, where
from phobos.lowering.kernel_layout import has_wgmma, tensor_core_refusal, vector_width
from phobos.lowering.layout import Blocked
from phobos.lowering.mma import a_in_registers, padded_ld
from phobos.lowering.mma8 import (
    FP8_MMA_PTX,
    fp8_refusal,
    instruction,
    is_eight_bit,
    is_fp8,
    operand_element,
    operand_reads,
)
from phobos.lowering.shared_memory import Buffer, choose_padding, place
from phobos.lowering.shared_sync import Access, Barrier, Branch, Decision, Loop, SyncPlan, plan_barriers
from phobos.lowering.warp_roles import plan_roles, producer_reason
from phobos.lowering.wgmma import ATOM, SWIZZLE, TensorMap, plan_copies, row_elements, whole_a, why_not
from phobos.lowering.wgmma8 import instruction as wgmma8_instruction
from phobos.lowering.wgmma8 import is_wgmma8
from phobos.lowering.wgmma_overlap import DEPTH, overlapped_dot
from phobos.lowering.widened_fragments import widened_report, widens
from phobos.target import max_shared_bytes

SMEM_SYMBOL = "__phobos_smem"
WORKGROUP = "#gpu.address_space<workgroup>"
DEFAULT_STAGES = 3  # stages per ring under a plain @pipeline (@pipeline(S) asks for S)
K_CHUNK = 32  # a dot with a longer K loops over chunks of this many k (unrolled inside)
SMALL_SCRATCH = 1024  # bytes: exchange buffers up to this size are not shared with other buffers


def _single_use(v: ir.Value, user: ir.Operation) -> bool:
    """Whether `user` is the only use of `v` (one the dot also reads elsewhere stays in registers)."""
    uses = list(v.uses)
    return len(uses) == 1 and uses[0].owner == user


# Ops a ring may recompute for the next iteration's starts: no effects, no regions.
_PURE = upstream_ops(arith, index) + (T.BlockIdOp, T.GridDimOp)


@dataclass
class Operand:
    """One dot operand as it sits in shared memory."""

    role: str  # "lhs" | "rhs"
    dot: ir.Operation
    value: ir.Value  # the tile held in the buffer (the load's result, or the register tile)
    source: ir.Operation | None  # the staged tile.load_slice; None for a register tile
    transposed: bool  # the buffer holds the operand transposed (via tile.transpose)
    buffer: int = -1
    registers: bool = False  # no buffer: its registers are the mma A fragments (mma.a_in_registers)
    # the folded widening of 8-bit elements (f16(w_i8)): the buffer holds the bytes as loaded and
    # the emitter widens each fragment in registers (widened_fragments.py)
    widened: ir.Operation | None = None

    @property
    def contiguous_out(self) -> bool:
        """Whether the buffer's rows run along the output dimension (M for lhs, N for rhs)."""
        return (self.role == "lhs") == self.transposed


@dataclass
class Pipelined:
    loop: ir.Operation
    loads: list[ir.Operation]  # the staged loads it prefetches, in body order
    stages: int
    ring: int  # id for shared_sync
    overlapped: ir.Operation | None = None  # its dot's wgmma group stays in flight (wgmma_overlap.py)


@dataclass
class DotPlan:
    """What the dot lowering decided for one kernel (before emitting anything)."""

    operands: dict[tuple[ir.Operation, str], Operand] = field(default_factory=dict)
    staged: dict[ir.Operation, Operand] = field(default_factory=dict)  # load_slice -> operand
    skipped: set = field(default_factory=set)  # tile.transpose ops folded into a buffer's orientation
    pipelined: dict[ir.Operation, Pipelined] = field(default_factory=dict)
    pipeline_notes: list[dict] = field(default_factory=list)
    pipeline_refused: dict[ir.Operation, str] = field(default_factory=dict)  # loop -> why it has no ring
    ring_of: dict[ir.Operation, int] = field(default_factory=dict)  # staged load -> ring id
    buffers: list[Buffer] = field(default_factory=list)
    elements: dict[int, ir.Type] = field(default_factory=dict)  # buffer -> element type of its view
    scratch: dict[ir.Operation, int] = field(default_factory=dict)  # reduce/scan/transpose -> buffer
    has_dots: bool = False
    tensorcore: bool = False  # the dots run on the tensor cores: ldmatrix + mma.sync (mma.py) or wgmma
    wgmma: bool = False  # TMA + mbarrier + wgmma (wgmma.py)
    wgmma_refused: str | None = None  # why a chip with wgmma runs mma.sync instead
    # under @tensorcore, the dot the tensor cores cannot run and why: the dots run on CUDA cores (fma)
    tensorcore_refused: tuple[ir.Operation, str] | None = None
    # @fastmath: fp8 wgmma sums stay in the tensor cores' own accumulation (no promotion into f32)
    fast_fp8: bool = False
    producer: bool = False  # the ring's copies come from a producer warpgroup (warp_roles.py)

    @property
    def fma_note(self) -> str | None:
        """Why a @tensorcore kernel's dots run on CUDA cores (tile.dot_path_note on "fma")."""
        if self.tensorcore_refused is None:
            return None
        dot, why = self.tensorcore_refused
        return f"the dot at {where(dot)}: {why}"

    tensor_maps: list[TensorMap] = field(default_factory=list)  # extra kernel parameters, in order
    map_of: dict[ir.Operation, int] = field(default_factory=dict)  # staged load -> its tensor map
    copies: dict[ir.Operation, list] = field(default_factory=dict)  # staged load -> its TMA copies (wgmma.Copy)
    whole: dict[ir.Operation, int] = field(default_factory=dict)  # staged load -> the map of its one-copy tiles
    sync: SyncPlan | None = None
    total_bytes: int = 0

    def eight_bit_dots(self) -> list[dict]:
        """For each dot of 8-bit operands on mma.sync: its instruction and how each operand is read."""
        out = []
        for (dot, role), o in self.operands.items():
            a = b = operand_element(dot)  # ui8 for u8 operands
            if role != "lhs" or not is_eight_bit(a):
                continue
            rhs = self.operands[(dot, "rhs")]
            reads = {"lhs": operand_reads("lhs", o.contiguous_out), "rhs": operand_reads("rhs", rhs.contiguous_out)}
            out.append({"at": where(dot), "instruction": instruction(a, b), "reads": reads})
        return out

    def wgmma8_dots(self) -> list[dict]:
        """For each dot of 8-bit operands on wgmma: its instruction (both operands by descriptor)."""
        out = []
        for dot, role in self.operands:
            elem = operand_element(dot)
            if role == "lhs" and is_wgmma8(elem):
                n = tile_type(dot.results[0]).shape[1]
                out.append({"at": where(dot), "instruction": wgmma8_instruction(elem, n)})
        return out

    @property
    def align(self) -> int:
        return max((b.align for b in self.buffers), default=16)

    def report(self) -> dict:
        out = {
            "bytes": self.total_bytes,
            "buffers": [b.to_json() for b in self.buffers],
            "barriers": self.sync.to_json()["barriers"] if self.sync else [],
            "pipeline": self.pipeline_notes,
        }
        if self.tensorcore:
            path: dict[str, str | list[dict]] = {"instruction": "wgmma" if self.wgmma else "mma.sync"}
            if self.wgmma_refused:
                path["why not wgmma"] = self.wgmma_refused
            if self.tensor_maps:
                path["tensor_maps"] = [m.to_json() for m in self.tensor_maps]
            if not self.wgmma and self.eight_bit_dots():
                path["dots"] = self.eight_bit_dots()
            widened = widened_report(self.operands)
            if widened:
                path["widened"] = widened
            elif self.wgmma and self.wgmma8_dots():
                path["dots"] = self.wgmma8_dots()
            out["tensor_cores"] = path
        elif self.tensorcore_refused:
            out["tensor_cores"] = {"instruction": "fma", "why not mma.sync": self.fma_note}
        return out


# ============================================================================ planning


# The planning phases, in order; each has a pass of the gpu stage that records its decisions in
# the IR (plan_records.py), and each reads the records of its phase where they are present.
PHASES = ("dot-path", "pipeline", "allocation", "barriers")


def plan_dots(
    fn: ir.Operation,
    layout: Blocked | None,
    threads: int,
    chip: str,
    scratch: list | None = None,
    upto: str = "barriers",
) -> DotPlan | None:
    """The shared-memory plan of `fn`: its dots' operands and the `scratch`
    buffers of its reductions, scans and transposes (exchange_plan.Scratch), in one
    region with one barrier plan, through phase `upto` of PHASES. None when the
    kernel needs no shared memory. Raises LoweringError."""
    dots = ops_of(fn, (T.DotOp,))
    scratch = scratch or []
    if not dots and not scratch:
        return None
    if dots and (layout is None or layout.rank != 2):
        raise LoweringError(dots[0], "tile-lower-to-gpu lowers 'tile.dot' only in kernels whose tiles are at most 2-D")
    assert layout is not None  # dots need one (above), and plan_scratch plans no scratch without one
    plan = DotPlan(has_dots=bool(dots), fast_fp8=K.FASTMATH in fn.attributes)
    if dots and K.TENSORCORE in fn.attributes:
        refused = tensor_core_refusal(fn, dots, layout, chip)
        plan.tensorcore = refused is None
        plan.tensorcore_refused = refused
    _refuse_fp8_fma(plan, fn, dots, chip)
    for dot in dots:
        for role, value in (("lhs", dot.operands[0]), ("rhs", dot.operands[1])):
            plan.operands[(dot, role)] = _classify(plan, dot, role, value)
    if plan.tensorcore:
        for operand in plan.operands.values():
            operand.registers = a_in_registers(operand, layout)
    _choose_dot_path(plan, fn, dots, layout, chip)
    if upto == "dot-path":
        return plan
    if K.PIPELINE in fn.attributes and dots:
        _plan_pipelines(plan, fn, plan.wgmma, recorded=True)
    if upto == "pipeline":
        return plan
    program = _allocate(plan, fn, layout, chip, scratch, dots)
    if upto == "allocation":
        return plan
    plan_roles(plan, fn, threads)
    _place_barriers(plan, fn, program)
    return plan


def _refuse_fp8_fma(plan: DotPlan, fn: ir.Operation, dots: list, chip: str) -> None:
    """fp8 dots run on the tensor cores only: the CUDA-core dot widens its operands as it reads
    them, which fp8 codes (carried as i8 by LLVM) would need cvt pairs for. A located error, with
    the rule that keeps the tensor cores from it under @tensorcore."""
    for dot in dots:
        elem = tile_type(dot.operands[0]).element_type
        if plan.tensorcore or not is_fp8(elem):
            continue
        if K.TENSORCORE not in fn.attributes:
            why = "add @tensorcore (mma.sync m16n8k32 on sm_89 or later), or convert the operands to f16"
        else:
            why = fp8_refusal(chip, FP8_MMA_PTX) or plan.fma_note or ""
        raise LoweringError(dot, f"a dot of {language_name(elem)} operands runs only on the tensor cores: {why}")


def _choose_dot_path(plan: DotPlan, fn: ir.Operation, dots: list, layout: Blocked, chip: str) -> None:
    """FMA, mma.sync or wgmma (the same for every dot of the kernel), or what `tile.dot_path` says."""
    recorded = records.read_dot_path(dots, plan.tensorcore, plan.fma_note)
    if not (plan.tensorcore and has_wgmma(chip)):
        if recorded is not None and recorded[0] == records.WGMMA:
            raise LoweringError(dots[0], f'{records.DOT_PATH} = "wgmma", but {chip} has no wgmma')
        return
    if recorded is not None and recorded[0] == records.MMA:
        plan.wgmma_refused = recorded[1] or f'{records.DOT_PATH} = "mma.sync" chose it'
        return
    if K.PIPELINE in fn.attributes:  # wgmma needs its operands in TMA rings: plan them as TMA's
        _plan_pipelines(plan, fn, True, recorded=False)
    _plan_wgmma(plan, fn, dots, layout)
    plan.pipelined.clear()  # the pipeline phase plans the rings for the path taken
    plan.ring_of.clear()
    plan.pipeline_notes.clear()
    plan.pipeline_refused.clear()
    if recorded is not None and not plan.wgmma:
        raise LoweringError(dots[0], f'{records.DOT_PATH} = "wgmma", but {plan.wgmma_refused}')


def _allocate(plan: DotPlan, fn: ir.Operation, layout: Blocked, chip: str, scratch: list, dots: list) -> list:
    """The buffers, their padding and offsets (from `tile.shared` where recorded); returns the
    shared-memory program of the kernel (shared_sync.py's events)."""
    for operand in plan.operands.values():
        if operand.registers:
            continue
        operand.buffer = len(plan.buffers)
        plan.elements[operand.buffer] = tile_type(operand.value).element_type
        plan.buffers.append(_buffer(plan, operand, layout))
    for s in scratch:
        i = len(plan.buffers)
        plan.scratch[s.op] = i
        plan.elements[i] = s.element
        buffer = Buffer(f"{s.what} at {where(s.op)}", s.rows, s.cols, element_bytes(s.element), where=where(s.op))
        buffer.ld = s.ld
        plan.buffers.append(buffer)
    program = _events(plan, fn.regions[0].blocks[0])
    if records.read_allocation(fn, plan.buffers):
        plan.total_bytes = max(b.offset + b.bytes for b in plan.buffers)
    else:
        _place_buffers(plan, program)
    limit = max_shared_bytes(chip)
    if plan.wgmma:  # the mbarriers are static shared memory, before the 1024-aligned region: a KB of it
        limit -= ATOM
    if plan.total_bytes > limit:
        sizes = ", ".join(f"{b.name} {b.bytes} B" for b in plan.buffers)
        first = dots[0] if dots else scratch[0].op
        raise LoweringError(
            first,
            f"the kernel needs {plan.total_bytes} bytes of shared memory ({sizes}), more than the "
            f"{limit} bytes a CTA may use on {chip}: use smaller tiles or fewer pipeline stages",
        )
    return program


def _place_buffers(plan: DotPlan, program: list) -> None:
    """Padding and offsets: buffers whose live ranges do not overlap share bytes."""
    _live_ranges(plan, program)
    for i in plan.scratch.values():
        b = plan.buffers[i]
        if b.rows * b.ld * b.element_bytes <= SMALL_SCRATCH:
            # Bytes of its own: a few bytes buy the barrier a shared buffer would need before its next writer.
            b.live = (0, 1 << 30)
    for b in plan.buffers:
        if not b.ld:
            choose_padding(b)
    plan.total_bytes = place(plan.buffers).total_bytes


def _place_barriers(plan: DotPlan, fn: ir.Operation, program: list) -> None:
    """The barrier decisions (from `tile.sync` where recorded), with each ring's stage barrier."""
    recorded = records.read_barriers(fn)
    if recorded is not None:
        plan.sync = SyncPlan(recorded)
        return
    plan.sync = plan_barriers(program, lambda i, j: plan.buffers[i].overlaps(plan.buffers[j]))
    for p in plan.pipelined.values():
        why = (
            "every thread has finished reading the stage the TMA copies refill next (each stage's mbarrier "
            "says when its copies have landed)"
            if plan.wgmma
            else f"after cp.async.wait_group {p.stages - 2} this iteration's stage has landed for every thread, "
            "and every thread has finished reading the stage refilled next"
        )
        if p.overlapped is not None:
            why = (
                "every warpgroup has waited for the wgmma group that read the stage the TMA copies refill "
                "next (one group stays in flight)"
            )
        why = producer_reason(why) if plan.producer else why
        place = "the end" if p.overlapped is not None else "the start"
        plan.sync.decisions.append(
            Decision(
                (p.loop, "stage-barrier"),
                f"{place} of each iteration of the pipelined loop at {where(p.loop)}",
                True,
                f"the {p.stages}-stage ring: {why}",
            )
        )


def _plan_wgmma(plan: DotPlan, fn: ir.Operation, dots: list[ir.Operation], layout: Blocked) -> None:
    """Takes the TMA + wgmma path when every dot can (wgmma.why_not), else records why not."""
    warps = layout.threads // 32
    args = list(fn.regions[0].blocks[0].arguments)
    facts = kernel_facts(fn)
    for dot in dots:
        why = why_not(plan, dot, warps, facts, args)
        if why is None and layout.warps_per_cta != (warps, 1):
            why = "the kernel's tile.layout does not put every warp along M"
        if why is not None:
            plan.wgmma_refused = f"the dot at {where(dot)}: {why}"
            return
    plan.wgmma = True
    maps: dict[TensorMap, int] = {}

    def map_index(tm: TensorMap) -> int:
        if tm not in maps:
            maps[tm] = len(plan.tensor_maps)
            plan.tensor_maps.append(tm)
        return maps[tm]

    for dot in dots:
        m = tile_type(dot.results[0]).shape[0]
        for role in ("lhs", "rhs"):
            o = plan.operands[(dot, role)]
            if o.registers:
                continue
            assert o.source is not None  # why_not refuses a dot with an operand of no source
            param = args.index(o.source.operands[0])
            rows, cols = tile_type(o.value).shape
            k_row = row_elements(tile_type(o.value).element_type)
            copies, box = plan_copies(o, rows, cols, warps, m, k_row)
            lead = tile_type(o.source.results[0]).rank - 2  # unit dimensions: K[h, j :+ BN, :]
            plan.map_of[o.source] = map_index(TensorMap(param, box + (1,) * lead))
            plan.copies[o.source] = copies
            whole = whole_a(param, m, warps, k_row) if role == "lhs" and not lead else None
            if whole is not None:
                plan.whole[o.source] = map_index(whole)


def folded_transpose(op: ir.Operation) -> bool:
    """Whether a tile.transpose becomes the read order of a dot operand's buffer
    (its result feeds one dot as lhs or rhs and nothing else; see _classify)."""
    uses = list(op.results[0].uses)
    if len(uses) != 1:
        return False
    owner = uses[0].owner
    owner = getattr(owner, "operation", owner)
    return is_op(owner, T.DotOp) and uses[0].operand_number in (0, 1)


def _classify(plan: DotPlan, dot: ir.Operation, role: str, value: ir.Value) -> Operand:
    transposed = False
    source = value.owner if isinstance(value, ir.OpResult) else None
    held, user = value, dot
    if source is not None and is_op(source, T.TransposeOp) and _single_use(value, dot):
        plan.skipped.add(source)
        transposed = True
        held, user = source.operands[0], source
        source = held.owner if isinstance(held, ir.OpResult) else None
    widened = _widened_load(plan, dot, role, transposed, held, user)
    if widened is not None:
        source, held, user = widened.operands[0].owner, widened.operands[0], widened
    held_for_check, collapse = held, None
    if source is not None and is_op(source, tensor.CollapseShapeOp) and _single_use(held, user):
        # K[h, j :+ BN, :] reads a [1, BN, D] tile and drops the unit dimension: stage the load itself
        inner = source.operands[0]
        loaded = inner.owner if isinstance(inner, ir.OpResult) else None
        if loaded is not None and is_op(loaded, T.LoadSliceOp) and all(x == 1 for x in tile_type(inner).shape[:-2]):
            collapse, held_for_check, user, source = source, inner, source, loaded
    staged = (
        source is not None
        and is_op(source, T.LoadSliceOp)
        and not source.opview.padding  # the copies zero-fill what is out of bounds
        and _single_use(held_for_check, user)
        and source.parent == dot.parent
        and source not in plan.staged
    )
    operand = Operand(role, dot, held, source if staged else None, transposed, widened=widened)
    if staged:
        plan.staged[source] = operand
        if widened is not None:
            plan.skipped.add(widened)
        if collapse is not None:
            plan.skipped.add(collapse)
    return operand


def _widened_load(
    plan: DotPlan, dot: ir.Operation, role: str, transposed: bool, held: ir.Value, user: ir.Operation
) -> ir.Operation | None:
    """The 8-bit to f16 conversion (`f16(W[...])`, widened_fragments.widens) between a staged load and
    the mma.sync dot that alone reads it, to fold into the dot's fragment reads; None where there is
    none or the buffer would not run along k (the fragments' byte pairs are consecutive along k)."""
    convert = held.owner if isinstance(held, ir.OpResult) else None
    if not plan.tensorcore or convert is None or not widens(convert) or not _single_use(held, user):
        return None
    if (role == "lhs") == transposed:  # a buffer [k][out]: each fragment pair would be two rows apart
        return None
    loaded = convert.operands[0].owner if isinstance(convert.operands[0], ir.OpResult) else None
    if loaded is None or not is_op(loaded, T.LoadSliceOp) or loaded.parent != dot.parent:
        return None
    if loaded.opview.padding or loaded in plan.staged or not _single_use(convert.operands[0], convert):
        return None
    return convert


def _plan_pipelines(plan: DotPlan, fn: ir.Operation, tma: bool, recorded: bool) -> None:
    """The @pipeline rings; `tma`: their copies may be TMA's (whole tiles: no piece size to respect).
    `recorded`: a loop's `tile.pipeline_stages` decides its ring (0: none) where present."""
    for loop in ops_of(fn, (scf.ForOp,)):
        body = loop.regions[0].blocks[0]
        loads = [op.operation for op in body.operations if op.operation in plan.staged]
        if not loads:
            continue
        reason = _why_not_pipelined(loop, loads, tma)
        stages = K.pipeline_depth(fn) or DEFAULT_STAGES  # @pipeline(S), else 3
        if recorded:
            stages, reason = records.read_pipeline(loop, reason, stages)
        at = where(loop)
        if reason is not None:
            plan.pipeline_notes.append({"loop": at, "applied": False, "reason": reason})
            plan.pipeline_refused[loop] = reason
            continue
        ring = len(plan.pipelined)
        plan.pipelined[loop] = Pipelined(loop, loads, stages, ring)
        for ld in loads:
            plan.ring_of[ld] = ring
        note = {"loop": at, "applied": True, "stages": stages, "loads": [where(ld) for ld in loads]}
        if tma and plan.wgmma:
            dot, why = overlapped_dot(plan, loop, loads, _PURE)
            plan.pipelined[loop].overlapped = dot
            note["wgmma groups in flight"] = DEPTH if dot is not None else 0
            if why is not None:
                note["why not in flight"] = why
        plan.pipeline_notes.append(note)


@dataclass(frozen=True)
class CopyChunks:
    """How a CTA's threads copy a staged [rows, cols] tile into shared memory:
    chunk q of the tile (row-major, `width` elements) goes to thread q mod
    `threads`, so a warp's request is 32 consecutive chunks (whole rows when
    they are short). SharedRegion.copy emits this rule; `phobos view` draws it."""

    rows: int
    cols: int
    width: int
    threads: int

    @property
    def per_row(self) -> int:
        return max(1, self.cols // self.width)

    @property
    def total(self) -> int:
        return self.rows * self.per_row

    @property
    def rounds(self) -> int:
        """Chunks per thread, the last round guarded where it runs past the tile."""
        return -(-self.total // self.threads)

    def chunks(self):
        """(q, thread, row, first column) of every chunk."""
        for q in range(self.total):
            r, c = divmod(q, self.per_row)
            yield q, q % self.threads, r, c * self.width


def copy_width(op: ir.Operation) -> int:
    """Elements per copy of a staged load: its proven vector width, at most 16 bytes."""
    t = tile_type(op.results[0])
    eb = element_bytes(t.element_type)
    w = min(vector_width(op), t.shape[-1])
    while w * eb > 16:
        w //= 2
    return max(1, w)


def _why_not_pipelined(loop: ir.Operation, loads: list[ir.Operation], tma: bool = False) -> str | None:
    body = loop.regions[0].blocks[0]
    iv = body.arguments[0]
    inside = {op.operation for op in body.operations}
    for ld in loads:
        eb = element_bytes(tile_type(ld.results[0]).element_type)
        if not tma and copy_width(ld) * eb < 4:
            return f"the load at {where(ld)} copies {copy_width(ld) * eb}-byte pieces; cp.async moves 4, 8 or 16"
        for start in list(ld.operands)[1:]:
            bad = _not_affine_in_iv(start, iv, inside)
            if bad is not None:
                return f"the start of the load at {where(ld)} depends on {bad}, not only on the loop index"
    stored = {
        op.operands[1]
        for op in ops_of(
            loop,
            (
                T.StoreOp,
                T.StoreSliceOp,
            ),
        )
    }
    for ld in loads:
        if ld.operands[0] in stored:
            return f"the loop stores to the tensor the load at {where(ld)} reads"
    return None


def _not_affine_in_iv(v: ir.Value, iv: ir.Value, inside: set) -> str | None:
    """None when `v` is computed in the loop body only by pure arith/index ops
    from the induction variable and values defined before the loop."""
    if v == iv:
        return None
    if not isinstance(v, ir.OpResult):
        return None if v.owner not in inside else "a value carried by the loop"
    op = v.owner
    if op not in inside:
        return None
    pure = is_op(op, *_PURE)
    if not pure or len(op.regions):
        return f"'{op.name}'"
    for x in op.operands:
        bad = _not_affine_in_iv(x, iv, inside)
        if bad is not None:
            return bad
    return None


def _buffer(plan: DotPlan, operand: Operand, layout: Blocked) -> Buffer:
    t = tile_type(operand.value)
    rows, cols = t.shape
    eb = element_bytes(t.element_type)
    dot_t = tile_type(operand.dot.results[0])
    m, n = dot_t.shape
    stages = 1
    if operand.source is not None and operand.source in plan.ring_of:
        stages = next(p.stages for p in plan.pipelined.values() if p.ring == plan.ring_of[operand.source])
    name = f"{operand.role} of the dot at {where(operand.dot)}"
    out_dim, out_extent = (0, m) if operand.role == "lhs" else (1, n)
    k_extent = min(tile_type(operand.dot.operands[0]).shape[1], K_CHUNK)
    reads = _read_model(layout, out_dim, out_extent, k_extent, eb, operand.contiguous_out)
    writes = _write_model(operand, rows, cols, eb)
    if plan.wgmma:
        reads = writes = None  # TMA writes and wgmma reads the 128-byte swizzle: no bank conflicts to model
    elif plan.tensorcore:
        reads = None  # ldmatrix phases read 8 rows of 16 bytes: padded_ld spreads them over the banks
    buffer = Buffer(
        name=name,
        rows=rows,
        cols=cols,
        element_bytes=eb,
        stages=stages,
        where=where(operand.source if operand.source is not None else operand.dot),
        reads=reads,
        writes=writes,
    )
    if plan.wgmma:
        buffer.ld, buffer.align, buffer.swizzle = cols, ATOM, SWIZZLE
    elif plan.tensorcore:
        buffer.ld = padded_ld(cols, eb)
    return buffer


def _warp_coordinates(layout: Blocked, d: int, extent: int) -> list[list[int]]:
    return [layout.coordinates(d, extent, lane) for lane in range(32)]


def read_vector(layout: Blocked, d: int, extent: int, k_extent: int, eb: int, contiguous_out: bool) -> int:
    """Elements one shared-memory read gives: along the thread's run of the output
    dimension when the buffer is contiguous along it, else along k."""
    if contiguous_out:
        w = layout.run(d, extent)
    else:
        w = k_extent
    w = min(w, 16 // eb)
    return max(1, w)


def _read_model(layout, d, extent, k_extent, eb, contiguous_out):
    coords = _warp_coordinates(layout, d, extent)
    w = read_vector(layout, d, extent, k_extent, eb, contiguous_out)

    def model(ld: int):
        requests = []
        if contiguous_out:
            # one request per (k, chunk of the thread's runs); k = 0 is representative
            count = len(coords[0])
            for j in range(0, count, w):
                requests.append([(c[j] * eb, w * eb) for c in coords])
        else:
            for j in range(len(coords[0])):
                requests.append([(c[j] * ld * eb, w * eb) for c in coords])
        return requests

    return model


def _write_model(operand: Operand, rows: int, cols: int, eb: int):
    if operand.source is None:
        return None  # register tiles: written once, not worth modelling
    w = copy_width(operand.source)
    per_row = cols // w

    def model(ld: int):
        request = []
        for lane in range(32):
            r, c = divmod(lane, per_row)
            if r < rows:
                request.append(((r * ld + c * w) * eb, w * eb))
        return [request]

    return model


def _dot_events(plan: DotPlan, op: ir.Operation) -> list:
    """A dot's events: the stores of operands it stages from registers, then its reads (those of
    a ring's stage apart, with the ring)."""
    events: list[Access] = []
    plain: list[Operand] = []
    ringed: list[Operand] = []
    for role in ("lhs", "rhs"):
        o = plan.operands[(op, role)]
        if o.registers:
            continue
        if o.source is None:
            what = f"the {role} registers stored at {where(op)}"
            events.append(Access((op, "stage-" + role), (o.buffer,), "write", what))
        (ringed if o.source in plan.ring_of else plain).append(o)
    if plain:
        events.append(Access((op, "read"), tuple(o.buffer for o in plain), "read", f"the dot's reads at {where(op)}"))
    if ringed:
        ring = plan.ring_of[ringed[0].source]
        reads = tuple(o.buffer for o in ringed)
        events.append(Access((op, "read-ring"), reads, "read", f"the dot's reads at {where(op)}", ring=ring))
    return events


def _events(plan: DotPlan, block: ir.Block) -> list:
    """The shared-memory events of `block` in emission order (shared_sync.py's program)."""

    def walk(block):
        events: list[Access | Barrier | Loop | Branch] = []
        for op in block.operations:
            op = op.operation
            if op in plan.staged and op not in plan.ring_of:
                o = plan.staged[op]
                events.append(
                    Access((op, "copy"), (o.buffer,), "write", f"the copy of the {o.role} tile at {where(op)}")
                )
            elif is_op(op, T.DotOp):
                events.extend(_dot_events(plan, op))
            elif op in plan.scratch and is_op(op, *T.LOCAL_OPS):
                b = plan.scratch[op]
                what = plan.buffers[b].name
                events.append(Access((op, "write"), (b,), "write", f"the stores of {what}"))
                events.append(Access((op, "atomic"), (b,), "write", f"the shared atomics on {what}"))
                events.append(Access((op, "read"), (b,), "read", f"the reads of {what}"))
            elif op in plan.scratch:
                b = plan.scratch[op]
                what = plan.buffers[b].name
                events.append(Access((op, "write"), (b,), "write", f"the writes of {what}"))
                events.append(Access((op, "read"), (b,), "read", f"the reads of {what}"))
            elif is_op(op, T.BarrierOp):
                events.append(Barrier(op))
            elif is_op(op, scf.ForOp):
                body = walk(op.regions[0].blocks[0])
                p = plan.pipelined.get(op)
                if p is None:
                    events.append(Loop(body, what=where(op)))
                else:
                    ring_buffers = tuple(plan.staged[ld].buffer for ld in p.loads)
                    events.append(
                        Access((op, "prologue"), ring_buffers, "write", f"the pipeline prologue at {where(op)}", p.ring)
                    )
                    refill = Access(
                        (op, "refill"), ring_buffers, "write", f"the next stage's copies at {where(op)}", p.ring
                    )
                    events.append(Loop([refill, *body], pipelined=p.ring, what=where(op)))
            elif is_op(op, scf.IfOp):
                arms = [walk(r.blocks[0]) for r in op.regions if len(r.blocks)]
                events.append(Branch(arms))
            elif is_op(op, scf.WhileOp):
                # before (after before)*, over-approximated by a loop of before and an optional
                # after: every real order of accesses is among its paths, each op appears once
                before, after = (walk(r.blocks[0]) for r in op.regions)
                events.append(Loop([*before, Branch([after])], what=where(op)))
        return events

    return walk(block)


def _live_ranges(plan: DotPlan, program: list) -> None:
    """Program points of each buffer's first and last access; a ring is live over its whole loop."""
    counter = [0]
    first: dict[int, int] = {}
    last: dict[int, int] = {}

    def touch(b, point):
        first.setdefault(b, point)
        last[b] = max(last.get(b, point), point)

    def walk(events, loops):
        for e in events:
            counter[0] += 1
            if isinstance(e, Access):
                for b in e.buffers:
                    touch(b, counter[0])
                    for start in loops:
                        touch(b, start)  # data carried across a loop's iterations stays live over it
            elif isinstance(e, Loop):
                start = counter[0]
                inner = [*loops, start] if e.pipelined is not None else loops
                walk(e.body, inner)
                counter[0] += 1
                if e.pipelined is not None:
                    for acc in e.body:
                        if isinstance(acc, Access) and acc.ring == e.pipelined:
                            for b in acc.buffers:
                                touch(b, counter[0])
            elif isinstance(e, Branch):
                for arm in e.arms:
                    walk(arm, loops)

    walk(program, [])
    for i, b in enumerate(plan.buffers):
        b.live = (first.get(i, 0), last.get(i, 0))
