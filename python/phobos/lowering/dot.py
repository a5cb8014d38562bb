"""`tile.dot` on CUDA cores: operands staged through shared memory, register-blocked FMAs.

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
the induction variable become a ring of cp.async stages (pipeline.py).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from mlir import ir
from mlir.dialects import arith, gpu, memref, scf, vector

from phobos.analysis.kernel_facts import element_bytes, kernel_facts
from phobos.diagnostics import file_location
from phobos.dialect import kernel as K
from phobos.lowering.kernel_layout import has_wgmma, is_mma_layout, ops_named, tensor_core_operands, vector_width
from phobos.lowering.layout import Blocked
from phobos.lowering.mma import MmaEmitter, a_in_registers, check_shapes, k_step, padded_ld
from phobos.lowering.shared_memory import Buffer, choose_padding, place
from phobos.lowering.shared_sync import Access, Barrier, Branch, Decision, Loop, SyncPlan, plan_barriers
from phobos.target import max_shared_bytes
from phobos.lowering.wgmma import ATOM, SWIZZLE, TensorMap, WgmmaEmitter, plan_copies, whole_a, why_not

SMEM_SYMBOL = "__phobos_smem"
WORKGROUP = "#gpu.address_space<workgroup>"
DEFAULT_STAGES = 3
K_CHUNK = 32  # a dot with a longer K loops over chunks of this many k (unrolled inside)
SMALL_SCRATCH = 1024  # bytes: exchange buffers up to this size are not shared with other buffers


class DotError(Exception):
    def __init__(self, op: ir.Operation, message: str):
        super().__init__(message)
        self.op = op


def _where(op: ir.Operation) -> str:
    found = file_location(op.location)
    return f"{found[0]}:{found[1]}:{found[2]}" if found is not None else str(op.location)


def _tile_type(v: ir.Value) -> ir.RankedTensorType:
    return ir.RankedTensorType(v.type)


def _single_use(v: ir.Value, user: ir.Operation) -> bool:
    """Whether `user` is the only use of `v` (a value the dot also reads as its other operand
    or accumulator must stay in registers)."""
    uses = list(v.uses)
    return len(uses) == 1 and uses[0].owner == user


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


@dataclass
class DotPlan:
    """What the dot lowering decided for one kernel (before emitting anything)."""

    operands: dict[tuple[ir.Operation, str], Operand] = field(default_factory=dict)
    staged: dict[ir.Operation, Operand] = field(default_factory=dict)  # load_slice -> operand
    skipped: set = field(default_factory=set)  # tile.transpose ops folded into a buffer's orientation
    pipelined: dict[ir.Operation, Pipelined] = field(default_factory=dict)
    pipeline_notes: list[dict] = field(default_factory=list)
    ring_of: dict[ir.Operation, int] = field(default_factory=dict)  # staged load -> ring id
    buffers: list[Buffer] = field(default_factory=list)
    elements: dict[int, ir.Type] = field(default_factory=dict)  # buffer -> element type of its view
    scratch: dict[ir.Operation, int] = field(default_factory=dict)  # reduce/scan/transpose -> buffer
    has_dots: bool = False
    tensorcore: bool = False  # the dots run on the tensor cores: ldmatrix + mma.sync (mma.py) or wgmma
    wgmma: bool = False  # TMA + mbarrier + wgmma (wgmma.py)
    wgmma_refused: str | None = None  # why a chip with wgmma runs mma.sync instead
    tensor_maps: list[TensorMap] = field(default_factory=list)  # extra kernel parameters, in order
    map_of: dict[ir.Operation, int] = field(default_factory=dict)  # staged load -> its tensor map
    copies: dict[ir.Operation, list] = field(default_factory=dict)  # staged load -> its TMA copies (wgmma.Copy)
    whole: dict[ir.Operation, int] = field(default_factory=dict)  # staged load -> the map of its one-copy tiles
    sync: SyncPlan | None = None
    total_bytes: int = 0

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
            path = {"instruction": "wgmma" if self.wgmma else "mma.sync"}
            if self.wgmma_refused:
                path["why not wgmma"] = self.wgmma_refused
            if self.tensor_maps:
                path["tensor_maps"] = [m.to_json() for m in self.tensor_maps]
            out["tensor_cores"] = path
        return out


# ============================================================================ planning


def plan_dots(
    fn: ir.Operation, layout: Blocked | None, threads: int, chip: str, scratch: list | None = None
) -> DotPlan | None:
    """The shared-memory plan of `fn`: its dots' operands and the `scratch`
    buffers of its reductions, scans and transposes (reduce.Scratch), in one
    region with one barrier plan. None when the kernel needs no shared memory.
    Raises DotError."""
    dots = ops_named(fn, ("tile.dot",))
    scratch = scratch or []
    if not dots and not scratch:
        return None
    if dots and (layout is None or layout.rank != 2):
        raise DotError(dots[0], "tile-lower-to-gpu lowers 'tile.dot' only in kernels whose tiles are at most 2-D")
    plan = DotPlan(has_dots=bool(dots))
    if dots and K.TENSORCORE in fn.attributes:
        _check_tensor_cores(dots, layout)
        plan.tensorcore = True
    for dot in dots:
        for role, value in (("lhs", dot.operands[0]), ("rhs", dot.operands[1])):
            plan.operands[(dot, role)] = _classify(plan, dot, role, value)
    if plan.tensorcore:
        for operand in plan.operands.values():
            operand.registers = a_in_registers(operand, layout)
    pipelining = K.PIPELINE in fn.attributes
    tma = plan.tensorcore and has_wgmma(chip)
    if pipelining and dots:
        _plan_pipelines(plan, fn, tma)
    if tma:
        _plan_wgmma(plan, fn, dots, layout)
        if not plan.wgmma and pipelining:  # the ring is cp.async's after all: plan it with its limits
            plan.pipelined.clear()
            plan.ring_of.clear()
            plan.pipeline_notes.clear()
            _plan_pipelines(plan, fn, False)
    for operand in plan.operands.values():
        if operand.registers:
            continue
        operand.buffer = len(plan.buffers)
        plan.elements[operand.buffer] = _tile_type(operand.value).element_type
        plan.buffers.append(_buffer(plan, operand, layout))
    for s in scratch:
        index = len(plan.buffers)
        plan.scratch[s.op] = index
        plan.elements[index] = s.element
        buffer = Buffer(f"{s.what} at {_where(s.op)}", s.rows, s.cols, element_bytes(s.element), where=_where(s.op))
        buffer.ld = s.ld
        plan.buffers.append(buffer)
    program = _events(plan, fn.regions[0].blocks[0])
    _live_ranges(plan, program)
    for index in plan.scratch.values():
        b = plan.buffers[index]
        if b.rows * b.ld * b.element_bytes <= SMALL_SCRATCH:
            # Bytes of its own: a few bytes buy the barrier a shared buffer would need before its next writer.
            b.live = (0, 1 << 30)
    for b in plan.buffers:
        if not b.ld:
            choose_padding(b)
    placed = place(plan.buffers)
    plan.total_bytes = placed.total_bytes
    limit = max_shared_bytes(chip)
    if plan.wgmma:  # the mbarriers are static shared memory, before the 1024-aligned region: a KB of it
        limit -= ATOM
    if plan.total_bytes > limit:
        sizes = ", ".join(f"{b.name} {b.bytes} B" for b in plan.buffers)
        first = dots[0] if dots else scratch[0].op
        raise DotError(
            first,
            f"the kernel needs {plan.total_bytes} bytes of shared memory ({sizes}), more than the "
            f"{limit} bytes a CTA may use on {chip}: use smaller tiles or fewer pipeline stages",
        )
    plan.sync = plan_barriers(program, lambda i, j: plan.buffers[i].overlaps(plan.buffers[j]))
    for p in plan.pipelined.values():
        why = (
            "every thread has finished reading the stage the TMA copies refill next (each stage's mbarrier "
            "says when its copies have landed)"
            if plan.wgmma
            else f"after cp.async.wait_group {p.stages - 2} this iteration's stage has landed for every thread, "
            "and every thread has finished reading the stage refilled next"
        )
        plan.sync.decisions.append(
            Decision(
                (p.loop, "stage-barrier"),
                f"the start of each iteration of the pipelined loop at {_where(p.loop)}",
                True,
                f"the {p.stages}-stage ring: {why}",
            )
        )
    return plan


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
            plan.wgmma_refused = f"the dot at {_where(dot)}: {why}"
            return
    plan.wgmma = True
    maps: dict[TensorMap, int] = {}

    def map_index(tm: TensorMap) -> int:
        if tm not in maps:
            maps[tm] = len(plan.tensor_maps)
            plan.tensor_maps.append(tm)
        return maps[tm]

    for dot in dots:
        m = _tile_type(dot.results[0]).shape[0]
        for role in ("lhs", "rhs"):
            o = plan.operands[(dot, role)]
            if o.registers:
                continue
            param = args.index(o.source.operands[0])
            rows, cols = _tile_type(o.value).shape
            copies, box = plan_copies(o, rows, cols, warps, m)
            lead = _tile_type(o.source.results[0]).rank - 2  # unit dimensions: K[h, j :+ BN, :]
            plan.map_of[o.source] = map_index(TensorMap(param, box + (1,) * lead))
            plan.copies[o.source] = copies
            whole = whole_a(param, m, warps) if role == "lhs" and not lead else None
            if whole is not None:
                plan.whole[o.source] = map_index(whole)


def _check_tensor_cores(dots: list[ir.Operation], layout: Blocked) -> None:
    """Raises DotError, naming the rule, for a @tensorcore dot the tensor cores cannot run."""
    for dot in dots:
        a, b = (_tile_type(v).element_type for v in list(dot.operands)[:2])
        acc = _tile_type(dot.results[0]).element_type
        if not tensor_core_operands(dot):
            raise DotError(
                dot,
                f"@tensorcore: a dot of {a} x {b} into {acc} has no tensor-core instruction here "
                "(mma.sync takes f16 x f16 into f32 or f16, bf16 x bf16 into f32, and f32 x f32 into f32 "
                "as tf32; convert the operands, or drop @tensorcore to run it on CUDA cores)",
            )
        m, n = _tile_type(dot.results[0]).shape
        k = _tile_type(dot.operands[0]).shape[1]
        if not is_mma_layout(layout):
            raise DotError(
                dot,
                f"@tensorcore: the [{m}, {n}] accumulator does not split into m16 x n8 tiles for every warp "
                "(use tiles whose rows are a multiple of 16 x the row warps and columns of 8 x the column warps)",
            )
        why = check_shapes(m, n, k, *layout.warps_per_cta, k_step(_tile_type(dot.operands[0]).element_type))
        if why is not None:
            raise DotError(dot, f"@tensorcore: {why}")


def folded_transpose(op: ir.Operation) -> bool:
    """Whether a tile.transpose becomes the read order of a dot operand's buffer
    (its result feeds one dot as lhs or rhs and nothing else; see _classify)."""
    uses = list(op.results[0].uses)
    if len(uses) != 1:
        return False
    owner = uses[0].owner
    owner = getattr(owner, "operation", owner)
    return owner.name == "tile.dot" and uses[0].operand_number in (0, 1)


def _classify(plan: DotPlan, dot: ir.Operation, role: str, value: ir.Value) -> Operand:
    transposed = False
    source = value.owner if isinstance(value, ir.OpResult) else None
    held, user = value, dot
    if source is not None and source.name == "tile.transpose" and _single_use(value, dot):
        plan.skipped.add(source)
        transposed = True
        held, user = source.operands[0], source
        source = held.owner if isinstance(held, ir.OpResult) else None
    held_for_check, collapse = held, None
    if source is not None and source.name == "tensor.collapse_shape" and _single_use(held, user):
        # K[h, j :+ BN, :] reads a [1, BN, D] tile and drops the unit dimension: stage the load itself
        inner = source.operands[0]
        loaded = inner.owner if isinstance(inner, ir.OpResult) else None
        if (
            loaded is not None
            and loaded.name == "tile.load_slice"
            and all(x == 1 for x in _tile_type(inner).shape[:-2])
        ):
            collapse, held_for_check, user, source = source, inner, source, loaded
    staged = (
        source is not None
        and source.name == "tile.load_slice"
        and not source.opview.padding  # the copies zero-fill what is out of bounds
        and _single_use(held_for_check, user)
        and source.parent == dot.parent
        and source not in plan.staged
    )
    operand = Operand(role, dot, held, source if staged else None, transposed)
    if staged:
        plan.staged[source] = operand
        if collapse is not None:
            plan.skipped.add(collapse)
    return operand


def _plan_pipelines(plan: DotPlan, fn: ir.Operation, tma: bool) -> None:
    """The @pipeline rings; `tma`: their copies may be TMA's (whole tiles: no piece size to respect)."""
    for loop in ops_named(fn, ("scf.for",)):
        body = loop.regions[0].blocks[0]
        loads = [op.operation for op in body.operations if op.operation in plan.staged]
        if not loads:
            continue
        reason = _why_not_pipelined(loop, loads, tma)
        where = _where(loop)
        if reason is not None:
            plan.pipeline_notes.append({"loop": where, "applied": False, "reason": reason})
            continue
        ring = len(plan.pipelined)
        plan.pipelined[loop] = Pipelined(loop, loads, DEFAULT_STAGES, ring)
        for ld in loads:
            plan.ring_of[ld] = ring
        plan.pipeline_notes.append(
            {
                "loop": where,
                "applied": True,
                "stages": DEFAULT_STAGES,
                "loads": [_where(ld) for ld in loads],
            }
        )


