"""Checks of the math builtins of issue 29: elementwise functions of several operands
(`pow`, `fma`, `clamp`), float classification (`isnan`, `isinf`), index reductions
(`argmax`, `argmin`, `rowargmax`, `rowargmin`), `iota` and `popcount`.

A mixin of BuiltinChecks (it uses the Checker's `error`, `fits`, `unify_elements`,
`tile_type`, and BuiltinChecks' `arity`, `tile_arg`, `constant_axis`, `call_arange`).
The one-operand float functions (`erf`, `exp2`, `sin`, ...) are checked with
`exp` and `log` (builtins.call_generic); their names are in UNARY_FLOAT.
"""

from __future__ import annotations

from . import ast as A
from . import types as T
from .ast import start_pos

# One float operand, a result of its type (an untyped literal is an f32).
UNARY_FLOAT = ("erf", "exp2", "log2", "log1p", "expm1", "rsqrt", "sigmoid", "floor", "ceil", "round", "sin", "cos")
MATH_BUILTINS = UNARY_FLOAT + (
    "pow",
    "fma",
    "clamp",
    "isnan",
    "isinf",
    "argmax",
    "argmin",
    "rowargmax",
    "rowargmin",
    "iota",
    "popcount",
)


class MathChecks:
    def meet(self, e: A.Call, name: str, ts: list[T.Type]) -> tuple[str, tuple] | None:
        """The element type and the broadcast shape all operands of `name` meet at, as in
        arithmetic; untyped constants must fit it."""
        elem, shape = ts[0].element, T.shape(ts[0])
        acc = ts[0]
        for i in range(1, len(ts)):
            lhs = e.args[0] if i == 1 else None
            joined = self.unify_elements(e.callee.pos, f"'{name}'", acc, ts[i], lhs, e.args[i])
            if joined is None:
                return None
            shape = T.broadcast(shape, T.shape(ts[i]))
            if shape is None:
                self.error(e.callee.pos, f"the operands of '{name}' do not broadcast: {', '.join(map(str, ts))}")
                return None
            elem = joined
            acc = T.make(elem, shape)
        for arg in e.args:
            if not self.fits(arg, elem):
                return None
        return elem, shape

    def float_operands(self, e: A.Call, name: str, ts: list[T.Type], count: int) -> T.Type:
        """`name` of `count` float operands that meet at one type: the result has it."""
        if not self.arity(e, name, ts, count):
            return T.ERROR
        met = self.meet(e, name, ts)
        if met is None:
            return T.ERROR
        elem, shape = met
        if T.is_untyped(elem):
            elem = "f32"
        if not T.is_float(elem):
            shown = ", ".join(map(str, ts))
            return self.error(
                e.callee.pos, f"'{name}' needs float operands, got {shown} (convert with f32(...) or write a float)"
            )
        e.operand_element = elem
        return self.tile_type(elem, shape, e.pos)

    def call_pow(self, e, ts):
        return self.float_operands(e, "pow", ts, 2)

    def call_fma(self, e, ts):
        return self.float_operands(e, "fma", ts, 3)

    def call_clamp(self, e, ts):
        """clamp(x, lo, hi): min(max(x, lo), hi) elementwise, for numbers of any type."""
        if not self.arity(e, "clamp", ts, 3):
            return T.ERROR
        met = self.meet(e, "clamp", ts)
        if met is None:
            return T.ERROR
        elem, shape = met
        if not T.is_numeric(elem):
            return self.error(e.callee.pos, f"'clamp' needs numeric operands, got {', '.join(map(str, ts))}")
        elem = T.default_element(elem)
        e.operand_element = elem
        return self.tile_type(elem, shape, e.pos)

    def call_isnan(self, e, ts, name="isnan"):
        if not self.arity(e, name, ts, 1):
            return T.ERROR
        elem = ts[0].element
        if not T.is_float(elem):
            return self.error(e.args[0].pos, f"'{name}' needs a float operand, got {ts[0]}")
        e.operand_element = T.default_element(elem)
        return T.with_element(ts[0], "bool")

    def call_isinf(self, e, ts):
        return self.call_isnan(e, ts, "isinf")

    def call_argmax(self, e, ts, name="argmax"):
        """argmax(x): the i32 index of the largest element in the tile flattened row-major;
        argmax(x, axis): the i32 indices along `axis`, which leaves the shape."""
        if not self.arity(e, name, ts, 1, 2) or not self.tile_arg(e, name, ts[0], e.args[0]):
            return T.ERROR
        e.axis = None
        shape = ()
        if len(ts) == 2:
            e.axis = self.constant_axis(e, name, ts)
            if e.axis is None:
                return T.ERROR
            shape = ts[0].shape[: e.axis] + ts[0].shape[e.axis + 1 :]
        return self.index_result(e, name, ts[0], shape)

    def index_result(self, e: A.Call, name: str, ty: T.Tile, shape) -> T.Type:
        count = 1
        for d in ty.shape:
            count *= d
        if count > 2**31 - 1:
            return self.error(start_pos(e.args[0]), f"'{name}' gives i32 indices; {ty} has too many elements")
        return T.make("i32", shape)

    def call_argmin(self, e, ts):
        return self.call_argmax(e, ts, "argmin")

    def call_rowargmax(self, e, ts, name="rowargmax"):
        """rowargmax(x): the i32 index of each row's largest element, [R, C] -> [R, 1]."""
        if not self.arity(e, name, ts, 1) or not self.tile_arg(e, name, ts[0], e.args[0]):
            return T.ERROR
        e.axis = len(ts[0].shape) - 1
        return self.index_result(e, name, ts[0], ts[0].shape[:-1] + (1,))

    def call_rowargmin(self, e, ts):
        return self.call_rowargmax(e, ts, "rowargmin")

    def call_iota(self, e, ts):
        """iota(n): the original's name of arange(n) (lowered as arange)."""
        e.builtin = "arange"
        return self.call_arange(e, ts, "iota")

    def call_popcount(self, e, ts):
        """popcount(x): the number of bits set in each integer, of the operand's type."""
        if not self.arity(e, "popcount", ts, 1):
            return T.ERROR
        elem = ts[0].element
        if not T.is_int(elem):
            return self.error(e.args[0].pos, f"'popcount' needs an integer operand, got {ts[0]}")
        if T.is_untyped(elem) or elem == "index":
            return self.error(
                e.args[0].pos,
                f"'popcount' needs an integer of a stated width, got {ts[0]}: write popcount(i32(...)) or "
                f"popcount(i64(...))",
            )
        return ts[0]
