"""What the language allows on the fp8 types `f8e4m3` and `f8e5m2`: storage and conversion.

An fp8 value may be read from a tensor, stored into one, bound to a name,
passed to a conversion (`f32(x)`, `f8e4m3(x)`) and converted by an assignment
or a store, and be both operands of `dot`/`dot_t` (exact products summed in f32,
an f32 result). Computing on one otherwise (an operator, a builtin, a dot of an
fp8 tile with another type) is an error that says to convert it to f32 first
(the language's types section: math converts fp8 to f32 first). Conversions to
fp8 come from f16, bf16, f32, the other fp8 type, integers and bool; from f64
they are refused: the GPU converts from f32, and f64 through f32 would round
twice. Kernel parameters that are fp8 scalars are refused (pass an f32 and
convert it). The messages live here; the checker
asks at each place a value is used.
"""

from __future__ import annotations

from . import ast as A
from . import types as T

_HINT = "fp8 types are for storage and conversion; convert to f32 first, as in f32(x)"


def fp8_element(*types: T.Type) -> str | None:
    """The first fp8 element type among `types`, or None."""
    return next((e for e in map(T.element, types) if T.is_fp8(e)), None)


def operator_error(op: str, elem: str) -> str:
    return f"'{op}' is not defined on {elem} values: {_HINT}"


def accumulator_error(value: A.Expr, target: T.Type, name: str) -> str | None:
    """`name += dot(a, b)` on fp8 operands sums in the dot itself, in the target's type (as
    to_tile_ir.accumulates_into fuses it); fp8 dots sum only into f32. The message, else None."""
    if not (isinstance(value, A.Call) and value.builtin in ("dot", "dot_t") and len(value.args) == 2):
        return None
    elem = fp8_element(*(a.ty for a in value.args))
    ok_shape = isinstance(target, T.Tile) and isinstance(value.ty, T.Tile) and value.ty.shape == target.shape
    if elem is None or not ok_shape or not T.is_float(target.element) or target.element == "f32":
        return None
    return (
        f"'{name} += {value.builtin}(...)' sums in the dot itself, in {name}'s type {target.element}, "
        f"but a dot of {elem} operands sums only into f32: declare '{name}' as tile<f32>[...] and "
        f"convert it once after the loop (or write {name} += {target.element}({value.builtin}(...)))"
    )


def builtin_error(name: str, elem: str) -> str:
    if name in ("dot", "dot_t"):
        return (
            f"'{name}' takes {elem} operands only with each other (both {elem}): "
            "convert the other operand to its type, or both to f16, as in f16(a)"
        )
    return f"'{name}' does not take {elem} values: {_HINT}"


def conversion_error(src: str, dst: str) -> str | None:
    """Why a value of element type `src` cannot convert to `dst`, where fp8 is the reason; else None."""
    if src == "f64" and T.is_fp8(dst):
        return (
            f"f64 values do not convert to {dst} directly (the GPU converts from f32, and f64 through f32 "
            f"would round twice); convert to f32 first, as in {dst}(f32(x))"
        )
    return None


def scalar_param_error(name: str, elem: str) -> str:
    return f"kernel parameter '{name}' cannot be an {elem} scalar; pass an f32 and convert it, as in {elem}(x)"


def literal_range_error(value, elem: str) -> str:
    return f"the constant {value} is out of range for {elem} (its largest value is {T.FP8_MAX[elem]:g})"
