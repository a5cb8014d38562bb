"""`tile.dot` on Hopper's warpgroup tensor cores: TMA + mbarrier + wgmma (sm_90a).

Under `@tensorcore` on sm_90a, a pipelined K loop whose dots read f16 (or
bf16) tiles straight from 2-D tensors with 16-byte aligned rows runs as:

  * **TMA** copies each operand tile into 128-byte swizzled shared memory
    (one elected thread issues them; the tensor maps are kernel parameters
    the runtime encodes once per argument layout). Out-of-bounds rows and
    columns arrive as zeros, so ragged M, N and K need no masks;
  * an **mbarrier** per ring stage: the issuing thread arms it with the
    stage's byte count, and every thread waits on its phase before the
    stage's wgmmas read it (pipeline.py runs the ring);
  * **wgmma** m64nNk16, N the whole accumulator width, issued by each
    warpgroup for its own m64 tiles, f32 accumulators in registers.

The kernel layout is kernel_layout.wgmma_layout: the mma layout with every
warp along M. Thread (warp w, lane l) holds, for row wrap v, the row
v * 8 W + 8 w + l / 4 (W warps) and the columns 8 j + 2 (l % 4) + {0, 1}.
wgmma gives warp q of warpgroup g, in its m64 tile i, the rows 16 q + 8 h +
l / 4 and the same columns. Pairing v = 2 i + h, the two agree once A's
8-row blocks are permuted in shared memory: the TMA box of A is 8 rows, and
logical block (2 i + h) W + 4 g + q lands at physical block 8 (g I + i) +
2 q + h (I = m64 tiles per warpgroup). The accumulator registers are then
exactly the thread's elements of the kernel layout, so the epilogue (masks,
conversions, stores) is the ordinary one.

Shared-memory matrix descriptors (PTX "matrix descriptor"): the start
address / 16, the leading byte offset / 16 at bit 16, the stride byte offset
/ 16 at bit 32, and the swizzle mode at bit 62 (1: 128 bytes). A is K-major
(rows of 64 k, 8-row atoms of 1024 bytes: stride 1024; each k16 step is 32
bytes on). B is either [k][n] (MN-major, `trans-b`): 64-column blocks of
TK rows, leading offset TK x 128 between the blocks, stride 1024, each k16
step 16 rows (2048 bytes) on; or [n][k] as `dot_t` gives it (K-major, like A;
k past 64 in further blocks of all the rows).

The left operand may instead come from registers (mma.a_in_registers: a
computed tile such as attention's P, or one loaded before the loop such as
its Q): wgmma's register A fragment of warp q is its rows 16 q + l / 4 and
+ 8, which in wgmma_layout are the thread's row wraps 2i and 2i + 1, with
mma.sync's columns. MLIR 22's wgmma op takes A only as a descriptor, so
that form is the PTX instruction as inline assembly.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, llvm, memref, nvgpu, nvvm, scf, vector

from phobos.lowering.kernel_layout import WGMMA_ELEMENTS, WGMMA_MAX_N, tma_rows
from phobos.lowering.mma import a_fragment_registers

SWIZZLE = 128  # bytes per swizzled row
ATOM = 1024  # 8 rows of 128 bytes: the swizzle period, and the alignment TMA and wgmma need
BLOCK_ROWS = 8  # rows of one TMA box of A
K_STEP = 16
WARPGROUP = 128
K_TILE = 64  # k per stage: one 128-byte row of f16/bf16
SPIN_TICKS = 10_000_000  # mbarrier.try_wait's suspend hint, in ns


@dataclass(frozen=True)
class TensorMap:
    """A tensor map kernel parameter: the runtime encodes `param`'s 2-D array
    with this box (innermost first) and 128-byte swizzle. Without `split` the
    map is the array itself (row elements, rows). With it, the rows are split
    into dimensions of (count, stride in rows), the last one's count the
    whole number of its strides that fit (None): a view whose box lands
    a tile's rows in another order (wgmma_layout's permuted A)."""

    param: int
    box: tuple[int, ...]
    split: tuple[tuple[int | None, int], ...] | None = None

    def to_json(self) -> dict:
        out = {"kind": "tensormap", "param": self.param, "box": list(self.box), "swizzle": SWIZZLE}
        if self.split is not None:
            out["split"] = [list(x) for x in self.split]
        return out


@dataclass
class Copy:
    """One TMA copy of a staged load: the coordinates' offsets from the load's
    start (innermost first) and the byte offset in the stage."""

    offset: tuple[int, int]
    at: int


def a_block_order(m: int, warps: int) -> list[int]:
    """physical 8-row block of each logical 8-row block of an [m, 64] A tile
    (module docstring): the permutation that makes the wgmma fragments the
    thread's elements of wgmma_layout."""
    groups = warps // 4
    tiles = m // (16 * warps)  # m64 tiles per warpgroup
    order = [0] * (m // BLOCK_ROWS)
    for i in range(tiles):
        for h in range(2):
            for g in range(groups):
                for q in range(4):
                    order[(2 * i + h) * warps + 4 * g + q] = 8 * (g * tiles + i) + 2 * q + h
    return order


def why_not(plan, dot: ir.Operation, warps: int, facts, args: list) -> str | None:
    """Why a @tensorcore dot cannot take the TMA + wgmma path (None when it can).
    `facts`: the kernel's KernelFacts (what the specialisation key proves of
    each tensor), `args`: the kernel's arguments."""
    from phobos.lowering.dot import _tile_type, _where

    m, n = _tile_type(dot.results[0]).shape
    acc = _tile_type(dot.results[0]).element_type
    if not isinstance(acc, ir.F32Type):
        return f"its accumulator is {acc} (the wgmma path accumulates in f32)"
    if warps % 4 or m % (16 * warps) or n % 8 or n > WGMMA_MAX_N:
        return f"the [{m}, {n}] accumulator does not split into m64 x n tiles for {warps // 4} warpgroups"
    for role in ("lhs", "rhs"):
        o = plan.operands[(dot, role)]
        if o.registers:
            continue  # A from registers (mma.a_in_registers: wgmma's register A fragments too)
        if o.source is None:
            return f"its {role} is not a tile loaded from a tensor with nothing else reading it"
        if o.role == "lhs" and o.transposed:
            return "its lhs is transposed (wgmma reads A k-major here)"
        t = _tile_type(o.source.results[0])
        if any(x != 1 for x in t.shape[:-2]):
            return f"its {role} is a {list(t.shape)} slice (TMA boxes here are 2-D tiles)"
        if str(t.element_type) not in WGMMA_ELEMENTS:
            return f"its {role} has {t.element_type} elements"
        base = o.source.operands[0]
        param = next((i for i, a in enumerate(args) if a == base), None)
        if param is None:
            return f"its {role} does not read a tensor parameter directly"
        if not tma_rows(facts.tensors[param]):
            # TMA bounds the copies itself, so masks do not matter here: only the rows' alignment
            return (
                f"the rows of its {role} at {_where(o.source)} are not proven 16-byte aligned "
                "(TMA needs 16-byte aligned rows and base)"
            )
        if o.source not in plan.ring_of:
            return f"its {role} is not loaded in a pipelined loop (@pipeline)"
        rows, cols = t.shape[-2:]
        if o.role == "lhs" and cols != K_TILE:
            return f"its lhs tile is [{rows}, {cols}]; the 128-byte swizzled rows hold k = {K_TILE}"
        if o.role == "rhs" and o.transposed and cols % K_TILE:
            return f"its rhs tile is [{rows}, {cols}] ([n, k]); k must be a multiple of {K_TILE}"
        if o.role == "rhs" and not o.transposed and (rows % K_TILE or cols % 64):
            return f"its rhs tile is [{rows}, {cols}]; [k, n] tiles need k and n multiples of 64"
    return None


def whole_a(param: int, m: int, warps: int) -> TensorMap | None:
    """The map of parameter `param` that copies a whole [m, 64] A tile, permuted, in one TMA copy
    (None where the tile holds several m64 tiles per warpgroup: that needs six
    dimensions). Row v 8 W + 8 w + r of the tile (v = h, w = 4 g + q) is
    r + 8 W h + 8 q + 32 g: dimensions r, h, q, g in the order the physical
    blocks 2 q + h + 8 g run, and g's count left open so that its coordinate
    carries the tile's start (m0 / 32). It reads rows past the tile's own
    only where they are rows of the tensor: the kernel uses it for tiles
    entirely inside."""
    if m != 16 * warps:
        return None
    return TensorMap(param, (64, BLOCK_ROWS, 2, 4, warps // 4), ((8, 1), (2, 8 * warps), (4, 8), (None, 32)))


def plan_copies(operand, rows: int, cols: int, warps: int, m: int) -> tuple[list[Copy], tuple[int, int]]:
    """The TMA copies that fill one stage of `operand`'s [rows, cols] buffer,
    and the box (innermost first) of the tensor map they read."""
    if operand.role == "lhs":  # [m][k] in 8-row boxes, permuted (a_block_order)
        order = a_block_order(m, warps)
        return [Copy((0, BLOCK_ROWS * lb), ATOM * pb) for lb, pb in enumerate(order)], (64, BLOCK_ROWS)
    # [k][n] or [n][k]: blocks of 64 columns (n or k) of all the rows, one after the other
    return [Copy((64 * c, 0), c * rows * SWIZZLE) for c in range(cols // 64)], (64, rows)


class WgmmaEmitter:
    """Emits the TMA copies and the wgmma dots of a DotEmitter (`dots`) in wgmma mode."""

    def __init__(self, dots):
        self.dots = dots
        self.kl = dots.kl
        self.maps: list[ir.Value] = []  # the tensor-map descriptors, in plan.tensor_maps order
        self.barriers: dict[int, ir.Value] = {}  # ring -> its mbarrier group
        self.descriptors: dict[int, ir.Value] = {}  # buffer -> its stage-0 matrix descriptor
        self._leader: ir.Value | None = None  # thread 0's predicate, made on first use

    # ------------------------------------------------------------------ setup

    def bind_maps(self, args: list[ir.Value]) -> None:
        """The tensor-map parameters (`!llvm.ptr`) as nvgpu descriptors."""
        plan = self.dots.plan
        for index, arg in enumerate(args[: len(plan.tensor_maps)]):
            t = ir.Type.parse(
                f"!nvgpu.tensormap.descriptor<tensor = {self._box_type(index)}, swizzle = swizzle_128b, "
                "l2promo = none, oob = zero, interleave = none>"
            )
            cast = ir.Operation.create("builtin.unrealized_conversion_cast", results=[t], operands=[arg])
            self.maps.append(cast.results[0])

    def _element(self, param: int) -> str:
        arg = self.kl.fn.regions[0].blocks[0].arguments[param]
        return str(ir.MemRefType(arg.type).element_type)

    def barrier_group(self, ring: int, stages: int) -> ir.Value:
        if ring not in self.barriers:
            t = ir.Type.parse(
                f"!nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = {stages}>"
            )
            self.barriers[ring] = self.kl.at_entry(lambda: nvgpu.MBarrierCreateOp(t).result)
        return self.barriers[ring]

    def init_ring(self, ring: int, stages: int) -> None:
        """One thread arms the stages' mbarriers (one arrival each) and prefetches the maps."""
        kl = self.kl
        group = self.barrier_group(ring, stages)
        leader = self.leader()
        branch = scf.IfOp(leader)
        with ir.InsertionPoint(branch.then_block):
            for s in range(stages):
                nvgpu.MBarrierInitOp(group, kl.index(1), kl.index(s))
            nvvm.FenceMbarrierInitOp()
            for m in self.maps:
                nvgpu.TmaPrefetchOp(m)
            scf.YieldOp([])

    def leader(self) -> ir.Value:
        kl = self.kl

        def build():  # not kl.index(0): that constant is the entry anchor itself, after this point
            zero = arith.ConstantOp(ir.IndexType.get(), 0).result
            return arith.CmpIOp(arith.CmpIPredicate.eq, kl.tid, zero).result

        if self._leader is None:
            self._leader = kl.at_entry(build)
        return self._leader

    # ------------------------------------------------------------------ copies

    def issue(self, ring: int, stages: int, loads: list[ir.Operation], stage: ir.Value) -> None:
        """The leader's TMA copies of `loads` (their starts already translated) into `stage`."""
        kl, plan = self.kl, self.dots.plan
        group = self.barrier_group(ring, stages)
        tx = sum(plan.buffers[plan.staged[ld].buffer].stage_bytes for ld in loads)
        nvgpu.MBarrierArriveExpectTxOp(group, kl.index(tx), stage)
        for ld in loads:
            o = plan.staged[ld]
            buf = plan.buffers[o.buffer]
            starts = [kl.get(s, ld) for s in ld.opview.starts]
            base = arith.AddIOp(kl.index(buf.offset), arith.MulIOp(stage, kl.index(buf.stage_bytes)).result).result
            whole = plan.whole.get(ld)
            if whole is None:
                self._copies(ld, group, starts, base, stage)
                continue
            # a tile entirely inside the tensor in one copy, else box by box (zeros past the edge)
            rows = ir.RankedTensorType(ld.results[0].type).shape[0]
            extent = kl.extents[(plan.tensor_maps[whole].param, 0)]
            end = arith.AddIOp(starts[0], kl.index(rows)).result
            inside = arith.CmpIOp(arith.CmpIPredicate.ule, end, extent).result
            branch = scf.IfOp(inside, [], has_else=True)
            with ir.InsertionPoint(branch.then_block):
                dst = memref.ViewOp(self._box_type(whole), self.dots.region, base, []).result
                zero = kl.index(0)
                block = arith.DivUIOp(starts[0], kl.index(32)).result
                nvgpu.TmaAsyncLoadOp(dst, group, self.maps[whole], [starts[1], zero, zero, zero, block], stage)
                scf.YieldOp([])
            with ir.InsertionPoint(branch.else_block):
                self._copies(ld, group, starts, base, stage)
                scf.YieldOp([])

    def _copies(self, ld, group, starts, base, stage) -> None:
        """`ld`'s box-by-box copies (plan.copies) into the stage at byte `base`."""
        kl, plan = self.kl, self.dots.plan
        index = plan.map_of[ld]
        m, dst_t = self.maps[index], self._box_type(index)
        for c in plan.copies[ld]:
            at = arith.AddIOp(base, kl.index(c.at)).result if c.at else base
            dst = memref.ViewOp(dst_t, self.dots.region, at, []).result
            x = starts[-1] if not c.offset[0] else arith.AddIOp(starts[-1], kl.index(c.offset[0])).result
            y = starts[-2] if not c.offset[1] else arith.AddIOp(starts[-2], kl.index(c.offset[1])).result
            # innermost first: columns, rows, then the slice's unit dimensions (K[h, j :+ BN, :])
            nvgpu.TmaAsyncLoadOp(dst, group, m, [x, y, *reversed(starts[:-2])], stage)

    def _box_type(self, map_index: int) -> ir.Type:
        tm = self.dots.plan.tensor_maps[map_index]
        shape = "x".join(str(b) for b in reversed(tm.box))
        return ir.Type.parse(f"memref<{shape}x{self._element(tm.param)}, #gpu.address_space<workgroup>>")

    def wait(self, ring: int, stages: int, stage: ir.Value, phase: ir.Value) -> None:
        group = self.barrier_group(ring, stages)
        nvgpu.MBarrierTryWaitParityOp(group, phase, self.kl.index(SPIN_TICKS), stage)

    # ------------------------------------------------------------------ the dot

    def _descriptor(self, buffer: int, leading: int) -> ir.Value:
        """The stage-0 matrix descriptor of `buffer` (128-byte swizzle, stride 1024)."""
        if buffer not in self.descriptors:
            kl = self.kl
            view = self.dots.views[buffer]

            def build():
                i64 = ir.IntegerType.get_signless(64)
                address = arith.IndexCastOp(i64, memref.ExtractAlignedPointerAsIndexOp(view).result).result
                field = arith.ShRUIOp(arith.AndIOp(address, kl.const(0x3FFFF, i64)).result, kl.const(4, i64)).result
                fixed = (leading >> 4) << 16 | (ATOM >> 4) << 32 | 1 << 62
                return arith.OrIOp(field, kl.const(fixed, i64)).result

            self.descriptors[buffer] = kl.at_entry(build)
        return self.descriptors[buffer]

    def dot(self, op, lhs, rhs, acc):
        kl, plan = self.kl, self.dots.plan
        i64 = ir.IntegerType.get_signless(64)
        m, n = ir.RankedTensorType(op.results[0].type).shape
        k = ir.RankedTensorType(op.operands[0].type).shape[1]
        warps = kl.threads // 32
        tiles = m // (16 * warps)
        cols = n // 8
        b_buf = plan.buffers[rhs.buffer]
        mn_major = not rhs.transposed
        b_desc = self._descriptor(rhs.buffer, b_buf.rows * SWIZZLE if mn_major else SWIZZLE * 64)
        b_stage = self.dots.stage_index[rhs.source]

        def at(desc, stage_value, stage_bytes, extra):
            units = arith.MulIOp(stage_value, kl.index(stage_bytes >> 4)).result
            if extra is not None:
                units = arith.AddIOp(units, extra).result
            return arith.AddIOp(desc, arith.IndexCastOp(i64, units).result).result

        b0 = at(b_desc, b_stage, b_buf.stage_bytes, None)
        if lhs.registers:
            a_regs = kl.get(lhs.value, op)
        else:
            a_buf = plan.buffers[lhs.buffer]
            a_desc = self._descriptor(lhs.buffer, SWIZZLE * 64)
            stage = self.dots.stage_index[lhs.source]
            group = kl.at_entry(lambda: arith.DivUIOp(kl.tid, kl.index(WARPGROUP)).result)
            a_group = arith.MulIOp(group, kl.index(tiles * 64 * SWIZZLE >> 4)).result
            a0 = at(a_desc, stage, a_buf.stage_bytes, a_group)
        f32 = ir.F32Type.get()
        struct_t = ir.Type.parse("!llvm.struct<(" + ", ".join(["f32"] * (n // 2)) + ")>")
        elem = ir.RankedTensorType(op.operands[0].type).element_type
        wg_type = nvvm.WGMMATypes.f16 if isinstance(elem, ir.F16Type) else nvvm.WGMMATypes.bf16
        shape = ir.Attribute.parse(f"#nvvm.shape<m = 64, n = {n}, k = {K_STEP}>")
        row, col = ir.Attribute.parse("#nvvm.mma_layout<row>"), ir.Attribute.parse("#nvvm.mma_layout<col>")
        width = 2 * cols  # registers of one row wrap

        def register(i, h, j, c):
            return (2 * i + h) * width + 2 * j + c

        nvvm.WgmmaFenceAlignedOp()
        out = [None] * ((2 * tiles) * width)
        for i in range(tiles):
            d = llvm.UndefOp(struct_t).result
            for j in range(cols):
                for h in range(2):
                    for c in range(2):
                        x = vector.ExtractOp(acc, [], [register(i, h, j, c)]).result
                        d = llvm.InsertValueOp(d, x, [4 * j + 2 * h + c]).result
            for kk in range(k // K_STEP):
                # MN-major: k16 is 16 rows on; K-major: 32 bytes on in a row, 64 k per column block
                step = kk * K_STEP * SWIZZLE if mn_major else (kk // 4) * b_buf.rows * SWIZZLE + (kk % 4) * 32
                db = b0 if not step else arith.AddIOp(b0, kl.const(step >> 4, i64)).result
                if lhs.registers:
                    words = self._a_words(a_regs, i, kk * K_STEP, k)
                    d = self._register_wgmma(struct_t, d, words, db, n, elem, mn_major)
                    continue
                da = arith.AddIOp(a0, kl.const((i * 64 * SWIZZLE + kk * 32) >> 4, i64)).result
                d = nvvm.WgmmaMmaAsyncOp(
                    struct_t,
                    d,
                    da,
                    db,
                    shape,
                    wg_type,
                    wg_type,
                    nvvm.WGMMATypes.f32,
                    nvvm.WGMMAScaleOut.one,
                    nvvm.WGMMAScaleIn.one,
                    nvvm.WGMMAScaleIn.one,
                    row,
                    row if mn_major else col,
                ).result
            for j in range(cols):
                for h in range(2):
                    for c in range(2):
                        out[register(i, h, j, c)] = llvm.ExtractValueOp(f32, d, [4 * j + 2 * h + c]).result
        nvvm.WgmmaGroupSyncAlignedOp()
        nvvm.WgmmaWaitGroupSyncOp(0)
        return vector.FromElementsOp(ir.VectorType(acc.type), out).result

    @staticmethod
    def _a_words(regs, i: int, k0: int, k_extent: int) -> list[ir.Value]:
        """The A fragment of m64 tile i at k0 from the operand's registers, as four
        32-bit words: warp q of the warpgroup holds its rows 16 q + l / 4 and
        + 8, which in wgmma_layout are the thread's row wraps 2i and 2i + 1,
        with the columns of mma.sync's A fragment (mma.a_fragment_registers)."""
        i32 = ir.IntegerType.get_signless(32)
        picked = a_fragment_registers(i, k0, k_extent)
        words = []
        for x in range(4):
            pair = vector.ShuffleOp(regs, regs, picked[2 * x : 2 * x + 2]).result
            word = vector.BitCastOp(ir.VectorType.get([1], i32), pair).result
            words.append(vector.ExtractOp(word, [], [0]).result)
        return words

    def _register_wgmma(self, struct_t, d, words, b_desc, n: int, elem, mn_major: bool):
        """`wgmma.mma_async` with A in registers: MLIR 22's nvvm.wgmma.mma_async takes
        A only as a shared-memory descriptor, so this is the PTX instruction as
        inline assembly, the n / 2 accumulators tied in and out."""
        kl = self.kl
        count = n // 2
        f32 = ir.F32Type.get()
        t = "f16" if isinstance(elem, ir.F16Type) else "bf16"
        accs = [llvm.ExtractValueOp(f32, d, [x]).result for x in range(count)]
        outs = ", ".join(f"${x}" for x in range(count))
        a = ", ".join(f"${count + x}" for x in range(4))
        text = (
            "{\n.reg .pred p;\nsetp.ne.b32 p, $" + str(count + 5) + ", 0;\n"
            f"wgmma.mma_async.sync.aligned.m64n{n}k{K_STEP}.f32.{t}.{t} "
            f"{{{outs}}}, {{{a}}}, ${count + 4}, p, 1, 1, {1 if mn_major else 0};\n}}"
        )
        constraints = ",".join(["=f"] * count + ["r"] * 4 + ["l", "r"] + [str(x) for x in range(count)])
        one = kl.const(1, ir.IntegerType.get_signless(32))
        asm = llvm.InlineAsmOp(struct_t, [*words, b_desc, one, *accs], text, constraints, has_side_effects=True).result
        return asm
