"""Realigned slice accesses: 16-byte vectors on rows whose start is misaligned at run time.

tile-realign-rows marks the slice loads and stores of kernels whose tile columns may be
rotated per row (analysis/row_realign.py says when and why that is sound). Tile row R of
an access starting at column C0 is rotated by s = (address of (R, C0) in the reference
tensor, in elements) mod W: the chunk whose first register the layout puts at tile column
v (a multiple of W) holds the columns (v - s + e) mod T, e < W, T the tile's width, which
start at a 16-byte boundary whenever v != 0.

Each thread then takes one of two paths per access:

  * fast: every row it holds is misaligned in this tensor as in the reference, and every
    element it holds is inside the tensor. Each chunk is one aligned W-wide vector, except
    the chunk at v = 0 of a rotated row, which holds the row's last s and first W - s
    columns and is accessed element by element (a branch only that thread takes);
  * otherwise (a tile at the tensor's edge, a tensor misaligned unlike the reference),
    element by element, each element under its own mask.

Vectors are issued only where all W elements are inside the tensor and masked-off
elements are never accessed, so nothing outside the tensor is read or written.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, memref, scf, vector

from phobos.analysis.kernel_facts import element_bytes
from phobos.analysis.row_realign import REALIGN_REFERENCE, REALIGN_WIDTH
from phobos.lowering.context import LoweringContext
from phobos.lowering.errors import LoweringError
from phobos.lowering.ir_helpers import concat_vectors


@dataclass
class _Row:
    """One tile row a thread holds, in one access."""

    flat: ir.Value  # R * pitch + C0: the flat index of the row's first tile column
    rotation: ir.Value  # s, in [0, W)
    fast: ir.Value | None  # i1 per row: misaligned like the reference and inside the tensor (None: always)
    inside: ir.Value | None  # i1: the row is inside the tensor (None: proven)


@dataclass
class _Chunk:
    """W consecutive registers of one row."""

    first_register: int
    row: _Row
    origin: ir.Value  # v: the tile column the layout gives its first register
    may_wrap: bool  # v may be 0, where a rotated row splits


@dataclass
class _Access:
    view: ir.Value
    elem: ir.Type
    width: int
    tile_width: int
    start: ir.Value  # C0
    extent: ir.Value  # the tensor's last extent N
    columns_masked: bool
    chunks: list[_Chunk]
    fast: ir.Value | None  # i1 per thread (None: always)


def _i1_and(a: ir.Value | None, b: ir.Value | None) -> ir.Value | None:
    if a is None or b is None:
        return a if b is None else b
    return arith.AndIOp(a, b).result


def _ult(a: ir.Value, b: ir.Value) -> ir.Value:
    return arith.CmpIOp(arith.CmpIPredicate.ult, a, b).result


def _misalignment(ctx: LoweringContext, p: int, row: ir.Value, start: ir.Value, width: int, elem) -> ir.Value:
    """(address of element (row, start) of tensor p, in elements) mod width."""
    pointer = memref.ExtractAlignedPointerAsIndexOp(ctx.views[p]).result
    first = arith.DivUIOp(pointer, ctx.index(element_bytes(elem))).result
    flat = arith.AddIOp(arith.MulIOp(row, ctx.strides[(p, 0)]).result, start).result
    return arith.AndIOp(arith.AddIOp(first, flat).result, ctx.index(width - 1)).result


def _rows(ctx: LoweringContext, op: ir.Operation, p: int, starts, shape, width: int, elem) -> list[_Row]:
    """The tile rows the thread holds, in register order."""
    reference = ctx.param_index(ctx.old_args[ir.IntegerAttr(op.attributes[REALIGN_REFERENCE]).value], op)
    row_masked = not op.opview.in_bounds[0]
    base = arith.AddIOp(starts[0], ctx.coordinate_base(0, shape[0])).result
    rows = []
    for offset in ctx.layout.offsets(0, shape[0]):
        row = base if offset == 0 else arith.AddIOp(base, ctx.index(offset)).result
        rotation = _misalignment(ctx, reference, row, starts[1], width, elem)
        fast = None
        if p != reference:
            own = _misalignment(ctx, p, row, starts[1], width, elem)
            fast = arith.CmpIOp(arith.CmpIPredicate.eq, own, rotation).result
        inside = _ult(row, ctx.extents[(p, 0)]) if row_masked else None
        flat = arith.AddIOp(arith.MulIOp(row, ctx.strides[(p, 0)]).result, starts[1]).result
        rows.append(_Row(flat, rotation, _i1_and(fast, inside), inside))
    return rows


def _plan(ctx: LoweringContext, op: ir.Operation, tile_old: ir.Value, base: ir.Value, starts_old) -> _Access:
    p = ctx.param_index(base, op)
    shape = ctx.placement.placed_shape(tile_old)
    if tuple(ctx.placement.dims_of(tile_old)) != (0, 1):
        raise LoweringError(op, f"'{op.name}' op: realigned rows need a 2-D tile placed on a 2-D layout")
    elem = ir.RankedTensorType(tile_old.type).element_type
    width = ir.IntegerAttr(op.attributes[REALIGN_WIDTH]).value
    starts = [ctx.get(s, op) for s in starts_old]
    rows = _rows(ctx, op, p, starts, shape, width, elem)
    extent = ctx.extents[(p, 1)]
    columns_masked = not op.opview.in_bounds[1]
    fast = None
    for row in rows:
        fast = _i1_and(fast, row.fast)
    if columns_masked:
        end = arith.AddIOp(starts[1], ctx.index(shape[1])).result
        segment_inside = arith.CmpIOp(arith.CmpIPredicate.ule, end, extent).result
        fast = _i1_and(fast, _i1_and(_ult(starts[1], extent), segment_inside))
    column_base = ctx.coordinate_base(1, shape[1])
    column_offsets = ctx.layout.offsets(1, shape[1])
    chunks = []
    for j, (k0, k1) in enumerate(ctx.layout.register_indices(shape)):
        if k1 % width:
            continue
        offset = column_offsets[k1]
        origin = column_base if offset == 0 else arith.AddIOp(column_base, ctx.index(offset)).result
        chunks.append(_Chunk(j, rows[k0], origin, offset == 0))
    return _Access(ctx.views[p], elem, width, shape[1], starts[1], extent, columns_masked, chunks, fast)


def _element(ctx: LoweringContext, acc: _Access, chunk: _Chunk, e: int) -> tuple[ir.Value, ir.Value | None]:
    """(flat index, mask or None) of element e of a chunk: tile column (v + e - s) mod T."""
    shifted = arith.AddIOp(chunk.origin, ctx.index(e + acc.tile_width)).result
    column = arith.SubIOp(shifted, chunk.row.rotation).result
    column = arith.AndIOp(column, ctx.index(acc.tile_width - 1)).result
    index = arith.AddIOp(chunk.row.flat, column).result
    mask = chunk.row.inside
    if acc.columns_masked:
        mask = _i1_and(mask, _ult(arith.AddIOp(acc.start, column).result, acc.extent))
    return index, mask


def _vector_index(ctx: LoweringContext, chunk: _Chunk) -> ir.Value:
    """The flat index of a chunk that does not wrap: R * pitch + C0 + v - s."""
    return arith.SubIOp(arith.AddIOp(chunk.row.flat, chunk.origin).result, chunk.row.rotation).result


def _wraps(ctx: LoweringContext, chunk: _Chunk) -> ir.Value:
    at_origin = arith.CmpIOp(arith.CmpIPredicate.eq, chunk.origin, ctx.index(0)).result
    rotated = arith.CmpIOp(arith.CmpIPredicate.ne, chunk.row.rotation, ctx.index(0)).result
    return arith.AndIOp(at_origin, rotated).result


def _branch(condition: ir.Value | None, result_types, then_build, else_build=None) -> list[ir.Value]:
    """then_build() where `condition` holds (always when None), else else_build(); each returns
    the values to yield (None for none)."""
    if condition is None:
        return then_build() or []
    branch = scf.IfOp(condition, result_types, has_else=True)
    with ir.InsertionPoint(branch.then_block):
        scf.YieldOp(then_build() or [])
    with ir.InsertionPoint(branch.else_block):
        scf.YieldOp((else_build() if else_build is not None else None) or [])
    return list(branch.results)


# ----------------------------------------------------------------------------- loads


def lower_realigned_load(ctx: LoweringContext, op: ir.Operation) -> None:
    """tile.load_slice marked by tile-realign-rows."""
    o = op.opview
    with op.location:
        acc = _plan(ctx, op, op.results[0], o.base, o.starts)
        chunk_t = ir.VectorType.get([acc.width], acc.elem)
        fill = 0 if o.padding is None else o.padding
        types = [chunk_t] * len(acc.chunks)
        pieces = _branch(
            acc.fast,
            types,
            lambda: [_load_fast(ctx, acc, c) for c in acc.chunks],
            lambda: [_load_elements(ctx, acc, c, fill) for c in acc.chunks],
        )
        ctx.values[op.results[0]] = concat_vectors(pieces)


def _load_elements(ctx: LoweringContext, acc: _Access, chunk: _Chunk, fill=None) -> ir.Value:
    """A chunk read element by element; masked-off elements (where `fill` is given) read `fill`."""
    values = []
    for e in range(acc.width):
        index, mask = _element(ctx, acc, chunk, e)
        if fill is None:
            mask = None
        values.append(
            _branch(
                mask,
                [acc.elem],
                lambda index=index: [memref.LoadOp(acc.view, [index]).result],
                lambda: [ctx.const(fill, acc.elem)],
            )[0]
        )
    return vector.FromElementsOp(ir.VectorType.get([acc.width], acc.elem), values).result


def _load_vector(ctx: LoweringContext, acc: _Access, chunk: _Chunk) -> ir.Value:
    chunk_t = ir.VectorType.get([acc.width], acc.elem)
    align = acc.width * element_bytes(acc.elem)
    return vector.LoadOp(chunk_t, acc.view, [_vector_index(ctx, chunk)], alignment=align).result


def _load_fast(ctx: LoweringContext, acc: _Access, chunk: _Chunk) -> ir.Value:
    if not chunk.may_wrap:
        return _load_vector(ctx, acc, chunk)
    chunk_t = ir.VectorType.get([acc.width], acc.elem)
    return _branch(
        _wraps(ctx, chunk),
        [chunk_t],
        lambda: [_load_elements(ctx, acc, chunk)],
        lambda: [_load_vector(ctx, acc, chunk)],
    )[0]


# ----------------------------------------------------------------------------- stores


def lower_realigned_store(ctx: LoweringContext, op: ir.Operation) -> None:
    """tile.store_slice marked by tile-realign-rows."""
    o = op.opview
    with op.location:
        acc = _plan(ctx, op, o.value, o.base, o.starts)
        value = ctx.get(o.value, op)
        shape = ctx.placement.placed_shape(o.value)
        guard = ctx.owner_guard(shape, ctx.placement.dims_of(o.value))

        def fast() -> None:
            for c in acc.chunks:
                _store_fast(ctx, acc, c, value)

        def masked() -> None:
            for c in acc.chunks:
                _store_elements(ctx, acc, c, value, masked=True)

        _branch(guard, [], lambda: _branch(acc.fast, [], fast, masked))


def _store_elements(ctx: LoweringContext, acc: _Access, chunk: _Chunk, value: ir.Value, masked: bool) -> None:
    for e in range(acc.width):
        index, mask = _element(ctx, acc, chunk, e)
        element = vector.ExtractOp(value, [], [chunk.first_register + e]).result
        _branch(mask if masked else None, [], lambda index=index, element=element: _store(acc, element, index))


def _store(acc: _Access, element: ir.Value, index: ir.Value) -> None:
    memref.StoreOp(element, acc.view, [index])


def _store_vector(ctx: LoweringContext, acc: _Access, chunk: _Chunk, value: ir.Value) -> None:
    first = chunk.first_register
    piece = vector.ShuffleOp(value, value, list(range(first, first + acc.width))).result
    align = acc.width * element_bytes(acc.elem)
    vector.StoreOp(piece, acc.view, [_vector_index(ctx, chunk)], alignment=align)


def _store_fast(ctx: LoweringContext, acc: _Access, chunk: _Chunk, value: ir.Value) -> None:
    if not chunk.may_wrap:
        _store_vector(ctx, acc, chunk, value)
        return
    _branch(
        _wraps(ctx, chunk),
        [],
        lambda: _store_elements(ctx, acc, chunk, value, masked=False),
        lambda: _store_vector(ctx, acc, chunk, value),
    )
