"""Handlers of `arith` and `math` on scalars and tiles, with the GPU's numerics.

Integers wrap around at their width; unsigned ops read the same bits unsigned.
Division truncates toward zero (C). A scalar divided by zero is an error; in a
tile the lanes with a zero divisor give all ones, as PTX's div does, since
masked-off lanes of a ragged edge divide by the zeros they read. Floats of 16
bits compute in float32 and round each result to their type (dtypes.finish);
comparisons follow MLIR's predicate numbers (ordered/unordered for floats).
"""

from __future__ import annotations

import numpy as np

from phobos.interpreter import dtypes as D
from phobos.interpreter.errors import InterpreterError
from phobos.interpreter.table import handles


def _wide(x, t: D.ValueType):
    """A float operand in the dtype its arithmetic runs in."""
    return x if t.compute == t.storage else np.asarray(x, dtype=t.compute)


def _float_op(fn):
    def handler(op, cta, args):
        t = op.out
        return D.finish(fn(*(_wide(a, t) for a in args)), t)

    return handler


def _int_op(fn):
    """fn on integers of the result's type; i1 computes in uint8 and keeps the low bit."""

    def handler(op, cta, args):
        if op.out.dtype == "i1":
            return D.convert(fn(*(np.asarray(a, dtype=np.uint8) for a in args)), op.out)
        return D.finish(fn(*args), op.out)

    return handler


def _unsigned_op(fn):
    """fn on the operands' bits read unsigned; the result has the bits of the result type."""

    def handler(op, cta, args):
        t = op.in_types[0]
        return D.convert(fn(*(D.unsigned(a, t) for a in args)), op.out)

    return handler


def _divided(op, a, b, fn):
    """fn(a, b) with the zero divisors handled: an error for a scalar, all ones in a tile's lane."""
    b = np.asarray(b)
    zero = b == 0
    if not zero.any():
        return fn(a, b)
    if b.ndim == 0:
        raise InterpreterError(f"{op.name}: division by zero")
    result = np.asarray(fn(a, np.where(zero, np.ones_like(b), b)))
    return np.where(zero, np.array(-1).astype(result.dtype), result)


# ----------------------------------------------------------------------------- integers

FLOAT_BINARY = {
    "arith.addf": np.add,
    "arith.subf": np.subtract,
    "arith.mulf": np.multiply,
    "arith.divf": np.divide,
    "arith.remf": np.fmod,
    "arith.maximumf": np.maximum,
    "arith.minimumf": np.minimum,
    "arith.maxnumf": np.fmax,
    "arith.minnumf": np.fmin,
    "math.powf": np.power,
    "math.atan2": np.arctan2,
    "math.copysign": np.copysign,
}

INT_BINARY = {
    "arith.addi": np.add,
    "arith.subi": np.subtract,
    "arith.muli": np.multiply,
    "arith.andi": np.bitwise_and,
    "arith.ori": np.bitwise_or,
    "arith.xori": np.bitwise_xor,
    "arith.maxsi": np.maximum,
    "arith.minsi": np.minimum,
}

for _name, _fn in FLOAT_BINARY.items():
    handles(_name)(_float_op(_fn))
for _name, _fn in INT_BINARY.items():
    handles(_name)(_int_op(_fn))
handles("arith.maxui")(_unsigned_op(np.maximum))
handles("arith.minui")(_unsigned_op(np.minimum))


def _truncated_quotient(a, b):
    return (a - np.fmod(a, b)) // b  # exact: a - fmod(a, b) is a multiple of b


@handles("arith.divsi")
def divsi(op, cta, args):
    return D.finish(_divided(op, *args, _truncated_quotient), op.out)


@handles("arith.remsi")
def remsi(op, cta, args):
    return D.finish(_divided(op, *args, np.fmod), op.out)


@handles("arith.floordivsi")
def floordivsi(op, cta, args):
    return D.finish(_divided(op, *args, np.floor_divide), op.out)


@handles("arith.ceildivsi")
def ceildivsi(op, cta, args):
    def ceil(a, b):
        return np.floor_divide(a, b) + (np.remainder(a, b) != 0)

    return D.finish(_divided(op, *args, ceil), op.out)


