"""`tile.dot` on Hopper's warpgroup tensor cores: TMA + mbarrier + wgmma (sm_90a).

Under `@tensorcore` on sm_90a, a pipelined K loop whose dots read f16 (or
bf16) tiles straight from 2-D tensors with 16-byte aligned rows runs as:

  * **TMA** copies each operand tile into 128-byte swizzled shared memory
    (one elected thread issues them; the tensor maps are kernel parameters
    the runtime encodes once per argument layout). Out-of-bounds rows and
    columns arrive as zeros, so ragged M, N and K need no masks;
  * an **mbarrier** per ring stage: the issuing thread arms it with the
    stage's byte count, and every thread waits on its phase before the
    stage's wgmmas read it (ops/pipelined_for.py runs the ring);
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

from mlir import ir
from mlir.dialects import arith, llvm, memref, nvvm, vector

from phobos.lowering.context import LoweringContext
from phobos.lowering.mma import a_fragment_registers
from phobos.lowering.mma8 import is_fp8, operand_element, ptx_type
from phobos.lowering.registry import lowers
from phobos.lowering.shared_checks import check_ring_stage
from phobos.lowering.wgmma import ATOM, K_STEP, SWIZZLE, WARPGROUP
from phobos.lowering.wgmma8 import is_wgmma8, nvvm_types
from phobos.lowering.wgmma8 import k_step as k_step_of
from phobos.lowering.wgmma_overlap import DEPTH


@lowers(role="dot.wgmma")
def lower_dot(ctx: LoweringContext, op: ir.Operation) -> None:
    with op.location:
        lhs, rhs = ctx.shared.prepare_operands(op)
        acc = ctx.get(op.operands[2], op)
        ctx.values[op.results[0]] = WgmmaDot(ctx.shared).dot(op, lhs, rhs, acc)


class WgmmaDot:
    """Emits one wgmma dot against the kernel's SharedRegion (`smem`): B (and A unless it is in
    registers) by matrix descriptors of the swizzled buffers the TMA ring fills."""

    def __init__(self, smem):
        self.smem = smem
        self.ctx = smem.ctx

    def _descriptor(self, buffer: int, leading: int) -> ir.Value:
        """The stage-0 matrix descriptor of `buffer` (128-byte swizzle, stride 1024)."""
        descriptors = self.smem.descriptors
        if buffer not in descriptors:
            ctx = self.ctx
            view = self.smem.views[buffer]

            def build():
                i64 = ir.IntegerType.get_signless(64)
                address = arith.IndexCastOp(i64, memref.ExtractAlignedPointerAsIndexOp(view).result).result
                field = arith.ShRUIOp(arith.AndIOp(address, ctx.const(0x3FFFF, i64)).result, ctx.const(4, i64)).result
                fixed = (leading >> 4) << 16 | (ATOM >> 4) << 32 | 1 << 62
                return arith.OrIOp(field, ctx.const(fixed, i64)).result

            descriptors[buffer] = ctx.at_entry(build)
        return descriptors[buffer]

    def dot(self, op, lhs, rhs, acc):
        ctx, plan = self.ctx, self.smem.plan
        i64 = ir.IntegerType.get_signless(64)
        m, n = ir.RankedTensorType(op.results[0].type).shape
        k = ir.RankedTensorType(op.operands[0].type).shape[1]
        elem = operand_element(op)  # ui8 for u8 operands (the instruction's type)
        # a k step is 32 bytes of a swizzled row for 1-, 2- and 4-byte elements alike (wgmma8.py)
        k_step = k_step_of(elem) if is_wgmma8(elem) else K_STEP
        tiles = m // (16 * (ctx.threads // 32))
        cols = n // 8
        b_buf = plan.buffers[rhs.buffer]
        mn_major = not rhs.transposed
        b0 = self._operand_base(op, rhs, b_buf.rows * SWIZZLE if mn_major else SWIZZLE * 64)
        if lhs.registers:
            a_regs = ctx.get(lhs.value, op)
        else:
            a0 = self._operand_base(op, lhs, SWIZZLE * 64, tiles)
        f32 = ir.VectorType(acc.type).element_type  # f32, or i32 for i8 operands
        struct_t = ir.Type.parse("!llvm.struct<(" + ", ".join([str(f32)] * (n // 2)) + ")>")
        width = 2 * cols  # registers of one row wrap

        def register(i, h, j, c):
            return (2 * i + h) * width + 2 * j + c

        # fp8 sums: each dot's partial starts from zero and is added to the f32 accumulator
        # after the wait (promotion), since wgmma's fp8 accumulation is not full f32; @fastmath
        # keeps the sum in the tensor cores' accumulation instead
        promote = is_fp8(elem) and not self.smem.plan.fast_fp8
        # a main-loop dot leaves its group running and waits for the previous one; its first
        # step says at run time whether to add to the carried sum (wgmma_overlap.py)
        accumulate = self.smem.accumulate.get(op)
        if self.smem.turns is not None:
            self.smem.turns.wait()
        nvvm.WgmmaFenceAlignedOp()
        out = [None] * ((2 * tiles) * width)
        for i in range(tiles):
            if promote:
                d = llvm.UndefOp(struct_t).result
            else:
                d = _packed(acc, struct_t, cols, lambda h, j, c, i=i: register(i, h, j, c))
            for kk in range(k // k_step):
                # MN-major: k16 is 16 rows on; K-major: 32 bytes on in a row, 64 k per column block
                step = kk * K_STEP * SWIZZLE if mn_major else (kk // 4) * b_buf.rows * SWIZZLE + (kk % 4) * 32
                db = b0 if not step else arith.AddIOp(b0, ctx.const(step >> 4, i64)).result
                if lhs.registers:
                    words = self._a_words(a_regs, i, kk * K_STEP, k)
                    d = self._register_wgmma(struct_t, d, words, db, n, elem, mn_major)
                    continue
                da = arith.AddIOp(a0, ctx.const((i * 64 * SWIZZLE + kk * 32) >> 4, i64)).result
                if accumulate is not None and kk == 0:
                    d = self._flagged_wgmma(struct_t, d, da, db, (n, k_step), elem, mn_major, accumulate)
                    continue
                d = self._descriptor_wgmma(struct_t, d, da, db, (n, k_step), elem, mn_major, promote and kk == 0)
            for j in range(cols):
                for h in range(2):
                    for c in range(2):
                        out[register(i, h, j, c)] = llvm.ExtractValueOp(f32, d, [4 * j + 2 * h + c]).result
        nvvm.WgmmaGroupSyncAlignedOp()
        if self.smem.turns is not None:
            self.smem.turns.pass_on()
        nvvm.WgmmaWaitGroupSyncOp(DEPTH if accumulate is not None else 0)
        if promote:
            out = [arith.AddFOp(vector.ExtractOp(acc, [], [r]).result, x).result for r, x in enumerate(out)]
        return vector.FromElementsOp(ir.VectorType(acc.type), out).result

    def _operand_base(self, op, operand, leading: int, tiles: int | None = None) -> ir.Value:
        """The matrix descriptor of `operand`'s buffer at its current ring stage; for A (`tiles`
        m64 tiles per warpgroup) at the thread's warpgroup's rows."""
        ctx = self.ctx
        buf = self.smem.plan.buffers[operand.buffer]
        desc = self._descriptor(operand.buffer, leading)
        stage = self.smem.stage_index[operand.source]
        check_ring_stage(ctx, op, operand.buffer, stage)
        extra = None
        if tiles is not None:
            group = ctx.at_entry(lambda: arith.DivUIOp(ctx.tid, ctx.index(WARPGROUP)).result)
            extra = arith.MulIOp(group, ctx.index(tiles * 64 * SWIZZLE >> 4)).result
        units = arith.MulIOp(stage, ctx.index(buf.stage_bytes >> 4)).result
        if extra is not None:
            units = arith.AddIOp(units, extra).result
        i64 = ir.IntegerType.get_signless(64)
        return arith.AddIOp(desc, arith.IndexCastOp(i64, units).result).result

    @staticmethod
    def _descriptor_wgmma(struct_t, d, da, db, shape, elem, mn_major: bool, from_zero: bool):
        """nvvm.wgmma.mma_async on two matrix descriptors; `from_zero`: scale-d 0 (d ignored)."""
        n, k_step = shape
        wg_type, d_type = nvvm_types(elem)
        row, col = ir.Attribute.parse("#nvvm.mma_layout<row>"), ir.Attribute.parse("#nvvm.mma_layout<col>")
        return nvvm.WgmmaMmaAsyncOp(
            struct_t,
            d,
            da,
            db,
            ir.Attribute.parse(f"#nvvm.shape<m = 64, n = {n}, k = {k_step}>"),
            wg_type,
            wg_type,
            d_type,
            nvvm.WGMMAScaleOut.zero if from_zero else nvvm.WGMMAScaleOut.one,
            nvvm.WGMMAScaleIn.one,
            nvvm.WGMMAScaleIn.one,
            row,
            row if mn_major else col,
        ).result

    @staticmethod
    def _flagged_wgmma(struct_t, d, da, db, shape, elem, mn_major: bool, accumulate: ir.Value):
        """wgmma on two descriptors whose scale-d is the i32 `accumulate` (0: start from zero):
        nvvm.wgmma.mma_async takes scale-d only as a constant, so this is the PTX instruction as
        inline assembly, the n / 2 accumulators tied in and out. A main loop that starts its
        sums this way needs no zeroing moves of the accumulator registers before the loop, which
        would make ptxas serialise the wgmmas left in flight across iterations (C7515)."""
        n, k_step = shape
        count = n // 2
        integer = isinstance(elem, ir.IntegerType)
        acc_t = ir.IntegerType.get_signless(32) if integer else ir.F32Type.get()
        accs = [llvm.ExtractValueOp(acc_t, d, [x]).result for x in range(count)]
        outs = ", ".join(f"${x}" for x in range(count))
        if integer:
            kind, tail = f"s32.{ptx_type(elem)}.{ptx_type(elem)}", ""
        elif isinstance(elem, ir.F32Type):  # tf32: no transposes, scale-a/b immediates only
            kind, tail = "f32.tf32.tf32", ", 1, 1"
        elif is_fp8(elem):  # fp8 under @fastmath (unpromoted sums): K-major only, like tf32
            t = ptx_type(elem)
            kind, tail = f"f32.{t}.{t}", ", 1, 1"
        else:
            t = "f16" if isinstance(elem, ir.F16Type) else "bf16"
            kind, tail = f"f32.{t}.{t}", f", 1, 1, 0, {1 if mn_major else 0}"
        text = (
            "{\n.reg .pred p;\nsetp.ne.b32 p, $" + str(count + 2) + ", 0;\n"
            f"wgmma.mma_async.sync.aligned.m64n{n}k{k_step}.{kind} "
            f"{{{outs}}}, ${count}, ${count + 1}, p{tail};\n}}"
        )
        reg = "=r" if integer else "=f"
        constraints = ",".join([reg] * count + ["l", "l", "r"] + [str(x) for x in range(count)])
        return llvm.InlineAsmOp(struct_t, [da, db, accumulate, *accs], text, constraints, has_side_effects=True).result

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
        ctx = self.ctx
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
        one = ctx.const(1, ir.IntegerType.get_signless(32))
        asm = llvm.InlineAsmOp(struct_t, [*words, b_desc, one, *accs], text, constraints, has_side_effects=True).result
        return asm


def _packed(acc, struct_t, cols: int, register):
    """The accumulator registers of one m64 tile as wgmma's struct operand: element 4 j + 2 h + c
    is register(h, j, c) of the thread's block."""
    d = llvm.UndefOp(struct_t).result
    for j in range(cols):
        for h in range(2):
            for c in range(2):
                x = vector.ExtractOp(acc, [], [register(h, j, c)]).result
                d = llvm.InsertValueOp(d, x, [4 * j + 2 * h + c]).result
    return d
