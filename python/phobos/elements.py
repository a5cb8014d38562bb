"""The numeric element types by name and where two of them meet (plain Python, no MLIR).

The kernel language (`phobos.frontend`) and the builder API (`phobos.builder`)
share these rules, so a kernel means the same whichever way it is written:

- f16 and bf16 meet at f32 (neither holds the other's values);
- two floats of different widths meet at the wider;
- a float and an integer meet at the float;
- two integers meet at the wider, and at equal width a declared integer type
  wins over `index` (`i64 + index` is `i64`, `i32 + index` is `index`) and an
  unsigned type over a signed one (`u32 + i32` is `u32`, `u8 + i8` is `u8`, as
  in C and Triton; `u8 + i32` is `i32`).

`u8` and `u32` are unsigned: in tile IR they are signless i8 and i32 whose
division, remainder, comparisons, right shifts, max/min and conversions use the
unsigned ops (`UNSIGNED`).

`bool` meets no number: it converts only by an explicit conversion.

The fp8 types `f8e4m3` and `f8e5m2` (`FP8`, phobos.fp8) are for storage and
conversion: they meet nothing in arithmetic (`promote` gives None; the checker
and the builder say to convert to f32 first).
"""

from __future__ import annotations

import math
import struct

from phobos import fp8

FLOATS = ("f16", "bf16", "f32", "f64")
INTS = ("i8", "u8", "i32", "u32", "i64", "index")
UNSIGNED = ("u8", "u32")
INT_WIDTH = {"i8": 8, "u8": 8, "i32": 32, "u32": 32, "i64": 64, "index": 64}
FLOAT_WIDTH = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}
FP8 = fp8.NAMES  # storage and conversion only
FP8_MAX = fp8.MAX  # the largest finite value of each
# What `dot` accumulates in, by the element type its operands meet at.
# The element types of kernel parameters a launch carries, by their names in the launch contract
# (i1 is bool; u8/u32 are signless i8/i32 marked tile.unsigned): tile-verify refuses others, the
# ABI (analysis/abi.py) describes these, and a contract naming another is malformed.
LAUNCH_DTYPES = ("f16", "bf16", "f32", "f64", "i1", "i8", "u8", "i32", "u32", "i64", "f8e4m3", "f8e5m2")
# Element types whose names in the IR and the launch contract are not the language's.
_SPELLINGS = {"i1": "bool", "f8E4M3FN": "f8e4m3", "f8E5M2": "f8e5m2"}


def language_name(name: str) -> str:
    """An element type's name (MLIR's, or the contract's dtype) as the language spells it."""
    return _SPELLINGS.get(name, name)


DOT_ACCUMULATOR = {"f16": "f32", "bf16": "f32", "f32": "f32", "f64": "f64", "i8": "i32", "i32": "i32", "i64": "i64"}
DOT_ACCUMULATOR["u8"] = "i32"  # u8 x u8: the tile.dot's operands carry tile.unsigned
DOT_ACCUMULATOR.update({"f8e4m3": "f32", "f8e5m2": "f32"})  # exact products, f32 sums


def promote(a: str, b: str) -> str | None:
    """The element type that typed elements `a` and `b` meet at in arithmetic;
    None where they do not meet (bool with a number)."""
    if a == b:
        return a
    if a not in FLOATS + INTS or b not in FLOATS + INTS:
        return None
    if a in FLOATS and b in FLOATS:
        if FLOAT_WIDTH[a] == FLOAT_WIDTH[b]:
            return "f32"  # f16 and bf16: neither holds the other's values
        return a if FLOAT_WIDTH[a] > FLOAT_WIDTH[b] else b
    if a in FLOATS:
        return a
    if b in FLOATS:
        return b
    if INT_WIDTH[a] != INT_WIDTH[b]:
        return a if INT_WIDTH[a] > INT_WIDTH[b] else b
    if a == "index" or b in UNSIGNED:
        return b
    return a


def is_unsigned(elem: str | None) -> bool:
    return elem in UNSIGNED


def is_fp8(elem: str | None) -> bool:
    return elem in FP8


def int_range(elem: str) -> tuple[int, int]:
    width = INT_WIDTH[elem]
    if elem in UNSIGNED:
        return 0, 2**width - 1
    return -(2 ** (width - 1)), 2 ** (width - 1) - 1


BF16_MAX = 3.3895313892515355e38


def _round_bf16(x: float) -> float:
    """x rounded to bf16 (8 significant bits, nearest even; subnormals below 2^-126)."""
    if x == 0 or not math.isfinite(x):
        return x
    mantissa, exponent = math.frexp(x)
    bits = 8 - max(0, -125 - exponent)  # fewer bits below the smallest normal 2^-126
    r = math.ldexp(round(math.ldexp(mantissa, bits)), exponent - bits)
    if abs(r) > BF16_MAX:
        raise OverflowError
    return r


def rounded(value: float, elem: str) -> float | None:
    """`value` rounded to the float type `elem` (nearest even); None where it overflows
    (an fp8 type saturates instead, as its conversions do)."""
    if elem in FP8:
        return fp8.round_value(value, elem)
    try:
        if elem == "f64":
            return float(value)
        if elem == "f16":
            return struct.unpack("<e", struct.pack("<e", value))[0]
        if elem == "bf16":
            return _round_bf16(value)
        return struct.unpack("<f", struct.pack("<f", value))[0]
    except OverflowError:
        return None


def exactly(value, elem: str) -> bool:
    """Whether the constant `value` (int, float or bool) is a value of `elem`."""
    if isinstance(value, bool) or elem not in FLOATS + INTS + FP8:
        return False
    if elem in FP8:  # NaN is one; an infinity only of f8e5m2 (a conversion saturates it, a constant keeps it)
        if math.isinf(value):
            return fp8.FORMATS[elem].infinities
        return math.isnan(value) or fp8.round_value(value, elem) == value
    try:
        return _exactly(value, elem)
    except OverflowError:
        return False


def _exactly(value, elem: str) -> bool:
    if elem in INTS:
        if isinstance(value, float) and not value.is_integer():
            return False
        lo, hi = int_range(elem)
        return math.isfinite(value) and lo <= value <= hi
    if not math.isfinite(value):
        return True
    if elem == "f64":
        return float(value) == value
    as_f32 = struct.unpack("<f", struct.pack("<f", value))[0]
    if as_f32 != value:
        return False
    if elem == "f16":
        return struct.unpack("<e", struct.pack("<e", as_f32))[0] == value
    if elem == "bf16":
        return _round_bf16(value) == value
    return True
