"""Element types of the portable program as NumPy dtypes, and rounding to them.

Storage: i1 -> bool, iN -> intN, index -> int64, f16 -> float16, f32, f64, and
bf16 -> float32 arrays whose values are all bf16 numbers (NumPy has no bf16).
Arithmetic on f16 and bf16 runs in float32 and rounds each result back
(`finish`), which is what the GPU's f32 units followed by a conversion give.
Integer arithmetic wraps around like the GPU's (NumPy's fixed-width integers do).
The fp8 types (f8e4m3, f8e5m2) are held as their 8-bit codes (uint8): loads and
stores move the codes, conversions decode and encode them (phobos.fp8: nearest
even, saturating, as the GPU's cvt.rn.satfinite), and nothing computes on them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from phobos import fp8

STORAGE = {
    "i1": np.dtype(np.bool_),
    "i8": np.dtype(np.int8),
    "i16": np.dtype(np.int16),
    "i32": np.dtype(np.int32),
    "i64": np.dtype(np.int64),
    "index": np.dtype(np.int64),
    "f16": np.dtype(np.float16),
    "bf16": np.dtype(np.float32),
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
    "f8e4m3": np.dtype(np.uint8),  # the codes
    "f8e5m2": np.dtype(np.uint8),
}

WIDTH = {"i1": 1, "i8": 8, "i16": 16, "i32": 32, "i64": 64, "index": 64, "f16": 16, "bf16": 16, "f32": 32, "f64": 64}
WIDTH.update({name: 8 for name in fp8.NAMES})

FLOATS = ("f16", "bf16", "f32", "f64", *fp8.NAMES)

_UNSIGNED = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}


@dataclass(frozen=True)
class ValueType:
    """One T of the program: an element type and a tile shape (None: a scalar) or a memref shape."""

    dtype: str
    shape: tuple | None = None
    memref: tuple | None = None

    @property
    def storage(self) -> np.dtype:
        return STORAGE[self.dtype]

    @property
    def compute(self) -> np.dtype:
        """The dtype arithmetic runs in: float32 for the 16-bit floats."""
        return np.dtype(np.float32) if self.dtype in ("f16", "bf16") else STORAGE[self.dtype]

    @property
    def is_float(self) -> bool:
        return self.dtype in FLOATS

    @property
    def width(self) -> int:
        return WIDTH[self.dtype]


def value_type(data: dict) -> ValueType:
    if data["dtype"] not in STORAGE:
        raise ValueError(f"unknown element type {data['dtype']!r}")
    shape = tuple(data["shape"]) if "shape" in data else None
    memref = tuple(data["memref"]) if "memref" in data else None
    return ValueType(data["dtype"], shape, memref)


def round_bf16(x):
    """float32 values rounded to the nearest bf16 (ties to even), NaN kept a (quiet) NaN."""
    x = np.asarray(x, dtype=np.float32)
    bits = x.view(np.uint32)
    rounded = (bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))) & np.uint32(0xFFFF0000)
    nan = (bits & np.uint32(0x7FFFFFFF)) > np.uint32(0x7F800000)
    quiet = (bits & np.uint32(0xFFFF0000)) | np.uint32(0x00400000)
    out = np.where(nan, quiet, rounded).view(np.float32)
    return out[()] if out.ndim == 0 else out


def finish(x, t: ValueType):
    """A value computed in `t.compute`, rounded and stored as `t`."""
    if t.dtype == "bf16":
        return round_bf16(x)
    storage = t.storage
    if getattr(x, "dtype", None) == storage:
        return x
    out = np.asarray(x).astype(storage)
    return out[()] if out.ndim == 0 else out


def read(x, t: ValueType):
    """The numbers a value of `t` holds: fp8 codes decoded (float32, exact), anything else as it is."""
    return fp8.decode(x, t.dtype) if t.dtype in fp8.NAMES else x


def convert(x, t: ValueType):
    """Any numeric value as `t`: floats round to nearest even (to fp8 saturating: its codes), integers
    wrap, i1 keeps the low bit."""
    if t.dtype in fp8.NAMES:
        return fp8.encode(np.asarray(x, dtype=np.float64), t.dtype)
    x = np.asarray(x)
    if t.dtype == "i1" and x.dtype != np.bool_:
        out = (x.astype(np.int64) & 1).astype(np.bool_) if x.dtype.kind in "iub" else x != 0
    elif t.dtype == "bf16":
        return round_bf16(x.astype(np.float32))
    else:
        out = x.astype(t.storage)
    return out[()] if out.ndim == 0 else out


def unsigned(x, t: ValueType):
    """The bits of an integer value read as an unsigned number (i1: 0 or 1)."""
    if t.dtype == "i1":
        return np.asarray(x).astype(np.uint8)
    return np.asarray(x).astype(_UNSIGNED[t.width])


def signed(x, t: ValueType):
    """An integer value as a signed number (i1: true is -1, as in MLIR)."""
    if t.dtype == "i1":
        return np.asarray(x).astype(np.int8) * np.int8(-1)
    return x


def scalar(value, t: ValueType):
    """A Python or NumPy number as a scalar of `t`; integers must fit the type (they are arguments)."""
    if t.is_float:
        return convert(np.float64(value), t)
    if t.dtype == "i1":
        return np.bool_(bool(value))
    info = np.iinfo(t.storage)
    as_int = int(value)
    if not info.min <= as_int <= info.max:
        raise ValueError(f"{as_int} does not fit {t.dtype}")
    return t.storage.type(as_int)
