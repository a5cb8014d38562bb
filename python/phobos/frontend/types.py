"""The front end's types (plain Python, no MLIR).

Scalars are named by their element type (`f32`, `i32`, `bool`, and `index`
for extents, block ids and loop counters). Integer and float literals start
out untyped (`INT_LITERAL`, `FLOAT_LITERAL`) and take the type of the other
operand; alone they default to `index` and `f32`.

Mixed element types meet by `promote`: f16 and bf16 at f32, a float with an
integer at the float, a narrower integer at the wider (at equal width a
declared integer type wins over `index`). `exactly` says whether a constant
converts to a type without changing its value (a scalar constant meets a tile
at the tile's element type when it does). Both rules live in `phobos.elements`,
which the builder API shares.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from phobos.elements import (  # noqa: F401  (the rules the builder shares)
    BF16_MAX,
    FLOAT_WIDTH,
    FLOATS,
    FP8,
    FP8_MAX,
    INT_WIDTH,
    INTS,
    UNSIGNED,
    exactly,
    int_range,
    is_fp8,
    is_unsigned,
    promote,
    rounded,
)

INT_LITERAL = "int literal"
FLOAT_LITERAL = "float literal"


class Type:
    pass


@dataclass(frozen=True)
class Scalar(Type):
    element: str

    def __str__(self) -> str:
        return self.element


@dataclass(frozen=True)
class Tile(Type):
    element: str
    shape: tuple[int, ...]

    def __str__(self) -> str:
        return f"tile<{self.element}>[{', '.join(map(str, self.shape))}]"


@dataclass(frozen=True)
class Tensor(Type):
    """A tensor parameter: `dims` as written, `static` the compile-time extents (None: runtime)."""

    element: str
    dims: tuple[str, ...]
    static: tuple[int | None, ...]

    @property
    def rank(self) -> int:
        return len(self.dims)

    def __str__(self) -> str:
        return f"tensor<{self.element}>[{', '.join(self.dims)}]"


@dataclass(frozen=True)
class Void(Type):
    def __str__(self) -> str:
        return "no value"


@dataclass(frozen=True)
class Builtin(Type):
    """A builtin function named as a value (only calling it means something)."""

    name: str

    def __str__(self) -> str:
        return f"builtin '{self.name}'"


@dataclass(frozen=True)
class Ctx(Type):
    """`ctx`, `ctx.block` or `ctx.grid` (only `.x/.y/.z` of the latter two are values)."""

    path: tuple[str, ...]

    def __str__(self) -> str:
        return ".".join(("ctx",) + self.path)


@dataclass(frozen=True)
class Error(Type):
    """The type of an expression already reported as wrong (silences follow-up errors)."""

    def __str__(self) -> str:
        return "<error>"


ERROR = Error()
VOID = Void()
INDEX = Scalar("index")
BOOL = Scalar("bool")


def is_value(t: Type) -> bool:
    return isinstance(t, (Scalar, Tile))


def element(t: Type) -> str | None:
    return t.element if isinstance(t, (Scalar, Tile, Tensor)) else None


def shape(t: Type) -> tuple[int, ...]:
    return t.shape if isinstance(t, Tile) else ()


def with_element(t: Type, elem: str) -> Type:
    return Tile(elem, t.shape) if isinstance(t, Tile) else Scalar(elem)


def make(elem: str, shape_: Sequence[int]) -> Type:
    return Tile(elem, tuple(shape_)) if len(shape_) else Scalar(elem)


def is_untyped(elem: str | None) -> bool:
    return elem in (INT_LITERAL, FLOAT_LITERAL)


def is_float(elem: str | None) -> bool:
    return elem in FLOATS or elem == FLOAT_LITERAL


def is_int(elem: str | None) -> bool:
    return elem in INTS or elem == INT_LITERAL


def is_numeric(elem: str | None) -> bool:
    return is_float(elem) or is_int(elem)


def default_element(elem: str) -> str:
    """The type an untyped literal takes when nothing else decides."""
    return {INT_LITERAL: "index", FLOAT_LITERAL: "f32"}.get(elem, elem)


def broadcast(a: Sequence[int], b: Sequence[int]) -> tuple[int, ...] | None:
    """NumPy's broadcast of two shapes; None if they do not broadcast."""
    rank = max(len(a), len(b))
    a = (1,) * (rank - len(a)) + tuple(a)
    b = (1,) * (rank - len(b)) + tuple(b)
    out = []
    for x, y in zip(a, b):
        if x != y and 1 not in (x, y):
            return None
        out.append(max(x, y))
    return tuple(out)


def fmt_shape(s: Sequence[int]) -> str:
    return "[" + ", ".join(map(str, s)) + "]"