def copy_width(op: ir.Operation) -> int:
    """Elements per copy of a staged load: its proven vector width, at most 16 bytes."""
    t = _tile_type(op.results[0])
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
        eb = element_bytes(_tile_type(ld.results[0]).element_type)
        if not tma and copy_width(ld) * eb < 4:
            return f"the load at {_where(ld)} copies {copy_width(ld) * eb}-byte pieces; cp.async moves 4, 8 or 16"
        for start in list(ld.operands)[1:]:
            bad = _not_affine_in_iv(start, iv, inside)
            if bad is not None:
                return f"the start of the load at {_where(ld)} depends on {bad}, not only on the loop index"
    stored = {op.operands[1] for op in ops_named(loop, ("tile.store", "tile.store_slice"))}
    for ld in loads:
        if ld.operands[0] in stored:
            return f"the loop stores to the tensor the load at {_where(ld)} reads"
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
    pure = op.name.split(".")[0] in ("arith", "index") or op.name in ("tile.block_id", "tile.grid_dim")
    if not pure or len(op.regions):
        return f"'{op.name}'"
    for x in op.operands:
        bad = _not_affine_in_iv(x, iv, inside)
        if bad is not None:
            return bad
    return None


def _buffer(plan: DotPlan, operand: Operand, layout: Blocked) -> Buffer:
    t = _tile_type(operand.value)
    rows, cols = t.shape
    eb = element_bytes(t.element_type)
    dot_t = _tile_type(operand.dot.results[0])
    m, n = dot_t.shape
    stages = 1
    if operand.source is not None and operand.source in plan.ring_of:
        stages = next(p.stages for p in plan.pipelined.values() if p.ring == plan.ring_of[operand.source])
    name = f"{operand.role} of the dot at {_where(operand.dot)}"
    out_dim, out_extent = (0, m) if operand.role == "lhs" else (1, n)
    k_extent = min(_tile_type(operand.dot.operands[0]).shape[1], K_CHUNK)
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
        where=_where(operand.source if operand.source is not None else operand.dot),
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


