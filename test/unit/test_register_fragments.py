"""The mma A fragments a dot takes from registers (mma.a_in_registers): for
every thread of the all-warps-along-M layout, the registers picked for each
m16 tile and k16 step hold exactly the elements mma.sync m16n8k16 expects
(row-major A: a0, a1 at row g, columns 2t, 2t + 1; a2, a3 at row g + 8; a4..a7
the same at columns + 8; g = lane / 4, t = lane % 4), where the tile's rows g
and g + 8 are those the accumulator's C fragments give the same thread."""

from __future__ import annotations

import pytest

from phobos.lowering.kernel_layout import mma_layout
from phobos.lowering.mma import a_fragment_registers

SHAPES = [(64, 16, 128), (64, 64, 128), (128, 64, 128), (128, 128, 256), (64, 32, 128), (256, 64, 256)]


@pytest.mark.parametrize("m,k,threads", SHAPES, ids=str)
def test_register_fragments_are_mma_a_fragments(m, k, threads):
    layout = mma_layout((m, 64), threads, rows_only=True)
    assert layout is not None and layout.warps_per_cta == (threads // 32, 1)
    per_row = layout.count(1, k)
    for tid in range(threads):
        lane = tid % 32
        g, t = lane // 4, lane % 4
        rows = layout.coordinates(0, m, tid)
        cols = layout.coordinates(1, k, tid)
        # the accumulator's C fragment of tile i: c0, c1 on its register row 2i, c2, c3 on 2i + 1
        acc_rows = layout.coordinates(0, m, tid)
        for i in range(len(rows) // 2):
            tile_rows = (acc_rows[2 * i], acc_rows[2 * i + 1])
            assert tile_rows[1] - tile_rows[0] == 8 * layout.warps_per_cta[0]
            for k0 in range(0, k, 16):
                picked = a_fragment_registers(i, k0, k)
                want = [
                    (tile_rows[half], k0 + 2 * t + x + 8 * upper) for upper in (0, 1) for half in (0, 1) for x in (0, 1)
                ]
                got = [(rows[r // per_row], cols[r % per_row]) for r in picked]
                assert got == want, (tid, i, k0)
        # every lane of a warp owns a distinct row g of each tile half
        assert rows[0] % 8 == g
