"""Handlers of the ops that make values without arithmetic: constants, grid ids, ranges,
broadcasts, reshapes, transposes, element reads, hints and the @aligned entry check."""

from __future__ import annotations

import numpy as np

from phobos.interpreter import dtypes as D
from phobos.interpreter.errors import InterpreterError
from phobos.interpreter.table import handles, prepares


def constant_value(value, t: D.ValueType):
    """The value of an `arith.constant` attribute (a number, "inf"/"nan" string or a dense attribute)."""
    if isinstance(value, dict) and "dense" in value:
        dense = value["dense"]
        if "splat" in dense:
            out = np.full(t.shape, _number(dense["splat"]), dtype=np.float64 if t.is_float else None)
        else:
            out = np.array([_number(v) for v in dense["values"]]).reshape(t.shape)
        out = D.convert(out, t)
        out.flags.writeable = False
        return out
    return D.convert(_number(value), D.ValueType(t.dtype))


def _number(v):
    if isinstance(v, str):
        return float(v)  # "inf", "-inf", "nan"
    return v


@prepares("arith.constant")
def prepare_constant(op):
    op.const = constant_value(op.attrs["value"], op.out)


@handles("arith.constant")
def constant(op, cta, args):
    return op.const


@handles("tile.block_id")
def block_id(op, cta, args):
    return np.int64(cta.block[op.attrs["dim"]])


@handles("tile.grid_dim")
def grid_dim(op, cta, args):
    return np.int64(cta.grid[op.attrs["dim"]])


@handles("tile.range")
def tile_range(op, cta, args):
    return np.arange(op.attrs["start"], op.attrs["end"], dtype=op.out.storage)


@handles("tile.broadcast")
def broadcast(op, cta, args):
    return np.broadcast_to(args[0], op.out.shape)


@handles("tensor.splat")
def splat(op, cta, args):
    return np.broadcast_to(args[0], op.out.shape)


@handles("tile.convert_layout")
def convert_layout(op, cta, args):
    return args[0]  # the same tile: only where threads hold it changes


@handles("tile.transpose")
def transpose(op, cta, args):
    return np.transpose(args[0], op.attrs["permutation"])


@handles("tensor.expand_shape", "tensor.collapse_shape")
def reshape(op, cta, args):
    return np.reshape(args[0], op.out.shape)


@handles("tensor.extract")
def extract(op, cta, args):
    tile, indices = args[0], tuple(int(i) for i in args[1:])
    if any(not 0 <= i < n for i, n in zip(indices, tile.shape)):
        raise InterpreterError(f"tensor.extract at {list(indices)} is outside the tile of shape {list(tile.shape)}")
    return tile[indices]


@handles("tensor.from_elements")
def from_elements(op, cta, args):
    return np.array(args, dtype=op.out.storage).reshape(op.out.shape)


@handles("tensor.empty")
def empty(op, cta, args):
    return np.zeros(op.out.shape, dtype=op.out.storage)


@handles("tile.hint")
def hint(op, cta, args):
    return args[0]


@handles("tile.barrier")
def barrier(op, cta, args):
    return None  # the CTA's ops already run in order


@handles("tile.check_multiple")
def check_multiple(op, cta, args):
    value, divisor, symbol = int(args[0]), op.attrs["divisor"], op.attrs["symbol"]
    if value % divisor:
        raise InterpreterError(
            f"the @aligned promise {symbol} = {divisor} is broken: {symbol} = {value} is not a multiple of {divisor}"
        )
    return args[0]


@handles("memref.dim")
def memref_dim(op, cta, args):
    return np.int64(args[0].shape[int(args[1])])
