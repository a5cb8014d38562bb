"""Which thread of the CTA touches which element of a tile, and what warp 0's request is.

Two mappings exist, both the lowering's:

  * the kernel's blocked layout (lowering/layout.py), for every access the
    kernel's threads make from registers: `Blocked.linear` maps each
    (register, lane, warp) to the coordinates it holds along the layout
    dimensions the tile occupies (`Access.layout_dims` of the report,
    lowering/placement.py);
    warp 0's request is the one report/explain.py counts (`Lines.lanes`);
  * the cooperative copy of a tile the dot lowering stages through shared
    memory (`shared_plan.CopyChunks`, which `SharedRegion.copy` emits): chunk q
    of the tile, row-major in pieces of w elements (w the copy width the
    report gives), goes to thread q mod T; warp 0's request is its 32 first
    chunks, whose 128-byte lines are counted with explain.py's own rule.

A thread map is the owning thread of every tile element in row-major order
(the lowest thread id where the layout replicates the tile), with the number
of threads that hold each element. The lines of a request are grouped as
explain.py groups them (`element_address`): each line with the bounding box
of the request's elements in it, the lines past the ideal count marked extra.
"""

from __future__ import annotations

import math

from phobos.lowering.layout import WARP_SIZE, Blocked
from phobos.lowering.shared_plan import CopyChunks
from phobos.report.explain import LINE_BYTES, _count_lines, element_address


def layout_map(layout: Blocked, tile: list[int], dims: list[int]) -> dict:
    """The thread map of a tile held in the kernel's layout."""
    placed = [1] * layout.rank
    for d, extent in zip(dims, tile):
        if d is not None:  # a unit dimension placed nowhere (placement.py): coordinate 0
            placed[d] = extent
    size = math.prod(tile)
    owner = [-1] * size
    holders = 0
    linear = layout.linear(placed)  # the lowering's own map of (register, lane, warp) to coordinates
    for tid in range(layout.threads):
        for register in range(linear.in_size("register")):
            at = linear.apply(register=register, lane=tid % WARP_SIZE, warp=tid // WARP_SIZE)
            flat = 0
            for d, extent in zip(dims, tile):
                flat = flat * extent + (at[d] if d is not None else 0)
            holders += 1
            if owner[flat] < 0:
                owner[flat] = tid
    return {"shape": list(tile), "owner": owner, "replicas": max(1, holders // max(1, size)), "kind": "layout"}


def copy_chunks(tile: list[int], width: int, threads: int):
    """The staged copy's chunks, as the lowering shares them (shared_plan.CopyChunks):
    (q, thread, row, first column) for chunk q of a 2-D tile (leading unit dimensions aside)."""
    rows, cols = (1, tile[0]) if len(tile) == 1 else tile[-2:]
    return CopyChunks(rows, cols, width, threads).chunks()


def copy_map(tile: list[int], width: int, threads: int) -> dict:
    """The thread map of a tile the dot lowering copies into shared memory."""
    cols = tile[-1]
    owner = [-1] * math.prod(tile)
    for _, tid, r, c in copy_chunks(tile, width, threads):
        for j in range(width):
            owner[r * cols + c + j] = tid
    return {"shape": list(tile), "owner": owner, "replicas": 1, "kind": "copy"}


def copy_request(tile: list[int], width: int, threads: int, elem_bytes: int):
    """explain.Lines of warp 0's first request of a staged copy (rows counted apart,
    as explain.py counts slices of packed tensors)."""
    lanes = []
    for q, _, r, c in copy_chunks(tile, width, threads):
        if q >= min(WARP_SIZE, threads):
            break
        lead = (0,) * (len(tile) - 2)
        lanes.append([(*lead, r, c + j) if len(tile) >= 2 else (c + j,) for j in range(width)])
    strides = [None] * (len(tile) - 1) + [1]
    return _count_lines(lanes, strides, elem_bytes)


def request(lines, elem_bytes: int) -> dict:
    """Warp 0's request for the page: per lane its elements and each element's line; per line
    its bounding box (tile coordinates) and whether it is past the ideal count."""
    keys = {}
    lanes = []
    for elements in lines.lanes:
        out = []
        for coords in elements:
            group, address = element_address(coords, lines.strides, elem_bytes)
            key = (group, address // LINE_BYTES)
            keys.setdefault(key, []).append(coords)
            out.append({"at": list(coords), "line": key})
        lanes.append(out)
    order = sorted(keys)
    index = {k: i for i, k in enumerate(order)}
    boxes = []
    for i, key in enumerate(order):
        coords = keys[key]
        lo = [min(c[d] for c in coords) for d in range(len(coords[0]))]
        hi = [max(c[d] for c in coords) + 1 for d in range(len(coords[0]))]
        boxes.append({"lo": lo, "hi": hi, "extra": i >= lines.ideal})
    for lane in lanes:
        for element in lane:
            element["line"] = index[element["line"]]
    return {
        "lanes": lanes,
        "lines": boxes,
        "touched": lines.touched,
        "ideal": lines.ideal,
        "bytes": lines.bytes,
    }
