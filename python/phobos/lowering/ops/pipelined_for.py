"""`@pipeline`: a loop's staged loads as a ring of cp.async (or TMA) stages.

For a loop `for kt in range(lb, ub, step)` whose staged loads (shared_plan.py) depend
only on `kt` and loop-invariant values, with S stages:

    prologue   for s < S-1: if lb + s*step < ub: copy iteration s into stage s
               commit_group                      (one group per iteration, even empty)
    iteration  wait_group S-2                    (this iteration's group has landed)
               barrier                           (for every thread; and every thread
                                                  is done reading the stage refilled next)
               if kt + (S-1)*step < ub: copy that iteration into stage (i+S-1) mod S
               commit_group
               the body, its dots reading stage i mod S
    after      wait_group 0                      (no copy lands after the loop)

On the TMA + wgmma path (tma.py, ops/dot_wgmma.py) the ring is the same with mbarriers for
cp.async groups: before the prologue one thread arms the S stages' barriers
(then a CTA barrier); each copy batch is that thread's TMA copies of the
iteration, announced to the stage's barrier with their byte count; an
iteration waits on its stage's barrier phase (which flips each time the
ring wraps) instead of wait_group, and the copies of the stage refilled next
go out after the iteration's CTA barrier, as before.

Under warp roles (warp_roles.py) the TMA ring is split between a producer
warpgroup, which alone waits for free stages and issues their copies, and the
kernel's own warps, which wait for full stages, run the body and free each
stage after the next wgmma group's wait (_RolesRing): two mbarriers per stage
and no CTA barrier in the loop.

Copies are `nvgpu.device_async_copy` of 4, 8 or 16 bytes (16 bypasses L1);
masked chunks copy zero source bytes, so the stage holds zeros there (the
src-size form of cp.async). The starts of the next iteration's loads are the
body's own index arithmetic, emitted again with the induction variable
replaced. Every iteration value a copy is issued for is one the loop itself
takes, so the in-bounds facts tile-elide-masks proved for the loads hold for
the prefetches too: a loop over a dimension `@aligned` covers copies without
masks and has no remainder iteration.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, gpu, llvm, nvvm, scf

from phobos.lowering.context import LoweringContext
from phobos.lowering.errors import LoweringError
from phobos.lowering.plan_records import SYNC
from phobos.lowering.registry import lowers
from phobos.lowering.warp_roles import CONSUMER_WARPGROUP, PRODUCER_REGISTERS, consumer_registers, takes_turns
from phobos.lowering.wgmma_overlap import carried_position, copied_out

PROXY_FENCE = ("#nvvm.proxy_kind<async.shared>", "#nvvm.shared_space<cta>")


def _i32_attr(n: int) -> ir.Attribute:
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(32), n)


def _commit() -> None:
    ir.Operation.create("nvvm.cp.async.commit.group")


def _wait(pending: int) -> None:
    ir.Operation.create("nvvm.cp.async.wait.group", attributes={"n": _i32_attr(pending)})


def _backward_slice(loads: list[ir.Operation], body: ir.Block) -> list[ir.Operation]:
    """The body ops the loads' start indices are computed with, in body order."""
    inside = [op.operation for op in body.operations]
    needed: set = set()
    work = [s for ld in loads for s in list(ld.operands)[1:]]
    while work:
        v = work.pop()
        if isinstance(v, ir.OpResult) and v.owner in inside and v.owner not in needed:
            needed.add(v.owner)
            work.extend(v.owner.operands)
    return [op for op in inside if op in needed]


@lowers(role="pipelined")
def lower_pipelined_for(ctx: LoweringContext, op: ir.Operation) -> None:
    ring = _RolesRing if ctx.shared.plan.producer else _Ring
    ring(ctx.shared, op, ctx.shared.plan.pipelined[op]).emit()


