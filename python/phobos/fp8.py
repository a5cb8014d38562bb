"""The fp8 element types `f8e4m3` and `f8e5m2`: their values, and conversions to them as the GPU does them.

`f8e4m3` is OCP's E4M3 (MLIR's f8E4M3FN, torch.float8_e4m3fn): 4 exponent bits
(bias 7), 3 mantissa bits, no infinities, largest finite value 448, NaN only
S.1111.111. `f8e5m2` (f8E5M2, torch.float8_e5m2) is IEEE-like: 5 exponent bits
(bias 15), 2 mantissa bits, infinities, largest finite value 57344.

A conversion to fp8 rounds to the nearest value, ties to even, and saturates:
a value beyond the largest finite one, an infinity included, becomes the
largest finite value of its sign, as PTX's `cvt.rn.satfinite.e4m3x2.f32` does;
NaN stays NaN (the interpreter writes S.1111.111 for f8e4m3 and S.11111.10 for
f8e5m2; which NaN the GPU writes is not specified). A conversion from fp8 is
exact. Values travel as their 8-bit codes (numpy uint8).

No MLIR: the checker folds constants with `round_value`, the interpreter
converts arrays with `encode`/`decode`, and the runtime may run on a machine
with numpy alone.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Format:
    name: str
    exponent_bits: int
    mantissa_bits: int
    infinities: bool  # IEEE-like all-ones exponent (f8e5m2); else only S.1111.111 is NaN (f8e4m3)
    nan_code: int  # the NaN conversions write

    @property
    def bias(self) -> int:
        return (1 << (self.exponent_bits - 1)) - 1

    def value(self, code: int) -> float:
        """The value of the 8-bit `code`."""
        m = self.mantissa_bits
        sign = -1.0 if code & 0x80 else 1.0
        exponent, fraction = (code >> m) & ((1 << self.exponent_bits) - 1), code & ((1 << m) - 1)
        if self.infinities and exponent == (1 << self.exponent_bits) - 1:
            return sign * math.inf if fraction == 0 else math.nan
        if not self.infinities and code & 0x7F == 0x7F:
            return math.nan
        if exponent == 0:  # subnormal
            return sign * math.ldexp(fraction, 1 - self.bias - m)
        return sign * math.ldexp((1 << m) + fraction, exponent - self.bias - m)


FORMATS = {
    "f8e4m3": Format("f8e4m3", 4, 3, infinities=False, nan_code=0x7F),
    "f8e5m2": Format("f8e5m2", 5, 2, infinities=True, nan_code=0x7E),
}
NAMES = tuple(FORMATS)

# Per format: the value of each of the 256 codes, and the finite magnitudes in order of their
# codes (0x00 up to the largest finite value: a code's magnitude grows with the code).
VALUES = {name: [f.value(c) for c in range(256)] for name, f in FORMATS.items()}
_MAGNITUDES = {name: [v for v in values[:128] if math.isfinite(v)] for name, values in VALUES.items()}
MAX = {name: mags[-1] for name, mags in _MAGNITUDES.items()}  # 448.0 and 57344.0


def round_value(x: float, name: str) -> float:
    """`x` rounded to the fp8 type `name` as a conversion does (nearest even, saturating; NaN stays NaN)."""
    return VALUES[name][encode_one(x, name)]


def encode_one(x: float, name: str) -> int:
    """The code of `x` converted to `name` (see the module's docstring)."""
    if math.isnan(x):
        return FORMATS[name].nan_code
    mags = _MAGNITUDES[name]
    a = min(abs(x), mags[-1])  # saturate, infinities included
    hi = bisect.bisect_left(mags, a)
    if mags[hi] != a:
        lo = hi - 1
        mid = (mags[lo] + mags[hi]) / 2  # exact: neighbours differ by one unit of a short mantissa
        if a < mid or (a == mid and lo % 2 == 0):  # the even code has a zero last mantissa bit
            hi = lo
    return hi | (0x80 if math.copysign(1.0, x) < 0 else 0)


_ARRAYS: dict[str, tuple[Any, Any]] = {}


def _tables(name: str) -> tuple[Any, Any]:
    """(value of each code as float32, the finite magnitudes as float64) of `name`, built once."""
    import numpy as np  # here: the checker folds constants without importing numpy

    if name not in _ARRAYS:
        _ARRAYS[name] = (np.array(VALUES[name], dtype=np.float32), np.array(_MAGNITUDES[name], dtype=np.float64))
    return _ARRAYS[name]


def decode(codes, name: str):
    """The values (float32, exact) of an array or scalar of 8-bit codes of `name`."""
    import numpy as np

    out = _tables(name)[0][np.asarray(codes, dtype=np.uint8)]
    return out[()] if out.ndim == 0 else out


def encode(x, name: str):
    """The codes (uint8) of float values `x` (any float dtype, read exactly) converted to `name`."""
    import numpy as np

    x = np.asarray(x, dtype=np.float64)
    mags = _tables(name)[1]
    nan = np.isnan(x)
    a = np.minimum(np.abs(np.where(nan, 0.0, x)), mags[-1])
    hi = np.searchsorted(mags, a, side="left")
    lo = np.maximum(hi - 1, 0)
    mid = (mags[lo] + mags[hi]) / 2
    up = (a > mid) | ((a == mid) & (lo % 2 == 1))
    code = np.where((mags[hi] == a) | up, hi, lo).astype(np.uint8)
    code |= np.where(np.signbit(x), np.uint8(0x80), np.uint8(0))
    out = np.where(nan, np.uint8(FORMATS[name].nan_code), code).astype(np.uint8)
    return out[()] if out.ndim == 0 else out
