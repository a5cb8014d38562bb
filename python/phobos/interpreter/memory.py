"""Handlers of the tile loads and stores: the slice form and the offset form.

Slices clip to the tensor: elements outside it (below 0 or past the extent, in
any dimension) read as the load's fill value and are not written. Offsets
address the tensor by flat row-major element offsets; masked-off elements read
as the fill value and are not written, and an offset outside the tensor that is
not masked off is an error (an out-of-bounds access on the GPU). The fill value
is the load's `padding` attribute (`padded(X[...], -inf)`), zero without one.
Tensors are NumPy arrays of any strides; stores write into them in place.
"""

from __future__ import annotations

import numpy as np

from phobos.interpreter import dtypes as D
from phobos.interpreter.errors import InterpreterError
from phobos.interpreter.shapes import constant_value
from phobos.interpreter.table import handles, prepares


@prepares("tile.load_slice", "tile.load")
def prepare_fill(op):
    """The fill value, a scalar of the element type: `padding` ("-inf" comes as a string), else zero."""
    op.const = constant_value(op.attrs.get("padding", 0), D.ValueType(op.out.dtype))


def _filled(op, base):
    return np.full(op.out.shape, op.const, dtype=base.dtype)


def _windows(starts, shape, extents):
    """(tensor window, tile window) index tuples of the part of the tile inside the tensor, or None."""
    inside, within = [], []
    for start, length, extent in zip(starts, shape, extents):
        start = int(start)
        lo, hi = max(start, 0), min(start + length, extent)
        if lo >= hi:
            return None
        inside.append(slice(lo, hi))
        within.append(slice(lo - start, hi - start))
    return tuple(inside), tuple(within)


@handles("tile.load_slice")
def load_slice(op, cta, args):
    base, starts = args[0], args[1:]
    shape = op.out.shape
    windows = _windows(starts, shape, base.shape)
    if cta.coverage is not None and windows is not None:
        cta.coverage.window(base, windows[0], written=False)
    if windows is not None and windows[1] == tuple(slice(0, n) for n in shape):
        return base[windows[0]].copy()  # the whole tile is inside
    tile = _filled(op, base)
    if windows is not None:
        tile[windows[1]] = base[windows[0]]
    return tile


@handles("tile.store_slice")
def store_slice(op, cta, args):
    value, base, starts = args[0], args[1], args[2:]
    windows = _windows(starts, np.shape(value), base.shape)
    if windows is not None:
        if cta.races is not None:
            cta.races.window(base, windows[0], cta.block, op.loc)
        base[windows[0]] = value[windows[1]]
        if cta.coverage is not None:
            cta.coverage.window(base, windows[0], written=True)


def _active(op, base, offsets, mask):
    """The offsets to access (where the mask holds), checked against the tensor's size."""
    offsets = np.asarray(offsets).astype(np.int64, copy=False)
    offsets = offsets[np.asarray(mask)] if mask is not None else offsets.reshape(-1)
    if offsets.size and (offsets.min() < 0 or offsets.max() >= base.size):
        bad = offsets[(offsets < 0) | (offsets >= base.size)][0]
        verb = "reads" if op.name == "tile.load" else "writes"
        raise InterpreterError(
            f"{op.name} {verb} offset {int(bad)}, outside the tensor of {base.size} elements "
            f"(shape {list(base.shape)}); mask the access"
        )
    return offsets


def _flat(base):
    """A writable flat view of `base` (row-major), or None where its strides do not allow one."""
    if base.flags.c_contiguous:
        return base.reshape(-1)
    return None


@handles("tile.load")
def load(op, cta, args):
    base, offsets, mask = args[0], args[1], args[2] if len(args) > 2 else None
    active = _active(op, base, offsets, mask)
    if cta.coverage is not None:
        cta.coverage.offsets(base, active, written=False)
    flat = _flat(base)
    values = flat[active] if flat is not None else base[np.unravel_index(active, base.shape)]
    if mask is None:
        return values.reshape(op.out.shape)
    tile = _filled(op, base)
    tile[np.asarray(mask)] = values
    return tile


@handles("tile.store")
def store(op, cta, args):
    value, base, offsets, mask = args[0], args[1], args[2], args[3] if len(args) > 3 else None
    active = _active(op, base, offsets, mask)
    if cta.coverage is not None:
        cta.coverage.offsets(base, active, written=True)
    if cta.races is not None:
        cta.races.offsets(base, active, cta.block, op.loc)
    values = np.asarray(value)[np.asarray(mask)] if mask is not None else np.reshape(value, -1)
    flat = _flat(base)
    if flat is not None:
        flat[active] = values
    else:
        base[np.unravel_index(active, base.shape)] = values
