"""Loads and stores of global tensors, in both forms (slice and offsets), and memref.dim.

Memory ops become 1-D `vector.load`/`vector.store` (n-D vector memory ops do
lower through the MLIR 22 pipeline) on a flat `memref<?xT>` view of each bare
pointer parameter (signature.py). A thread's contiguous run along the last
dimension is accessed in chunks of the op's `vector_width` (from
tile-elide-masks; 1 when absent) with `alignment = width * element bytes`, so
16-byte chunks become `ld.global.v4`/`st.global.v4`. Masked loads select
instead of branching (see `_load_chunks`); masked store chunks are guarded per
chunk by an `scf.if` (the chunk shares one mask value: tile-elide-masks only
proves a width > 1 where the mask is constant over it); proven in-bounds
accesses are not guarded at all. Where a tile is smaller than the layout's
reach, several threads hold the same element; only one of them stores it.
Slice accesses that tile-realign-rows marked are emitted by lowering/realign.py.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator

from mlir import ir
from mlir.dialects import arith, memref, scf, vector

from phobos.analysis.kernel_facts import element_bytes
from phobos.analysis.row_realign import realign_width
from phobos.dialect import kernel as K
from phobos.dialect import tile as T
from phobos.lowering.context import LoweringContext
from phobos.lowering.device_checks import claim, fail_unless
from phobos.lowering.errors import LoweringError
from phobos.lowering.ir_helpers import concat_vectors, where
from phobos.lowering.kernel_layout import access_width
from phobos.lowering.realign import lower_realigned_load, lower_realigned_store
from phobos.lowering.registry import lowers


def _index_type() -> ir.Type:
    return ir.IndexType.get()


@lowers(memref.DimOp)
def lower_dim(ctx: LoweringContext, op: ir.Operation) -> None:
    base, axis_value = op.operands[0], op.operands[1]
    p = ctx.param_index(base, op)
    axis_op = axis_value.owner if isinstance(axis_value, ir.OpResult) else None
    if axis_op is None or not isinstance(axis_op.opview, arith.ConstantOp):
        raise LoweringError(op, "'memref.dim' op needs a constant dimension index")
    axis = ir.IntegerAttr(axis_op.attributes["value"]).value
    ctx.values[op.results[0]] = ctx.extents[(p, axis)]


def _access_plan(ctx: LoweringContext, op: ir.Operation, tile_old: ir.Value):
    """(placed shape, layout dims of the tile, chunk width, element type)."""
    shape = ctx.placement.placed_shape(tile_old)
    dims = ctx.placement.dims_of(tile_old)
    elem = ir.RankedTensorType(tile_old.type).element_type
    return shape, dims, access_width(op, ctx.layout, shape, dims[-1], elem), elem


def _chunks(ctx: LoweringContext, shape, dims, width):
    """(first register, per-dimension register indices) of each chunk,
    in register order."""
    last = dims[-1]
    j = 0
    for k in ctx.layout.register_indices(shape):
        if last is None or k[last] % width == 0:
            yield j, k
        j += 1


def _slice_access(ctx: LoweringContext, op: ir.Operation, tile_old: ir.Value, base: ir.Value, starts: list[ir.Value]):
    """Per-chunk flat indices and masks of a slice-form access."""
    starts_old = list(starts)
    p = ctx.param_index(base, op)
    shape, dims, width, elem = _access_plan(ctx, op, tile_old)
    in_bounds = op.opview.in_bounds
    rank = len(dims)
    starts = [ctx.get(s, op) for s in starts]
    strides = [ctx.strides[(p, i)] for i in range(rank - 1)] + [None]
    coords = []  # per tile dim: the thread's first coordinate (start + base)
    for i, d in enumerate(dims):
        if d is None:  # a unit dimension placed nowhere: the start itself
            coords.append(starts[i])
            continue
        b = ctx.coordinate_base(d, shape[d])
        coords.append(arith.AddIOp(starts[i], b).result)
    flat = None
    for i in range(rank):
        term = coords[i] if strides[i] is None else arith.MulIOp(coords[i], strides[i]).result
        flat = term if flat is None else arith.AddIOp(flat, term).result
    offset_cache: dict[tuple[int, int], ir.Value] = {}
    mask_cache: dict[tuple[int, int], ir.Value] = {}

    def offset(i, k):
        if dims[i] is None:
            return None
        off = ctx.layout.offsets(dims[i], shape[dims[i]])[k]
        if off == 0:
            return None
        if (i, k) not in offset_cache:
            c = ctx.index(off)
            offset_cache[(i, k)] = c if strides[i] is None else arith.MulIOp(c, strides[i]).result
        return offset_cache[(i, k)]

    def in_range(i, k):
        if (i, k) not in mask_cache:
            off = 0 if dims[i] is None else ctx.layout.offsets(dims[i], shape[dims[i]])[k]
            c = coords[i] if off == 0 else arith.AddIOp(coords[i], ctx.index(off)).result
            mask_cache[(i, k)] = arith.CmpIOp(arith.CmpIPredicate.ult, c, ctx.extents[(p, i)]).result
        return mask_cache[(i, k)]

    accesses = []
    for j, k in _chunks(ctx, shape, dims, width):
        idx = flat
        ks = [0 if d is None else k[d] for d in dims]
        for i in range(rank):
            o = offset(i, ks[i])
            if o is not None:
                idx = arith.AddIOp(idx, o).result
        mask = None
        for i in range(rank):
            if not in_bounds[i]:
                m = in_range(i, ks[i])
                mask = m if mask is None else arith.AndIOp(mask, m).result
        accesses.append((j, idx, mask))
    if ctx.check_mode and width > 1:
        _check_alignment(ctx, op, p, width, elem, accesses, starts_old)
        last = rank - 1
        if not in_bounds[last] and dims[last] is not None:
            _check_uniform_slice_mask(ctx, op, p, width, coords[last], dims[last], shape, last, starts_old)
    return p, shape, dims, width, elem, accesses


def _offset_access(
    ctx, op: ir.Operation, tile_old: ir.Value, base: ir.Value, offsets_old: ir.Value, mask_old: ir.Value | None
):
    p = ctx.param_index(base, op)
    shape, dims, width, elem = _access_plan(ctx, op, tile_old)
    offsets = ctx.get(offsets_old, op)
    mask = ctx.get(mask_old, op) if mask_old is not None else None
    accesses = []
    for j, _ in _chunks(ctx, shape, dims, width):
        off = vector.ExtractOp(offsets, [], [j]).result
        if not isinstance(off.type, ir.IndexType):
            off = arith.IndexCastOp(_index_type(), off).result
        m = vector.ExtractOp(mask, [], [j]).result if mask is not None else None
        accesses.append((j, off, m))
    if ctx.check_mode and width > 1:
        _check_offset_chunks(ctx, op, p, width, elem, accesses, offsets, mask, offsets_old)
    return p, shape, dims, width, elem, accesses


# ----------------------------------------------------------------------------- check mode


def _hints_behind(values: list[ir.Value], depth: int = 12) -> str:
    """' (relying on the tile.hint at f.ph:3:9)' when hints feed `values`, for messages."""
    found, seen, frontier = [], set(), list(values)
    for _ in range(depth):
        nxt = []
        for v in frontier:
            owner = v.owner if isinstance(v, ir.OpResult) else None
            if owner is None or owner in seen:
                continue
            seen.add(owner)
            if isinstance(owner.opview, T.HintOp):
                found.append(where(owner))
            nxt.extend(owner.operands)
        frontier = nxt
    if not found:
        return ""
    return f" (relying on the tile.hint at {', '.join(sorted(set(found)))})"


def _unless_masked(ok: ir.Value, mask: ir.Value | None) -> ir.Value:
    """`ok`, or true where the chunk's mask is off (an access that does not happen relies on nothing)."""
    if mask is None:
        return ok
    off = arith.XOrIOp(mask, arith.ConstantOp(ir.IntegerType.get_signless(1), 1).result).result
    return arith.OrIOp(ok, off).result


