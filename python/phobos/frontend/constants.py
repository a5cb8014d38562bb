"""Compile-time constants: folding arithmetic on constants, and the constant
length of an `a : b` slice (end minus start read as integer linear forms)."""

from __future__ import annotations

import math

from . import ast as A
from . import types as T

COMPARISONS = ("==", "!=", "<", "<=", ">", ">=")
LOGICAL = ("&&", "||")
BITWISE = ("&", "|", "^", "<<", ">>")


class FoldError(Exception):
    pass


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def fold(op: str, a, b, elem: str):
    """Folds `a op b` of constants; raises FoldError for division by zero."""
    if op in COMPARISONS:
        return {"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]
    if op == "&&":
        return bool(a and b)
    if op == "||":
        return bool(a or b)
    if op in BITWISE:
        return _fold_bits(op, int(a), int(b), elem)
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if b == 0:
        raise FoldError("division by zero in a constant expression")
    if T.is_float(elem):
        if op == "/":
            return a / b
        return math.fmod(a, b) if math.isfinite(a) else math.nan  # IEEE: inf % b is NaN
    q = _trunc_div(a, b)
    return q if op == "/" else a - b * q


def _fold_bits(op: str, a: int, b: int, elem: str) -> int:
    """Bit operators on integer constants (two's complement; a shift by the width or more,
    or by a negative amount, gives 0, or -1 for >> of a negative value, as the GPU's clamp)."""
    if op == "&":
        return a & b
    if op == "|":
        return a | b
    if op == "^":
        return a ^ b
    width = T.INT_WIDTH.get(elem, 64)
    if op == "<<":
        if not 0 <= b < width:
            return 0
        wrapped = (a << b) & ((1 << width) - 1)
        return wrapped - (1 << width) if wrapped >> (width - 1) else wrapped
    return a >> min(b, width - 1) if b >= 0 else (-1 if a < 0 else 0)


def constant_difference(end: A.Expr, start: A.Expr) -> int | None:
    """end - start if it is the same number for every value of the variables
    (both sides read as integer linear forms over opaque terms)."""
    a, b = _linear(end), _linear(start)
    if a is None or b is None:
        return None
    const = a[0] - b[0]
    terms = dict(a[1])
    for k, v in b[1].items():
        terms[k] = terms.get(k, 0) - v
    if any(v for v in terms.values()):
        return None
    return const


def _linear(e: A.Expr) -> tuple[int, dict[tuple, int]] | None:
    if not isinstance(e.ty, T.Scalar) or not T.is_int(e.ty.element):
        return None
    if isinstance(e.const, int) and not isinstance(e.const, bool):
        return e.const, {}
    if isinstance(e, A.Binary) and e.op in ("+", "-"):
        a, b = _linear(e.lhs), _linear(e.rhs)
        if a is None or b is None:
            return None
        sign = 1 if e.op == "+" else -1
        terms = dict(a[1])
        for k, v in b[1].items():
            terms[k] = terms.get(k, 0) + sign * v
        return a[0] + sign * b[0], terms
    if isinstance(e, A.Binary) and e.op == "*":
        for x, y in ((e.lhs, e.rhs), (e.rhs, e.lhs)):
            if isinstance(x.const, int) and not isinstance(x.const, bool):
                inner = _linear(y)
                if inner is None:
                    return None
                return x.const * inner[0], {k: x.const * v for k, v in inner[1].items()}
    if isinstance(e, A.Unary) and e.op == "-":
        inner = _linear(e.operand)
        if inner is None:
            return None
        return -inner[0], {k: -v for k, v in inner[1].items()}
    return 0, {_key(e): 1}


def _key(e) -> tuple:
    """A structural key: equal keys mean the same value at one program point."""
    if isinstance(e, A.Name):
        return ("name", id(e.symbol) if e.symbol is not None else e.name)
    if isinstance(e, (A.IntLit, A.FloatLit, A.BoolLit)):
        return ("lit", e.value)
    if isinstance(e, A.Binary):
        return ("bin", e.op, _key(e.lhs), _key(e.rhs))
    if isinstance(e, A.Unary):
        return ("un", e.op, _key(e.operand))
    if isinstance(e, A.Member):
        return ("member", _key(e.base), e.name)
    if isinstance(e, A.Call):
        return ("call", _key(e.callee), tuple(_key(a) for a in e.args))
    return ("node", id(e))
