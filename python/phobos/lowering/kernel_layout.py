"""The layout of a kernel's tiles: chosen by tile-assign-layout, read by the lowering.

A kernel holds all its tiles in one blocked layout (see layout.py): tiles of
the kernel's highest rank use it directly, lower-rank tiles sit in it as
slices. The layout is recorded on the kernel as `tile.layout` (K.LAYOUT).
"""

from __future__ import annotations

from mlir import ir

from phobos.dialect import kernel as K
from phobos.lowering.layout import Blocked, choose_blocked

MEMORY_OPS = ("tile.load_slice", "tile.store_slice", "tile.load", "tile.store")


def memory_tile(op: ir.Operation) -> ir.RankedTensorType:
    """The tile type a memory op reads or writes."""
    if op.name in ("tile.load_slice", "tile.load"):
        return ir.RankedTensorType(op.results[0].type)
    return ir.RankedTensorType(op.operands[0].type)


def vector_width(op: ir.Operation) -> int:
    """The `vector_width` fact tile-elide-masks put on a memory op (1 when absent)."""
    if K.VECTOR_WIDTH not in op.attributes:
        return 1
    return max(1, ir.IntegerAttr(op.attributes[K.VECTOR_WIDTH]).value)


def _walk(fn: ir.Operation, names=None) -> list[ir.Operation]:
    found = []

    def visit(op):
        if names is None or op.name in names:
            found.append(op)
        return ir.WalkResult.ADVANCE

    fn.walk(visit)
    return found


def _tile_shapes(fn: ir.Operation) -> list[tuple[int, ...]]:
    shapes = []
    for op in _walk(fn):
        for v in list(op.results) + list(op.operands):
            if isinstance(v.type, ir.RankedTensorType):
                shapes.append(tuple(ir.RankedTensorType(v.type).shape))
    return shapes


def choose_kernel_layout(fn: ir.Operation) -> Blocked | None:
    """The layout for `fn`'s tiles (None when it has none): shaped by its
    largest tile of the highest rank, preferring tiles that touch memory, with
    lanes along the last dimension, the widest proven vector width of its
    memory ops per thread, and warps from `tile.launch`."""
    shapes = _tile_shapes(fn)
    if not shapes:
        return None
    rank = max(len(s) for s in shapes)
    memory = [(tuple(memory_tile(op).shape), vector_width(op)) for op in _walk(fn, MEMORY_OPS)]
    top = [m for m in memory if len(m[0]) == rank]
    candidates = [s for s, _ in top] or [s for s in shapes if len(s) == rank]
    shape = max(candidates, key=lambda s: (_size(s), s))
    width = max([w for _, w in top] or [w for _, w in memory] or [1])
    return choose_blocked(shape, K.launch(fn)["threads"], width)


def _size(shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def read_kernel_layout(fn: ir.Operation) -> Blocked | None:
    """The `tile.layout` of `fn`, or None when none was assigned.
    Raises ValueError for a malformed one."""
    if K.LAYOUT not in fn.attributes:
        return None
    return Blocked.from_text(str(fn.attributes[K.LAYOUT]))


def layout_attr(layout: Blocked) -> ir.Attribute:
    return ir.Attribute.parse(layout.to_text())