def _vectors(oks: list[ir.Value], values: list[ir.Value]) -> tuple[ir.Value, ir.Value]:
    """The per-chunk conditions and values as two vectors, for fail_unless."""
    i1, i64 = ir.IntegerType.get_signless(1), ir.IntegerType.get_signless(64)
    values = [arith.IndexCastOp(i64, v).result if isinstance(v.type, ir.IndexType) else v for v in values]
    n = len(oks)
    return (
        vector.FromElementsOp(ir.VectorType.get([n], i1), oks).result,
        vector.FromElementsOp(ir.VectorType.get([n], i64), values).result,
    )


def _check_alignment(ctx, op, p, width, elem, accesses, behind) -> None:
    """Each chunk's address is a multiple of its size (width elements): the vector access needs it."""
    size = width * element_bytes(elem)
    pointer = memref.ExtractAlignedPointerAsIndexOp(ctx.views[p]).result
    eb = ctx.index(element_bytes(elem))
    oks, values = [], []
    for _, idx, mask in accesses:
        address = arith.AddIOp(pointer, arith.MulIOp(idx, eb).result).result
        rem = arith.RemUIOp(address, ctx.index(size)).result
        oks.append(_unless_masked(arith.CmpIOp(arith.CmpIPredicate.eq, rem, ctx.index(0)).result, mask))
        values.append(address)
    message = f"this {op.name} reads or writes {size}-byte vectors, whose addresses must be multiples of {size}"
    message += _hints_behind(behind) + "; the value is the address"
    fail_unless(ctx.checks, op, "alignment", message, *_vectors(oks, values))


