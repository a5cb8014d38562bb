"""The lowered per-thread coordinates are the layout's.

A copy kernel is lowered to its "gpu" stage and run on the CPU one thread at a
time (phobos.lowering.emulate, with the thread loop narrowed to a single
thread): the elements each thread t writes are exactly those that the blocked
layout of the tile (choose_blocked, as the lowering picks it) assigns to t.
The tiles are chosen so that the lanes of a warp span two dimensions; there,
a lowering that computed a lane's row or column the wrong way would still
copy every element (some other thread would do it), and only the lost
coalescing would show on a GPU. So the test also checks that neighbouring
lanes of warp 0 touch neighbouring addresses along the contiguous dimension.
"""

import numpy as np
import pytest

pytest.importorskip("mlir")

from phobos import builder as tb  # noqa: E402
from phobos.compiler import compile_stages  # noqa: E402
from phobos.lowering.emulate import Emulated  # noqa: E402
from phobos.lowering.layout import WARP_SIZE, choose_blocked  # noqa: E402

_THREAD_LOOP = "scf.for %t = %c0 to %nt step %c1 {"


class OneThread(Emulated):
    """Runs thread `threads` alone (of every block) instead of threads 0..threads-1."""

    def _host_module(self, body: str) -> str:
        text = super()._host_module(body)
        assert _THREAD_LOOP in text, "the emulator's thread loop changed: update OneThread"
        return text.replace(
            _THREAD_LOOP, "%emu_next = arith.addi %nt, %c1 : index\n    scf.for %t = %nt to %emu_next step %c1 {"
        )


def copy_kernel(rows: int, cols: int, threads: int) -> str:
    with tb.context(), tb.Location.unknown():
        module = tb.Module.create()
        with tb.InsertionPoint(module.body):

            @tb.kernel(aligned={"M": rows, "N": cols}, launch=threads)
            def copy(X: tb.Tensor(tb.f32, "M", "N"), Y: tb.Tensor(tb.f32, "M", "N")):
                r, c = tb.block_id(0) * rows, tb.block_id(1) * cols
                tb.store_slice(Y, [r, c], tb.load_slice(X, [r, c], [rows, cols]))

        return str(module)


def aligned(shape, fill):
    raw = np.full(int(np.prod(shape)) + 16, fill, dtype=np.float32)
    offset = (-raw.ctypes.data % 16) // raw.itemsize
    return raw[offset : offset + int(np.prod(shape))].reshape(shape)


@pytest.mark.parametrize(
    "rows, cols, threads, width",
    [(4, 64, 256, 4), (8, 32, 128, 4), (4, 16, 64, 4), (16, 8, 128, 1), (16, 256, 256, 4)],
)
def test_each_lane_touches_the_elements_of_its_layout(rows, cols, threads, width):
    # Unaligned bases keep width 1; pitches of 4k elements keep tile-realign-rows out (docs/realigned-rows.md).
    key = "X=a16.e16x16.s16;Y=a16.e16x16.s16" if width == 4 else "X=a1.e1x1.s4;Y=a1.e1x1.s4"
    stages = compile_stages(copy_kernel(rows, cols, threads), key=key)
    gpu = stages["gpu"]
    assert (f"vector<{width}xf32>" in gpu) == (width > 1), "the copy was expected to vectorise (only when keyed)"
    layout = choose_blocked((rows, cols), threads, width)
    # lanes over both dimensions, or (the last case) warps over both, where a warp's row counts the warps beside it
    assert min(layout.threads_per_warp) > 1 or min(layout.warps_per_cta) > 1
    emu = OneThread(gpu)
    # One block, X[i, j] = its flat index, so a written value names the element.
    X = aligned((rows, cols), 0)
    X[:] = np.arange(rows * cols, dtype=np.float32).reshape(rows, cols)
    first = {}
    for lane in range(threads):  # every thread; warp 0 for the addresses below
        Y = aligned((rows, cols), np.nan)
        assert not emu((1, 1), lane, X, rows, cols, cols, Y, cols)
        touched = {(int(v) // cols, int(v) % cols) for v in Y[~np.isnan(Y)]}
        assert all(Y[i, j] == i * cols + j for i, j in touched), f"lane {lane} wrote elements out of place"
        want = {(i, j) for i in layout.coordinates(0, rows, lane) for j in layout.coordinates(1, cols, lane)}
        if any(layout.thread_index(d, lane) * layout.size_per_thread[d] >= n for d, n in enumerate((rows, cols))):
            want = set()  # a replica: the lowering stores each element once, from its first owner
        assert touched == want, f"lane {lane}: lowered {sorted(touched)}, layout {sorted(want)} ({layout.to_text()})"
        if touched:
            first[lane] = min(touched)
    # Lanes next to each other along the contiguous dimension start `width` elements apart: coalesced.
    along = layout.threads_per_warp[1]
    for lane in range(WARP_SIZE - 1):  # warp 0
        if lane % along != along - 1 and lane in first and lane + 1 in first:
            (i0, j0), (i1, j1) = first[lane], first[lane + 1]
            assert i1 == i0 and j1 == j0 + layout.size_per_thread[1], f"lanes {lane}, {lane + 1}: {first}"