@handles("arith.divui", "arith.remui", "arith.ceildivui")
def unsigned_division(op, cta, args):
    a, b = (D.unsigned(x, op.in_types[0]) for x in args)
    if op.name == "arith.divui":
        return D.convert(_divided(op, a, b, np.floor_divide), op.out)
    if op.name == "arith.remui":
        return D.convert(_divided(op, a, b, np.remainder), op.out)
    return D.convert(_divided(op, a, b, lambda a, b: a // b + (a % b != 0)), op.out)


@handles("arith.shli", "arith.shrui", "arith.shrsi")
def shift(op, cta, args):
    t = op.in_types[0]
    value, amount = args[0], D.unsigned(args[1], t).astype(np.uint64)
    too_far = amount >= t.width  # the GPU's shifts clamp: all bits shifted out
    amount = np.minimum(amount, t.width - 1).astype(np.int64)
    if op.name == "arith.shrsi":
        return D.finish(np.right_shift(D.signed(value, t), amount), op.out)
    bits = D.unsigned(value, t)
    amount = amount.astype(bits.dtype)
    moved = np.left_shift(bits, amount) if op.name == "arith.shli" else np.right_shift(bits, amount)
    return D.convert(np.where(too_far, 0, moved), op.out)


# ----------------------------------------------------------------------------- floats


@handles("arith.negf")
def negf(op, cta, args):
    return np.negative(args[0])  # exact in every float type


MATH_UNARY = {
    "math.exp": np.exp,
    "math.exp2": np.exp2,
    "math.expm1": np.expm1,
    "math.log": np.log,
    "math.log2": np.log2,
    "math.log10": np.log10,
    "math.log1p": np.log1p,
    "math.sqrt": np.sqrt,
    "math.rsqrt": lambda x: 1 / np.sqrt(x),
    "math.tanh": np.tanh,
    "math.sin": np.sin,
    "math.cos": np.cos,
    "math.tan": np.tan,
    "math.atan": np.arctan,
    "math.absf": np.abs,
    "math.floor": np.floor,
    "math.ceil": np.ceil,
    "math.trunc": np.trunc,
    "math.roundeven": np.rint,
}

for _name, _fn in MATH_UNARY.items():
    handles(_name)(_float_op(_fn))


def _round_half_away(x):
    whole = np.trunc(x)
    return np.where(np.abs(x - whole) >= 0.5, whole + np.sign(x), whole)


handles("math.round")(_float_op(_round_half_away))


@handles("math.fma")
def fma(op, cta, args):
    t = op.out
    if t.dtype == "f64":
        return args[0] * args[1] + args[2]
    a, b, c = (np.asarray(x, dtype=np.float64) for x in args)  # f32 products are exact in f64
    return D.convert(a * b + c, t)


@handles("math.absi")
def absi(op, cta, args):
    return D.finish(np.abs(args[0]), op.out)  # abs(INT_MIN) wraps to INT_MIN, as on the GPU


# ----------------------------------------------------------------------------- comparisons and select

_CMPI = {
    0: np.equal,
    1: np.not_equal,
    2: np.less,
    3: np.less_equal,
    4: np.greater,
    5: np.greater_equal,
}


@handles("arith.cmpi")
def cmpi(op, cta, args):
    predicate, t = op.attrs["predicate"], op.in_types[0]
    if predicate >= 6:  # ult, ule, ugt, uge: the bits read unsigned
        a, b = (D.unsigned(x, t) for x in args)
        return _CMPI[predicate - 4](a, b)
    a, b = (D.signed(x, t) for x in args)
    return _CMPI[predicate](a, b)


def _unordered(a, b):
    return np.isnan(a) | np.isnan(b)


_CMPF = {
    1: np.equal,
    2: np.greater,
    3: np.greater_equal,
    4: np.less,
    5: np.less_equal,
    6: lambda a, b: np.less(a, b) | np.greater(a, b),
    7: lambda a, b: ~_unordered(a, b),
    8: lambda a, b: ~(np.less(a, b) | np.greater(a, b)),
    9: lambda a, b: ~np.less_equal(a, b),
    10: lambda a, b: ~np.less(a, b),
    11: lambda a, b: ~np.greater_equal(a, b),
    12: lambda a, b: ~np.greater(a, b),
    13: np.not_equal,
    14: _unordered,
}


@handles("arith.cmpf")
def cmpf(op, cta, args):
    predicate = op.attrs["predicate"]
    a, b = args
    if predicate in (0, 15):  # false, true
        return np.full(np.broadcast_shapes(np.shape(a), np.shape(b)), predicate == 15)[()]
    return _CMPF[predicate](a, b)


@handles("arith.select")
def select(op, cta, args):
    out = np.where(*args)
    return out[()] if out.ndim == 0 else out


# ----------------------------------------------------------------------------- conversions


@handles("arith.extsi", "arith.trunci", "arith.index_cast", "arith.extf", "arith.truncf")
def convert(op, cta, args):
    src = op.in_types[0]
    return D.convert(D.signed(D.read(args[0], src), src), op.out)


@handles("arith.extui", "arith.index_castui")
def convert_unsigned(op, cta, args):
    src = op.in_types[0]
    if src.width >= op.out.width:  # narrowing keeps the low bits either way
        return D.convert(args[0], op.out)
    return D.convert(D.unsigned(args[0], src), op.out)


@handles("arith.sitofp")
def sitofp(op, cta, args):
    return D.convert(D.signed(args[0], op.in_types[0]).astype(np.float64), op.out)


@handles("arith.uitofp")
def uitofp(op, cta, args):
    return D.convert(D.unsigned(args[0], op.in_types[0]).astype(np.float64), op.out)


def _float_to_int(x, lo, hi, t):
    """Truncation toward zero, saturating at [lo, hi] and NaN -> 0 (the GPU's cvt.rzi)."""
    x = np.clip(np.nan_to_num(np.trunc(np.asarray(x, dtype=np.float64)), nan=0.0), lo, hi)
    ints = x.astype(np.int64 if lo < 0 else np.uint64)
    return D.convert(np.where(x >= float(hi), hi, ints), t)  # float(hi) may round up past the range


@handles("arith.fptosi")
def fptosi(op, cta, args):
    t = op.out
    if t.dtype == "i1":
        return D.convert(_float_to_int(args[0], -1, 0, D.ValueType("i8")), t)
    info = np.iinfo(t.storage)
    return _float_to_int(args[0], info.min, info.max, t)


@handles("arith.fptoui")
def fptoui(op, cta, args):
    t = op.out
    return _float_to_int(args[0], 0, 2**t.width - 1, t)


@handles("arith.bitcast")
def bitcast(op, cta, args):
    src, dst = op.in_types[0], op.out
    bits = _bits(args[0], src)
    return _from_bits(bits, dst)


def _bits(x, t):
    x = np.asarray(x)
    if t.dtype == "bf16":
        return (x.astype(np.float32).view(np.uint32) >> np.uint32(16)).astype(np.uint16)
    return x.view(np.dtype(f"u{x.dtype.itemsize}"))


def _from_bits(bits, t):
    if t.dtype == "bf16":
        out = (bits.astype(np.uint32) << np.uint32(16)).view(np.float32)
    else:
        out = bits.view(t.storage)
    return out[()] if out.ndim == 0 else out
