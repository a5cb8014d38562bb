"""The wgmma path's data movement, replayed on the CPU (lowering/wgmma.py).

wgmma fixes which rows of an m64 tile each lane of a warpgroup accumulates;
the kernel layout (kernel_layout.wgmma_layout) fixes which rows each thread
holds. The TMA copies of A reconcile the two by permuting 8-row blocks, box
by box (a_block_order) or in one copy through a split view of the rows
(whole_a). These tests check, for every thread and register, that the row
wgmma computes there is the row the layout says the thread holds, and that
the runtime's view of a split map addresses exactly those rows.
"""

from __future__ import annotations

import itertools

import pytest

from phobos.lowering.layout import Blocked

pytest.importorskip("mlir")

from phobos.lowering.kernel_layout import wgmma_layout  # noqa: E402
from phobos.lowering.wgmma import BLOCK_ROWS, a_block_order, whole_a  # noqa: E402
from phobos.runtime.tensor_maps import dimensions  # noqa: E402

CONFIGS = [(64, 128), (128, 256), (128, 128), (256, 256), (256, 128), (192, 128), (384, 256)]


def _rows_per_register(layout: Blocked, m: int, n: int):
    """(thread, row wrap v) -> the tile row the layout gives that thread's v-th row."""
    out = {}
    for tid in range(layout.threads):
        for v, row in enumerate(layout.coordinates(0, m, tid)):
            out[(tid, v)] = row
    return out


def _wgmma_row(tid: int, v: int, tiles: int) -> int:
    """The row of the physical A buffer wgmma m64 accumulates into register pair v of thread tid."""
    warp, lane = divmod(tid, 32)
    g, q = divmod(warp, 4)
    i, h = divmod(v, 2)
    return 64 * (g * tiles + i) + 16 * q + 8 * h + lane // 4


@pytest.mark.parametrize("m,threads", [c for c in CONFIGS if c[0] % (16 * (c[1] // 32)) == 0])
def test_permuted_blocks_make_the_fragments_the_layouts_rows(m, threads):
    layout = wgmma_layout((m, 128), threads)
    assert layout is not None
    warps = threads // 32
    tiles = m // (16 * warps)
    order = a_block_order(m, warps)
    assert sorted(order) == list(range(m // BLOCK_ROWS)), "not a permutation"
    for (tid, v), row in _rows_per_register(layout, m, 128).items():
        physical = _wgmma_row(tid, v, tiles)
        assert physical == BLOCK_ROWS * order[row // BLOCK_ROWS] + row % BLOCK_ROWS, (tid, v, row)


@pytest.mark.parametrize("m,threads", [(64, 128), (128, 256), (256, 512)])
def test_one_copy_of_a_whole_tile_lands_the_rows_as_the_boxes_do(m, threads):
    """The split view's box, walked in its dimension order, is the physical
    buffer: its n-th 8-row block holds the rows a_block_order puts there."""
    warps = threads // 32
    tm = whole_a(0, m, warps)
    assert tm is not None
    order = a_block_order(m, warps)
    physical_of = {pb: lb for lb, pb in enumerate(order)}
    m_total, pitch = 4 * m + 7, 1  # a tensor of several tiles (and a ragged end the kernel never reads whole)
    extents, strides = dimensions((m_total, 64), (pitch, 1), tm.split)
    assert extents[0] == 64 and len(extents) == len(tm.box)
    tile = 2  # rows 2 m ... 3 m - 1, in bounds
    start = [0, 0, 0, 0, tile * m // 32]
    boxes = [range(b) for b in tm.box[1:]]
    for n, coords in enumerate(itertools.product(*reversed(boxes))):
        coords = list(reversed(coords))  # innermost first, as TMA walks them
        index = [s + c for s, c in zip(start[1:], coords)]
        assert all(x < e for x, e in zip(index, extents[1:])), "the whole tile reads past the view"
        row = sum(x * s for x, s in zip(index, strides)) // pitch
        block, r = divmod(n, BLOCK_ROWS)
        assert row - tile * m == BLOCK_ROWS * physical_of[block] + r, (n, coords, row)


def test_several_m64_tiles_per_warpgroup_have_no_single_copy():
    assert whole_a(0, 256, 8) is None  # two m64 tiles per warpgroup would need six dimensions


def test_plain_maps_are_the_array_innermost_first():
    assert dimensions((1000, 1040), (1056, 1)) == ([1040, 1000], [1056])
    extents, strides = dimensions((1000, 64), (72, 1), ((8, 1), (2, 64), (4, 8), (None, 32)))
    assert extents == [64, 8, 2, 4, 1000 // 32] and strides == [72, 72 * 64, 72 * 8, 72 * 32]
