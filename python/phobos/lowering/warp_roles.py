"""Whether a TMA + wgmma ring runs warp-specialised: a producer warpgroup beside the consumer warps.

The plain ring (ops/pipelined_for.py) has one thread of the consumers issue each
stage's TMA copies, after a CTA barrier per iteration that tells it every warp
is done with the stage it refills. Warp-specialised, as CUTLASS's and
FlashAttention-3's Hopper main loops are, the kernel launches one more warpgroup
(ptxas budgets registers per warpgroup in a wgmma kernel, so a lone producer warp
would cost the consumers as much):

  * the **producer** warpgroup gives its registers back (`setmaxnreg.dec` to
    PRODUCER_REGISTERS) and its first thread only walks the loop's iterations: it
    waits on the stage's *empty* mbarrier, arms its *full* mbarrier with the byte
    count and issues the copies; it runs nothing else of the kernel;
  * the **consumers** (the kernel's own warps, thread ids unchanged) take the
    registers given back (`setmaxnreg.inc`), wait on the
    *full* mbarrier, issue the iteration's wgmmas, and once the previous group
    has finished (`wgmma.wait_group 1`) each warp's first lane arrives on that
    stage's *empty* mbarrier. No CTA barrier is left in the loop, and the copies
    never wait behind a consumer's instructions. After the loop the consumers run
    the rest of the kernel alone, so its barriers are named barriers of the
    consumer threads (`bar.sync 1, W`).

The rule, checked on the tile IR: the kernel takes the wgmma path and has one
ring; the ring's loop is a top-level op of the kernel; `@launch` asks for one
CTA per SM and no register cap; and either
  * the ring's dot stays in flight (wgmma_overlap.py: the body is the GEMM main
    loop) and its shared memory already keeps a second CTA off the SM: the
    consumers' raised registers leave no room for a second CTA, so a kernel that
    runs two per SM without roles keeps them (on an H100, 128 x 128 tiles, two
    CTAs of 96 KB, ran 13-15% slower with a producer warpgroup, 128 x 256 tiles,
    one CTA of 144 KB, -1% to +3%); or
  * the body waits for its dots (attention: a softmax between two dots) and two
    or more consumer warpgroups run it, which the ring's CTA barrier would hold
    in step; with exactly two, at dots on the body's top level, the warpgroups
    take turns issuing their wgmmas (FlashAttention-3's ping-pong,
    ops/pipelined_for.py's _Turns), so that one's softmax runs beside the other's
    dots.
What the kernel runs before the loop runs on the consumers only (in their
branch), but for index arithmetic, block ids, constants and entry checks, which
every thread runs; the producer may need only those (its copies' starts and the
loop's bounds).
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, index, memref

from phobos.dialect import kernel as K
from phobos.dialect import tile as T
from phobos.dialect.tile import ops_of, upstream_ops
from phobos.lowering.ir_helpers import where
from phobos.lowering.layout import WARP_SIZE
from phobos.lowering.mma8 import is_fp8

PRODUCER_WARPS = 4  # one warpgroup
CONSUMER_WARPGROUP = 4 * WARP_SIZE
PRODUCER_REGISTERS = 40  # what its one issuing thread needs (CUTLASS's producer warpgroups take 40)
MAX_CONSUMER_REGISTERS = 240
REGISTER_FILE = 65536  # 32-bit registers per SM (sm_90)
SM_SHARED = 233472  # bytes of shared memory per SM (sm_90), of which each CTA's runtime takes 1 KB
CTA_RESERVED = 1024
MAX_THREADS = 1024
# Registers a thread needs beside its dots' (addresses, the softmax's row statistics, loop state):
# attention's 128 x 64 tiles at D = 64 estimate 96 for the dots and take 125.
SCRATCH_REGISTERS = 32
# What may run before the ring on every warp, the producer's included: no memory access, no barrier.
_BEFORE_RING = upstream_ops(arith, index) + (
    T.BlockIdOp,
    T.GridDimOp,
    T.CheckMultipleOp,
    memref.DimOp,
)


def producer_warp(plan, fn: ir.Operation, threads: int) -> tuple[bool, str | None]:
    """(True, None) when the kernel's ring (on the wgmma path) runs with a producer warpgroup, else
    (False, why not)."""
    rings = list(plan.pipelined.values())
    if len(rings) != 1:
        return False, f"the kernel has {len(rings)} rings (one is specialised)"
    ring = rings[0]
    if ring.overlapped is None:
        why = _waited_ring_refusal(plan, ring, threads)
        if why is not None:
            return False, why
    if threads + PRODUCER_WARPS * WARP_SIZE > MAX_THREADS:
        return False, f"{threads} threads leave no room for a producer warpgroup"
    launch = K.launch(fn)
    if launch.get("min_blocks", 1) > 1 or launch.get("max_regs"):
        return False, "@launch asks for several CTAs per SM or caps the registers (setmaxnreg moves them in a CTA)"
    if ring.overlapped is not None and 2 * (plan.total_bytes + CTA_RESERVED) <= SM_SHARED:
        return False, f"two CTAs of {plan.total_bytes} bytes of shared memory share an SM without a producer warpgroup"
    if ring.loop.parent != fn:
        return False, "the pipelined loop is nested in other control flow"
    deferred = consumer_prologue(ring, fn)
    return (False, deferred) if isinstance(deferred, str) else (True, None)


def _waited_ring_refusal(plan, ring, threads: int) -> str | None:
    """Why a ring whose body waits for its dots (attention) keeps the plain schedule, or None.
    Roles pay where two or more consumer warpgroups would keep step at the ring's CTA barrier
    and the CTA runs alone on its SM anyway: its shared memory or its dots' registers keep a
    second one off (on an H100, attention with 128 x 64 tiles at D = 64, two CTAs of 125
    registers without roles, ran 28% slower with them; 128 x 128 tiles, one CTA, 5-8% faster).
    The dots' registers must also fit what the consumers raise theirs to."""
    if threads < 2 * CONSUMER_WARPGROUP:
        return (
            "its dots are waited for in each iteration and one warpgroup runs them "
            "(roles pay where two consumer warpgroups would otherwise keep step at the ring's barrier)"
        )
    need = dot_registers(plan, ring, threads) + SCRATCH_REGISTERS
    if need > consumer_registers(threads):
        return f"its dots need about {need} registers a thread, more than the consumers' {consumer_registers(threads)}"
    two_by_shared = 2 * (plan.total_bytes + CTA_RESERVED) <= SM_SHARED
    if two_by_shared and 2 * threads * need <= REGISTER_FILE:
        return (
            f"two CTAs share an SM without a producer warpgroup ({plan.total_bytes} bytes of shared memory, "
            f"about {need} registers a thread)"
        )
    return None


