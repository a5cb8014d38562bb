"""TMA copies and mbarrier rings of the wgmma path (sm_90a).

The tensor maps the runtime encodes (one kernel parameter each) are bound as
nvgpu descriptors; one elected thread arms each ring's mbarriers, issues the
stage's `cp.async.bulk.tensor` copies announced with their byte count, and
every thread waits on the stage's barrier phase. The ring's schedule is the
pipelined loop's (ops/pipelined_for.py); the plan (wgmma.py) says which
boxes each load copies.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, llvm, memref, nvgpu, nvvm, scf

SPIN_TICKS = 10_000_000  # mbarrier.try_wait's suspend hint, in ns


class TmaRing:
    """The TMA side of the wgmma path for one kernel's SharedRegion (`smem`): tensor maps,
    mbarrier rings, and the leader thread's copies."""

    def __init__(self, smem):
        self.smem = smem
        self.ctx = smem.ctx
        self.maps: list[ir.Value] = []  # the tensor-map descriptors, in plan.tensor_maps order
        self.map_params: list[ir.Value] = []  # the same maps as the kernel's !llvm.ptr parameters
        self.barriers: dict[int, ir.Value] = {}  # ring -> its mbarrier group (a stage's copies landed)
        self.empties: dict[int, ir.Value] = {}  # ring -> its consumers' group (a stage is free), warp roles only
        self._leader: ir.Value | None = None  # thread 0's predicate, made on first use

    # ------------------------------------------------------------------ setup

    def bind_maps(self, args: list[ir.Value]) -> None:
        """The tensor-map parameters (`!llvm.ptr`) as nvgpu descriptors."""
        plan = self.smem.plan
        self.map_params = list(args[: len(plan.tensor_maps)])
        for index, arg in enumerate(args[: len(plan.tensor_maps)]):
            t = ir.Type.parse(
                f"!nvgpu.tensormap.descriptor<tensor = {self.box_type(index)}, swizzle = swizzle_128b, "
                "l2promo = none, oob = zero, interleave = none>"
            )
            cast = ir.Operation.create("builtin.unrealized_conversion_cast", results=[t], operands=[arg])
            self.maps.append(cast.results[0])

    def _element(self, param: int) -> str:
        arg = self.ctx.fn.regions[0].blocks[0].arguments[param]
        return str(ir.MemRefType(arg.type).element_type)

    def barrier_group(self, ring: int, stages: int) -> ir.Value:
        return self._group(self.barriers, ring, stages)

    def empty_group(self, ring: int, stages: int) -> ir.Value:
        """The ring's second mbarrier group under warp roles (warp_roles.py): stage s's barrier
        completes a phase once every consumer warp is done reading the stage."""
        return self._group(self.empties, ring, stages)

    def _group(self, groups: dict, ring: int, stages: int) -> ir.Value:
        if ring not in groups:
            t = ir.Type.parse(
                f"!nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = {stages}>"
            )
            groups[ring] = self.ctx.at_entry(lambda: nvgpu.MBarrierCreateOp(t).result)
        return groups[ring]

    def init_ring(self, ring: int, stages: int, consumer_warps: int = 0) -> None:
        """One thread arms the stages' mbarriers (one arrival each; with `consumer_warps`, the
        empty barriers too, one arrival per consumer warp) and prefetches the maps."""
        ctx = self.ctx
        group = self.barrier_group(ring, stages)
        leader = self.leader()
        branch = scf.IfOp(leader)
        with ir.InsertionPoint(branch.then_block):
            for s in range(stages):
                nvgpu.MBarrierInitOp(group, ctx.index(1), ctx.index(s))
            if consumer_warps:
                empty = self.empty_group(ring, stages)
                for s in range(stages):
                    nvgpu.MBarrierInitOp(empty, ctx.index(consumer_warps), ctx.index(s))
            nvvm.FenceMbarrierInitOp()
            for m, param in zip(self.maps, self.map_params):
                # an empty tensor has no map (runtime/tensor_maps.py passes null): nothing to prefetch
                null = llvm.ZeroOp(param.type).result
                present = llvm.ICmpOp(llvm.ICmpPredicate.ne, param, null).result
                prefetch = scf.IfOp(present)
                with ir.InsertionPoint(prefetch.then_block):
                    nvgpu.TmaPrefetchOp(m)
                    scf.YieldOp([])
            scf.YieldOp([])

    def leader(self) -> ir.Value:
        ctx = self.ctx

        def build():  # not ctx.index(0): that constant is the entry anchor itself, after this point
            zero = arith.ConstantOp(ir.IndexType.get(), 0).result
            return arith.CmpIOp(arith.CmpIPredicate.eq, ctx.tid, zero).result

        if self._leader is None:
            self._leader = ctx.at_entry(build)
        return self._leader

    # ------------------------------------------------------------------ copies

    def issue(self, ring: int, stages: int, loads: list[ir.Operation], stage: ir.Value) -> None:
        """The leader's TMA copies of `loads` (their starts already translated) into `stage`."""
        ctx, plan = self.ctx, self.smem.plan
        group = self.barrier_group(ring, stages)
        tx = sum(plan.buffers[plan.staged[ld].buffer].stage_bytes for ld in loads)
        nvgpu.MBarrierArriveExpectTxOp(group, ctx.index(tx), stage)
        for ld in loads:
            o = plan.staged[ld]
            buf = plan.buffers[o.buffer]
            starts = [ctx.get(s, ld) for s in ld.opview.starts]
            base = arith.AddIOp(ctx.index(buf.offset), arith.MulIOp(stage, ctx.index(buf.stage_bytes)).result).result
            whole = plan.whole.get(ld)
            if whole is None:
                self._copies(ld, group, starts, base, stage)
                continue
            # a tile entirely inside the tensor in one copy, else box by box (zeros past the edge)
            rows = ir.RankedTensorType(ld.results[0].type).shape[0]
            extent = ctx.extents[(plan.tensor_maps[whole].param, 0)]
            end = arith.AddIOp(starts[0], ctx.index(rows)).result
            inside = arith.CmpIOp(arith.CmpIPredicate.ule, end, extent).result
            branch = scf.IfOp(inside, [], has_else=True)
            with ir.InsertionPoint(branch.then_block):
                dst = memref.ViewOp(self.box_type(whole), self.smem.region, base, []).result
                zero = ctx.index(0)
                block = arith.DivUIOp(starts[0], ctx.index(32)).result
                nvgpu.TmaAsyncLoadOp(dst, group, self.maps[whole], [starts[1], zero, zero, zero, block], stage)
                scf.YieldOp([])
            with ir.InsertionPoint(branch.else_block):
                self._copies(ld, group, starts, base, stage)
                scf.YieldOp([])

    def _copies(self, ld, group, starts, base, stage) -> None:
        """`ld`'s box-by-box copies (plan.copies) into the stage at byte `base`."""
        ctx, plan = self.ctx, self.smem.plan
        index = plan.map_of[ld]
        m, dst_t = self.maps[index], self.box_type(index)
        for c in plan.copies[ld]:
            at = arith.AddIOp(base, ctx.index(c.at)).result if c.at else base
            dst = memref.ViewOp(dst_t, self.smem.region, at, []).result
            x = starts[-1] if not c.offset[0] else arith.AddIOp(starts[-1], ctx.index(c.offset[0])).result
            y = starts[-2] if not c.offset[1] else arith.AddIOp(starts[-2], ctx.index(c.offset[1])).result
            # innermost first: columns, rows, then the slice's unit dimensions (K[h, j :+ BN, :])
            nvgpu.TmaAsyncLoadOp(dst, group, m, [x, y, *reversed(starts[:-2])], stage)

    def box_type(self, map_index: int) -> ir.Type:
        tm = self.smem.plan.tensor_maps[map_index]
        shape = "x".join(str(b) for b in reversed(tm.box))
        return ir.Type.parse(f"memref<{shape}x{self._element(tm.param)}, #gpu.address_space<workgroup>>")

    def wait(self, ring: int, stages: int, stage: ir.Value, phase: ir.Value, empty: bool = False) -> None:
        """Wait until `stage`'s barrier has completed the phase of parity `phase` (of the empty
        group with `empty`: a fresh barrier counts its parity-1 phase as completed, so the
        producer's first pass over the ring does not wait)."""
        group = self.empty_group(ring, stages) if empty else self.barrier_group(ring, stages)
        nvgpu.MBarrierTryWaitParityOp(group, phase, self.ctx.index(SPIN_TICKS), stage)

    def release(self, ring: int, stages: int, stage: ir.Value) -> None:
        """The calling warp is done reading `stage`: its first lane arrives on the empty barrier."""
        ctx = self.ctx
        lane = arith.RemUIOp(ctx.tid, ctx.index(32)).result
        first = scf.IfOp(arith.CmpIOp(arith.CmpIPredicate.eq, lane, ctx.index(0)).result)
        with ir.InsertionPoint(first.then_block):
            nvgpu.MBarrierArriveOp(self.empty_group(ring, stages), stage)
            scf.YieldOp([])
