"""Reductions, scans and transposes: values that move between the threads of a CTA.

A tile sits in the kernel's blocked layout (layout.py): along a dimension d
each thread holds runs of spt[d] elements, tpw[d] lanes of a warp and wpc[d]
warps split the rest. `tile.reduce` along d therefore happens in three steps:

  1. in the thread: its elements along d, combined pairwise (a tree, so long
     rows do not make a serial chain);
  2. in the warp: a butterfly of `shfl.xor` over the lane bits of d, after
     which every lane of the group holds the warp's value;
  3. across warps, when wpc[d] > 1 splits d: one lane per warp writes its
     value to shared memory, and after a barrier every thread reads the
     warps' values and combines them in the same fixed order.

Where a tile is narrower than the layout's reach, threads hold replicas
(layout.py); only the `distinct` groups of threads take part, so a sum does
not count an element twice, and replicas end with bitwise-equal results
(the butterfly and the fixed order are symmetric). The result sits in the
same layout with extent 1 along d: every thread along d holds it, which is
what `rowmax(x)` broadcast back over the row needs.

`tile.scan` (inclusive) scans each thread's runs serially, then the run
totals across lanes with `shfl.up` (Hillis-Steele), across warps through
shared memory, and carries each wrap of the layout (a chunk of coverage
elements) into the next. `tile.transpose` writes the tile to shared memory
and reads it back in the transposed order (rows padded by one element so
that neither side hits one bank twice).

16-bit floats are combined in f32 and 8/16-bit integers in i32, then
converted back to the tile's type (what the interpreter does). Sums use the
identity 0, max -inf (or the type's minimum), min +inf: a masked-off element
reads as the load's fill value, so a masked max needs `padded(..., -inf)`.
Float max/min propagate NaN (arith.maximumf/minimumf), as NumPy does.

Shared memory comes from the kernel's one plan (shared_plan.plan_dots), which also
places these `Scratch` buffers (exchange_plan.py) and decides their barriers.
"""

from __future__ import annotations

import math

from mlir import ir
from mlir.dialects import arith, gpu, memref, vector

from phobos.dialect import tile as T
from phobos.lowering.context import LoweringContext
from phobos.lowering.errors import LoweringError
from phobos.lowering.exchange_plan import Exchange, compute_type, exchange
from phobos.lowering.ir_helpers import tile_type
from phobos.lowering.layout import WARP_SIZE
from phobos.lowering.registry import lowers


@lowers(T.ReduceOp)
def lower_reduce(ctx: LoweringContext, op: ir.Operation) -> None:
    ReduceEmitter(ctx, ctx.smem).reduce(op)


@lowers(T.ScanOp)
def lower_scan(ctx: LoweringContext, op: ir.Operation) -> None:
    ReduceEmitter(ctx, ctx.smem).scan(op)


@lowers(T.TransposeOp)
def lower_transpose(ctx: LoweringContext, op: ir.Operation) -> None:
    ReduceEmitter(ctx, ctx.smem).transpose(op)