def _events(plan: DotPlan, block: ir.Block) -> list:
    """The shared-memory events of `block` in emission order (shared_sync.py's program)."""

    def walk(block):
        events = []
        for op in block.operations:
            op = op.operation
            if op in plan.staged and op not in plan.ring_of:
                o = plan.staged[op]
                events.append(
                    Access((op, "copy"), (o.buffer,), "write", f"the copy of the {o.role} tile at {_where(op)}")
                )
            elif op.name == "tile.dot":
                plain, ringed = [], []
                for role in ("lhs", "rhs"):
                    o = plan.operands[(op, role)]
                    if o.registers:
                        continue
                    if o.source is None:
                        events.append(
                            Access(
                                (op, "stage-" + role),
                                (o.buffer,),
                                "write",
                                f"the {role} registers stored at {_where(op)}",
                            )
                        )
                    (ringed if o.source in plan.ring_of else plain).append(o)
                if plain:
                    events.append(
                        Access((op, "read"), tuple(o.buffer for o in plain), "read", f"the dot's reads at {_where(op)}")
                    )
                if ringed:
                    ring = plan.ring_of[ringed[0].source]
                    events.append(
                        Access(
                            (op, "read-ring"),
                            tuple(o.buffer for o in ringed),
                            "read",
                            f"the dot's reads at {_where(op)}",
                            ring=ring,
                        )
                    )
            elif op in plan.scratch:
                b = plan.scratch[op]
                what = plan.buffers[b].name
                events.append(Access((op, "write"), (b,), "write", f"the writes of {what}"))
                events.append(Access((op, "read"), (b,), "read", f"the reads of {what}"))
            elif op.name == "tile.barrier":
                events.append(Barrier(op))
            elif op.name == "scf.for":
                body = walk(op.regions[0].blocks[0])
                p = plan.pipelined.get(op)
                if p is None:
                    events.append(Loop(body, what=_where(op)))
                else:
                    ring_buffers = tuple(plan.staged[ld].buffer for ld in p.loads)
                    events.append(
                        Access(
                            (op, "prologue"), ring_buffers, "write", f"the pipeline prologue at {_where(op)}", p.ring
                        )
                    )
                    refill = Access(
                        (op, "refill"), ring_buffers, "write", f"the next stage's copies at {_where(op)}", p.ring
                    )
                    events.append(Loop([refill, *body], pipelined=p.ring, what=_where(op)))
            elif op.name == "scf.if":
                arms = [walk(r.blocks[0]) for r in op.regions if len(r.blocks)]
                events.append(Branch(arms))
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


