"""Which kernels may realign misaligned rows by rotating each tile row.

A row of a 2-D tensor whose pitch is not a multiple of W = 16 bytes / element
size starts at an address that is misaligned by s = (address of its first
element / element size) mod W elements, a run-time amount that varies by row.
No fixed chunking of the row gives 16-byte aligned vectors, but a rotation of
the tile's columns does: if the register that the layout puts at tile column v
holds column (v - s) mod T instead (T the tile's width, v a multiple of W for a
chunk's first register), every chunk but one covers W consecutive columns whose
first address is a multiple of 16 bytes; the one chunk at v = 0 splits into the
row's last s and first W - s columns and is accessed element by element.

A rotation of the tile's columns is invisible to code that never asks which
column a register holds: elementwise arithmetic on tiles that all rotate the
same way, and scalars splatted over a tile. So the rotation is sound for a
kernel whose tiles are all one 2-D shape, whose only tile ops are slice loads
and stores with the same starts (so one rotation per tile row fits them all),
elementwise arith/math and splats; everything else (ranges, broadcasts,
reductions, offsets, loops, layout conversions) asks for coordinates and keeps
the ordinary lowering. The rotation of tile row i is taken from one tensor, the
reference (the first one accessed); an access to another tensor whose row is
misaligned differently falls back to element accesses for that thread at run
time, so the choice of reference only affects speed, never results.

This module only decides; the pass tile-realign-rows records the decision and
lowering/realign.py emits the accesses.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, func, math, memref, tensor

from phobos.dialect import kernel as K
from phobos.dialect import tile as T
from phobos.dialect.tile import is_op, ops_of, upstream_ops

from .access import VECTOR_BYTES
from .kernel_facts import element_bytes, kernel_facts

# Ops that never ask which column a register holds (math and arith ops on tiles act elementwise).
_SCALAR_OR_ELEMENTWISE = (
    func.ReturnOp,
    memref.DimOp,
    tensor.SplatOp,
    T.BlockIdOp,
    T.CheckMultipleOp,
)


# Scalar ops whose result depends only on their operands and attributes (for _same_value).
_PURE_SCALAR_OPS = (
    arith.ConstantOp,
    arith.AddIOp,
    arith.SubIOp,
    arith.MulIOp,
    arith.IndexCastOp,
    arith.IndexCastUIOp,
    arith.ExtSIOp,
    arith.ExtUIOp,
    memref.DimOp,
)


@dataclass(frozen=True)
class RealignPlan:
    """A kernel's realignment: the chunk width W, the reference tensor (its argument index),
    the tile shape, and the memory ops to realign."""

    width: int
    reference: int
    shape: tuple[int, int]
    accesses: list[ir.Operation]


def _same_value(a: ir.Value, b: ir.Value, depth: int = 8) -> bool:
    """Whether two index values are computed the same way from the same operands (the front end
    spells `pm * TM` afresh for every slice; the gpu stage runs cse only after lowering)."""
    if a == b:
        return True
    if depth == 0 or not isinstance(a, ir.OpResult) or not isinstance(b, ir.OpResult):
        return False
    x, y = a.owner, b.owner
    if x.name != y.name or a.result_number != b.result_number or len(x.operands) != len(y.operands):
        return False
    if not is_op(x, T.BlockIdOp, *_PURE_SCALAR_OPS):
        return False
    if {n: str(x.attributes[n]) for n in x.attributes} != {n: str(y.attributes[n]) for n in y.attributes}:
        return False
    return all(_same_value(u, v, depth - 1) for u, v in zip(x.operands, y.operands))


# On tiles, every arith and math op acts element by element (dense constants are checked apart).
_ARITH_AND_MATH = upstream_ops(arith, math)


def _elementwise(op: ir.Operation) -> bool:
    """Whether `op` may sit in a rotated kernel: it is blind to which column a register holds."""
    if is_op(op, *_SCALAR_OR_ELEMENTWISE, *T.SLICE_OPS):
        return True
    if is_op(op, *_ARITH_AND_MATH):
        if is_op(op, arith.ConstantOp) and isinstance(op.results[0].type, ir.RankedTensorType):
            return ir.DenseElementsAttr(op.attributes["value"]).is_splat  # a dense tile names columns
        return True
    return False


def _tile_of(op: ir.Operation) -> ir.RankedTensorType:
    """The tile a slice op reads or writes."""
    value = op.results[0] if is_op(op, T.LoadSliceOp) else op.opview.value
    return ir.RankedTensorType(value.type)


def _tile_types(fn: ir.Operation) -> set[str]:
    found = set()
    for op in ops_of(fn):
        for v in list(op.operands) + list(op.results):
            if isinstance(v.type, ir.RankedTensorType):
                found.add(str(v.type))
    return found


def realign_refusal(fn: ir.Operation) -> str | None:
    """Why the rotation is not sound for kernel `fn` (None when it is)."""
    body = fn.regions[0].blocks
    if len(body) != 1:
        return "the kernel has more than one block"
    for op in body[0].operations:
        op = op.operation
        if len(op.regions) or not _elementwise(op):
            return f"'{op.name}' may depend on which column a register holds"
    types = _tile_types(fn)
    if len(types) != 1:
        return "the kernel's tiles do not all have one type"
    accesses = ops_of(fn, T.SLICE_OPS)
    if not accesses:
        return "the kernel has no slice access"
    tile = _tile_of(accesses[0])
    if tile.rank != 2 or isinstance(tile.element_type, ir.IntegerType) and tile.element_type.width == 1:
        return "the tiles are not 2-D tiles of bytes or wider elements"
    width = VECTOR_BYTES // element_bytes(tile.element_type)
    if width < 2 or tile.shape[1] % width:
        return f"the tile's width {tile.shape[1]} is not a multiple of the {width} elements of a 16-byte vector"
    first = accesses[0].opview.starts
    for op in accesses[1:]:
        if not all(_same_value(a, b) for a, b in zip(first, op.opview.starts)):
            return f"'{op.name}' does not start where the kernel's first access starts"
    return None


def realign_plan(fn: ir.Operation) -> RealignPlan | None:
    """The realignment of kernel `fn`, or None when it is unsound (realign_refusal) or
    useless: every row pitch is already known to be a multiple of W, or every access is
    already W wide (the vector_width tile-elide-masks recorded)."""
    if realign_refusal(fn) is not None:
        return None
    accesses = ops_of(fn, T.SLICE_OPS)
    base = [op.opview.base for op in accesses]
    args = list(fn.regions[0].blocks[0].arguments)
    if any(b not in args for b in base):
        return None
    tile = _tile_of(accesses[0])
    width = VECTOR_BYTES // element_bytes(tile.element_type)
    facts = kernel_facts(fn)
    odd_pitch = [
        op
        for op, b in zip(accesses, base)
        if facts.tensors[args.index(b)].stride_multiple[0] % width and _recorded_width(op) < width
    ]
    if not odd_pitch:
        return None
    return RealignPlan(width, args.index(base[0]), (tile.shape[0], tile.shape[1]), accesses)


def _recorded_width(op: ir.Operation) -> int:
    if K.VECTOR_WIDTH not in op.attributes:
        return 1
    return ir.IntegerAttr(op.attributes[K.VECTOR_WIDTH]).value


# The attributes tile-realign-rows puts on each access it realigns (read by lowering/realign.py).
REALIGN_WIDTH = "tile.realign_width"  # W: elements per 16-byte vector
REALIGN_REFERENCE = "tile.realign_reference"  # the argument index of the tensor whose rows set the rotation


def realign_width(op: ir.Operation) -> int:
    """The W tile-realign-rows recorded on a memory op (0 when it realigned nothing there)."""
    if REALIGN_WIDTH not in op.attributes:
        return 0
    return ir.IntegerAttr(op.attributes[REALIGN_WIDTH]).value
