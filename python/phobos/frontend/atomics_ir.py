"""The tile IR of the atomics (see atomics.py): tile.atomic_rmw / tile.atomic_cas at the offsets
and mask a gather would use. Apart from atomics.py so that checking a program never imports MLIR."""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, tensor

from phobos import builder as tb
from phobos.dialect import tile as TD

from . import ast as A
from . import gathers, gathers_ir
from . import types as T


def lower_atomic(em, e: A.Call, unused: bool) -> tb.Value | None:
    """The tile IR of a checked atomic call: the old values, or None where `unused`."""
    loc = em.loc(e.pos)
    target, *values = e.args
    access, mask_expr = gathers.unwrap_masked(target)
    elem = access.ty.element
    single = isinstance(access.ty, T.Scalar)
    if not hasattr(access, "index_shape"):
        access.index_shape = ()
    if single:
        # One element: a tile of one element at the element's offset.
        access = gathers_ir.one_element_view(access)
    offsets, mask = gathers_ir.address(em, access, mask_expr)
    shape = offsets.shape
    base = em.env[access.base.symbol].value
    tiles = [tb.broadcast_to(em.lower_as(v, T.Scalar(elem)), shape, loc=loc).value for v in values]
    m = mask.value if mask is not None else None
    info = e.atomic
    if info["kind"] == "cas":
        op = TD.AtomicCASOp(*tiles, base, offsets.value, m, sem=info["sem"], scope=info["scope"], loc=loc)
    else:
        kind = info["kind"]
        op = TD.AtomicRMWOp(kind, tiles[0], base, offsets.value, m, sem=info["sem"], scope=info["scope"], loc=loc)
    if unused:
        return None
    if single:
        zero = arith.ConstantOp(ir.IndexType.get(), 0, loc=loc).result
        return tb.Value(tensor.ExtractOp(op.result, [zero], loc=loc).result)
    return tb.Value(op.result)


def lower_local_atomic(em, e: A.Call) -> None:
    """`atomic_op(masked(h[v], m), value)` on a local tile: tile.local_rmw, its result the variable's new value."""
    loc = em.loc(e.pos)
    target, value = e.args
    access, mask_expr = gathers.unwrap_masked(target)
    sym = access.base.symbol
    tile = em.env[sym]
    shape = list(access.index_shape)
    index = ir.IndexType.get()
    offsets = tb.broadcast_to(tb.convert(em.lower_expr(access.subscripts[0].start), index, loc=loc), shape, loc=loc)
    extent = tb.constant(sym.ty.shape[0], index, loc=loc)
    mask = gathers_ir.in_range(offsets, extent, loc)  # indices outside the tile are dropped
    if mask_expr is not None:
        user = tb.broadcast_to(em.lower_expr(mask_expr), shape, loc=loc)
        mask = tb.binary("and", mask, user, loc=loc)
    values = tb.broadcast_to(em.lower_as(value, T.Scalar(sym.ty.element)), shape, loc=loc)
    op = TD.LocalRMWOp(e.atomic["kind"], tile.value, values.value, offsets.value, mask.value, loc=loc)
    em.env[sym] = tb.Value(op.result)
