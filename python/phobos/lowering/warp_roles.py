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
ring, whose dot stays in flight (wgmma_overlap.py: the body is the GEMM main
loop); the ring's loop is a top-level op of the kernel; everything before it
is index arithmetic, block ids, constants and entry checks, which the producer
runs too (it must load, store or synchronise nothing); `@launch` asks for
one CTA per SM and no register cap; and the ring's shared memory already
keeps a second CTA off the SM. The consumers' raised registers leave no room
for a second CTA, so a kernel that runs two per SM without roles keeps them:
on an H100, 128 x 128 tiles (two CTAs of 96 KB) ran 13-15% slower with a
producer warpgroup, 128 x 256 tiles (one CTA of 144 KB) -1% to +3%.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, index, memref

from phobos.dialect import kernel as K
from phobos.dialect import tile as T
from phobos.dialect.tile import upstream_ops
from phobos.lowering.ir_helpers import where
from phobos.lowering.layout import WARP_SIZE

PRODUCER_WARPS = 4  # one warpgroup
PRODUCER_REGISTERS = 40  # what its one issuing thread needs (CUTLASS's producer warpgroups take 40)
MAX_CONSUMER_REGISTERS = 240
REGISTER_FILE = 65536  # 32-bit registers per SM (sm_90)
SM_SHARED = 233472  # bytes of shared memory per SM (sm_90), of which each CTA's runtime takes 1 KB
CTA_RESERVED = 1024
MAX_THREADS = 1024
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
        return False, "its dot does not stay in flight (the loop is not a GEMM main loop)"
    if threads + PRODUCER_WARPS * WARP_SIZE > MAX_THREADS:
        return False, f"{threads} threads leave no room for a producer warpgroup"
    launch = K.launch(fn)
    if launch.get("min_blocks", 1) > 1 or launch.get("max_regs"):
        return False, "@launch asks for several CTAs per SM or caps the registers (setmaxnreg moves them in a CTA)"
    if 2 * (plan.total_bytes + CTA_RESERVED) <= SM_SHARED:
        return False, f"two CTAs of {plan.total_bytes} bytes of shared memory share an SM without a producer warpgroup"
    entry = fn.regions[0].blocks[0]
    if ring.loop.parent != fn:
        return False, "the pipelined loop is nested in other control flow"
    for op in entry.operations:
        op = op.operation
        if op == ring.loop:
            return True, None
        if not isinstance(op.opview, _BEFORE_RING):
            return False, f"the kernel runs '{op.name}' before the loop (the producer warpgroup would run it too)"
    return False, "the pipelined loop is not in the kernel's body"


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
    else:
        note["why no producer warp"] = why
