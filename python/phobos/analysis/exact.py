"""The exact axis-info facts of a concrete array (dense constants)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .lattice import MAX_DIVISOR, AxisInfo, pow2_divisor, pow2_part


def _lines(values: np.ndarray, d: int) -> np.ndarray:
    """The array as rows of its lines along dimension d."""
    moved = np.moveaxis(values, d, -1)
    return moved.reshape(-1, values.shape[d])


def _groups(lines: np.ndarray, size: int) -> np.ndarray:
    return lines.reshape(lines.shape[0], -1, size)


def _largest(n: int, holds) -> int:
    size = pow2_part(n)
    while size > 1 and not holds(size):
        size //= 2
    return size


def facts_of_array(values: Sequence[int], shape: Sequence[int]) -> AxisInfo:
    """The strongest facts that hold for `values` (row-major) of `shape`."""
    array = np.array([int(v) for v in values], dtype=object).reshape(tuple(shape))
    flat = array.reshape(-1)
    if all(v == flat[0] for v in flat):
        return AxisInfo.of_constant(int(flat[0]), shape)
    cs, ds, ks = [], [], []
    for d, n in enumerate(shape):
        lines = _lines(array, d)

        def contiguous(size, lines=lines):
            g = _groups(lines, size)
            return bool(np.all(g - g[:, :, :1] == np.arange(size, dtype=object)))

        def constant(size, lines=lines):
            g = _groups(lines, size)
            return bool(np.all(g == g[:, :, :1]))

        c = _largest(n, contiguous)
        bases = _groups(lines, c)[:, :, 0].reshape(-1)
        cs.append(c)
        ds.append(min([pow2_divisor(int(b)) for b in bases] + [MAX_DIVISOR]))
        ks.append(_largest(n, constant))
    return AxisInfo(tuple(cs), tuple(ds), tuple(ks), None, bool(all(v >= 0 for v in flat)))