def _check_uniform_slice_mask(ctx, op, p, width, coord, d, shape, axis, behind) -> None:
    """A masked slice chunk is all in or all out along the last dimension (its extent and
    start are multiples of the width): the chunk's first and last elements agree."""
    extent = ctx.extents[(p, axis)]
    oks, values = [], []
    for k in ctx.layout.register_indices(shape):
        if k[d] % width:
            continue
        first = arith.AddIOp(coord, ctx.index(ctx.layout.offsets(d, shape[d])[k[d]])).result
        last = arith.AddIOp(first, ctx.index(width - 1)).result
        inside_first = arith.CmpIOp(arith.CmpIPredicate.ult, first, extent).result
        inside_last = arith.CmpIOp(arith.CmpIPredicate.ult, last, extent).result
        oks.append(arith.CmpIOp(arith.CmpIPredicate.eq, inside_first, inside_last).result)
        values.append(first)
    message = f"this {op.name}'s {width}-element vectors are each all inside or all outside the tensor"
    message += _hints_behind(behind) + "; the value is the first coordinate"
    fail_unless(ctx.checks, op, "uniform mask", message, *_vectors(oks, values))


def _all_of(conditions: Iterator[ir.Value]) -> ir.Value:
    """The conjunction of `conditions`, each built as the previous ones are combined."""
    return functools.reduce(lambda a, b: arith.AndIOp(a, b).result, conditions)


def _as_index(v: ir.Value) -> ir.Value:
    return v if isinstance(v.type, ir.IndexType) else arith.IndexCastOp(_index_type(), v).result


def _check_offset_chunks(ctx, op, p, width, elem, accesses, offsets, mask, offsets_old) -> None:
    """Each chunk's offsets are consecutive, its address aligned, and its mask one value."""

    def element(vec, k):
        return vector.ExtractOp(vec, [], [k]).result

    def eq(a, b):
        return arith.CmpIOp(arith.CmpIPredicate.eq, a, b).result

    def consecutive(j, first):
        offset = (_as_index(element(offsets, j + t)) for t in range(1, width))
        return _all_of(eq(off, arith.AddIOp(first, ctx.index(t)).result) for t, off in enumerate(offset, 1))

    oks = [_unless_masked(consecutive(j, first), m) for j, first, m in accesses]
    values = [first for _, first, _ in accesses]
    message = f"this {op.name} reads or writes {width} consecutive elements at a time"
    message += _hints_behind([offsets_old]) + "; the value is the first offset of the vector"
    fail_unless(ctx.checks, op, "contiguity", message, *_vectors(oks, values))
    _check_alignment(ctx, op, p, width, elem, accesses, [offsets_old])
    if mask is None:
        return
    oks = [_all_of(eq(element(mask, j + t), m) for t in range(1, width)) for j, _, m in accesses]
    message = f"this {op.name}'s mask is one value over each {width}-element vector" + _hints_behind([offsets_old])
    fail_unless(ctx.checks, op, "uniform mask", message + "; the value is the first offset", *_vectors(oks, values))


def _load_chunks(ctx: LoweringContext, op, result_old, p, width, elem, accesses, slice_form: bool) -> None:
    """Loads every chunk of a tile. Masked chunks do not branch: they load
    from the tensor's first element instead and select zero, so all of a
    thread's loads issue back to back (a branch per chunk lets LLVM fuse
    each load with its store and serialise them). That needs a first
    element: a uniform check that the tensor is not empty guards the lot.
    An offset-form vector chunk keeps its branch, since nothing proves the
    buffer holds `width` elements."""
    view = ctx.views[p]
    chunk_t = ir.VectorType.get([width], elem)
    align = width * element_bytes(elem)
    t = elem if width == 1 else chunk_t
    fill = op.opview.padding
    fill = 0 if fill is None else fill  # what masked-off elements read as

    def load(idx):
        if width == 1:
            return memref.LoadOp(view, [idx]).result
        return vector.LoadOp(chunk_t, view, [idx], alignment=align).result

    def branch_free(mask):
        return mask is not None and (slice_form or width == 1)

    def emit_all():
        pieces = []
        for _, idx, mask in accesses:
            if mask is None:
                pieces.append(load(idx))
            elif branch_free(mask):
                value = load(arith.SelectOp(mask, idx, ctx.index(0)).result)
                pieces.append(arith.SelectOp(mask, value, ctx.const(fill, t)).result)
            else:
                guarded = scf.IfOp(mask, [t], has_else=True)
                with ir.InsertionPoint(guarded.then_block):
                    scf.YieldOp([load(idx)])
                with ir.InsertionPoint(guarded.else_block):
                    scf.YieldOp([ctx.const(fill, t)])
                pieces.append(guarded.results[0])
        return pieces

    if any(branch_free(mask) for _, _, mask in accesses):
        nonempty = None
        for (q, _axis), extent in ctx.extents.items():
            if q == p:
                pos = arith.CmpIOp(arith.CmpIPredicate.ugt, extent, ctx.index(0)).result
                nonempty = pos if nonempty is None else arith.AndIOp(nonempty, pos).result
        guarded = scf.IfOp(nonempty, [t] * len(accesses), has_else=True)
        with ir.InsertionPoint(guarded.then_block):
            scf.YieldOp(emit_all())
        with ir.InsertionPoint(guarded.else_block):
            scf.YieldOp([ctx.const(fill, t)] * len(accesses))
        pieces = list(guarded.results)
    else:
        pieces = emit_all()
    vt = ctx.vtype(result_old)
    if width == 1:
        value = vector.FromElementsOp(vt, pieces).result
    else:
        value = concat_vectors(pieces)
    ctx.values[result_old] = value