class _Ring:
    """One pipelined loop being emitted: its prologue, the loop with its stage bookkeeping, the drain."""

    def __init__(self, smem, op: ir.Operation, plan):
        self.smem, self.ctx, self.op, self.plan = smem, smem.ctx, op, plan
        self.body = op.opview.body
        self.stages = plan.stages
        self.iv_old = self.body.arguments[0]
        self.slice_ops = _backward_slice(plan.loads, self.body)
        self.tma = smem.tma
        self.extra = 3 if self.tma is not None else 2  # carried: read stage, write stage (and the barrier phase)
        self.ub: ir.Value | None = None
        self.lb: ir.Value | None = None
        if plan.overlapped is not None:
            self.sum_at = carried_position(op, plan.overlapped)

    def stage_offsets(self, stage: ir.Value) -> dict:
        offsets = {}
        for ld in self.plan.loads:
            buf = self.smem.plan.buffers[self.smem.plan.staged[ld].buffer]
            offsets[ld] = arith.MulIOp(stage, self.ctx.index(buf.stage_elements)).result
        return offsets

    def issue(self, kt: ir.Value, stage: ir.Value) -> None:
        """The copies of the iteration at `kt` into `stage` (the body's index math at kt)."""
        ctx, plan, iv_old = self.ctx, self.plan, self.iv_old
        saved = {r: ctx.values.get(r) for s in self.slice_ops for r in s.results}
        saved_iv = ctx.values.get(iv_old)
        ctx.values[iv_old] = kt
        try:
            for s in self.slice_ops:
                ctx.lower_op(s)
            if self.tma is not None:
                self.tma.issue(plan.ring, self.stages, plan.loads, stage)
            else:
                for ld, off in self.stage_offsets(stage).items():
                    self.smem.copy(ld, self.smem.plan.staged[ld].buffer, off, asynchronous=True)
        finally:
            for r, v in saved.items():
                if v is None:
                    ctx.values.pop(r, None)
                else:
                    ctx.values[r] = v
            if saved_iv is None:
                ctx.values.pop(iv_old, None)
            else:
                ctx.values[iv_old] = saved_iv

    def issue_if(self, kt: ir.Value, stage: ir.Value) -> None:
        live = arith.CmpIOp(arith.CmpIPredicate.slt, kt, self.ub).result
        if self.tma is not None:  # one thread issues the stage's TMA copies
            live = arith.AndIOp(live, self.tma.leader()).result
        branch = scf.IfOp(live)
        with ir.InsertionPoint(branch.then_block):
            self.issue(kt, stage)
            scf.YieldOp([])
        if self.tma is None:
            _commit()

    def emit(self) -> None:
        ctx, op, o, tma, S = self.ctx, self.op, self.op.opview, self.tma, self.stages
        with op.location:
            lb, self.ub, step = (ctx.get(v, op) for v in (o.lowerBound, o.upperBound, o.step))
            self.smem.barrier_if((op, "prologue"))
            if tma is not None:
                self.arm()
            for s in range(S - 1):
                kt = lb if s == 0 else arith.AddIOp(lb, arith.MulIOp(step, ctx.index(s)).result).result
                self.issue_if(kt, ctx.index(s))
            inits = [ctx.get(v, op) for v in o.initArgs] + [ctx.index(0), ctx.index(S - 1)]
            if self.plan.overlapped is not None:  # no zeroing moves: the first wgmma starts from zero
                zero_sum = inits[self.sum_at]
                inits[self.sum_at] = llvm.UndefOp(zero_sum.type).result
                self.lb = lb
            if tma is not None:
                inits.append(arith.ConstantOp(ir.IntegerType.get_signless(1), 0).result)
            loop = scf.ForOp(lb, self.ub, step, inits)
            with ir.InsertionPoint(loop.body):
                self.iteration(loop, step)
            self.leave(loop, self.extra)
            if tma is None:
                _wait(0)
            elif self.plan.overlapped is not None:
                self.finish_sum(zero_sum)

    def arm(self, consumer_warps: int = 0) -> None:
        """The TMA ring's mbarriers armed (tma.init_ring) for every thread, then the proxy fence."""
        self.tma.init_ring(self.plan.ring, self.stages, consumer_warps)
        gpu.BarrierOp()  # the barriers are armed for every thread
        kind, space = (ir.Attribute.parse(a) for a in PROXY_FENCE)
        # bytes the ring reuses may have been written by ordinary stores before the TMA copies
        ir.Operation.create("nvvm.fence.proxy", attributes={"kind": kind, "space": space})

    def bind(self, iv: ir.Value, carried: list[ir.Value]) -> None:
        """The body's induction variable and loop-carried values as this loop's."""
        self.ctx.values[self.iv_old] = iv
        for old, new in zip(list(self.body.arguments)[1:], carried):
            self.ctx.values[old] = new

    def use_stage(self, stage: ir.Value) -> None:
        """The staged loads' buffers at `stage` for the body's dots."""
        if self.tma is not None:
            self.smem.stage_index.update({ld: stage for ld in self.plan.loads})
        self.smem.stage_offset.update(self.stage_offsets(stage))

    def flag_first_pass(self, iv: ir.Value) -> ir.Value:
        """i32 1 but on the loop's first pass, where the in-flight dot's sum starts from zero."""
        again = arith.CmpIOp(arith.CmpIPredicate.ne, iv, self.lb).result
        self.smem.accumulate[self.plan.overlapped] = arith.ExtUIOp(ir.IntegerType.get_signless(32), again).result
        return again

    def lower_body(self) -> ir.Operation:
        """The body's ops but its terminator, which is returned."""
        ops = [x.operation for x in self.body.operations]
        for inner in ops[:-1]:
            self.ctx.lower_op(inner)
        return ops[-1]

    def leave(self, loop, extra: int) -> None:
        """After the loop: no stage in use, the op's results the loop's (less its `extra` carried values)."""
        for ld in self.plan.loads:
            self.smem.stage_offset.pop(ld, None)
            self.smem.stage_index.pop(ld, None)
        for old, new in zip(self.op.results, list(loop.results)[:-extra]):
            self.ctx.values[old] = new

    def finish_sum(self, zero_sum: ir.Value) -> None:
        """The in-flight dot's last group waited for before anything reads the sum; the zero it
        starts from where the loop ran no iteration."""
        nvvm.WgmmaWaitGroupSyncOp(0)
        ran = arith.CmpIOp(arith.CmpIPredicate.slt, self.lb, self.ub).result
        total = self.op.results[self.sum_at]
        self.ctx.values[total] = arith.SelectOp(ran, copied_out(self.ctx.values[total]), zero_sum).result

    def iteration(self, loop, step: ir.Value) -> None:
        """The loop body: wait for this stage, refill the one read last, run the body on this stage."""
        ctx, tma, S, extra = self.ctx, self.tma, self.stages, self.extra
        iv = loop.induction_variable
        carried = list(loop.inner_iter_args)
        read_stage, write_stage = carried[-extra], carried[-extra + 1]
        self.bind(iv, carried[:-extra])
        if tma is None:
            _wait(S - 2)
        in_flight = self.plan.overlapped is not None
        if not in_flight:
            self.refill(iv, step, write_stage)
        if tma is not None:
            tma.wait(self.plan.ring, S, read_stage, carried[-1])
        self.use_stage(read_stage)
        if in_flight:
            self.flag_first_pass(iv)
        terminator = self.lower_body()
        if in_flight:  # the stage read last is free once every warpgroup waited for its group
            self.refill(iv, step, write_stage)
        yields = [ctx.get(v, terminator) for v in terminator.operands]
        next_read = self.advance(read_stage)
        yields += [next_read, self.advance(write_stage)]
        if tma is not None:  # the phase flips each time the ring wraps
            wrapped = arith.CmpIOp(arith.CmpIPredicate.eq, next_read, ctx.index(0)).result
            yields.append(arith.XOrIOp(carried[-1], wrapped).result)
        scf.YieldOp(yields)

    def refill(self, iv: ir.Value, step: ir.Value, write_stage: ir.Value) -> None:
        """The stage barrier, then the copies of the iteration S - 1 ahead into the stage read last."""
        if not self.smem.plan.sync.barrier_before((self.op, "stage-barrier")):
            raise LoweringError(
                self.op,
                f"{SYNC} elides the stage barrier of this pipelined loop, but a ring cannot run without it "
                "(a stage is refilled while other threads may still read it)",
            )
        gpu.BarrierOp()
        self.smem.barrier_if((self.op, "refill"))  # recorded as elided: the stage barrier orders it
        ahead = arith.AddIOp(iv, arith.MulIOp(step, self.ctx.index(self.stages - 1)).result).result
        self.issue_if(ahead, write_stage)

    def advance(self, stage: ir.Value) -> ir.Value:
        ctx = self.ctx
        bumped = arith.AddIOp(stage, ctx.index(1)).result
        wrapped = arith.CmpIOp(arith.CmpIPredicate.eq, bumped, ctx.index(self.stages)).result
        return arith.SelectOp(wrapped, ctx.index(0), bumped).result


