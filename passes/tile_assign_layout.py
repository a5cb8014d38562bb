"""tile-assign-layout: choose how each kernel's tiles spread over its threads."""

from __future__ import annotations

from mlir import ir

from phobos.dialect import kernel as K
from phobos.lowering.kernel_layout import choose_kernel_layout, layout_attr
from phobos.passes.registry import Option, fail, tile_pass
from phobos.target import DEFAULT_CHIP


@tile_pass(
    "tile-assign-layout",
    options={
        "chip": Option(str, DEFAULT_CHIP, "the GPU the layout is for (sm_90a lays @tensorcore dots out for wgmma)")
    },
)
def tile_assign_layout(module: ir.Operation, pass_, chip: str = DEFAULT_CHIP) -> None:
    """Chooses how each kernel's tiles are spread over its threads. The
    layout is recorded as `tile.layout = #tile.blocked<size_per_thread,
    threads_per_warp, warps_per_cta, order>` on the kernel. Lanes run along the last
    (contiguous) dimension, each thread holds `vector_width` consecutive
    elements along it (the widest width tile-elide-masks proved for a memory
    op, where the tile allows), and the warps of `tile.launch` (default 256
    threads) fill the remaining dimensions. Every tile of the kernel's highest
    rank uses this layout; lower-rank tiles sit in it as slices, so
    elementwise code and broadcasts need no data movement. A kernel without
    tiles gets no layout; an existing `tile.layout` is kept.

    Before: `func.func @scale(...) attributes {tile.kernel}` with
    32x128 f32 tiles whose accesses have `vector_width = 4`.
    After: the same function with `tile.layout = #tile.blocked<array<i64: 1, 4>,
    array<i64: 1, 32>, array<i64: 8, 1>, array<i64: 1, 0>>` (16 elements, four
    16-byte vectors, per thread).
    """
    for fn in K.kernels(module):
        if K.LAYOUT in fn.attributes:
            continue
        try:
            layout = choose_kernel_layout(fn, chip)
        except ValueError as e:
            fail(pass_, fn.location, f"cannot choose a layout: {e}")
            continue
        if layout is not None:
            fn.attributes[K.LAYOUT] = layout_attr(layout)
