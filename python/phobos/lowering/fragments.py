"""The tensor cores' layouts as LinearLayouts: mma.sync fragments, wgmma's row order, the TMA swizzle.

Each is the PTX ISA's table for the instruction written as bases (see
linear_layout.py): what one bit of a register, lane or warp index moves.
With `g = lane / 4` (the group) and `t = lane % 4` (the thread in the group),
for f16/bf16 operands:

  * mma.sync m16n8 C (and D): c0, c1 at row g, columns 2t + 0, 1; c2, c3 at
    row g + 8;
  * m16n8k16 A: a0, a1 at row g, columns 2t + 0, 1; a2, a3 at row g + 8;
    a4..a7 the same at columns + 8;
  * m16n8k16 B ([k, n]): b0, b1 at rows 2t + 0, 1, column g; b2, b3 at rows + 8.

For 8-bit operands (m16n8k32: .s8, .u8, .e4m3, .e5m2) each .b32 register
holds four elements consecutive along k:

  * m16n8k32 A: a0..a3 at row g, columns 4t + 0..3; a4..a7 at row g + 8;
    a8..a15 the same at columns + 16;
  * m16n8k32 B ([k, n]): b0..b3 at rows 4t + 0..3, column g; b4..b7 at rows + 16;
  * the C/D fragment (s32 or f32) is m16n8's C above;
  * `ldmatrix` (no .trans) of an 8 x 16-byte matrix gives lane l row g,
    bytes 4t + 0..3: one A register (or, on B stored [n][k], one B register).

The lowering holds an accumulator in the blocked layout
`kernel_layout.mma_layout` builds; `is_mma_accumulator` is the check that
this blocked layout *is* the C fragment tiled over the warps, compared as
layouts, and mma.a_in_registers compares a register operand with the A
fragment the same way.
"""

from __future__ import annotations

from phobos.lowering.layout import Blocked
from phobos.lowering.linear_layout import LinearLayout

_GROUP_LANES = [(0, 2), (0, 4), (1, 0), (2, 0), (4, 0)]  # lane bits 0, 1: t (columns); 2..4: g (rows)

MMA_C = LinearLayout.build((16, 8), register=[(0, 1), (8, 0)], lane=_GROUP_LANES)
MMA_A = LinearLayout.build((16, 16), register=[(0, 1), (8, 0), (0, 8)], lane=_GROUP_LANES)
MMA_B = LinearLayout.build((16, 8), register=[(1, 0), (8, 0)], lane=[(2, 0), (4, 0), (0, 1), (0, 2), (0, 4)])

_BYTE_LANES = [(0, 4), (0, 8), (1, 0), (2, 0), (4, 0)]  # t: 4-byte columns; g: rows
MMA8_A = LinearLayout.build((16, 32), register=[(0, 1), (0, 2), (8, 0), (0, 16)], lane=_BYTE_LANES)
MMA8_B = LinearLayout.build((32, 8), register=[(1, 0), (2, 0), (16, 0)], lane=[(4, 0), (8, 0), (0, 1), (0, 2), (0, 4)])
LDMATRIX_BYTES = LinearLayout.build((8, 16), register=[(0, 1), (0, 2)], lane=_BYTE_LANES)


def _bits(x: int) -> int:
    return x.bit_length() - 1


def mma_accumulator(wm: int, wn: int) -> LinearLayout:
    """One m16 x n8 C fragment per warp, wm x wn warps, as the lowering holds
    them: neighbouring warps take neighbouring 8-row and 8-column pieces
    (columns first), so a fragment's second row half (c2, c3) sits 8 wm rows
    below its first, where the next wrap of the warps' rows ends."""
    registers = [MMA_C.bases("register")[0], (8 * wm, 0)]
    warps = [(0, 8 << j) for j in range(_bits(wn))] + [(8 << j, 0) for j in range(_bits(wm))]
    return LinearLayout.build((16 * wm, 8 * wn), register=registers, lane=MMA_C.bases("lane"), warp=warps)


def is_mma_accumulator(layout: Blocked | None) -> bool:
    """Whether a blocked layout holds every warp's m16 x n8 tiles as mma.sync C
    fragments: on one such tile per warp it equals `mma_accumulator`."""
    if layout is None or layout.rank != 2:
        return False
    wm, wn = layout.warps_per_cta
    return layout.linear((16 * wm, 8 * wn)) == mma_accumulator(wm, wn)


def holds_fragment(
    held: LinearLayout, fragment: LinearLayout, registers: list[int], origin: tuple[int, int], row_step: int
) -> bool:
    """Whether warp 0's `registers` of a tile held as `held` are `fragment`'s
    registers, lane for lane: fragment register j of lane l is held register
    registers[j] of lane l, at the tile coordinates of the fragment's (r, c)
    moved to `origin`, with the fragment's rows 8 apart in the tile every
    `row_step` rows (the warps' rows interleave, mma_accumulator)."""
    for j, register in enumerate(registers):
        for lane in range(held.in_size("lane")):
            r, c = fragment.apply(register=j, lane=lane)
            want = (origin[0] + (r // 8) * row_step + r % 8, origin[1] + c)
            if held.apply(register=register, lane=lane) != want:
                return False
    return True


def wgmma_a_rows(m: int, warps: int) -> LinearLayout:
    """The order TMA lands a wgmma A tile's 8-row blocks in (wgmma.a_block_order):
    logical block (2 i + h) W + 4 g + q (W warps, g the warpgroup, q its warp,
    h the row half, i the warpgroup's m64 tile) goes to physical block
    8 (g tiles + i) + 2 q + h, so that each m64 tile of a warpgroup is the
    consecutive 1024-byte atoms wgmma reads. A permutation of bits: q's two
    bits move up by one, h drops to bit 0, g and i swap. Linear where the
    warpgroup's m64 tiles are a power of two; a_block_order, which the copies
    use, also takes three (m = 192)."""
    groups, tiles = warps // 4, m // (16 * warps)
    g_bits, t_bits = _bits(groups), _bits(tiles)
    bases = [(2,), (4,)]  # q
    bases += [((8 * tiles) << j,) for j in range(g_bits)]  # g
    bases += [(1,)]  # h
    bases += [(8 << j,) for j in range(t_bits)]  # i
    return LinearLayout.build((m // 8,), block=bases)


def swizzled_128b(rows: int, element_bytes: int) -> LinearLayout:
    """The 128-byte swizzle TMA writes and wgmma reads (CU_TENSOR_MAP_SWIZZLE_128B):
    element `offset` of a buffer of 128-byte rows holds the tile's (row, column)
    with the column's 16-byte chunk XORed with the row modulo 8, so the 8 rows
    of an atom put a column's chunk in 8 different bank groups."""
    per_chunk = 16 // element_bytes
    cols = 128 // element_bytes
    bases = [(0, 1 << j) for j in range(_bits(per_chunk))]
    bases += [(0, per_chunk << j) for j in range(3)]
    bases += [(1 << j, (per_chunk << j) if j < 3 else 0) for j in range(_bits(rows))]
    return LinearLayout.build((rows, cols), offset=bases)
