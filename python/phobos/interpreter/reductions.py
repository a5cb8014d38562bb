"""Handlers of the ops that combine elements of a tile: dot, reduce and scan.

`tile.dot` accumulates f16/bf16/f32 products in f32 and f64 in f64 (operands
converted first; fp8 codes decoded, so their products are exact in f32 and
summed in f32 by numpy's matmul, in the order it chooses); integers accumulate
in the accumulator's type (wrapping, which equals a wide sum wrapped once); a
dot marked `tile.unsigned` reads its i8 operands as u8. Reductions and scans of 16-bit floats run in
float32 and round the results.
"""

from __future__ import annotations

import numpy as np

from phobos.interpreter import dtypes as D
from phobos.interpreter.errors import InterpreterError
from phobos.interpreter.table import handles


@handles("tile.dot")
def dot(op, cta, args):
    lhs, rhs = (D.read(x, t) for x, t in zip(args[:2], op.in_types[:2]))
    if "tile.unsigned" in op.attrs:  # u8 operands (signless i8 in the IR)
        lhs, rhs = (np.asarray(x, dtype=np.int8).view(np.uint8) for x in (lhs, rhs))
    acc = args[2]
    t = op.out
    if t.is_float:
        wide = np.float64 if t.dtype == "f64" else np.float32
    else:
        wide = np.int64
    product = np.matmul(np.asarray(lhs, dtype=wide), np.asarray(rhs, dtype=wide))
    return D.convert(np.asarray(acc, dtype=wide) + product, t)


_REDUCE = {"sum": np.sum, "max": np.max, "min": np.min, "prod": np.prod}
_SCAN = {"sum": np.cumsum, "max": np.maximum.accumulate, "min": np.minimum.accumulate, "prod": np.cumprod}


def _source(op, args, table):
    kind = op.attrs["kind"]
    if kind not in table:
        raise InterpreterError(f"{op.name} of kind '{kind}' is not supported (expected one of {', '.join(table)})")
    return table[kind], np.asarray(args[0], dtype=op.in_types[0].compute)


@handles("tile.reduce")
def reduce(op, cta, args):
    combine, source = _source(op, args, _REDUCE)
    return D.finish(combine(source, axis=op.attrs["axis"]), op.out)


@handles("tile.scan")
def scan(op, cta, args):
    combine, source = _source(op, args, _SCAN)
    return D.finish(combine(source, axis=op.attrs["axis"]), op.out)