class ReduceEmitter:
    """Emits reductions, scans and transposes for one LoweringContext (`ctx`);
    `shared` is its SharedRegion (the views of the planned buffers and the
    barrier decisions)."""

    def __init__(self, ctx, shared):
        self.ctx = ctx
        self.shared = shared

    # ------------------------------------------------------------------ scalars

    def _i32(self, value: int) -> ir.Value:
        return self.ctx.const(value, ir.IntegerType.get_signless(32))

    def _identity(self, kind: str, t: ir.Type) -> ir.Value:
        if kind == "sum":
            return self.ctx.const(0, t)
        if isinstance(t, ir.FloatType):
            return self.ctx.const(-math.inf if kind == "max" else math.inf, t)
        width = ir.IntegerType(t).width
        return self.ctx.const(-(2 ** (width - 1)) if kind == "max" else 2 ** (width - 1) - 1, t)

    @staticmethod
    def _combine(kind: str, a: ir.Value, b: ir.Value) -> ir.Value:
        is_float = isinstance(a.type, ir.FloatType)
        if kind == "sum":
            return (arith.AddFOp if is_float else arith.AddIOp)(a, b).result
        if kind == "max":
            return (arith.MaximumFOp if is_float else arith.MaxSIOp)(a, b).result
        return (arith.MinimumFOp if is_float else arith.MinSIOp)(a, b).result

    def _tree(self, kind: str, values: list[ir.Value]) -> ir.Value:
        while len(values) > 1:
            nxt = [self._combine(kind, a, b) for a, b in zip(values[0::2], values[1::2])]
            if len(values) % 2:
                nxt.append(values[-1])
            values = nxt
        return values[0]

    @staticmethod
    def _convert(v: ir.Value, to: ir.Type) -> ir.Value:
        t = v.type
        if t == to:
            return v
        if isinstance(to, ir.FloatType):
            wider = ir.FloatType(to).width > ir.FloatType(t).width
            return (arith.ExtFOp if wider else arith.TruncFOp)(to, v).result
        wider = ir.IntegerType(to).width > ir.IntegerType(t).width
        return (arith.ExtSIOp if wider else arith.TruncIOp)(to, v).result

    def _shuffle(self, v: ir.Value, offset: ir.Value, mode) -> ir.Value:
        """gpu.shuffle of a 32- or 64-bit scalar (64-bit ones as two 32-bit halves)."""
        width = v.type.width if isinstance(v.type, ir.IntegerType) else ir.FloatType(v.type).width
        if width == 32:
            return gpu.ShuffleOp(v, offset, self._i32(WARP_SIZE), mode).results[0]
        i64, i32 = ir.IntegerType.get_signless(64), ir.IntegerType.get_signless(32)
        bits = v if isinstance(v.type, ir.IntegerType) else arith.BitcastOp(i64, v).result
        lo = arith.TruncIOp(i32, bits).result
        hi = arith.TruncIOp(i32, arith.ShRUIOp(bits, self.ctx.const(32, i64)).result).result
        lo, hi = (gpu.ShuffleOp(x, offset, self._i32(WARP_SIZE), mode).results[0] for x in (lo, hi))
        joined = arith.OrIOp(
            arith.ExtUIOp(i64, lo).result, arith.ShLIOp(arith.ExtUIOp(i64, hi).result, self.ctx.const(32, i64)).result
        ).result
        return joined if isinstance(v.type, ir.IntegerType) else arith.BitcastOp(v.type, joined).result

    # ------------------------------------------------------------------ thread coordinates

    def _others_owner(self, shape, d: int) -> ir.Value | None:
        """True on one thread of each replica group along the dimensions other than d."""
        ctx, L = self.ctx, self.ctx.layout
        cond = None
        for dd in range(L.rank):
            if dd != d and L.replicated(dd, shape[dd]):
                ok = arith.CmpIOp(arith.CmpIPredicate.ult, ctx.thread_start(dd), ctx.index(shape[dd])).result
                cond = ok if cond is None else arith.AndIOp(cond, ok).result
        return cond

    def _line_position(self, shape, d: int):
        """(runtime base, constant offset per register index) of the linear
        position of an element in the tile with d removed (row-major)."""
        ctx, L = self.ctx, self.ctx.layout
        base = None
        strides = {}
        stride = 1
        for dd in reversed(range(L.rank)):
            if dd == d:
                continue
            strides[dd] = stride
            stride *= shape[dd]
        for dd, s in strides.items():
            b = ctx.coordinate_base(dd, shape[dd])
            term = b if s == 1 else arith.MulIOp(b, ctx.index(s)).result
            base = term if base is None else arith.AddIOp(base, term).result
        if base is None:
            base = ctx.index(0)

        def offset(k) -> int:
            return sum(L.offsets(dd, shape[dd])[k[dd]] * s for dd, s in strides.items())

        return base, offset

    @staticmethod
    def _and(a: ir.Value | None, b: ir.Value) -> ir.Value:
        return b if a is None else arith.AndIOp(a, b).result

    def _guarded(self, cond: ir.Value | None, emit) -> None:
        self.shared._guarded(cond, emit)

    # ------------------------------------------------------------------ tile.reduce

    def _unit(self, op: ir.Operation) -> bool:
        """A reduction or scan along a unit dimension placed nowhere: the registers as they are."""
        src_old, res_old = op.operands[0], op.results[0]
        if self.ctx.placement.dims_of(src_old)[op.opview.axis] is not None:
            return False
        value = self.ctx.get(src_old, op)
        if not isinstance(res_old.type, ir.RankedTensorType):
            with op.location:
                value = vector.ExtractOp(value, [], [0]).result
        self.ctx.values[res_old] = value
        return True

    def _along(self, op: ir.Operation):
        """(kind, source, result, placed shape, layout dim, element type, compute type, exchange)
        of a reduction or scan."""
        src_old, res_old = op.operands[0], op.results[0]
        shape = self.ctx.placement.placed_shape(src_old)
        d = self.ctx.placement.dims_of(src_old)[op.opview.axis]
        elem = tile_type(src_old).element_type
        x = exchange(self.ctx.layout, d, shape[d])
        return op.opview.kind, src_old, res_old, shape, d, elem, compute_type(elem), x

    def reduce(self, op: ir.Operation) -> None:
        if self._unit(op):
            return
        ctx, L = self.ctx, self.ctx.layout
        kind, src_old, res_old, shape, d, elem, ct, x = self._along(op)
        with op.location:
            src = ctx.get(src_old, op)
            counts = L.counts(shape)
            out_shape = tuple(1 if i == d else s for i, s in enumerate(shape))
            out_keys = list(L.register_indices(out_shape))
            values = []
            for k in out_keys:
                parts = []
                for j in range(counts[d]):
                    full = list(k)
                    full[d] = j
                    flat = 0
                    for i, c in enumerate(counts):
                        flat = flat * c + full[i]
                    parts.append(self._convert(vector.ExtractOp(src, [], [flat]).result, ct))
                values.append(self._tree(kind, parts))
            for j in range(int(math.log2(x.lane_groups))):
                offset = self._i32(x.inner_lanes << j)
                values = [self._combine(kind, v, self._shuffle(v, offset, gpu.ShuffleMode.XOR)) for v in values]
            if x.crosses_warps:
                values = self._across_warps(op, kind, values, out_keys, shape, d, x)
            values = [self._convert(v, elem) for v in values]
            if isinstance(res_old.type, ir.RankedTensorType):
                ctx.values[res_old] = vector.FromElementsOp(ctx.vtype(res_old), values).result
            else:
                ctx.values[res_old] = values[0]

    def _across_warps(self, op, kind, values, keys, shape, d, x: Exchange) -> list[ir.Value]:
        ctx = self.ctx
        buffer = self.shared.plan.scratch[op]
        smem = self.shared.views[buffer]
        ld = self.shared.plan.buffers[buffer].ld
        lane_d, warp_d = self.ctx.lane_and_warp(d)
        base, offset = self._line_position(shape, d)
        row0 = arith.MulIOp(base, ctx.index(ld)).result
        writer = self._others_owner(shape, d)
        writer = self._and(writer, arith.CmpIOp(arith.CmpIPredicate.eq, lane_d, ctx.index(0)).result)
        writer = self._and(writer, arith.CmpIOp(arith.CmpIPredicate.ult, warp_d, ctx.index(x.warp_groups)).result)
        self.shared.barrier_if((op, "write"))

        def write():
            start = arith.AddIOp(row0, warp_d).result
            for k, v in zip(keys, values):
                memref.StoreOp(v, smem, [arith.AddIOp(start, ctx.index(offset(k) * ld)).result])

        self._guarded(writer, write)
        self.shared.barrier_if((op, "read"))
        out = []
        for k in keys:
            row = arith.AddIOp(row0, ctx.index(offset(k) * ld)).result
            parts = [memref.LoadOp(smem, [arith.AddIOp(row, ctx.index(w)).result]).result for w in range(x.warp_groups)]
            out.append(self._tree(kind, parts))
        return out

    # ------------------------------------------------------------------ tile.scan

    def scan(self, op: ir.Operation) -> None:
        if self._unit(op):
            return
        ctx, L = self.ctx, self.ctx.layout
        kind, src_old, res_old, shape, d, elem, ct, x = self._along(op)
        run = L.run(d, shape[d])
        with op.location:
            src = ctx.get(src_old, op)
            counts = L.counts(shape)
            chunks = counts[d] // run
            lane_d, warp_d = self.ctx.lane_and_warp(d)
            lane_pos = arith.RemUIOp(lane_d, ctx.index(x.lane_groups)).result
            line_keys = list(L.register_indices(tuple(1 if i == d else s for i, s in enumerate(shape))))

            def flat_of(k, j):
                full = list(k)
                full[d] = j
                flat = 0
                for i, c in enumerate(counts):
                    flat = flat * c + full[i]
                return flat

            # 1. each run, serially; its total
            prefix: dict[tuple, ir.Value] = {}
            totals = []
            for k in line_keys:
                for c in range(chunks):
                    acc = None
                    for i in range(run):
                        j = c * run + i
                        v = self._convert(vector.ExtractOp(src, [], [flat_of(k, j)]).result, ct)
                        acc = v if acc is None else self._combine(kind, acc, v)
                        prefix[(k, j)] = acc
                    totals.append(acc)
            # 2. the lanes: inclusive Hillis-Steele, then the exclusive value and the warp's total
            inclusive, exclusive, warp_totals = self._scan_lanes(kind, totals, lane_pos, ct, x)
            # 3. the warps
            if x.crosses_warps:
                offsets, chunk_totals = self._scan_warps(op, kind, inclusive, line_keys, chunks, shape, d, x)
                exclusive = [self._combine(kind, w, e) for w, e in zip(offsets, exclusive)]
            else:
                chunk_totals = warp_totals
            # 4. carry each chunk into the next, and finish every element
            results: dict[int, ir.Value] = {}
            i = 0
            for k in line_keys:
                carry = None
                for c in range(chunks):
                    base = exclusive[i] if carry is None else self._combine(kind, carry, exclusive[i])
                    for r in range(run):
                        j = c * run + r
                        results[flat_of(k, j)] = self._convert(self._combine(kind, base, prefix[(k, j)]), elem)
                    carry = chunk_totals[i] if carry is None else self._combine(kind, carry, chunk_totals[i])
                    i += 1
            ordered = [results[f] for f in range(len(results))]
            ctx.values[res_old] = vector.FromElementsOp(ctx.vtype(res_old), ordered).result

    def _scan_lanes(self, kind, totals: list, lane_pos: ir.Value, ct: ir.Type, x: Exchange):
        """(inclusive, exclusive, warp totals) of the run totals across the lanes of the scanned dimension."""
        ctx = self.ctx
        identity = self._identity(kind, ct)
        inclusive = list(totals)
        for j in range(int(math.log2(x.lane_groups))):
            offset = self._i32(x.inner_lanes << j)
            later = arith.CmpIOp(arith.CmpIPredicate.uge, lane_pos, ctx.index(1 << j)).result
            inclusive = [
                arith.SelectOp(later, self._combine(kind, self._shuffle(v, offset, gpu.ShuffleMode.UP), v), v).result
                for v in inclusive
            ]
        if x.lane_groups > 1:
            first = arith.CmpIOp(arith.CmpIPredicate.eq, lane_pos, ctx.index(0)).result
            up = self._i32(x.inner_lanes)
            exclusive = [
                arith.SelectOp(first, identity, self._shuffle(v, up, gpu.ShuffleMode.UP)).result for v in inclusive
            ]
            lane = arith.RemUIOp(ctx.tid, ctx.index(WARP_SIZE)).result
            last = arith.AddIOp(
                lane,
                arith.MulIOp(
                    arith.SubIOp(ctx.index(x.lane_groups - 1), lane_pos).result, ctx.index(x.inner_lanes)
                ).result,
            ).result
            last = arith.IndexCastOp(ir.IntegerType.get_signless(32), last).result
            # the warp's total, from its last lane (across warps the totals come from shared memory)
            warp_totals = [] if x.crosses_warps else [self._shuffle(v, last, gpu.ShuffleMode.IDX) for v in inclusive]
        else:
            exclusive = [identity] * len(inclusive)
            warp_totals = inclusive
        return inclusive, exclusive, warp_totals

    def _scan_warps(self, op, kind, inclusive, keys, chunks, shape, d, x: Exchange):
        """Each warp's total to shared memory; back, the combined totals of the
        warps before this one (per line and chunk) and of all of them."""
        ctx = self.ctx
        buffer = self.shared.plan.scratch[op]
        smem = self.shared.views[buffer]
        ld = self.shared.plan.buffers[buffer].ld
        lane_d, warp_d = self.ctx.lane_and_warp(d)
        warp_pos = arith.RemUIOp(warp_d, ctx.index(x.warp_groups)).result
        base, offset = self._line_position(shape, d)
        row0 = arith.MulIOp(arith.MulIOp(base, ctx.index(chunks)).result, ctx.index(ld)).result
        writer = self._others_owner(shape, d)
        writer = self._and(writer, arith.CmpIOp(arith.CmpIPredicate.eq, lane_d, ctx.index(x.lane_groups - 1)).result)
        writer = self._and(writer, arith.CmpIOp(arith.CmpIPredicate.ult, warp_d, ctx.index(x.warp_groups)).result)
        rows = [(offset(k) * chunks + c) * ld for k in keys for c in range(chunks)]
        self.shared.barrier_if((op, "write"))

        def write():
            start = arith.AddIOp(row0, warp_d).result
            for r, v in zip(rows, inclusive):
                memref.StoreOp(v, smem, [arith.AddIOp(start, ctx.index(r)).result])

        self._guarded(writer, write)
        self.shared.barrier_if((op, "read"))
        identity = self._identity(kind, inclusive[0].type)
        before, totals = [], []
        for r in rows:
            row = arith.AddIOp(row0, ctx.index(r)).result
            parts = [memref.LoadOp(smem, [arith.AddIOp(row, ctx.index(w)).result]).result for w in range(x.warp_groups)]
            acc = identity
            for w, p in enumerate(parts):
                earlier = arith.CmpIOp(arith.CmpIPredicate.ugt, warp_pos, ctx.index(w)).result
                acc = arith.SelectOp(earlier, self._combine(kind, acc, p), acc).result
            before.append(acc)
            totals.append(self._tree(kind, parts))
        return before, totals

    # ------------------------------------------------------------------ tile.transpose

    def transpose(self, op: ir.Operation) -> None:
        ctx, L = self.ctx, self.ctx.layout
        src_old, res_old = op.operands[0], op.results[0]
        buffer = self.shared.plan.scratch[op]
        smem = self.shared.views[buffer]
        ld = self.shared.plan.buffers[buffer].ld
        with op.location:
            src = ctx.get(src_old, op)
            s_shape = ctx.placement.placed_shape(src_old)
            r_shape = ctx.placement.placed_shape(res_old)
            if ctx.placement.dims_of(src_old) != (0, 1) or ctx.placement.dims_of(res_old) != (0, 1):
                raise LoweringError(op, "'tile.transpose' of a tile placed off the kernel's two dimensions")

            def start(shape, row_stride, col_stride):
                a = arith.MulIOp(ctx.coordinate_base(0, shape[0]), ctx.index(row_stride)).result
                b = arith.MulIOp(ctx.coordinate_base(1, shape[1]), ctx.index(col_stride)).result
                return arith.AddIOp(a, b).result

            s_start = start(s_shape, ld, 1)
            self.shared.barrier_if((op, "write"))

            def write():
                off0, off1 = L.offsets(0, s_shape[0]), L.offsets(1, s_shape[1])
                for flat, (i, j) in enumerate(L.register_indices(s_shape)):
                    idx = arith.AddIOp(s_start, ctx.index(off0[i] * ld + off1[j])).result
                    memref.StoreOp(vector.ExtractOp(src, [], [flat]).result, smem, [idx])

            self._guarded(ctx.owner_guard(s_shape, (0, 1)), write)
            self.shared.barrier_if((op, "read"))
            # result (p, q) is source (q, p)
            r_start = start(r_shape, 1, ld)
            off0, off1 = L.offsets(0, r_shape[0]), L.offsets(1, r_shape[1])
            parts = []
            for i, j in L.register_indices(r_shape):
                idx = arith.AddIOp(r_start, ctx.index(off0[i] + off1[j] * ld)).result
                parts.append(memref.LoadOp(smem, [idx]).result)
            ctx.values[res_old] = vector.FromElementsOp(ctx.vtype(res_old), parts).result