class _RolesRing(_Ring):
    """The ring under warp roles (warp_roles.py): the producer warpgroup's first thread issues every
    iteration's copies into a stage its consumers freed; the consumer warps wait for each stage,
    run the body, free the stage the previous wgmma group read, then run the rest of the kernel
    (lowered here, inside their branch), whose CTA barriers become named barriers of theirs."""

    def emit(self) -> None:
        ctx, op, o = self.ctx, self.op, self.op.opview
        with op.location:
            lb, self.ub, step = (ctx.get(v, op) for v in (o.lowerBound, o.upperBound, o.step))
            self.lb = lb
            self.smem.barrier_if((op, "prologue"))
            self.arm(consumer_warps=ctx.threads // 32)  # every warp, the producer's too, passes its barrier
            consumer = arith.CmpIOp(arith.CmpIPredicate.ult, ctx.tid, ctx.index(ctx.threads)).result
            roles = scf.IfOp(consumer, [], has_else=True)
            with ir.InsertionPoint(roles.else_block):
                nvvm.SetMaxRegisterOp(PRODUCER_REGISTERS, nvvm.SetMaxRegisterAction.decrease)
                issuer = arith.CmpIOp(arith.CmpIPredicate.eq, ctx.tid, ctx.index(ctx.threads)).result
                first_lane = scf.IfOp(issuer)
                with ir.InsertionPoint(first_lane.then_block):
                    self.produce(lb, step)
                    scf.YieldOp([])
                scf.YieldOp([])
            with ir.InsertionPoint(roles.then_block):
                nvvm.SetMaxRegisterOp(consumer_registers(ctx.threads), nvvm.SetMaxRegisterAction.increase)
                for before in ctx.consumer_prologue:  # what the kernel runs before the loop, the producer aside
                    ctx.lower_op(before)
                self.consume(lb, step)
                self.rest_of_kernel()
                scf.YieldOp([])
            _name_barriers(roles.then_block, ctx.threads)

    def produce(self, lb: ir.Value, step: ir.Value) -> None:
        """The producer's loop: wait for the stage to be free, then its copies (armed on its full barrier)."""
        ctx, S = self.ctx, self.stages
        loop = scf.ForOp(lb, self.ub, step, [ctx.index(0), arith.ConstantOp(ir.IntegerType.get_signless(1), 0).result])
        with ir.InsertionPoint(loop.body):
            stage, phase = loop.inner_iter_args
            free = arith.XOrIOp(phase, arith.ConstantOp(ir.IntegerType.get_signless(1), 1).result).result
            self.tma.wait(self.plan.ring, S, stage, free, empty=True)
            self.issue(loop.induction_variable, stage)
            scf.YieldOp(self.advance_phase(stage, phase))

    def advance_phase(self, stage: ir.Value, phase: ir.Value) -> list[ir.Value]:
        """The next stage, and the phase flipped where the ring wraps."""
        following = self.advance(stage)
        wrapped = arith.CmpIOp(arith.CmpIPredicate.eq, following, self.ctx.index(0)).result
        return [following, arith.XOrIOp(phase, wrapped).result]

    def consume(self, lb: ir.Value, step: ir.Value) -> None:
        """The consumers' loop: wait for the stage, the body, free the stage read last: the previous
        iteration's where the body's dot stays in flight, else this iteration's."""
        ctx, op, o = self.ctx, self.op, self.op.opview
        in_flight = self.plan.overlapped is not None
        inits = [ctx.get(v, op) for v in o.initArgs]
        if in_flight:
            zero_sum = inits[self.sum_at]
            inits[self.sum_at] = llvm.UndefOp(zero_sum.type).result  # the first wgmma starts from zero
        inits += [ctx.index(0), arith.ConstantOp(ir.IntegerType.get_signless(1), 0).result]
        turns = _Turns(ctx) if takes_turns(self.plan, ctx.threads) else None
        loop = scf.ForOp(lb, self.ub, step, inits)
        with ir.InsertionPoint(loop.body):
            self.smem.turns = turns
            iv = loop.induction_variable
            carried = list(loop.inner_iter_args)
            stage, phase = carried[-2:]
            self.bind(iv, carried[:-2])
            self.tma.wait(self.plan.ring, self.stages, stage, phase)
            self.use_stage(stage)
            if in_flight:
                again = self.flag_first_pass(iv)
            terminator = self.lower_body()
            if in_flight:  # the body's wgmma.wait_group 1 finished the previous iteration's group
                self.release_previous(again, stage)
            else:  # the body waited for all its wgmmas
                self.tma.release(self.plan.ring, self.stages, stage)
            yields = [ctx.get(v, terminator) for v in terminator.operands]
            scf.YieldOp(yields + self.advance_phase(stage, phase))
            self.smem.turns = None
        if turns is not None:
            turns.finish()
        self.leave(loop, 2)
        if in_flight:
            self.finish_sum(zero_sum)

    def release_previous(self, again: ir.Value, stage: ir.Value) -> None:
        """The stage before `stage` freed, but on the loop's first pass (there is none)."""
        ctx = self.ctx
        previous = scf.IfOp(again)
        with ir.InsertionPoint(previous.then_block):
            before = arith.SubIOp(arith.AddIOp(stage, ctx.index(self.stages)).result, ctx.index(1)).result
            self.tma.release(self.plan.ring, self.stages, arith.RemUIOp(before, ctx.index(self.stages)).result)
            scf.YieldOp([])

    def rest_of_kernel(self) -> None:
        """The ops after the loop (its terminator aside), lowered here on the consumers only."""
        ops = [x.operation for x in self.op.parent.regions[0].blocks[0].operations]
        for later in ops[ops.index(self.op) + 1 : -1]:
            self.ctx.lower_op(later)
            self.ctx.taken.add(later)


class _Turns:
    """Two consumer warpgroups issuing their wgmmas in turn (FlashAttention-3's ping-pong), so that
    while one runs its softmax the other's dots have the tensor cores: before each dot a warpgroup
    waits on its own named barrier (2 or 3), which the other warpgroup's arrival after issuing its
    dot completes. The second warpgroup gives the first its first turn; after the loop the first
    takes the turn the second gave after its last dot, so every barrier phase completes."""

    FIRST, SECOND = 2, 3  # named barriers (0 is the CTA's, 1 the consumers' after the loop)

    def __init__(self, ctx):
        i32 = ir.IntegerType.get_signless(32)
        self.ctx = ctx
        group = arith.IndexCastOp(i32, arith.DivUIOp(ctx.tid, ctx.index(CONSUMER_WARPGROUP)).result).result
        self.second = arith.CmpIOp(arith.CmpIPredicate.ne, group, ctx.const(0, i32)).result
        self.mine = arith.AddIOp(group, ctx.const(self.FIRST, i32)).result
        self.other = arith.SubIOp(ctx.const(self.SECOND, i32), group).result
        self.count = ctx.const(2 * CONSUMER_WARPGROUP, i32)
        self._on(self.second, lambda: nvvm.BarrierArriveOp(self.count, barrierId=ctx.const(self.FIRST, i32)))

    def _on(self, cond: ir.Value, emit) -> None:
        branch = scf.IfOp(cond)
        with ir.InsertionPoint(branch.then_block):
            emit()
            scf.YieldOp([])

    def wait(self) -> None:
        """Before a dot: this warpgroup's turn."""
        nvvm.BarrierOp(None, barrierId=self.mine, numberOfThreads=self.count)

    def pass_on(self) -> None:
        """After issuing a dot: the other warpgroup's turn."""
        nvvm.BarrierArriveOp(self.count, barrierId=self.other)

    def finish(self) -> None:
        """After the loop: the first warpgroup takes the turn the second handed on last."""
        first = arith.XOrIOp(self.second, arith.ConstantOp(ir.IntegerType.get_signless(1), 1).result).result
        ident = self.ctx.const(self.FIRST, ir.IntegerType.get_signless(32))
        self._on(first, lambda: nvvm.BarrierOp(None, barrierId=ident, numberOfThreads=self.count))


def _name_barriers(block: ir.Block, threads: int) -> None:
    """The CTA barriers in `block` as named barrier 1 of its `threads` (the producer warpgroup is not there)."""
    found = []

    def visit(inner):
        if isinstance(inner.opview, gpu.BarrierOp):
            found.append(inner)
        return ir.WalkResult.ADVANCE

    for op in block.operations:
        op.operation.walk(visit)
    i32 = ir.IntegerType.get_signless(32)
    for barrier in found:
        with ir.InsertionPoint(barrier), barrier.location:
            ident = arith.ConstantOp(i32, 1).result
            count = arith.ConstantOp(i32, threads).result
            nvvm.BarrierOp(None, barrierId=ident, numberOfThreads=count)
        barrier.erase()
