"""The tile IR of gathers and scatters (see gathers.py): offsets, masks, tile.load/tile.store.
Apart from gathers.py so that checking a program never imports MLIR."""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, tensor

from phobos import builder as tb
from phobos.dialect import tile as TD

from . import ast as A
from . import types as T
from .gathers import index_subscript


def _place(v: tb.Value, before: int, after: int, shape: list[int], loc) -> tb.Value:
    """`v` with `before` leading and `after` trailing unit dimensions, broadcast to `shape`."""
    for _ in range(before):
        v = tb.expand_dims(v, 0, loc=loc)
    for _ in range(after):
        v = tb.expand_dims(v, len(v.shape), loc=loc)
    return tb.broadcast_to(v, shape, loc=loc)


def in_range(c: tb.Value, extent: tb.Value, loc) -> tb.Value:
    """0 <= c < extent for an index tile `c` (one unsigned compare)."""
    bound = tb.broadcast_to(extent, c.shape, loc=loc)
    return tb.Value(arith.CmpIOp(arith.CmpIPredicate.ult, c.value, bound.value, loc=loc).result)


def _static_span_inside(sub: A.Subscript, extent: int | None) -> bool:
    """A span or range with a constant start that ends inside a static extent (no mask needed)."""
    start = 0 if sub.kind == "full" else sub.start.const
    return extent is not None and isinstance(start, int) and start >= 0 and start + sub.length <= extent


def address(em, e: A.Index, mask_expr: A.Expr | None) -> tuple[tb.Value, tb.Value | None]:
    """(offsets, mask) of a checked gather or masked slice `e`, tiles of its result shape."""
    loc = em.loc(e.pos)
    index = ir.IndexType.get()
    shape = list(T.shape(e.ty))
    tensor_ty = e.base.ty
    base = em.env[e.base.symbol]
    n_index = len(e.index_shape)
    extents = [tb.dim(base, axis, loc=loc) for axis in range(len(e.subscripts))]
    offsets, mask = None, None
    q = 0  # the result dimension the next span lands on
    placed = None  # the result dimension of the index shape
    for axis, sub in enumerate(e.subscripts):
        if index_subscript(sub):
            if placed is None:
                placed, q = q, q + n_index
            v = tb.convert(em.lower_expr(sub.start), index, loc=loc)
            lead = n_index - len(v.shape)
            coord = _place(v, placed + lead, len(shape) - placed - n_index, shape, loc)
            check = True
        elif sub.kind == "point":
            coord = tb.broadcast_to(em.to_index(em.lower_as(sub.start, T.INDEX), sub.start.pos), shape, loc=loc)
            check = True
        else:
            start = (
                tb.constant(0, index, loc=loc)
                if sub.kind == "full"
                else tb.Value(em.to_index(em.lower_as(sub.start, T.INDEX), sub.start.pos))
            )
            run = tb.binary("add", tb.convert(tb.arange(0, sub.length, loc=loc), index, loc=loc), start, loc=loc)
            coord = _place(run, q, len(shape) - q - 1, shape, loc)
            q += 1
            check = not _static_span_inside(sub, tensor_ty.static[axis])
        if check:
            inside = in_range(coord, extents[axis], loc)
            mask = inside if mask is None else tb.binary("and", mask, inside, loc=loc)
        if offsets is None:
            offsets = coord
        else:
            scaled = tb.binary("mul", offsets, tb.broadcast_to(extents[axis], shape, loc=loc), loc=loc)
            offsets = tb.binary("add", scaled, coord, loc=loc)
    if mask_expr is not None:
        user = em.lower_expr(mask_expr)
        if T.broadcast(T.shape(mask_expr.ty), shape) != tuple(shape):  # one per index: placed as the indices
            user = _place(user, placed, len(shape) - placed - n_index, shape, loc)
        user = tb.broadcast_to(user, shape, loc=loc)
        mask = user if mask is None else tb.binary("and", mask, user, loc=loc)
    return offsets, mask


def one_element_view(access: A.Index) -> A.Index:
    """`X[i, j]` as the gather-shaped access of one element: the last subscript a span of 1 (the
    GPU lowering takes tiles of rank 1 to 3, not rank 0)."""
    subs = list(access.subscripts)
    last = subs[-1]
    span = A.Subscript(last.pos, "span", last.start, A.IntLit(last.pos, 1))
    span.length = 1
    view = A.Index(access.pos, access.base, subs[:-1] + [span], access.bracket)
    view.ty = T.Tile(access.ty.element, (1,))
    view.index_shape = ()
    return view


def load(em, e: A.Index, mask_expr: A.Expr | None = None, padding=None) -> tb.Value:
    """The tile a gather (or masked slice) reads: zero (or `padding`) where masked off; a masked
    single element reads a tile of one and gives its element."""
    single = isinstance(e.ty, T.Scalar)
    view = one_element_view(e) if single else e
    offsets, mask = address(em, view, mask_expr)
    base = em.env[e.base.symbol]
    m = mask.value if mask is not None else None
    loc = em.loc(e.pos)
    read = TD.LoadOp(base.value, offsets.value, m, padding=padding, loc=loc).result
    if single:
        zero = arith.ConstantOp(ir.IndexType.get(), 0, loc=loc).result
        return tb.Value(tensor.ExtractOp(read, [zero], loc=loc).result)
    return tb.Value(read)


def store(em, e: A.Index, value: tb.Value, mask_expr: A.Expr | None = None) -> None:
    """Writes `value` (a scalar or a tile that broadcasts to the access's shape) through a scatter."""
    loc = em.loc(e.pos)
    offsets, mask = address(em, one_element_view(e) if isinstance(e.ty, T.Scalar) else e, mask_expr)
    base = em.env[e.base.symbol]
    tile = tb.broadcast_to(value, offsets.shape, loc=loc)
    TD.StoreOp(tile.value, base.value, offsets.value, mask.value if mask is not None else None, loc=loc)
