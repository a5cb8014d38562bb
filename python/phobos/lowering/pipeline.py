"""`@pipeline`: a loop's staged loads as a ring of cp.async stages.

For a loop `for kt in range(lb, ub, step)` whose staged loads (dot.py) depend
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
from mlir.dialects import arith, gpu, scf


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


def emit_pipelined_loop(emitter, op: ir.Operation, plan) -> None:
    kl = emitter.kl
    o = op.opview
    body = o.body
    S = plan.stages
    iv_old = body.arguments[0]
    slice_ops = _backward_slice(plan.loads, body)

    def stage_offsets(stage: ir.Value) -> dict:
        offsets = {}
        for ld in plan.loads:
            buf = emitter.plan.buffers[emitter.plan.staged[ld].buffer]
            offsets[ld] = arith.MulIOp(stage, kl.index(buf.stage_elements)).result
        return offsets

    def issue(kt: ir.Value, stage: ir.Value) -> None:
        """The copies of the iteration at `kt` into `stage` (the body's index math at kt)."""
        saved = {r: kl.values.get(r) for s in slice_ops for r in s.results}
        saved_iv = kl.values.get(iv_old)
        kl.values[iv_old] = kt
        try:
            for s in slice_ops:
                kl._op(s)
            for ld, off in stage_offsets(stage).items():
                emitter.copy(ld, emitter.plan.staged[ld].buffer, off, asynchronous=True)
        finally:
            for r, v in saved.items():
                if v is None:
                    kl.values.pop(r, None)
                else:
                    kl.values[r] = v
            if saved_iv is None:
                kl.values.pop(iv_old, None)
            else:
                kl.values[iv_old] = saved_iv

    def issue_if(kt: ir.Value, stage: ir.Value) -> None:
        live = arith.CmpIOp(arith.CmpIPredicate.slt, kt, ub).result
        branch = scf.IfOp(live)
        with ir.InsertionPoint(branch.then_block):
            issue(kt, stage)
            scf.YieldOp([])
        _commit()

    with op.location:
        lb, ub, step = (kl.get(v, op) for v in (o.lowerBound, o.upperBound, o.step))
        emitter.barrier_if((op, "prologue"))
        for s in range(S - 1):
            kt = lb if s == 0 else arith.AddIOp(lb, arith.MulIOp(step, kl.index(s)).result).result
            issue_if(kt, kl.index(s))
        inits = [kl.get(v, op) for v in o.initArgs] + [kl.index(0), kl.index(S - 1)]
        loop = scf.ForOp(lb, ub, step, inits)
        iv = loop.induction_variable
        carried = list(loop.inner_iter_args)
        read_stage, write_stage = carried[-2], carried[-1]
        kl.values[iv_old] = iv
        for old, new in zip(list(body.arguments)[1:], carried[:-2]):
            kl.values[old] = new
        with ir.InsertionPoint(loop.body):
            _wait(S - 2)
            gpu.BarrierOp()
            ahead = arith.AddIOp(iv, arith.MulIOp(step, kl.index(S - 1)).result).result
            issue_if(ahead, write_stage)
            emitter.stage_offset.update(stage_offsets(read_stage))
            ops = [x.operation for x in body.operations]
            for inner in ops[:-1]:
                kl._op(inner)
            terminator = ops[-1]

            def advance(stage):
                bumped = arith.AddIOp(stage, kl.index(1)).result
                wrapped = arith.CmpIOp(arith.CmpIPredicate.eq, bumped, kl.index(S)).result
                return arith.SelectOp(wrapped, kl.index(0), bumped).result

            yields = [kl.get(v, terminator) for v in terminator.operands]
            scf.YieldOp(yields + [advance(read_stage), advance(write_stage)])
        for ld in plan.loads:
            emitter.stage_offset.pop(ld, None)
        for old, new in zip(op.results, list(loop.results)[:-2]):
            kl.values[old] = new
        _wait(0)