def _store_chunks(ctx: LoweringContext, op, value_old, p, shape, dims, width, elem, accesses) -> None:
    view = ctx.views[p]
    value = ctx.get(value_old, op)
    guard = ctx.owner_guard(shape, dims)
    if guard is not None:
        outer = scf.IfOp(guard)
        ip = ir.InsertionPoint(outer.then_block)
    else:
        outer, ip = None, None
    align = width * element_bytes(elem)
    claimed = op.attributes[K.CLAIM] if ctx.check_mode and K.CLAIM in op.attributes else None

    def store(piece, idx):
        if claimed is not None:
            _claim_elements(ctx, op, view, idx, width, elem, ir.StringAttr(claimed).value)
        if width == 1:
            memref.StoreOp(piece, view, [idx])
        else:
            vector.StoreOp(piece, view, [idx], alignment=align)

    def emit():
        for j, idx, mask in accesses:
            if width == 1:
                piece = vector.ExtractOp(value, [], [j]).result
            else:
                piece = vector.ShuffleOp(value, value, list(range(j, j + width))).result
            if mask is None:
                store(piece, idx)
            else:
                guarded = scf.IfOp(mask)
                with ir.InsertionPoint(guarded.then_block):
                    store(piece, idx)
                    scf.YieldOp([])
        if outer is not None:
            scf.YieldOp([])

    if ip is not None:
        with ip:
            emit()
    else:
        emit()


def _claim_elements(ctx, op, view, idx, width, elem, axis: str) -> None:
    """Check mode: claims each element the chunk at `idx` writes for this CTA (tile.claim)."""
    pointer = memref.ExtractAlignedPointerAsIndexOp(view).result
    eb = ctx.index(element_bytes(elem))
    for t in range(width):
        at = idx if t == 0 else arith.AddIOp(idx, ctx.index(t)).result
        claim(ctx.checks, op, arith.AddIOp(pointer, arith.MulIOp(at, eb).result).result, axis)


@lowers(T.LoadSliceOp)
def lower_load_slice(ctx: LoweringContext, op: ir.Operation) -> None:
    if realign_width(op):  # rows rotated by tile-realign-rows
        lower_realigned_load(ctx, op)
        return
    o = op.opview
    with op.location:
        p, shape, dims, width, elem, acc = _slice_access(ctx, op, op.results[0], o.base, o.starts)
        _load_chunks(ctx, op, op.results[0], p, width, elem, acc, slice_form=True)


@lowers(T.StoreSliceOp)
def lower_store_slice(ctx: LoweringContext, op: ir.Operation) -> None:
    if realign_width(op):
        lower_realigned_store(ctx, op)
        return
    o = op.opview
    with op.location:
        p, shape, dims, width, elem, acc = _slice_access(ctx, op, o.value, o.base, o.starts)
        _store_chunks(ctx, op, o.value, p, shape, dims, width, elem, acc)


@lowers(T.LoadOp)
def lower_load(ctx: LoweringContext, op: ir.Operation) -> None:
    o = op.opview
    with op.location:
        p, shape, dims, width, elem, acc = _offset_access(ctx, op, op.results[0], o.base, o.offsets, o.mask)
        _load_chunks(ctx, op, op.results[0], p, width, elem, acc, slice_form=False)


@lowers(T.StoreOp)
def lower_store(ctx: LoweringContext, op: ir.Operation) -> None:
    o = op.opview
    with op.location:
        p, shape, dims, width, elem, acc = _offset_access(ctx, op, o.value, o.base, o.offsets, o.mask)
        _store_chunks(ctx, op, o.value, p, shape, dims, width, elem, acc)
