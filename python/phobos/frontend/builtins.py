"""Checks of builtin calls: arity, operand types and shapes, result types.

A mixin of the Checker (it uses its `value`, `error`, `fits`,
`unify_elements`, `tile_type` and `checked_const`). `call_<name>` checks
builtin <name>; `call_generic` the elementwise math and the conversions.
"""

from __future__ import annotations

import math

from phobos.elements import DOT_ACCUMULATOR  # shared with the builder's dot

from . import ast as A
from . import types as T
from .ast import start_pos
from .atomics import ATOMICS, AtomicChecks
from .fp8_rules import builtin_error, conversion_error, fp8_element
from .math_builtins import MATH_BUILTINS, UNARY_FLOAT, MathChecks
from .quantized import QUANTIZED, QuantizedChecks

CONVERSIONS = ("f16", "bf16", "f32", "f64", "f8e4m3", "f8e5m2", "i8", "u8", "i32", "u32", "i64")
ELEMENTWISE_FLOAT = ("exp", "log", "sqrt", "tanh") + UNARY_FLOAT
BUILTINS = frozenset(
    (
        "dot",
        "dot_t",
        "abs",
        "tmax",
        "tmin",
        "where",
        "sum",
        "max",
        "min",
        "rowsum",
        "rowmax",
        "rowmin",
        "transpose",
        "cumsum",
        "tril",
        "arange",
        "barrier",
        "grid_barrier",
        "program_id",
        "padded",
        "masked",
    )
    + ELEMENTWISE_FLOAT
    + CONVERSIONS
    + MATH_BUILTINS
    + ATOMICS
    + QUANTIZED
)
# Named constants: ordinary identifiers (a declaration of the same name hides them).
CONSTANTS = {"inf": math.inf}