# ============================================================================ emission


class DotEmitter:
    """Emits the staged copies, register stores, dots and pipelined loops for
    one KernelLowering (`kl`), following its DotPlan."""

    def __init__(self, kl, plan: DotPlan):
        self.kl = kl
        self.plan = plan
        self.views: dict[int, ir.Value] = {}
        self.region: ir.Value | None = None  # the whole region as bytes (TMA copies view it)
        self.stage_offset: dict[ir.Operation, ir.Value] = {}  # staged load -> element offset of its stage
        self.stage_index: dict[ir.Operation, ir.Value] = {}  # staged load -> its ring stage (wgmma)
        self.wgmma = WgmmaEmitter(self) if plan.wgmma else None

    # ------------------------------------------------------------------ module-level

    def declare(self, module_block: ir.Block) -> None:
        """The extern shared region (NVGPU22 H1: public, no initializer, after the statics)."""
        decl = ir.Operation.parse(
            f'memref.global "public" @{SMEM_SYMBOL} : memref<0xi8, {WORKGROUP}> {{alignment = {self.plan.align} : i64}}'
        )
        ir.InsertionPoint(module_block).insert(decl)

    def annotate(self, func) -> None:
        i64 = ir.IntegerType.get_signless(64)
        func.attributes["phobos.shared_bytes"] = ir.IntegerAttr.get(i64, self.plan.total_bytes)
        func.attributes["phobos.shared_plan"] = ir.StringAttr.get(json.dumps(self.plan.report(), sort_keys=True))
        if self.plan.tensor_maps:
            maps = [m.to_json() for m in self.plan.tensor_maps]
            func.attributes["phobos.tensor_maps"] = ir.StringAttr.get(json.dumps(maps))

    def make_views(self) -> None:
        kl = self.kl
        total = max(16, self.plan.total_bytes)

        def build():
            i8 = ir.IntegerType.get_signless(8)
            space = ir.Attribute.parse(WORKGROUP)
            raw_t = ir.MemRefType.get([0], i8, memory_space=space)
            region_t = ir.MemRefType.get([total], i8, memory_space=space)
            raw = memref.GetGlobalOp(raw_t, SMEM_SYMBOL).result
            region = memref.ReinterpretCastOp(region_t, raw, [], [], [], [0], [total], [1]).result
            for i, b in enumerate(self.plan.buffers):
                elem = self.plan.elements[i]
                view_t = ir.MemRefType.get([b.bytes // b.element_bytes], elem, memory_space=space)
                offset = arith.ConstantOp(ir.IndexType.get(), b.offset).result
                self.views[i] = memref.ViewOp(view_t, region, offset, []).result
            return region

        self.region = kl.at_entry(build)

    def barrier_if(self, event_id) -> None:
        if self.plan.sync.barrier_before(event_id):
            gpu.BarrierOp()

    # ------------------------------------------------------------------ copies

    def staged_load(self, op: ir.Operation) -> None:
        """A staged tile.load_slice at its place: a synchronous copy (or, in a
        pipelined loop, nothing: the ring's copies were issued ahead)."""
        if op in self.plan.ring_of:
            return
        operand = self.plan.staged[op]
        with op.location:
            self.barrier_if((op, "copy"))
            self.copy(op, operand.buffer, None, asynchronous=False)

    def copy(self, op: ir.Operation, buffer: int, stage: ir.Value | None, asynchronous: bool) -> None:
        """Global -> shared copy of the tile op loads; `stage`: the element offset
        of the ring stage (None: stage 0). Chunk q of the tile (row-major, `w`
        elements) goes to thread q mod T, so a warp reads consecutive chunks."""
        kl = self.kl
        o = op.opview
        p = kl._param_index(o.base, op)
        t = _tile_type(op.results[0])
        rows, cols = t.shape[-2:]
        lead = t.rank - 2  # leading unit dimensions (K[h, j :+ BN, :])
        elem = t.element_type
        eb = element_bytes(elem)
        w = copy_width(op)
        buf = self.plan.buffers[buffer]
        in_bounds = o.in_bounds
        starts = [kl.get(s, op) for s in o.starts]
        base = None  # the leading dimensions' part of every global index
        for axis in range(lead):
            term = arith.MulIOp(starts[axis], kl.strides[(p, axis)]).result
            base = term if base is None else arith.AddIOp(base, term).result
        per_row = cols // w
        total = rows * per_row
        T = kl.threads
        chunk_t = ir.VectorType.get([w], elem)
        view = kl.views[p]
        smem = self.views[buffer]
        stride = kl.strides[(p, lead)]
        pieces = []  # (shared index, global index, mask, guard)
        for i in range(-(-total // T)):
            q = kl.tid if i == 0 else arith.AddIOp(kl.tid, kl.index(i * T)).result
            guard = None
            if (i + 1) * T > total:
                guard = arith.CmpIOp(arith.CmpIPredicate.ult, q, kl.index(total)).result
            r = arith.DivUIOp(q, kl.index(per_row)).result if per_row > 1 else q
            c = arith.MulIOp(arith.RemUIOp(q, kl.index(per_row)).result, kl.index(w)).result if per_row > 1 else None
            grow = arith.AddIOp(starts[lead], r).result
            gcol = starts[lead + 1] if c is None else arith.AddIOp(starts[lead + 1], c).result
            gidx = arith.AddIOp(arith.MulIOp(grow, stride).result, gcol).result
            if base is not None:
                gidx = arith.AddIOp(base, gidx).result
            mask = None
            coords = [(axis, starts[axis]) for axis in range(lead)] + [(lead, grow), (lead + 1, gcol)]
            for axis, coord in coords:
                if not in_bounds[axis]:
                    m = arith.CmpIOp(arith.CmpIPredicate.ult, coord, kl.extents[(p, axis)]).result
                    mask = m if mask is None else arith.AndIOp(mask, m).result
            sidx = arith.MulIOp(r, kl.index(buf.ld)).result
            if c is not None:
                sidx = arith.AddIOp(sidx, c).result
            if stage is not None:
                sidx = arith.AddIOp(sidx, stage).result
            pieces.append((sidx, gidx, mask, guard))
        if asynchronous:
            for sidx, gidx, mask, guard in pieces:
                self._guarded(guard, lambda s=sidx, g=gidx, m=mask: self._async_copy(view, smem, s, g, m, w, eb))
            return
        # Synchronous: all loads first (one uniform guard against an empty tensor
        # when a masked chunk must read something), then the stores.
        zero = kl.const(0, chunk_t if w > 1 else elem)

        def load(gidx, mask):
            idx = gidx if mask is None else arith.SelectOp(mask, gidx, kl.index(0)).result
            if w == 1:
                value = memref.LoadOp(view, [idx]).result
            else:
                value = vector.LoadOp(chunk_t, view, [idx], alignment=w * eb).result
            return value if mask is None else arith.SelectOp(mask, value, zero).result

        def load_all():
            # A thread past the tile's last chunk loads nothing real (its address may be out of bounds).
            return [
                load(g, m if guard is None else guard if m is None else arith.AndIOp(m, guard).result)
                for _, g, m, guard in pieces
            ]

        if any(m is not None or guard is not None for _, _, m, guard in pieces):
            nonempty = None
            for axis in range(t.rank):
                pos = arith.CmpIOp(arith.CmpIPredicate.ugt, kl.extents[(p, axis)], kl.index(0)).result
                nonempty = pos if nonempty is None else arith.AndIOp(nonempty, pos).result
            branch = scf.IfOp(nonempty, [zero.type] * len(pieces), has_else=True)
            with ir.InsertionPoint(branch.then_block):
                scf.YieldOp(load_all())
            with ir.InsertionPoint(branch.else_block):
                scf.YieldOp([zero] * len(pieces))
            values = list(branch.results)
        else:
            values = load_all()
        for (sidx, _, _, guard), value in zip(pieces, values):
            self._guarded(guard, lambda s=sidx, v=value: self._store_shared(smem, v, s, w, eb))

    @staticmethod
    def _guarded(guard, emit) -> None:
        if guard is None:
            emit()
            return
        branch = scf.IfOp(guard)
        with ir.InsertionPoint(branch.then_block):
            emit()
            scf.YieldOp([])

    @staticmethod
    def _store_shared(smem, value, sidx, w, eb) -> None:
        if w == 1 and not isinstance(value.type, ir.VectorType):
            memref.StoreOp(value, smem, [sidx])
        else:
            vector.StoreOp(value, smem, [sidx], alignment=w * eb)

    def _async_copy(self, view, smem, sidx, gidx, mask, w, eb) -> None:
        kl = self.kl
        src_elements = None
        if mask is not None:
            # Zero source bytes: the chunk is zero-filled and its (out-of-bounds) address never read.
            src_elements = arith.SelectOp(mask, kl.index(w), kl.index(0)).result
        token_t = ir.Type.parse("!nvgpu.device.async.token")
        operands = [smem, sidx, view, gidx] + ([src_elements] if src_elements is not None else [])
        attrs = {
            "dstElements": ir.IntegerAttr.get(ir.IndexType.get(), w),
            "operandSegmentSizes": ir.DenseI32ArrayAttr.get([1, 1, 1, 1, 1 if src_elements is not None else 0]),
        }
        if w * eb == 16:
            attrs["bypassL1"] = ir.UnitAttr.get()
        ir.Operation.create("nvgpu.device_async_copy", results=[token_t], operands=operands, attributes=attrs)

    # ------------------------------------------------------------------ register operands

    def store_registers(self, dot: ir.Operation, operand: Operand) -> None:
        """A computed operand tile: each thread writes the elements it holds
        (one writer per replicated element) into the operand's buffer."""
        kl = self.kl
        L = kl.layout
        value_old = operand.value
        shape = kl.placement.placed_shape(value_old)
        value = kl.get(value_old, dot)
        elem = _tile_type(value_old).element_type
        eb = element_bytes(elem)
        buf = self.plan.buffers[operand.buffer]
        smem = self.views[operand.buffer]
        run = min(L.run(1, shape[1]), 16 // eb)
        base0, base1 = kl.coordinate_base(0, shape[0]), kl.coordinate_base(1, shape[1])
        off0, off1 = L.offsets(0, shape[0]), L.offsets(1, shape[1])
        row_base = arith.MulIOp(base0, kl.index(buf.ld)).result
        start = arith.AddIOp(row_base, base1).result
        guard = kl._owner_guard(shape, (0, 1))

        def emit():
            n1 = len(off1)
            for i, a in enumerate(off0):
                for j in range(0, n1, run):
                    first = i * n1 + j
                    sidx = arith.AddIOp(start, kl.index(a * buf.ld + off1[j])).result
                    if run == 1:
                        piece = vector.ExtractOp(value, [], [first]).result
                    else:
                        piece = vector.ShuffleOp(value, value, list(range(first, first + run))).result
                    self._store_shared(smem, piece, sidx, run, eb)

        self._guarded(guard, emit)

    # ------------------------------------------------------------------ the dot

    def dot(self, op: ir.Operation) -> None:
        kl = self.kl
        with op.location:
            lhs = self.plan.operands[(op, "lhs")]
            rhs = self.plan.operands[(op, "rhs")]
            for o in (lhs, rhs):
                if o.source is None and not o.registers:
                    self.barrier_if((op, "stage-" + o.role))
                    self.store_registers(op, o)
            self.barrier_if((op, "read"))
            self.barrier_if((op, "read-ring"))
            acc = kl.get(op.operands[2], op)
            m, n = _tile_type(op.results[0]).shape
            k_extent = _tile_type(op.operands[0]).shape[1]
            if self.wgmma is not None:
                kl.values[op.results[0]] = self.wgmma.dot(op, lhs, rhs, acc)
                return
            if self.plan.tensorcore:
                kl.values[op.results[0]] = MmaEmitter(self).dot(op, lhs, rhs, acc)
                return
            if k_extent > K_CHUNK and k_extent % K_CHUNK == 0:
                loop = scf.ForOp(kl.index(0), kl.index(k_extent), kl.index(K_CHUNK), [acc])
                with ir.InsertionPoint(loop.body):
                    inner = self._products(
                        op, lhs, rhs, loop.inner_iter_args[0], m, n, K_CHUNK, loop.induction_variable
                    )
                    scf.YieldOp([inner])
                result = loop.results[0]
            else:
                result = self._products(op, lhs, rhs, acc, m, n, k_extent, None)
            kl.values[op.results[0]] = result

    def _products(self, op, lhs: Operand, rhs: Operand, acc, m, n, k_count, k_base):
        kl = self.kl
        L = kl.layout
        acc_t = ir.VectorType(acc.type)
        acc_elem = acc_t.element_type
        a_cols = self._fragments(lhs, 0, m, k_count, k_base)
        b_rows = self._fragments(rhs, 1, n, k_count, k_base)
        cm, cn = len(L.offsets(0, m)), len(L.offsets(1, n))
        a_bcast = [i for i in range(cm) for _ in range(cn)]
        b_bcast = [j for _ in range(cm) for j in range(cn)]
        for k in range(k_count):
            a = self._convert(
                vector.FromElementsOp(ir.VectorType.get([cm], a_cols[k][0].type), a_cols[k]).result, acc_elem
            )
            b = self._convert(
                vector.FromElementsOp(ir.VectorType.get([cn], b_rows[k][0].type), b_rows[k]).result, acc_elem
            )
            aa = vector.ShuffleOp(a, a, a_bcast).result
            bb = vector.ShuffleOp(b, b, b_bcast).result
            if isinstance(acc_elem, ir.FloatType):
                acc = vector.FMAOp(aa, bb, acc).result
            else:
                acc = arith.AddIOp(acc, arith.MulIOp(aa, bb).result).result
        return acc

    def _convert(self, v: ir.Value, to: ir.Type) -> ir.Value:
        src = ir.VectorType(v.type).element_type
        if src == to:
            return v
        t = ir.VectorType.get(ir.VectorType(v.type).shape, to)
        if isinstance(src, ir.FloatType) and isinstance(to, ir.FloatType):
            wider = ir.FloatType(to).width > ir.FloatType(src).width
            return (arith.ExtFOp(t, v) if wider else arith.TruncFOp(t, v)).result
        if isinstance(src, ir.IntegerType) and isinstance(to, ir.IntegerType):
            return (arith.ExtSIOp(t, v) if to.width > src.width else arith.TruncIOp(t, v)).result
        if isinstance(to, ir.FloatType):
            return arith.SIToFPOp(t, v).result
        return arith.FPToSIOp(t, v).result

    def _fragments(self, operand: Operand, d: int, extent: int, k_count: int, k_base):
        """For each k < k_count: the scalars of this thread's rows (lhs) or columns
        (rhs) of the operand, in register order."""
        kl = self.kl
        L = kl.layout
        buf = self.plan.buffers[operand.buffer]
        smem = self.views[operand.buffer]
        elem = _tile_type(operand.value).element_type
        eb = element_bytes(elem)
        base = kl.coordinate_base(d, extent)
        offs = L.offsets(d, extent)
        stage = self.stage_offset.get(operand.source) if operand.source is not None else None
        w = read_vector(L, d, extent, k_count, eb, operand.contiguous_out)
        out = [[None] * len(offs) for _ in range(k_count)]
        if operand.contiguous_out:
            # buffer[k][o]: runs of the thread's consecutive coordinates
            start = base
            if stage is not None:
                start = arith.AddIOp(start, stage).result
            if k_base is not None:
                start = arith.AddIOp(start, arith.MulIOp(k_base, kl.index(buf.ld)).result).result
            for k in range(k_count):
                for j in range(0, len(offs), w):
                    idx = arith.AddIOp(start, kl.index(k * buf.ld + offs[j])).result
                    for x, s in enumerate(self._read(smem, idx, w, elem, eb)):
                        out[k][j + x] = s
        else:
            # buffer[o][k]: vectors along k for each coordinate
            start = arith.MulIOp(base, kl.index(buf.ld)).result
            if stage is not None:
                start = arith.AddIOp(start, stage).result
            if k_base is not None:
                start = arith.AddIOp(start, k_base).result
            for j, off in enumerate(offs):
                for k0 in range(0, k_count, w):
                    idx = arith.AddIOp(start, kl.index(off * buf.ld + k0)).result
                    for x, s in enumerate(self._read(smem, idx, w, elem, eb)):
                        out[k0 + x][j] = s
        return out

    @staticmethod
    def _read(smem, idx, w, elem, eb) -> list[ir.Value]:
        if w == 1:
            return [memref.LoadOp(smem, [idx]).result]
        v = vector.LoadOp(ir.VectorType.get([w], elem), smem, [idx], alignment=w * eb).result
        return [vector.ExtractOp(v, [], [x]).result for x in range(w)]

    # ------------------------------------------------------------------ pipelined loops

    def pipelined_for(self, op: ir.Operation) -> None:
        from phobos.lowering.pipeline import emit_pipelined_loop

        emit_pipelined_loop(self, op, self.plan.pipelined[op])
