"""Handlers of tile.atomic_rmw, tile.atomic_cas and tile.local_rmw (a CTA-local tile's atomics).

An atomic applies to base.flat[offsets] element by element in row-major order of
the tile, where the mask holds; the result is each element's value just before its
own update (zero where masked off), so duplicate offsets in one tile accumulate and
see each other's updates as a sequence of single atomics would. CTAs run one after
another, so a launch applies its atomics in CTA order. An unmasked offset outside
the tensor is an error, as for tile.load/tile.store. Integer adds wrap; max and min
of floats follow NumPy's maximum/minimum (a NaN wins); cas compares bit patterns.
"""

from __future__ import annotations

import numpy as np

from phobos.interpreter.errors import InterpreterError
from phobos.interpreter.memory import _active, _flat
from phobos.interpreter.table import handles


def _apply(kind: str, old, value):
    if kind == "add":
        with np.errstate(over="ignore"):
            return old + value
    if kind == "max":
        return np.maximum(old, value)
    if kind == "min":
        return np.minimum(old, value)
    return value  # xchg


def _run(op, cta, base, offsets, mask, update):
    """Applies `update(i, old) -> new or None` to each active element i (row-major); returns the old values."""
    active = _active(op, base, offsets, mask)
    if cta.coverage is not None:
        cta.coverage.offsets(base, active, written=True)
    flat = _flat(base)
    view = flat if flat is not None else None
    positions = np.flatnonzero(np.asarray(mask).reshape(-1)) if mask is not None else np.arange(active.size)
    result = np.zeros(np.shape(offsets), dtype=base.dtype)
    out = result.reshape(-1)
    for i, off in zip(positions, active):
        where = off if view is not None else np.unravel_index(off, base.shape)
        old = view[where] if view is not None else base[where]
        out[i] = old
        new = update(i, old)
        if new is not None:
            if view is not None:
                view[where] = new
            else:
                base[where] = new
    return result


def _vectorised(op, cta, base, offsets, mask, kind, values):
    """The same result as `_run` without a Python loop, where it can be had exactly: distinct offsets
    (each element applied once), or integer adds (duplicates: exclusive running sums in order)."""
    flat = _flat(base)
    if flat is None:
        return None
    active = _active(op, base, offsets, mask)
    unique = np.unique(active).size == active.size
    if not unique and not (kind == "add" and np.issubdtype(base.dtype, np.integer)):
        return None
    if cta.coverage is not None:
        cta.coverage.offsets(base, active, written=True)
    positions = np.flatnonzero(np.asarray(mask).reshape(-1)) if mask is not None else np.arange(active.size)
    v = values[positions]
    result = np.zeros(np.shape(offsets), dtype=base.dtype)
    if unique:
        old = flat[active]
        flat[active] = _apply(kind, old, v)
    else:
        order = np.argsort(active, kind="stable")  # row-major order within each offset
        a, sv = active[order], v[order]
        with np.errstate(over="ignore"):
            running = np.cumsum(sv, dtype=base.dtype)
            starts = np.r_[True, a[1:] != a[:-1]]
            first = np.maximum.accumulate(np.where(starts, np.arange(a.size), 0))
            before = running - sv - (running[first] - sv[first])  # the group's sum before each element
            old = np.empty_like(sv)
            old[order] = flat[a] + before
            np.add.at(flat, active, v)
    result.reshape(-1)[positions] = old
    return result


@handles("tile.atomic_rmw")
def atomic_rmw(op, cta, args):
    value, base, offsets = args[0], args[1], args[2]
    mask = args[3] if len(args) > 3 else None
    kind = op.attrs["kind"]
    values = np.asarray(value, dtype=base.dtype).reshape(-1)
    fast = _vectorised(op, cta, base, offsets, mask, kind, values)
    if fast is not None:
        return fast
    return _run(op, cta, base, offsets, mask, lambda i, old: _apply(kind, old, values[i]))


@handles("tile.atomic_cas")
def atomic_cas(op, cta, args):
    compare, value, base, offsets = args[0], args[1], args[2], args[3]
    mask = args[4] if len(args) > 4 else None
    expected = np.asarray(compare, dtype=base.dtype).reshape(-1)
    desired = np.asarray(value, dtype=base.dtype).reshape(-1)

    def update(i, old):
        return desired[i] if old.tobytes() == expected[i].tobytes() else None

    return _run(op, cta, base, offsets, mask, update)


@handles("tile.local_rmw")
def local_rmw(op, cta, args):
    """A CTA's own tile updated in place of a copy: the tile is private, so only the order within the op
    matters, and add/max/min give the same result in any order (integer adds wrap)."""
    tile, value, offsets = args[0], args[1], args[2]
    mask = args[3] if len(args) > 3 else None
    out = np.array(tile, copy=True)
    offs = np.asarray(offsets).reshape(-1)
    values = np.broadcast_to(np.asarray(value, dtype=out.dtype), np.shape(offsets)).reshape(-1)
    if mask is not None:
        keep = np.asarray(mask).reshape(-1).astype(bool)
        offs, values = offs[keep], values[keep]
    if offs.size and (offs.min() < 0 or offs.max() >= out.size):
        bad = int(offs[(offs < 0) | (offs >= out.size)][0])
        raise InterpreterError(f"tile.local_rmw updates offset {bad}, outside the local tile of {out.size} elements")
    ufunc = {"add": np.add, "max": np.maximum, "min": np.minimum}[op.attrs["kind"]]
    with np.errstate(over="ignore"):
        ufunc.at(out, offs.astype(np.int64), values)
    return out