class BuiltinChecks(MathChecks, AtomicChecks, QuantizedChecks):
    def check_call(self, e: A.Call) -> T.Type:
        callee = self.check_expr(e.callee)
        if callee == T.ERROR:
            for arg in e.args:
                self.check_expr(arg)
            return T.ERROR
        if not isinstance(callee, T.Builtin):
            what = f"'{e.callee.name}'" if isinstance(e.callee, A.Name) else "this expression"
            for arg in e.args:
                self.check_expr(arg)
            return self.error(e.callee.pos, f"{what} is not a function (it is {callee})")
        name = callee.name
        e.builtin = name
        if name in QUANTIZED:  # its arguments are slices whose K may be a runtime extent: not values
            return self.call_quantized(e, name)
        if name in ATOMICS:
            self.mark_local_target(e)
        arg_types = [self.value(arg) for arg in e.args]
        if not self.check_keywords_allowed(e):
            return T.ERROR
        if any(t == T.ERROR for t in arg_types):
            return T.ERROR
        if fp8_element(*arg_types) and name not in CONVERSIONS + ("padded", "masked", "dot", "dot_t"):
            return self.error(e.callee.pos, builtin_error(name, fp8_element(*arg_types)))
        method = getattr(self, "call_" + name, None)
        if method is None:
            return self.call_generic(e, name, arg_types)
        return method(e, arg_types)

    def arity(self, e: A.Call, name: str, types_, lo: int, hi: int | None = None) -> bool:
        hi = lo if hi is None else hi
        n = len(types_)
        if lo <= n <= hi:
            return True
        want = f"{lo}" if lo == hi else f"{lo} or {hi}"
        self.error(e.callee.pos, f"'{name}' expects {want} argument{'s' * (hi != 1)}, got {n}")
        return False

    def tile_arg(
        self, e: A.Call, name: str, ty: T.Type, arg: A.Expr, rank: int | None = None, numeric: bool = True
    ) -> bool:
        if not isinstance(ty, T.Tile):
            self.error(arg.pos, f"'{name}' expects a tile, got {ty}")
            return False
        if rank is not None and len(ty.shape) != rank:
            self.error(arg.pos, f"'{name}' expects a {rank}-D tile, got {ty}")
            return False
        if numeric and not T.is_numeric(ty.element):
            self.error(arg.pos, f"'{name}' expects a numeric tile, got {ty}")
            return False
        return True

    def call_generic(self, e: A.Call, name: str, ts: list[T.Type]) -> T.Type:
        if name in ELEMENTWISE_FLOAT:
            if not self.arity(e, name, ts, 1):
                return T.ERROR
            ty = ts[0]
            if ty.element == T.INT_LITERAL or ty.element == T.FLOAT_LITERAL:
                return T.Scalar("f32")
            if not T.is_float(ty.element):
                return self.error(e.args[0].pos, f"'{name}' needs a float operand, got {ty}")
            return ty
        if name in CONVERSIONS:
            if not self.arity(e, name, ts, 1):
                return T.ERROR
            ty = ts[0]
            src = ty.element
            if not (T.is_numeric(src) or src == "bool" or T.is_fp8(src)):
                return self.error(e.args[0].pos, f"cannot convert {ty} to {name}")
            why = conversion_error(src, name)
            if why:
                return self.error(e.args[0].pos, f"cannot convert {ty} to {name}: {why}")
            const = e.args[0].const
            if const is not None and isinstance(ty, T.Scalar) and (T.is_int(name) or T.is_untyped(src)):
                # Fold: integer results may size slices; literals need a type anyway.
                if T.is_float(name) or T.is_fp8(name):
                    # The constant is the converted value (f16(0.1) is 0.0999755859375).
                    value = T.rounded(float(const), name)
                    e.const = value if value is not None and math.isfinite(value) else float(const)
                    return T.Scalar(name)
                if isinstance(const, float) and not math.isfinite(const):
                    return self.error(e.args[0].pos, f"cannot convert {const} to {name}")
                e.const = int(math.trunc(const)) if isinstance(const, float) else int(const)
                return self.checked_const(e, T.Scalar(name))
            return T.with_element(ty, name)
        raise AssertionError(name)

    def call_dot(self, e: A.Call, ts: list[T.Type], transposed: bool = False) -> T.Type:
        name = "dot_t" if transposed else "dot"
        if not self.arity(e, name, ts, 2):
            return T.ERROR
        fp8 = fp8_element(*ts)  # fp8 tiles are dot operands (exact products, f32 sums) but not numeric
        if not all(self.tile_arg(e, name, t, a, rank=2, numeric=fp8 is None) for t, a in zip(ts, e.args)):
            return T.ERROR
        a, b = ts
        (m, k), (k2, n) = a.shape, (b.shape[::-1] if transposed else b.shape)
        if k != k2:
            if transposed:
                return self.error(
                    e.callee.pos,
                    f"dot_t shapes do not agree: {T.fmt_shape(a.shape)} x "
                    f"{T.fmt_shape(b.shape)} (dot_t(a, b) needs a: [M, K] and b: [N, K])",
                )
            return self.error(e.callee.pos, f"dot shapes do not agree: {T.fmt_shape(a.shape)} x {T.fmt_shape(b.shape)}")
        # Operands of different types meet as in arithmetic (f16 with bf16 at
        # f32, an integer with a float at the float); the lowering converts both,
        # so that tile.dot multiplies operands of one element type.
        elem = T.promote(a.element, b.element)
        if fp8 is not None:
            if a.element != b.element:
                return self.error(e.callee.pos, builtin_error(name, fp8))
            elem = fp8
        for t, arg in zip(ts, e.args):
            if t.element not in DOT_ACCUMULATOR:
                return self.error(arg.pos, f"'{name}' is not defined on {t.element} tiles")
        e.operand_element = elem
        return self.tile_type(DOT_ACCUMULATOR[elem], (m, n), e.pos)

    def call_dot_t(self, e, ts):
        return self.call_dot(e, ts, transposed=True)

    def warn_half_dot(self, name: str, value: A.Expr) -> None:
        """Warns where a dot of two f16 (or two bf16) tiles is bound without a type: here
        it is an f32 tile, summed in f32, while the original Phobos's SPEC.md makes it a
        tile of the operands' type, summed in it (without @tensorcore), so the same
        line silently computes at another precision."""
        if not (isinstance(value, A.Call) and getattr(value, "builtin", None) in ("dot", "dot_t")):
            return
        elem = getattr(value, "operand_element", None)
        if elem not in ("f16", "bf16") or {T.element(a.ty) for a in value.args} != {elem}:
            return
        self.warn(
            start_pos(value),
            f"'{value.builtin}' of {elem} tiles makes '{name}' an f32 tile (summed in f32); in the original "
            f"Phobos it is {'an' if elem == 'f16' else 'a'} {elem} tile (summed in {elem} without @tensorcore): "
            f"declare the type "
            f"('let {name}: tile<f32>[...]' or 'tile<{elem}>[...]') to say which",
        )

    def call_abs(self, e, ts):
        if not self.arity(e, "abs", ts, 1):
            return T.ERROR
        if not T.is_numeric(ts[0].element):
            return self.error(e.args[0].pos, f"'abs' needs a numeric operand, got {ts[0]}")
        if e.args[0].const is not None:
            e.const = abs(e.args[0].const)
            return self.checked_const(e, ts[0])
        return ts[0]

    def _elementwise(self, e: A.Call, name: str, args: list[A.Expr], ts: list[T.Type]) -> tuple[str, tuple] | None:
        """The element type and shape two operands meet at (as in arithmetic)."""
        (lt, rt), (lhs, rhs) = ts, args
        elem = self.unify_elements(e.callee.pos, f"'{name}'", lt, rt, lhs, rhs)
        if elem is None:
            return None
        shape = T.broadcast(T.shape(lt), T.shape(rt))
        if shape is None:
            self.error(e.callee.pos, f"the operands of '{name}' do not broadcast: {', '.join(str(t) for t in ts)}")
            return None
        for arg in args:
            if not self.fits(arg, elem):
                return None
        return elem, shape

    def call_tmax(self, e, ts, name="tmax"):
        """tmax(a, b) (or max(a, b), name "max"): the elementwise maximum; tmin, min the minimum."""
        if not self.arity(e, name, ts, 2):
            return T.ERROR
        unified = self._elementwise(e, name, e.args, ts)
        if unified is None:
            return T.ERROR
        elem, shape = unified
        if not T.is_numeric(elem):
            return self.error(e.callee.pos, f"'{name}' needs numeric operands, got {ts[0]} and {ts[1]}")
        a, b = e.args[0].const, e.args[1].const
        if a is not None and b is not None and not shape and (T.is_untyped(elem) or T.is_int(elem)):
            e.const = max(a, b) if name in ("tmax", "max") else min(a, b)
        else:
            elem = T.default_element(elem)
        e.operand_element = elem
        return self.tile_type(elem, shape, e.pos)

    def call_tmin(self, e, ts):
        return self.call_tmax(e, ts, "tmin")

    def call_where(self, e, ts):
        if not self.arity(e, "where", ts, 3):
            return T.ERROR
        if ts[0].element != "bool":
            return self.error(e.args[0].pos, f"the condition of 'where' must be bool, got {ts[0]}")
        unified = self._elementwise(e, "where", e.args[1:], ts[1:])
        if unified is None:
            return T.ERROR
        elem, shape = unified
        shape = T.broadcast(shape, T.shape(ts[0]))
        if shape is None:
            return self.error(e.callee.pos, f"the operands of 'where' do not broadcast: {', '.join(map(str, ts))}")
        elem = T.default_element(elem)
        e.operand_element = elem
        return self.tile_type(elem, shape, e.pos)

    def call_sum(self, e, ts, name="sum"):
        if not self.arity(e, name, ts, 1, 2):
            return T.ERROR
        if not self.tile_arg(e, name, ts[0], e.args[0]):
            return T.ERROR
        shape = ts[0].shape
        if len(ts) == 1:
            return T.Scalar(ts[0].element)
        axis = e.args[1].const
        if not isinstance(axis, int) or isinstance(axis, bool) or not T.is_int(ts[1].element):
            return self.error(e.args[1].pos, f"the axis of '{name}' must be an integer constant")
        if not 0 <= axis < len(shape):
            return self.error(e.args[1].pos, f"axis {axis} is out of range for {ts[0]}")
        e.axis = axis
        return T.make(ts[0].element, shape[:axis] + shape[axis + 1 :])

    def call_rowsum(self, e, ts, name="rowsum"):
        if not self.arity(e, name, ts, 1) or not self.tile_arg(e, name, ts[0], e.args[0]):
            return T.ERROR
        return T.Tile(ts[0].element, ts[0].shape[:-1] + (1,))

    def call_max(self, e, ts, name="max"):
        """max(x) and max(x, axis) reduce; max(a, b) of two values that are not a tile and an
        integer constant is the elementwise maximum (tmax), as numpy's and Triton's users write it."""
        if self.elementwise(e, ts):
            e.builtin = "tmax" if name == "max" else "tmin"
            return self.call_tmax(e, ts, name)
        return self.call_sum(e, ts, name)

    def call_min(self, e, ts):
        return self.call_max(e, ts, "min")

    @staticmethod
    def elementwise(e, ts) -> bool:
        """Whether max/min of `ts` is elementwise: two operands, unless a tile and an
        integer constant (an axis: max(x, 1) reduces along axis 1; tmax(x, 1) is elementwise)."""
        if len(ts) != 2:
            return False
        axis_like = isinstance(ts[1], T.Scalar) and T.is_int(ts[1].element) and isinstance(e.args[1].const, int)
        return not (axis_like and isinstance(ts[0], T.Tile) and not isinstance(e.args[1].const, bool))

    def call_rowmax(self, e, ts):
        return self.call_rowsum(e, ts, "rowmax")

    def call_rowmin(self, e, ts):
        return self.call_rowsum(e, ts, "rowmin")

    def call_cumsum(self, e, ts):
        """cumsum(x[, axis]): the inclusive prefix sum along `axis`, by default 0 (down
        the rows, the sequence axis), as the original Phobos and Triton's tl.cumsum."""
        if not self.arity(e, "cumsum", ts, 1, 2) or not self.tile_arg(e, "cumsum", ts[0], e.args[0]):
            return T.ERROR
        e.axis = 0
        if len(ts) == 2:
            axis = self.constant_axis(e, "cumsum", ts)
            if axis is None:
                return T.ERROR
            e.axis = axis
        return ts[0]

    def constant_axis(self, e: A.Call, name: str, ts: list[T.Type]) -> int | None:
        """The second argument of `name` as an axis of the first (a tile): an integer constant in range."""
        axis = e.args[1].const
        if not isinstance(axis, int) or isinstance(axis, bool) or not T.is_int(ts[1].element):
            self.error(e.args[1].pos, f"the axis of '{name}' must be an integer constant")
            return None
        if not 0 <= axis < len(ts[0].shape):
            self.error(e.args[1].pos, f"axis {axis} is out of range for {ts[0]}")
            return None
        return axis

    def call_transpose(self, e, ts):
        if not self.arity(e, "transpose", ts, 1) or not self.tile_arg(
            e, "transpose", ts[0], e.args[0], rank=2, numeric=False
        ):
            return T.ERROR
        return T.Tile(ts[0].element, ts[0].shape[::-1])

    def call_tril(self, e, ts):
        if not self.arity(e, "tril", ts, 1) or not self.tile_arg(e, "tril", ts[0], e.args[0], rank=2):
            return T.ERROR
        return ts[0]

    def call_padded(self, e, ts):
        """padded(X[...], value): the slice read with `value` where it leaves the
        tensor; the value is a scalar constant, converted to the element type."""
        if not self.arity(e, "padded", ts, 2):
            return T.ERROR
        source, fill = e.args
        access = source.args[0] if isinstance(source, A.Call) and source.builtin == "masked" else source
        if not isinstance(access, A.Index) or isinstance(ts[0], T.Scalar):
            return self.error(
                start_pos(source),
                f"the first argument of 'padded' must be a slice of a tensor parameter (or a masked one), "
                f"such as 'X[r :+ 32]', got {ts[0]}",
            )
        name, elem, fill_ty = access.base.name, ts[0].element, ts[1]
        if not isinstance(fill_ty, T.Scalar):
            return self.error(start_pos(fill), f"the fill value of 'padded' must be a scalar, got {fill_ty}")
        if fill.const is None:
            return self.error(
                start_pos(fill),
                f"the fill value of 'padded' must be a compile-time constant (such as 0.0, -inf or an @autotune "
                f"constant), got a value of type {fill_ty} known only at run time",
            )
        if (elem == "bool") != (fill_ty.element == "bool"):
            shown = str(fill.const).lower() if isinstance(fill.const, bool) else fill.const
            return self.error(
                start_pos(fill), f"cannot fill a slice of '{name}', a tensor of {elem}, with the {fill_ty} {shown}"
            )
        if not self.fits(fill, elem):
            return T.ERROR
        e.padding = constant_as(fill.const, fill_ty.element, elem)
        return ts[0]

    def call_arange(self, e, ts, name="arange"):
        """arange(n) (or iota(n)): the i32 tile [0, 1, ..., n - 1], n a positive compile-time constant."""
        if not self.arity(e, name, ts, 1):
            return T.ERROR
        n = e.args[0].const
        if not T.is_int(ts[0].element) or isinstance(n, bool) or not isinstance(n, int) or n <= 0:
            shown = n if n is not None else f"a value of type {ts[0]} known only at run time"
            return self.error(
                start_pos(e.args[0]), f"the extent of '{name}' must be a positive integer constant, got {shown}"
            )
        e.extent = n
        if self.gpu_tile_error((n,), start_pos(e.args[0]), e.args[:1]):
            return T.ERROR
        return T.Tile("i32", (n,))

    def call_barrier(self, e, ts):
        if not self.arity(e, "barrier", ts, 0):
            return T.ERROR
        return T.VOID

    def call_grid_barrier(self, e, ts):
        if not self.arity(e, "grid_barrier", ts, 0):
            return T.ERROR
        if "persistent" not in self.info.flags:
            return self.error(e.callee.pos, "grid_barrier() needs a @persistent kernel (all CTAs must be co-resident)")
        return T.VOID

    def call_program_id(self, e, ts):
        if not self.arity(e, "program_id", ts, 1):
            return T.ERROR
        d = e.args[0].const
        if not T.is_int(ts[0].element) or d not in (0, 1, 2) or isinstance(d, bool):
            return self.error(
                e.args[0].pos, f"program_id expects the constant 0, 1 or 2, got {d if d is not None else ts[0]}"
            )
        e.grid_query = ("block", d)
        return T.INDEX


def constant_as(value, src: str, dst: str):
    """The constant `value` of element type `src` converted to `dst` as a
    conversion at run time would (floats round to nearest even, beyond the
    largest value to infinity; floats to integers truncate toward zero and
    saturate, NaN gives 0; integers wrap); untyped literals already fit."""
    if dst == "bool":
        return bool(value)
    if T.is_fp8(dst):
        return T.rounded(float(value), dst)  # saturates, as the conversion does
    if T.is_float(dst):
        rounded = T.rounded(float(value), dst)
        return rounded if rounded is not None else math.copysign(math.inf, float(value))
    lo, hi = T.int_range(dst)
    if isinstance(value, float):
        if math.isnan(value):
            return 0
        return int(min(max(math.trunc(value), lo), hi)) if math.isfinite(value) else (hi if value > 0 else lo)
    width = T.INT_WIDTH[dst]
    wrapped = int(value) & ((1 << width) - 1)
    return wrapped - (1 << width) if wrapped > hi else wrapped
