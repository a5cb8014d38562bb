"""The mma.sync fragment facts: instruction shapes, the k step, padded rows, register A fragments.

Shared by the planner (which checks shapes and pads buffers) and the emitter
(ops/dot_mma.py, whose docstring describes the instruction sequence).
"""

from __future__ import annotations

from mlir import ir

from phobos.lowering.fragments import MMA_A, holds_fragment, is_mma_accumulator
from phobos.lowering.layout import Blocked
from phobos.lowering.mma8 import K_STEP8, is_eight_bit

K_STEP = 16  # f16 / bf16: m16n8k16
TF32_K_STEP = 8  # f32 operands as tf32: m16n8k8
_SHAPES = {K_STEP: "m16n8k16", TF32_K_STEP: "m16n8k8 on tf32", K_STEP8: "m16n8k32 on 8-bit operands"}


def k_step(element: ir.Type) -> int:
    """The k of one mma.sync for operands of `element` (f32 ones run as tf32, 8-bit ones as m16n8k32)."""
    if is_eight_bit(element):
        return K_STEP8
    return TF32_K_STEP if isinstance(element, ir.F32Type) else K_STEP


def padded_ld(cols: int, element_bytes: int) -> int:
    """Row length of an operand buffer read by ldmatrix: 16 bytes more than a
    whole number of 16-byte pieces, so that 8 consecutive rows start in 8
    different 16-byte bank groups when the row is an even number of pieces.
    The same holds for 1-byte elements (16 per piece), and the byte loads of
    8-bit operands stored [k][out] (4 rows x 8 bytes per warp) then fall in
    4 different groups."""
    per_piece = 16 // element_bytes
    pieces = -(-cols // per_piece)
    if pieces % 2 == 1:
        return pieces * per_piece
    return (pieces + 1) * per_piece


def check_shapes(m: int, n: int, k: int, wm: int, wn: int, step: int = K_STEP) -> str | None:
    """Why a [m, k] x [k, n] dot cannot run as whole mma tiles on wm x wn warps (None when it can)."""
    if k % step:
        shape = _SHAPES[step]
        return f"the reduced extent {k} is not a multiple of {step} (mma.sync {shape} takes k in steps of {step})"
    if m % (16 * wm) or n % (8 * wn):
        return f"the [{m}, {n}] accumulator does not split into m16 x n8 tiles on {wm} x {wn} warps"
    return None


def shape_refusal(dot: ir.Operation, layout: Blocked) -> str | None:
    """Why a tile.dot of tensor-core types cannot run as mma.sync tiles with its
    accumulator in `layout` (None when it can)."""
    m, n = ir.RankedTensorType(dot.results[0].type).shape
    lhs = ir.RankedTensorType(dot.operands[0].type)
    if not is_mma_accumulator(layout):
        return (
            f"the [{m}, {n}] accumulator does not split into m16 x n8 tiles for every warp "
            "(use tiles whose rows are a multiple of 16 x the row warps and columns of 8 x the column warps)"
        )
    wm, wn = layout.warps_per_cta
    return check_shapes(m, n, lhs.shape[1], wm, wn, k_step(lhs.element_type))


def a_in_registers(operand, layout: Blocked) -> bool:
    """Whether a dot's left operand, computed in registers (a `dot.Operand` with
    no staged load), can feed mma.sync as it is, with no trip through shared
    memory: with every warp along M (wn = 1) and f16/bf16 elements, a thread
    holds row l / 4 of both halves of each of its m16 tiles and, for every
    k16 step, columns 2 (l % 4) + 0, 1 and + 8, 9: exactly the A fragment of
    m16n8k16 (this is how flash attention feeds P to P V and keeps Q resident)."""
    if operand.role != "lhs" or operand.source is not None or operand.transposed:
        return False
    t = ir.RankedTensorType(operand.value.type)
    if t.rank != 2 or not isinstance(t.element_type, (ir.F16Type, ir.BF16Type)):
        return False
    if not is_mma_accumulator(layout) or layout.warps_per_cta[1] != 1:
        return False
    m, k = t.shape
    wm = layout.warps_per_cta[0]
    if k % K_STEP or m % (16 * wm):
        return False
    held = layout.linear((m, k))
    return all(
        holds_fragment(held, MMA_A, a_fragment_registers(i, k0, k), (16 * wm * i, k0), 8 * wm)
        for i in range(m // (16 * wm))
        for k0 in range(0, k, K_STEP)
    )


def a_fragment_registers(i: int, k0: int, k_extent: int) -> list[int]:
    """The registers a0..a7 of the A fragment of m16 tile i at k0, in a thread's
    row-major block of an [M, k_extent] operand held as a_in_registers says:
    rows 2i (a0, a1, a4, a5) and 2i + 1 (a2, a3, a6, a7) of the block, each
    with k_extent / 4 registers, of which k0 / 4 + 0, 1 are columns
    k0 + 2 (l % 4) + 0, 1 and k0 / 4 + 2, 3 the same + 8."""
    per_row = k_extent // 4
    lo, hi = 2 * i * per_row + k0 // 4, (2 * i + 1) * per_row + k0 // 4
    return [lo, lo + 1, hi, hi + 1, lo + 2, lo + 3, hi + 2, hi + 3]