def dot_registers(plan, ring, threads: int) -> int:
    """An estimate of the 32-bit registers a thread holds for the ring's dots: their f32 (or i32)
    sums, a second copy where an fp8 sum is promoted after each dot, and the operands fed from
    registers (the A fragments: Q and P in attention)."""
    total = 0
    for dot in ops_of(ring.loop, (T.DotOp,)):
        m, n = ir.RankedTensorType(dot.results[0].type).shape
        a = ir.RankedTensorType(dot.operands[0].type)
        promoted = is_fp8(a.element_type) and not plan.fast_fp8
        total += m * n // threads * (2 if promoted else 1)
        lhs = plan.operands.get((dot, "lhs"))
        if lhs is not None and lhs.registers:
            total += a.shape[0] * a.shape[1] * (a.element_type.width // 8) // 4 // threads
    return total


def consumer_prologue(ring, fn: ir.Operation) -> list[ir.Operation] | str:
    """The ops before the ring's loop that only the consumers run, in order: all but index
    arithmetic, block ids, constants and entry checks (and what reads the others); or why the
    producer cannot run without one of them (its copies' starts or the loop's bounds read it)."""
    entry = fn.regions[0].blocks[0]
    ops = [op.operation for op in entry.operations]
    if ring.loop not in ops:
        return "the pipelined loop is not in the kernel's body"
    deferred: list[ir.Operation] = []
    held: set = set()
    for op in ops[: ops.index(ring.loop)]:
        if not isinstance(op.opview, _BEFORE_RING) or any(v in held for v in op.operands):
            deferred.append(op)
            held.update(op.results)
    needed = _producer_reads(ring)
    for op in deferred:
        if op in needed:
            return f"the producer's copies need '{op.name}' before the loop (only the consumers may run it)"
    return deferred


def _producer_reads(ring) -> set:
    """The ops whose values the producer's loop reads: its bounds and its copies' starts."""
    work = list(ring.loop.operands)[:3] + [v for ld in ring.loads for v in ld.operands]
    found: set = set()
    while work:
        v = work.pop()
        if isinstance(v, ir.OpResult) and v.owner.operation not in found:
            found.add(v.owner.operation)
            work.extend(v.owner.operation.operands)
    return found


def takes_turns(ring, threads: int) -> bool:
    """Whether the ring's two consumer warpgroups take turns issuing their wgmmas (FlashAttention-3's
    ping-pong), so that one's softmax runs beside the other's dots: a body that waits for its dots
    (no dot in flight), every dot at the body's top level (each warpgroup issues the same ones)."""
    if ring.overlapped is not None or threads != 2 * CONSUMER_WARPGROUP:
        return False
    tops = {op.operation for op in ring.loop.regions[0].blocks[0].operations}
    found = ops_of(ring.loop, (T.DotOp,))
    return bool(found) and all(op in tops for op in found)


def producer_reason(why: str) -> str:
    """The ring's stage-barrier record under warp roles: mbarriers order its stages."""
    return f"the producer warpgroup refills a stage once every consumer warp arrived on its empty mbarrier; {why}"


def consumer_registers(threads: int) -> int:
    """What each consumer thread raises its registers to: the register file less the producer
    warpgroup's share, over the consumers, in setmaxnreg's steps of 8."""
    share = (REGISTER_FILE - PRODUCER_WARPS * WARP_SIZE * PRODUCER_REGISTERS) // threads
    return min(MAX_CONSUMER_REGISTERS, share // 8 * 8)


def launched_threads(threads: int, specialised: bool) -> int:
    """The CTA's thread count: the consumers' (the kernel's @launch), and the producer warpgroup's."""
    return threads + (PRODUCER_WARPS * WARP_SIZE if specialised else 0)


def plan_roles(plan, fn: ir.Operation, threads: int) -> None:
    """Decides the warp roles of `plan`'s ring and says so in its pipeline note."""
    if not plan.wgmma or not plan.pipelined:
        return
    plan.producer, why = producer_warp(plan, fn, threads)
    ring = next(iter(plan.pipelined.values()))
    note = next((n for n in plan.pipeline_notes if n.get("applied") and n["loop"] == where(ring.loop)), None)
    if note is None:
        return
    if plan.producer:
        note["warp roles"] = (
            f"a producer warpgroup ({PRODUCER_REGISTERS} registers) issues the TMA copies; "
            f"{threads // WARP_SIZE} consumer warps ({consumer_registers(threads)} registers)"
        )
        if takes_turns(ring, threads):
            note["warp roles"] += "; the two consumer warpgroups take turns issuing their wgmmas (ping-pong)"
    else:
        note["why no producer warp"] = why
