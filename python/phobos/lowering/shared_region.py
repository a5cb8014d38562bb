"""The kernel's shared memory at run time: the region, its buffer views, and the copies into it.

One `SharedRegion` per kernel with a plan (shared_plan.py): it declares the
extern region (NVGPU22 H1: public, no initializer), views each buffer at its
planned offset, emits the planned barriers (`barrier_if`), copies tiles from
global memory into buffers (synchronously, or as cp.async for rings) and
stores register tiles into them. Under wgmma its `tma` is the TMA ring
(tma.py). The emitters of dots, staged loads, exchanges and pipelined loops
(ops/) all go through it.
"""

from __future__ import annotations

import json
import math

from mlir import ir
from mlir.dialects import arith, gpu, memref, scf, vector

from phobos.analysis.kernel_facts import element_bytes
from phobos.lowering.ir_helpers import tile_type
from phobos.lowering.shared_plan import SMEM_SYMBOL, WORKGROUP, CopyChunks, DotPlan, Operand, copy_width
from phobos.lowering.tma import TmaRing


def row_major_addresses(ctx, value: ir.Value) -> tuple[ir.Value, list[int]]:
    """This thread's elements of `value` in a row-major buffer of the tile's own
    shape: the run-time start, and the constant offset of each register."""
    shape = tile_type(value).shape
    dims = ctx.placement.dims_of(value)
    placed = ctx.placement.placed_shape(value)
    strides = [math.prod(shape[i + 1 :]) for i in range(len(shape))]
    stride_of = {d: strides[i] for i, d in enumerate(dims) if d is not None and shape[i] > 1}
    start = ctx.index(0)
    for d, stride in sorted(stride_of.items()):
        base = ctx.coordinate_base(d, placed[d])
        term = base if stride == 1 else arith.MulIOp(base, ctx.index(stride)).result
        start = arith.AddIOp(start, term).result
    L = ctx.layout
    offsets = [L.offsets(d, placed[d]) for d in range(L.rank)]
    return start, [
        sum(offsets[d][k[d]] * stride_of.get(d, 0) for d in range(L.rank)) for k in L.register_indices(placed)
    ]


