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

Lowering (gathers_ir.py: `address`, `load`, `store`). The access becomes the offset form of tile IR
(`tile.load`/`tile.store`): per tensor dimension a coordinate tile in the result's
shape (the index tile, or start + arange for a span, or the scalar), offsets
`((c0 * E1 + c1) * E2 + c2)...` in `index` (64-bit on the GPU: a table of 2^32
elements is addressed), and a mask `0 <= c < E` per dimension that is not proven in
bounds, and-ed with the user's mask. Out-of-bounds indices thus read zero and their
writes are dropped, as for slices. Later passes prove masks away where they can.
"""

from __future__ import annotations

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
        local = getattr(source, "local", False)  # an atomic's local tile (local_atomics.py)
        if not isinstance(source, A.Index) or not (local or isinstance(source.base.ty, T.Tensor)):
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
