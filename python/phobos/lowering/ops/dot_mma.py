"""`tile.dot` on the tensor cores: ldmatrix + mma.sync m16n8k16 (sm_80 and newer).

Under `@tensorcore`, a dot of f16 (or bf16) operands into an f32
accumulator keeps the CUDA-core plan (operands staged by cp.async, or stored
from registers, into planned shared-memory buffers; barriers where a hazard
needs one) and replaces the FMAs. The kernel's layout is the mma accumulator
layout (kernel_layout.mma_layout): lanes 8 x 4 with two columns each, warps
wm x wn, so every thread's accumulator registers are C fragments:

  * row wraps 2i and 2i + 1 of a thread (8 wm rows apart) are the two halves
    of its warp's i-th m16 tile; column wrap j (8 wn columns apart) is its
    j-th n8 tile; fragment (i, j) is registers [2i][2j, 2j+1] and
    [2i+1][2j, 2j+1] of the thread's row-major block;
  * for each k16 step, `ldmatrix.x4` gives the A fragment of each m16 tile
    (lanes 0-7 address the first half's rows at k, 8-15 the second half's,
    16-31 the same at k + 8; `.trans` when the buffer holds A as [k][m]),
    `ldmatrix.x4` the B fragments of two n8 tiles (lanes 0-15 address the
    first tile's k rows with `.trans` when the buffer holds B as [k][n], or
    its n rows at k and k + 8 when it holds B^T as [n][k], as dot_t writes
    it; lanes 16-31 the second tile's), and one mma.sync per (i, j)
    accumulates in f32.

Buffer rows are padded by 16 bytes (`padded_ld`), so the 8 rows one
ldmatrix phase reads fall in 8 different 16-byte bank groups.

bf16 operands go through `nvvm.mma.sync` (nvgpu's op takes f16 and tf32 only).
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, memref, nvgpu, nvvm, vector

from phobos.lowering.context import LoweringContext
from phobos.lowering.errors import LoweringError
from phobos.lowering.ir_helpers import target_ptx
from phobos.lowering.layout import WARP_SIZE
from phobos.lowering.mma import K_STEP, TF32_K_STEP, a_fragment_registers
from phobos.lowering.mma8 import (
    K_STEP8,
    byte_fragment,
    fp8_refusal,
    is_eight_bit,
    is_fp8,
    ldmatrix_words,
    operand_element,
)
from phobos.lowering.mma8 import a_offsets as a8_offsets
from phobos.lowering.mma8 import b_offsets as b8_offsets
from phobos.lowering.mma8 import mma as mma8
from phobos.lowering.registry import lowers
from phobos.lowering.widened_fragments import WidenedReader


@lowers(role="dot.mma")
def lower_dot(ctx: LoweringContext, op: ir.Operation) -> None:
    elem = ir.RankedTensorType(op.operands[0].type).element_type
    refusal = fp8_refusal(ctx.chip, target_ptx()) if is_fp8(elem) else None
    if refusal is not None:
        raise LoweringError(op, refusal)
    with op.location:
        lhs, rhs = ctx.shared.prepare_operands(op)
        acc = ctx.get(op.operands[2], op)
        ctx.values[op.results[0]] = MmaEmitter(ctx.shared).dot(op, lhs, rhs, acc)


class MmaEmitter:
    """Emits one tensor-core dot against the kernel's SharedRegion (`smem`), whose plan and views it reads."""

    def __init__(self, smem):
        self.smem = smem
        self.ctx = smem.ctx
        self._readers: dict[tuple, WidenedReader] = {}

    def _lane(self):
        ctx = self.ctx
        return ctx.at_entry(lambda: arith.RemUIOp(ctx.tid, ctx.index(WARP_SIZE)).result)

    def _start(self, operand):
        """The element offset of the operand's current stage in its buffer (0 outside a ring)."""
        stage = self.smem.stage_offset.get(operand.source) if operand.source is not None else None
        return stage

    def dot(self, op, lhs, rhs, acc):
        ctx, L = self.ctx, self.ctx.layout
        m, n = ir.RankedTensorType(op.results[0].type).shape
        k_extent = ir.RankedTensorType(op.operands[0].type).shape[1]
        wm, wn = L.warps_per_cta
        rows = m // (8 * wm)  # the thread's row wraps
        cols = n // (8 * wn)  # its column wraps (two registers each)
        elem = operand_element(op)  # f16 where an operand is widened; ui8 for u8 operands
        acc_elem = ir.VectorType(acc.type).element_type
        lane = self._lane()
        lane8 = ctx.at_entry(lambda: arith.RemUIOp(lane, ctx.index(8)).result)
        quarter = ctx.at_entry(lambda: arith.DivUIOp(lane, ctx.index(8)).result)  # which 8x8 matrix a lane addresses
        half = ctx.at_entry(lambda: arith.RemUIOp(quarter, ctx.index(2)).result)
        upper = ctx.at_entry(lambda: arith.DivUIOp(quarter, ctx.index(2)).result)
        warp_m, warp_n = ctx.lane_and_warp(0)[1], ctx.lane_and_warp(1)[1]
        # the C fragments, out of the accumulator's registers
        width = 2 * cols
        frags = {}
        for i in range(rows // 2):
            for j in range(cols):
                firsts = [(2 * i + half_row) * width + 2 * j for half_row in range(2)]
                frags[(i, j)] = self._pairs(acc, firsts, acc_elem)
        if isinstance(elem, ir.F32Type):
            return self._tf32(op, lhs, rhs, acc, frags, rows, cols, width, lane, warp_m, warp_n, k_extent)
        eight = is_eight_bit(elem)
        piece = 16 if eight else 8  # elements in 16 bytes: the k extent of one ldmatrix matrix
        if lhs.registers:
            a_regs, a_view, a_ld, a_stage = ctx.get(lhs.value, op), None, None, None
        else:
            a_view, a_ld = self._view(lhs.buffer, eight), self.smem.plan.buffers[lhs.buffer].ld
            a_stage = self._start(lhs)

        def at(base, stage):
            return base if stage is None else arith.AddIOp(base, stage).result

        def at_a(idx):
            return at(idx, a_stage)

        # Per lane, the row each ldmatrix phase reads, before k and the tile's offset.
        # A fragment rows: first or second half of the m16 tile (half), at k or k + 8 (upper).
        a_row = arith.AddIOp(
            arith.MulIOp(warp_m, ctx.index(8)).result,
            arith.AddIOp(lane8, arith.MulIOp(half, ctx.index(8 * wm)).result).result,
        ).result
        a_k = arith.MulIOp(upper, ctx.index(piece)).result
        b_col0 = arith.MulIOp(warp_n, ctx.index(8)).result
        lane16 = arith.RemUIOp(lane, ctx.index(16)).result
        for k0 in range(0, k_extent, K_STEP8 if eight else K_STEP):
            a_frags = []
            for i in range(rows // 2):
                if lhs.widened is not None:
                    row0 = arith.AddIOp(arith.MulIOp(warp_m, ctx.index(8)).result, ctx.index(2 * i * 8 * wm)).result
                    a_frags.append(self._widened(lhs).a_fragment(row0, 8 * wm, k0))
                    continue
                if lhs.registers:
                    a_frags.append(self._register_a(a_regs, i, k0, k_extent, elem))
                    continue
                row = arith.AddIOp(a_row, ctx.index(2 * i * 8 * wm)).result
                if eight and lhs.contiguous_out:  # buffer [k][m]: bytes (ldmatrix cannot transpose them)
                    assert a_ld is not None  # a staged operand: its buffer's row length
                    out0 = arith.AddIOp(arith.MulIOp(warp_m, ctx.index(8)).result, ctx.index(2 * i * 8 * wm)).result
                    a_frags.append(byte_fragment(ctx, a_view, at_a, lane, out0, k0, 4, self._a8_offsets(), a_ld))
                    continue
                if not lhs.contiguous_out:  # buffer [m][k]
                    idx = arith.AddIOp(
                        arith.MulIOp(row, ctx.index(a_ld)).result, arith.AddIOp(a_k, ctx.index(k0)).result
                    ).result
                    trans = False
                else:  # buffer [k][m]: matrix q at rows k (+8 for upper), columns of its 8 m rows
                    kk = arith.AddIOp(arith.AddIOp(lane8, a_k).result, ctx.index(k0)).result
                    m0 = arith.SubIOp(row, lane8).result
                    idx = arith.AddIOp(arith.MulIOp(kk, ctx.index(a_ld)).result, m0).result
                    trans = True
                frag = self._ldmatrix(a_view, at(idx, a_stage), 4, trans, elem)
                a_frags.append(ldmatrix_words(frag, 0, 4) if eight else frag)
            b_frags = self._b_fragments(rhs, k0, cols, elem, (lane, lane8, lane16, half, upper), b_col0)
            for i in range(rows // 2):
                for j in range(cols):
                    frags[(i, j)] = self._mma(a_frags[i], b_frags[j], frags[(i, j)], elem)
        return self._registers(frags, rows, width, acc)

    def _a8_offsets(self):
        """The A fragment's element offsets with the tile's rows 8 wm apart (the warps' rows interleave)."""
        wm = self.ctx.layout.warps_per_cta[0]
        return lambda register, byte: (8 * wm * (register % 2), a8_offsets(register, byte)[1])

    def _widened(self, operand) -> WidenedReader:
        """The fragment reader of a widened operand (one per operand and dot: its stage offset)."""
        key = (operand.role, id(operand))
        if key not in self._readers:
            self._readers[key] = WidenedReader(self.smem, operand, self._start(operand))
        return self._readers[key]

    def _view(self, buffer: int, eight: bool):
        """The buffer's view; for 8-bit operands one of i8 (ldmatrix and the bytes take no fp8 memrefs)."""
        if not eight or isinstance(self.smem.plan.elements[buffer], ir.IntegerType):
            return self.smem.views[buffer]
        return self.smem.view_as(buffer, ir.IntegerType.get_signless(8), 1)

    def _b_fragments(self, rhs, k0: int, cols: int, elem, lanes, b_col0) -> list:
        """The B fragments of the thread's n8 tiles at k0, by ldmatrix from the operand's buffer
        (8-bit ones stored [k][n]: by bytes, mma8.byte_fragment)."""
        ctx, wn = self.ctx, self.ctx.layout.warps_per_cta[1]
        lane, lane8, lane16, half, upper = lanes
        eight = is_eight_bit(elem)
        b_view, b_ld, b_stage = self._view(rhs.buffer, eight), self.smem.plan.buffers[rhs.buffer].ld, self._start(rhs)

        def at(idx):
            return idx if b_stage is None else arith.AddIOp(idx, b_stage).result

        b_frags = []
        if rhs.widened is not None:  # buffer [n][k] of bytes: pairs along k, widened in registers
            reader = self._widened(rhs)
            return [reader.b_fragment(arith.AddIOp(b_col0, ctx.index(j * 8 * wn)).result, k0) for j in range(cols)]
        if eight and rhs.contiguous_out:
            for j in range(cols):
                col = arith.AddIOp(b_col0, ctx.index(j * 8 * wn)).result
                b_frags.append(byte_fragment(ctx, b_view, at, lane, col, k0, 2, b8_offsets, b_ld))
            return b_frags
        for j in range(0, cols, 2):
            # two n8 tiles per ldmatrix.x4 where there are two (lanes 16-31 address the second)
            tiles = 4 if j + 1 < cols else 2
            col = arith.AddIOp(b_col0, ctx.index(j * 8 * wn)).result
            if tiles == 4:
                col = arith.AddIOp(col, arith.MulIOp(upper, ctx.index(8 * wn)).result).result
            if rhs.contiguous_out:  # buffer [k][n]: lanes address k rows, .trans
                kk = arith.AddIOp(lane16, ctx.index(k0)).result
                idx = arith.AddIOp(arith.MulIOp(kk, ctx.index(b_ld)).result, col).result
                trans = True
            else:  # buffer [n][k]: lanes address n rows, at k (lanes 0-7, 16-23) or k + 8 (16 for bytes)
                nn = arith.AddIOp(col, lane8).result
                kk = arith.AddIOp(arith.MulIOp(half, ctx.index(16 if eight else 8)).result, ctx.index(k0)).result
                idx = arith.AddIOp(arith.MulIOp(nn, ctx.index(b_ld)).result, kk).result
                trans = False
            both = self._ldmatrix(b_view, at(idx), tiles, trans, elem)
            if eight:
                b_frags += [ldmatrix_words(both, 2 * x, 2) for x in range(tiles // 2)]
                continue
            b_frags.append(both if tiles == 2 else self._rows(both, 0, elem))
            if tiles == 4:
                b_frags.append(self._rows(both, 2, elem))
        return b_frags

    def _register_a(self, regs, i: int, k0: int, k_extent: int, elem):
        """The A fragment of m16 tile i at k0, picked from a thread's registers of the operand."""
        return self._pairs(regs, a_fragment_registers(i, k0, k_extent)[::2], elem)

    def _pairs(self, flat, firsts: list[int], elem):
        """A vector<N x 2> fragment whose row x is registers firsts[x] and firsts[x] + 1 of `flat`."""
        out = vector.BroadcastOp(ir.VectorType.get([len(firsts), 2], elem), self.ctx.const(0.0, elem)).result
        for x, first in enumerate(firsts):
            pair = vector.ShuffleOp(flat, flat, [first, first + 1]).result
            out = vector.InsertOp(pair, out, [], [x]).result
        return out

    @staticmethod
    def _registers(frags, rows: int, width: int, acc) -> ir.Value:
        """The C fragments back in the accumulator's register order.

        A thread with one fragment (one m16 x n8 tile: 4 registers) gets a shuffle of
        its two rows: canonicalize would fold the from_elements of all of one
        fragment's elements, in order, into a vector.shape_cast of the 2-D fragment,
        which the NVVM conversion leaves as an unrealized cast LLVM cannot translate."""
        if len(frags) == 1 and rows * width == 4:
            f = next(iter(frags.values()))
            top, bottom = (vector.ExtractOp(f, [], [half_row]).result for half_row in range(2))
            return vector.ShuffleOp(top, bottom, [0, 1, 2, 3]).result
        out = [None] * (rows * width)
        for (i, j), f in frags.items():
            for half_row in range(2):
                pair = vector.ExtractOp(f, [], [half_row]).result
                first = (2 * i + half_row) * width + 2 * j
                out[first] = vector.ExtractOp(pair, [], [0]).result
                out[first + 1] = vector.ExtractOp(pair, [], [1]).result
        return vector.FromElementsOp(ir.VectorType(acc.type), out).result

    def _tf32(self, op, lhs, rhs, acc, frags, rows, cols, width, lane, warp_m, warp_n, k_extent):
        """f32 operands on mma.sync m16n8k8 as tf32: each thread reads its fragment
        elements from shared memory one by one (a_i = A[r + 8 (i % 2)][c + 4 (i / 2)],
        b_i = B[c + 4 i][n] with r = l / 4, c = l % 4, n = l / 4 of the tile) and
        rounds them to tf32 (cvt.rna), as cuBLAS does, rather than letting the
        hardware truncate."""
        ctx = self.ctx
        wm, wn = ctx.layout.warps_per_cta
        f32, i32 = ir.F32Type.get(), ir.IntegerType.get_signless(32)
        a_view, b_view = self.smem.views[lhs.buffer], self.smem.views[rhs.buffer]
        a_ld, b_ld = self.smem.plan.buffers[lhs.buffer].ld, self.smem.plan.buffers[rhs.buffer].ld
        a_stage, b_stage = self._start(lhs), self._start(rhs)
        quad = arith.DivUIOp(lane, ctx.index(4)).result  # r (A's row, B's column) of the fragment
        pos = arith.RemUIOp(lane, ctx.index(4)).result  # c (the k offset)
        rna = ir.Attribute.parse("#nvvm.fp_rnd_mode<rna>")

        def element(view, stage, ld, row, col, contiguous):
            # [row][col] of a buffer that holds the operand as [out][k], or [k][out] when contiguous_out
            r, c = (col, row) if contiguous else (row, col)
            idx = arith.AddIOp(arith.MulIOp(r, ctx.index(ld)).result, c).result
            if stage is not None:
                idx = arith.AddIOp(idx, stage).result
            x = memref.LoadOp(view, [idx]).result
            bits = nvvm.ConvertFloatToTF32Op(i32, x, rnd=rna).result
            return arith.BitcastOp(f32, bits).result

        def fragment(values, count):
            out = vector.BroadcastOp(ir.VectorType.get([count, 1], f32), ctx.const(0.0, f32)).result
            for x, v in enumerate(values):
                out = vector.InsertOp(v, out, [], [x, 0]).result
            return out

        a_row0 = arith.AddIOp(arith.MulIOp(warp_m, ctx.index(8)).result, quad).result
        b_col0 = arith.AddIOp(arith.MulIOp(warp_n, ctx.index(8)).result, quad).result
        shape = ir.ArrayAttr.get([ir.IntegerAttr.get(ir.IntegerType.get_signless(64), x) for x in (16, 8, 8)])
        for k0 in range(0, k_extent, TF32_K_STEP):
            kc = arith.AddIOp(pos, ctx.index(k0)).result
            kc4 = arith.AddIOp(kc, ctx.index(4)).result
            a_frags = []
            for i in range(rows // 2):
                top = arith.AddIOp(a_row0, ctx.index(2 * i * 8 * wm)).result
                bottom = arith.AddIOp(top, ctx.index(8 * wm)).result
                values = [
                    element(a_view, a_stage, a_ld, r, c, lhs.contiguous_out)
                    for r, c in ((top, kc), (bottom, kc), (top, kc4), (bottom, kc4))
                ]
                a_frags.append(fragment(values, 4))
            b_frags = []
            for j in range(cols):
                n = arith.AddIOp(b_col0, ctx.index(j * 8 * wn)).result
                values = [element(b_view, b_stage, b_ld, n, c, rhs.contiguous_out) for c in (kc, kc4)]
                b_frags.append(fragment(values, 2))
            for i in range(rows // 2):
                for j in range(cols):
                    frags[(i, j)] = nvgpu.MmaSyncOp(
                        frags[(i, j)].type, a_frags[i], b_frags[j], frags[(i, j)], shape, tf32Enabled=ir.UnitAttr.get()
                    ).result
        return self._registers(frags, rows, width, acc)

    def _rows(self, frag, first: int, elem):
        """Rows first and first + 1 of an ldmatrix.x4 result, as an x2 fragment."""
        out = vector.BroadcastOp(ir.VectorType.get([2, 2], elem), self.ctx.const(0.0, elem)).result
        for x in range(2):
            out = vector.InsertOp(vector.ExtractOp(frag, [], [first + x]).result, out, [], [x]).result
        return out

    @staticmethod
    def _ldmatrix(view, idx, tiles: int, trans: bool, elem):
        if is_eight_bit(elem):
            res = ir.VectorType.get([tiles, 4], ir.IntegerType.get_signless(8))
        else:
            res = ir.VectorType.get([tiles, 2], elem)
        i32 = ir.IntegerType.get_signless(32)
        return nvgpu.LdMatrixOp(res, view, [idx], trans, ir.IntegerAttr.get(i32, tiles)).result

    def _mma(self, a, b, c, elem):
        if is_eight_bit(elem):
            return mma8(a, b, c, elem, elem)
        if isinstance(elem, ir.F16Type):
            shape = ir.ArrayAttr.get([ir.IntegerAttr.get(ir.IntegerType.get_signless(64), x) for x in (16, 8, 16)])
            return nvgpu.MmaSyncOp(c.type, a, b, c, shape).result
        return self._mma_bf16(a, b, c)

    def _mma_bf16(self, a, b, c):
        """bf16 through nvvm.mma.sync: operands as i32 pairs, the accumulator as a struct of four f32."""
        i32, f32 = ir.IntegerType.get_signless(32), ir.F32Type.get()

        def words(frag, count):
            out = []
            for x in range(count):
                p = vector.ExtractOp(frag, [], [x]).result  # vector<2xbf16>
                out.append(vector.BitCastOp(ir.VectorType.get([1], i32), p).result)
            return [vector.ExtractOp(w, [], [0]).result for w in out]

        cs = []
        for half_row in range(2):
            pair = vector.ExtractOp(c, [], [half_row]).result
            cs += [vector.ExtractOp(pair, [], [x]).result for x in range(2)]
        struct = ir.Type.parse("!llvm.struct<(f32, f32, f32, f32)>")
        shape = ir.Attribute.parse("#nvvm.shape<m = 16, n = 8, k = 16>")
        row, col = ir.Attribute.parse("#nvvm.mma_layout<row>"), ir.Attribute.parse("#nvvm.mma_layout<col>")
        bf16 = ir.Attribute.parse("#nvvm.mma_type<bf16>")
        d = nvvm.MmaOp(
            struct, shape, row, col, words(a, 4), words(b, 2), cs, multiplicandAPtxType=bf16, multiplicandBPtxType=bf16
        ).result
        parts = [
            ir.Operation.create(
                "llvm.extractvalue", results=[f32], operands=[d], attributes={"position": ir.DenseI64ArrayAttr.get([x])}
            ).result
            for x in range(4)
        ]
        frag = vector.BroadcastOp(c.type, parts[0]).result
        for half_row in range(2):
            pair = vector.FromElementsOp(ir.VectorType.get([2], f32), parts[2 * half_row : 2 * half_row + 2]).result
            frag = vector.InsertOp(pair, frag, [], [half_row]).result
        return frag