class SharedRegion:
    """The shared memory of one kernel being lowered (`ctx`, its LoweringContext), following its plan."""

    def __init__(self, ctx, plan: DotPlan):
        self.ctx = ctx
        self.plan = plan
        self.views: dict[int, ir.Value] = {}
        self._typed_views: dict[tuple[int, str], ir.Value] = {}  # view_as
        self.region: ir.Value | None = None  # the whole region as bytes (TMA copies view it)
        self.stage_offset: dict[ir.Operation, ir.Value] = {}  # staged load -> element offset of its stage
        self.stage_index: dict[ir.Operation, ir.Value] = {}  # staged load -> its ring stage (wgmma)
        self.descriptors: dict[int, ir.Value] = {}  # buffer -> its stage-0 wgmma matrix descriptor
        self.accumulate: dict[ir.Operation, ir.Value] = {}  # in-flight dot -> i32, 0 on its loop's first pass
        self.turns = None  # while a ring's consumer warpgroups take turns at the wgmmas (pipelined_for._Turns)
        self.tma = TmaRing(self) if plan.wgmma else None  # the TMA ring of the wgmma path

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
        ctx = self.ctx
        total = max(16, self.plan.total_bytes)

        def build():
            i8 = ir.IntegerType.get_signless(8)
            space = ir.Attribute.parse(WORKGROUP)
            raw_t = ir.MemRefType.get([0], i8, memory_space=space)
            region_t = ir.MemRefType.get([total], i8, memory_space=space)
            raw = memref.GetGlobalOp(raw_t, SMEM_SYMBOL).result
            region = memref.ReinterpretCastOp(region_t, raw, [], [], [], [0], [total], [1]).result
            for i, b in enumerate(self.plan.buffers):
                self.views[i] = _view(region, b, self.plan.elements[i], b.element_bytes)
            return region

        self.region = ctx.at_entry(build)

    def view_as(self, index: int, elem: ir.Type, elem_bytes: int) -> ir.Value:
        """Buffer `index` as elements of `elem` (`elem_bytes` each), made once at the kernel's entry:
        the bytes of 8-bit operands (ldmatrix and byte loads take no fp8 memrefs), the 2-byte words
        of widened ones."""
        key = (index, str(elem))
        if key not in self._typed_views:
            b = self.plan.buffers[index]
            self._typed_views[key] = self.ctx.at_entry(lambda: _view(self.region, b, elem, elem_bytes))
        return self._typed_views[key]

    def barrier_if(self, event_id) -> None:
        sync = self.plan.sync
        assert sync is not None  # the lowering's plan runs through every phase of plan_dots, the barriers last
        if sync.barrier_before(event_id):
            gpu.BarrierOp()

    # ------------------------------------------------------------------ copies

    def copy(self, op: ir.Operation, buffer: int, stage: ir.Value | None, asynchronous: bool) -> None:
        """Global -> shared copy of the tile op loads; `stage`: the element offset
        of the ring stage (None: stage 0). The threads share the chunks as
        shared_plan.CopyChunks says."""
        p, w, pieces = self._copy_pieces(op, buffer, stage)
        t = tile_type(op.results[0])
        eb = element_bytes(t.element_type)
        view, smem = self.ctx.views[p], self.views[buffer]
        if asynchronous:
            for sidx, gidx, mask, guard in pieces:
                self._guarded(guard, lambda s=sidx, g=gidx, m=mask: self._async_copy(view, smem, s, g, m, w, eb))
            return
        values = self._load_pieces(p, t, w, pieces)
        for (sidx, _, _, guard), value in zip(pieces, values):
            self._guarded(guard, lambda s=sidx, v=value: self._store_shared(smem, v, s, w, eb))

    def _copy_pieces(self, op: ir.Operation, buffer: int, stage: ir.Value | None):
        """(parameter, chunk width, [(shared index, global index, mask, guard)] per chunk of this thread)."""
        ctx = self.ctx
        o = op.opview
        p = ctx.param_index(o.base, op)
        t = tile_type(op.results[0])
        rows, cols = t.shape[-2:]
        lead = t.rank - 2  # leading unit dimensions (K[h, j :+ BN, :])
        w = copy_width(op)
        buf = self.plan.buffers[buffer]
        in_bounds = o.in_bounds
        starts = [ctx.get(s, op) for s in o.starts]
        base = None  # the leading dimensions' part of every global index
        for axis in range(lead):
            term = arith.MulIOp(starts[axis], ctx.strides[(p, axis)]).result
            base = term if base is None else arith.AddIOp(base, term).result
        rule = CopyChunks(rows, cols, w, ctx.threads)
        per_row, total, T = rule.per_row, rule.total, rule.threads
        stride = ctx.strides[(p, lead)]
        pieces = []  # (shared index, global index, mask, guard)
        for i in range(rule.rounds):
            q = ctx.tid if i == 0 else arith.AddIOp(ctx.tid, ctx.index(i * T)).result
            guard = None
            if (i + 1) * T > total:
                guard = arith.CmpIOp(arith.CmpIPredicate.ult, q, ctx.index(total)).result
            r = arith.DivUIOp(q, ctx.index(per_row)).result if per_row > 1 else q
            c = arith.MulIOp(arith.RemUIOp(q, ctx.index(per_row)).result, ctx.index(w)).result if per_row > 1 else None
            grow = arith.AddIOp(starts[lead], r).result
            gcol = starts[lead + 1] if c is None else arith.AddIOp(starts[lead + 1], c).result
            gidx = arith.AddIOp(arith.MulIOp(grow, stride).result, gcol).result
            if base is not None:
                gidx = arith.AddIOp(base, gidx).result
            mask = None
            coords = [(axis, starts[axis]) for axis in range(lead)] + [(lead, grow), (lead + 1, gcol)]
            for axis, coord in coords:
                if not in_bounds[axis]:
                    m = arith.CmpIOp(arith.CmpIPredicate.ult, coord, ctx.extents[(p, axis)]).result
                    mask = m if mask is None else arith.AndIOp(mask, m).result
            sidx = arith.MulIOp(r, ctx.index(buf.ld)).result
            if c is not None:
                sidx = arith.AddIOp(sidx, c).result
            if stage is not None:
                sidx = arith.AddIOp(sidx, stage).result
            pieces.append((sidx, gidx, mask, guard))
        return p, w, pieces

    def _load_pieces(self, p: int, t: ir.RankedTensorType, w: int, pieces: list) -> list[ir.Value]:
        """A synchronous copy's loads, all before any store (one uniform guard against an empty
        tensor when a masked chunk must read something)."""
        ctx = self.ctx
        elem = t.element_type
        eb = element_bytes(elem)
        chunk_t = ir.VectorType.get([w], elem)
        view = ctx.views[p]
        zero = ctx.const(0, chunk_t if w > 1 else elem)

        def load(gidx, mask):
            idx = gidx if mask is None else arith.SelectOp(mask, gidx, ctx.index(0)).result
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

        if not any(m is not None or guard is not None for _, _, m, guard in pieces):
            return load_all()
        nonempty = None
        for axis in range(t.rank):
            pos = arith.CmpIOp(arith.CmpIPredicate.ugt, ctx.extents[(p, axis)], ctx.index(0)).result
            nonempty = pos if nonempty is None else arith.AndIOp(nonempty, pos).result
        branch = scf.IfOp(nonempty, [zero.type] * len(pieces), has_else=True)
        with ir.InsertionPoint(branch.then_block):
            scf.YieldOp(load_all())
        with ir.InsertionPoint(branch.else_block):
            scf.YieldOp([zero] * len(pieces))
        return list(branch.results)

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
        ctx = self.ctx
        src_elements = None
        if mask is not None:
            # Zero source bytes: the chunk is zero-filled and its (out-of-bounds) address never read.
            src_elements = arith.SelectOp(mask, ctx.index(w), ctx.index(0)).result
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
        ctx = self.ctx
        L = ctx.layout
        value_old = operand.value
        shape = ctx.placement.placed_shape(value_old)
        value = ctx.get(value_old, dot)
        elem = tile_type(value_old).element_type
        eb = element_bytes(elem)
        buf = self.plan.buffers[operand.buffer]
        smem = self.views[operand.buffer]
        run = min(L.run(1, shape[1]), 16 // eb)
        base0, base1 = ctx.coordinate_base(0, shape[0]), ctx.coordinate_base(1, shape[1])
        off0, off1 = L.offsets(0, shape[0]), L.offsets(1, shape[1])
        row_base = arith.MulIOp(base0, ctx.index(buf.ld)).result
        start = arith.AddIOp(row_base, base1).result
        guard = ctx.owner_guard(shape, (0, 1))

        def emit():
            n1 = len(off1)
            for i, a in enumerate(off0):
                for j in range(0, n1, run):
                    first = i * n1 + j
                    sidx = arith.AddIOp(start, ctx.index(a * buf.ld + off1[j])).result
                    if run == 1:
                        piece = vector.ExtractOp(value, [], [first]).result
                    else:
                        piece = vector.ShuffleOp(value, value, list(range(first, first + run))).result
                    self._store_shared(smem, piece, sidx, run, eb)

        self._guarded(guard, emit)

    def prepare_operands(self, op: ir.Operation) -> tuple[Operand, Operand]:
        """A dot's operands as planned, after the barriers it needs and with computed (register)
        operands stored into their buffers."""
        lhs = self.plan.operands[(op, "lhs")]
        rhs = self.plan.operands[(op, "rhs")]
        for o in (lhs, rhs):
            if o.source is None and not o.registers:
                self.barrier_if((op, "stage-" + o.role))
                self.store_registers(op, o)
        self.barrier_if((op, "read"))
        self.barrier_if((op, "read-ring"))
        return lhs, rhs


def _view(region: ir.Value, buffer, elem: ir.Type, elem_bytes: int) -> ir.Value:
    """`buffer` (a planned Buffer) of the shared region as a 1-D memref of `elem`."""
    space = ir.MemRefType(region.type).memory_space
    view_t = ir.MemRefType.get([buffer.bytes // elem_bytes], elem, memory_space=space)
    offset = arith.ConstantOp(ir.IndexType.get(), buffer.offset).result
    return memref.ViewOp(view_t, region, offset, []).result
