"""Gathers and scatters: a tile of integers as a subscript (`X[idx]`, `X[rows, 0 :+ D]`,
`X[rows, cols]`), and `masked(X[...], m)`.

Checking (`GatherChecks`, a mixin of the Checker). A subscript that is an integer tile
is an index subscript; the index tiles of one access broadcast to one shape S. The
result's shape is the tensor's subscripts in order with S in the place of the first
index subscript, each span, range or `:` keeping its extent and each scalar
subscript dropping its dimension: `X[rows, 0 :+ D]` with rows `[R]` is `[R, D]`,
`X[rows, cols]` with `[R, 1]` and `[1, C]` is `[R, C]`, `X[0 :+ D, cols]` is `[D, C]`.
`masked(X[...], m)` is the same access where the bool `m` (broadcast to its shape, or of
the index tiles' shape: one flag per index, `masked(X[rows, 0 :+ D], rows >= 0)`) holds: a
read gives zero elsewhere, a write leaves the tensor alone there.

Lowering (`address`, `load`, `store`). The access becomes the offset form of tile IR
(`tile.load`/`tile.store`): per tensor dimension a coordinate tile in the result's
shape (the index tile, or start + arange for a span, or the scalar), offsets
`((c0 * E1 + c1) * E2 + c2)...` in `index` (64-bit on the GPU: a table of 2^32
elements is addressed), and a mask `0 <= c < E` per dimension that is not proven in
bounds, and-ed with the user's mask. Out-of-bounds indices thus read zero and their
writes are dropped, as for slices. Later passes prove masks away where they can.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith

from phobos import builder as tb
from phobos.dialect import tile as TD

from . import ast as A
from . import types as T
from .ast import start_pos


def index_subscript(sub: A.Subscript) -> bool:
    """Whether a checked subscript is an index tile (a point whose value is a tile)."""
    return sub.kind == "point" and sub.start is not None and isinstance(sub.start.ty, T.Tile)


def is_gather(e: A.Index) -> bool:
    return any(index_subscript(sub) for sub in e.subscripts)


def unwrap_masked(target: A.Expr) -> tuple[A.Index, A.Expr | None]:
    """(the access, its mask) of an assignment target or atomic target: `X[...]` or `masked(X[...], m)`."""
    if isinstance(target, A.Call) and len(target.args) == 2 and isinstance(target.args[0], A.Index):
        return target.args[0], target.args[1]
    return target, None


class GatherChecks:
    """Checks index subscripts and `masked` (uses the Checker's `error`, `subscript`, `tile_type`)."""

    def check_gather(self, e: A.Index, tensor: T.Tensor, name: str) -> T.Type:
        index_shape: tuple[int, ...] = ()
        ok = True
        for axis, sub in enumerate(e.subscripts):
            if not index_subscript(sub):
                length = self.subscript(sub, tensor, name, axis)
                ok = ok and length is not None
                sub.length = length
                continue
            ty = sub.start.ty
            if not T.is_int(ty.element):
                self.error(
                    start_pos(sub.start),
                    f"an index tile must hold integers, got {ty} (convert it with i32(...) or i64(...))",
                )
                ok = False
                continue
            shape = T.broadcast(index_shape, ty.shape)
            if shape is None:
                self.error(
                    start_pos(sub.start),
                    f"the index tiles of '{name}' do not broadcast: {T.fmt_shape(index_shape)} "
                    f"and {T.fmt_shape(ty.shape)}",
                )
                ok = False
                continue
            index_shape = shape
            sub.length = None
        if not ok:
            return T.ERROR
        e.index_shape = index_shape
        return self.tile_type(tensor.element, result_shape(e), e.pos)

    def call_masked(self, e: A.Call, ts: list[T.Type]) -> T.Type:
        """masked(X[...], m): the access of a tensor where the bool `m` holds."""
        if not self.arity(e, "masked", ts, 2):
            return T.ERROR
        source, mask = e.args
        if not isinstance(source, A.Index) or not isinstance(source.base.ty, T.Tensor):
            return self.error(
                start_pos(source),
                f"the first argument of 'masked' must be a slice or gather of a tensor parameter, such as "
                f"'X[idx]' or 'X[r :+ 32]', got {ts[0]}",
            )
        if ts[1].element != "bool":
            return self.error(start_pos(mask), f"the mask of 'masked' must be bool, got {ts[1]}")
        shape = T.shape(ts[0])
        index_shape = getattr(source, "index_shape", ())
        per_index = bool(index_shape) and tuple(T.shape(ts[1])) == tuple(index_shape)
        if T.broadcast(T.shape(ts[1]), shape) != tuple(shape) and not per_index:
            return self.error(
                start_pos(mask),
                f"the mask of 'masked' has shape {T.fmt_shape(T.shape(ts[1]))}, which does not broadcast "
                f"to the access's {T.fmt_shape(shape)} (nor is it the index tiles' shape)",
            )
        if not hasattr(source, "index_shape"):
            source.index_shape = ()
        return ts[0]


def result_shape(e: A.Index) -> list[int]:
    """The shape of a checked gather (see the module docstring)."""
    shape: list[int] = []
    placed = False
    for sub in e.subscripts:
        if index_subscript(sub):
            if not placed:
                shape.extend(e.index_shape)
                placed = True
        elif sub.kind != "point":
            shape.append(sub.length)
    return shape


# ----------------------------------------------------------------------------- lowering


def _place(v: tb.Value, before: int, after: int, shape: list[int], loc) -> tb.Value:
    """`v` with `before` leading and `after` trailing unit dimensions, broadcast to `shape`."""
    for _ in range(before):
        v = tb.expand_dims(v, 0, loc=loc)
    for _ in range(after):
        v = tb.expand_dims(v, len(v.shape), loc=loc)
    return tb.broadcast_to(v, shape, loc=loc)


def _in_range(c: tb.Value, extent: tb.Value, loc) -> tb.Value:
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
            inside = _in_range(coord, extents[axis], loc)
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


def load(em, e: A.Index, mask_expr: A.Expr | None = None, padding=None) -> tb.Value:
    """The tile a gather (or masked slice) reads: zero (or `padding`) where masked off."""
    offsets, mask = address(em, e, mask_expr)
    base = em.env[e.base.symbol]
    m = mask.value if mask is not None else None
    return tb.Value(TD.LoadOp(base.value, offsets.value, m, padding=padding, loc=em.loc(e.pos)).result)


def store(em, e: A.Index, value: tb.Value, mask_expr: A.Expr | None = None) -> None:
    """Writes `value` (a scalar or a tile that broadcasts to the access's shape) through a scatter."""
    loc = em.loc(e.pos)
    offsets, mask = address(em, e, mask_expr)
    base = em.env[e.base.symbol]
    tile = tb.broadcast_to(value, offsets.shape, loc=loc)
    TD.StoreOp(tile.value, base.value, offsets.value, mask.value if mask is not None else None, loc=loc)
