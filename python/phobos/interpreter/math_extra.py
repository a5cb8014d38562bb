"""Handlers of the `math` ops that NumPy has no ufunc of one name for: erf and ctpop.

`math.erf` is computed in float64 (Python's math.erf, within an ulp or two of
float64) and rounded to the result's type once; `math.ctpop` counts the bits of
each integer read unsigned.
"""

from __future__ import annotations

import math

import numpy as np

from phobos.interpreter import dtypes as D
from phobos.interpreter.table import handles

_ERF = np.frompyfunc(math.erf, 1, 1)


@handles("math.erf")
def erf(op, cta, args):
    x = np.asarray(args[0], dtype=np.float64)
    return D.convert(np.asarray(_ERF(x), dtype=np.float64), op.out)


def _bit_count(bits: np.ndarray) -> np.ndarray:
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(bits)
    as_bytes = np.ascontiguousarray(bits).view(np.uint8).reshape(bits.shape + (bits.dtype.itemsize,))
    return np.unpackbits(as_bytes, axis=-1).sum(axis=-1)


@handles("math.ctpop")
def ctpop(op, cta, args):
    bits = np.asarray(D.unsigned(args[0], op.in_types[0]))
    return D.convert(_bit_count(bits).astype(np.int64), op.out)
