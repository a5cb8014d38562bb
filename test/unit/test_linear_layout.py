"""LinearLayout and the layouts the lowering uses as instances of it.

Each instance is checked against an independent statement of the same map:
a blocked layout against `Blocked.coordinates` (what the emitters compute),
the mma.sync fragments against the PTX ISA's tables written out as formulas,
wgmma's A row order against the formula of its docstring, and the 128-byte
swizzle against the byte-address rule of the CUDA driver's documentation.
"""

import itertools

import pytest

from phobos.lowering.fragments import (
    LDMATRIX_BYTES,
    MMA8_A,
    MMA8_B,
    MMA_A,
    MMA_B,
    MMA_C,
    holds_fragment,
    is_mma_accumulator,
    mma_accumulator,
    swizzled_128b,
    wgmma_a_rows,
)
from phobos.lowering.kernel_layout import dot_layout, mma_layout, wgmma_layout
from phobos.lowering.layout import Blocked, choose_blocked
from phobos.lowering.linear_layout import LinearLayout

SHAPES = [(128,), (64, 64), (32, 128), (16, 8), (8, 4), (1, 256), (256, 1), (4, 64, 32), (2, 2)]


def _agrees_with_coordinates(layout: Blocked, shape) -> None:
    linear = layout.linear(shape)
    for tid in range(layout.threads):
        per_dim = [layout.coordinates(d, shape[d], tid) for d in range(layout.rank)]
        for register, k in enumerate(layout.register_indices(shape)):
            want = tuple(per_dim[d][k[d]] for d in range(layout.rank))
            assert linear.apply(register=register, lane=tid % 32, warp=tid // 32) == want, (layout, shape, tid)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("threads", [32, 128, 256])
def test_blocked_linear_is_its_coordinates(shape, threads):
    for width in (1, 4):
        layout = choose_blocked(shape, threads, width)
        _agrees_with_coordinates(layout, shape)
        # smaller tiles replicate, larger ones wrap
        _agrees_with_coordinates(layout, tuple(max(1, s // 4) for s in shape))
        _agrees_with_coordinates(layout, tuple(2 * s for s in shape))


@pytest.mark.parametrize("shape", [(64, 64), (128, 128), (128, 256), (32, 32)])
def test_dot_and_mma_layouts_linear(shape):
    for threads in (128, 256):
        for layout in (dot_layout(shape, threads), mma_layout(shape, threads), wgmma_layout(shape, threads)):
            if layout is not None:
                _agrees_with_coordinates(layout, shape)
                _agrees_with_coordinates(layout, (shape[0], 1))


def test_replication_is_a_zero_basis():
    layout = choose_blocked((64, 64), 128).linear((1, 64))
    assert layout.replicated()
    rows_of_lanes = [b for b in layout.bases("lane") + layout.bases("warp") if not any(b)]
    assert rows_of_lanes, "a [1, 64] tile in a [64, 64] layout is held by several rows of threads"
    whole = choose_blocked((64, 64), 128).linear((64, 64))
    assert not whole.replicated() and whole.surjective()


def _ptx_c(register, lane):
    g, t = lane // 4, lane % 4
    return (g + 8 * (register // 2), 2 * t + register % 2)


def _ptx_a(register, lane):
    g, t = lane // 4, lane % 4
    return (g + 8 * ((register // 2) % 2), 2 * t + register % 2 + 8 * (register // 4))


def _ptx_b(register, lane):
    g, t = lane // 4, lane % 4
    return (2 * t + register % 2 + 8 * (register // 2), g)


@pytest.mark.parametrize("fragment, table, registers", [(MMA_C, _ptx_c, 4), (MMA_A, _ptx_a, 8), (MMA_B, _ptx_b, 4)])
def test_mma_fragments_are_the_ptx_tables(fragment, table, registers):
    assert fragment.in_size("register") == registers
    for register, lane in itertools.product(range(registers), range(32)):
        assert fragment.apply(register=register, lane=lane) == table(register, lane)
    assert fragment.injective() and fragment.surjective()


def _ptx_a8(element, lane):
    # PTX ISA, m16n8k32 .s8/.u8/.e4m3/.e5m2 A: row g for a0..a3 and a8..a11, g + 8 otherwise;
    # column 4 t + (i & 3), + 16 for i >= 8
    g, t = lane // 4, lane % 4
    row = g if element < 4 or 8 <= element < 12 else g + 8
    return (row, 4 * t + (element & 3) + (16 if element >= 8 else 0))


def _ptx_b8(element, lane):
    # m16n8k32 B: row (k) 4 t + (i & 3), + 16 for i >= 4; column g
    g, t = lane // 4, lane % 4
    return (4 * t + (element & 3) + (16 if element >= 4 else 0), g)


@pytest.mark.parametrize("fragment, table, elements", [(MMA8_A, _ptx_a8, 16), (MMA8_B, _ptx_b8, 8)])
def test_mma8_fragments_are_the_ptx_tables(fragment, table, elements):
    assert fragment.in_size("register") == elements
    for element, lane in itertools.product(range(elements), range(32)):
        assert fragment.apply(register=element, lane=lane) == table(element, lane)
    assert fragment.injective() and fragment.surjective()


def test_ldmatrix_gives_8_bit_fragments():
    """ldmatrix (no .trans) hands lane l row l / 4, bytes 4 (l % 4) + 0..3 of each 8 x 16-byte
    matrix: x4 over A's [m][k] matrices (rows + 8 for q % 2, k + 16 for q / 2) is the A
    fragment register for register, and x2 over B stored [n][k] (k + 16 for q) is B's."""
    for lane in range(32):
        assert LDMATRIX_BYTES.apply(lane=lane) == (lane // 4, 4 * (lane % 4))
        for q, byte in itertools.product(range(4), range(4)):
            r, c = LDMATRIX_BYTES.apply(register=byte, lane=lane)
            assert MMA8_A.apply(register=4 * q + byte, lane=lane) == (r + 8 * (q % 2), c + 16 * (q // 2))
        for q, byte in itertools.product(range(2), range(4)):
            n, k = LDMATRIX_BYTES.apply(register=byte, lane=lane)
            assert MMA8_B.apply(register=4 * q + byte, lane=lane) == (k + 16 * q, n)


def test_byte_offsets_are_the_fragments():
    from phobos.lowering.mma8 import a_offsets, b_offsets

    for lane in range(32):
        g, t = lane // 4, lane % 4
        for register, byte in itertools.product(range(4), range(4)):
            d_out, d_k = a_offsets(register, byte)
            assert MMA8_A.apply(register=4 * register + byte, lane=lane) == (g + d_out, 4 * t + d_k)
        for register, byte in itertools.product(range(2), range(4)):
            d_out, d_k = b_offsets(register, byte)
            assert MMA8_B.apply(register=4 * register + byte, lane=lane) == (4 * t + d_k, g + d_out)


@pytest.mark.parametrize("wm, wn", [(1, 1), (2, 2), (4, 1), (8, 1), (2, 4)])
def test_mma_layout_is_the_accumulator(wm, wn):
    layout = Blocked((1, 2), (8, 4), (wm, wn), (1, 0))
    assert is_mma_accumulator(layout)
    assert layout.linear((16 * wm, 8 * wn)) == mma_accumulator(wm, wn)
    # every warp's lanes and registers are C fragments at its own corner
    linear = layout.linear((16 * wm, 8 * wn))
    for warp in range(wm * wn):
        corner = linear.apply(warp=warp)
        for register, lane in itertools.product(range(4), range(32)):
            r, c = MMA_C.apply(register=register, lane=lane)
            want = (corner[0] + (r // 8) * 8 * wm + r % 8, corner[1] + c)
            assert linear.apply(register=register, lane=lane, warp=warp) == want


def test_other_layouts_are_not_the_accumulator():
    assert not is_mma_accumulator(Blocked((1, 2), (8, 4), (2, 2), (0, 1)))  # lanes down the rows first
    assert not is_mma_accumulator(Blocked((1, 4), (8, 4), (2, 2), (1, 0)))
    assert not is_mma_accumulator(choose_blocked((64, 64), 128))
    assert not is_mma_accumulator(None)


def test_holds_fragment_finds_a_register_a_operand():
    # an mma layout with every warp along M holds A fragments in registers (mma.a_in_registers)
    from phobos.lowering.mma import a_fragment_registers

    wm, m, k = 4, 128, 64
    held = Blocked((1, 2), (8, 4), (wm, 1), (1, 0)).linear((m, k))
    for i, k0 in itertools.product(range(m // (16 * wm)), range(0, k, 16)):
        assert holds_fragment(held, MMA_A, a_fragment_registers(i, k0, k), (16 * wm * i, k0), 8 * wm)
    # the same registers of a blocked layout are not
    other = choose_blocked((m, k), 32 * wm).linear((m, k))
    assert not holds_fragment(other, MMA_A, a_fragment_registers(0, 0, k), (0, 0), 8 * wm)


def _a_block_order(m, warps):
    """wgmma.a_block_order's docstring formula."""
    groups, tiles = warps // 4, m // (16 * warps)
    order = [0] * (m // 8)
    for i, h, g, q in itertools.product(range(tiles), range(2), range(groups), range(4)):
        order[(2 * i + h) * warps + 4 * g + q] = 8 * (g * tiles + i) + 2 * q + h
    return order


@pytest.mark.parametrize("m, warps", [(64, 4), (128, 4), (256, 4), (128, 8), (256, 8), (256, 16)])
def test_wgmma_row_order(m, warps):
    from phobos.lowering.wgmma import a_block_order

    rows = wgmma_a_rows(m, warps)
    assert [rows.apply(block=b)[0] for b in range(m // 8)] == _a_block_order(m, warps)
    assert a_block_order(m, warps) == _a_block_order(m, warps)
    assert rows.injective() and rows.surjective()


@pytest.mark.parametrize("element_bytes", [2, 4, 1])
def test_swizzle_128b_is_the_driver_rule(element_bytes):
    rows = 64
    layout = swizzled_128b(rows, element_bytes)
    cols = 128 // element_bytes
    assert layout.shape == (rows, cols) and layout.injective() and layout.surjective()
    for offset in range(rows * cols):
        byte = offset * element_bytes
        # CU_TENSOR_MAP_SWIZZLE_128B: address bits [4, 7) are XORed with bits [7, 10)
        logical = byte ^ (((byte >> 7) & 7) << 4)
        want = (logical // 128, (logical % 128) // element_bytes)
        assert layout.apply(offset=offset) == want
    # and the inverse finds each element's offset
    for row, col in [(0, 0), (3, 17 % cols), (rows - 1, cols - 1), (9, 8 % cols)]:
        assert layout.apply(offset=layout.index_of((row, col))) == (row, col)


def test_bad_layouts_are_refused():
    with pytest.raises(ValueError, match="power of two"):
        LinearLayout.build((12, 8), register=[(0, 1)])
    with pytest.raises(ValueError, match="not a coordinate"):
        LinearLayout.build((16, 8), register=[(0, 8)])
    with pytest.raises(ValueError, match="out of range"):
        MMA_C.apply(register=4)
    with pytest.raises(ValueError, match="bijective"):
        choose_blocked((64, 64), 128).linear((1, 64)).invert()


def test_text():
    assert MMA_C.to_text() == (
        "#tile.linear<register = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], shape = [16, 8]>"
    )
    table = MMA_C.table()
    assert len(table) == 128 and all(len(v) == 1 for v in table.values())
