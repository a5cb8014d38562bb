"""The checker: names, types, shapes and kernel attributes.

It walks the syntax tree once per kernel, reports every error it can (an
expression already found wrong gets the type ERROR, which silences the errors
it would cause further up), and annotates the tree for the lowering:

  expression.ty / .const   its type and, for compile-time constants, its value
  Name.symbol              the declaration it refers to
  Kernel.info              a KernelInfo (autotune space and bindings, launch,
                           aligned promises, flags, parameters, dimensions)

Integer scalars: extents, block ids and loop counters are `index`.
Mixed numeric types meet (types.promote: f16 with bf16 at f32, a float with an
integer at the float, a narrower integer at the wider; a scalar constant meets
a tile at the tile's element type where its value converts exactly), and
`Binary.operand_element` / `Call.operand_element` record the type the operands
meet at, which the lowering converts them to. Values assigned to declared
variables or stored into tensors convert to the declared or the tensor's
element type; bool never mixes with numbers. Untyped literals take the type of
the other operand and must fit it.
"""

from __future__ import annotations

import math

from . import ast as A
from . import types as T
from .ast import start_pos
from .atomics import is_atomic
from .attributes import KernelChecks
from .builtins import BUILTINS, CONSTANTS, CONVERSIONS, BuiltinChecks
from .constants import BITWISE, COMPARISONS, LOGICAL, FoldError, constant_difference, fold
from .errors import Diagnostics
from .exits import ExitChecks
from .fp8_rules import accumulator_error, conversion_error, fp8_element, literal_range_error, operator_error
from .functions import FunctionChecks
from .gathers import GatherChecks, is_gather, unwrap_masked
from .gpu_rules import GpuRules
from .stdlib import library_for
from .symbols import KernelInfo, Symbol

MAX_TILE_ELEMENTS = 1 << 24
# The largest finite value of each float type (a literal beyond it would round to inf).
FLOAT_MAX = {"f16": 65504.0, "bf16": 3.3895313892515355e38, "f32": 3.4028234663852886e38}


class Checker(KernelChecks, FunctionChecks, BuiltinChecks, GpuRules, ExitChecks, GatherChecks):
    def __init__(self, diags: Diagnostics, defines: dict[str, int] | None = None, gpu_rules: bool = False):
        self.diags = diags
        self.gpu_rules = gpu_rules  # refuse tiles the GPU cannot hold (gpu_rules.py); the interpreter runs them
        self.kernel_name = ""
        self.autotune_value_pos: dict[str, A.Pos] = {}  # @autotune constant -> its bound value's literal
        self.autotune_value_pos_of: dict[str, dict[str, A.Pos]] = {}  # the same, per kernel
        self.gpu_rule_errors: list = []  # (kernel name, Diagnostic) of tiles the GPU cannot hold
        self.defines = dict(defines or {})
        self.used_defines: set[str] = set()
        self.scopes: list[dict[str, Symbol]] = []
        self.kernel_scope: dict[str, Symbol] = {}
        self.info: KernelInfo | None = None
        self.functions, self.instances, self.call_stack = {}, {}, []

    def error(self, pos: A.Pos, message: str, notes=()) -> T.Type:
        self.diags.error(pos, message, tuple(notes) + self.call_notes())
        return T.ERROR

    def warn(self, pos: A.Pos, message: str) -> None:
        self.diags.warning(pos, message)

    # ================================================================== program

    def check_program(self, program: A.Program, std: bool | None = None) -> None:
        self.define_functions(program, library_for(program, self.diags, std))
        seen: dict[str, A.Kernel] = {}
        for kernel in program.kernels:
            if kernel.name in seen:
                self.error(
                    kernel.pos,
                    f"kernel '{kernel.name}' is already defined",
                    ((seen[kernel.name].pos, "the first definition is here"),),
                )
            else:
                seen[kernel.name] = kernel
            self.check_kernel(kernel)
            self.check_grid_uniform(kernel)
        program.instances = list(self.instances.values())
        unused = [n for n in self.defines if n not in self.used_defines]
        if unused:
            pos = program.kernels[0].pos if program.kernels else A.Pos(1, 1)
            for name in unused:
                self.error(pos, f"-D {name}={self.defines[name]} does not name an @autotune constant of any kernel")

    # ================================================================== scopes

    def lookup(self, name: str) -> Symbol | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return self.kernel_scope.get(name)

    def declare(self, sym: Symbol) -> None:
        scope = self.scopes[-1]
        previous = scope.get(sym.name) or self.kernel_scope.get(sym.name)
        if previous is not None:
            where = "in this scope" if sym.name in scope else "in this kernel"
            self.error(
                sym.pos,
                f"'{sym.name}' is already declared {where} (as a {previous.describe()})",
                ((previous.pos, "the previous declaration is here"),),
            )
        scope[sym.name] = sym

    # ================================================================== statements

    def check_block(self, block: A.Block, bindings: tuple[Symbol, ...] = ()) -> None:
        self.scopes.append({s.name: s for s in bindings})
        try:
            for stmt in block.stmts:
                self.check_stmt(stmt)
        finally:
            self.scopes.pop()

    def check_stmt(self, s: A.Stmt) -> None:
        if isinstance(s, A.Decl):
            self.check_decl(s)
        elif isinstance(s, A.Assign):
            self.check_assign(s)
        elif isinstance(s, A.For):
            for bound in (s.start, s.stop, s.step):
                if bound is not None:
                    self.index_operand(bound, "range bounds")
            if s.step is not None and isinstance(s.step.const, int) and s.step.const <= 0:
                self.error(s.step.pos, f"range step must be positive, got {s.step.const}")
            s.symbol = Symbol("loop", s.var, T.INDEX, s.var_pos)
            self.check_loop_body(s.body, (s.symbol,))
        elif isinstance(s, A.While):
            self.condition(s.cond, "while")
            self.check_loop_body(s.body)
        elif isinstance(s, (A.Break, A.Continue, A.Return)):
            self.check_exit(s)
        elif isinstance(s, A.If):
            self.check_if(s)
        elif isinstance(s, A.ExprStmt):
            if isinstance(s.expr, A.Call):
                s.expr.statement = True  # an atomic on a local tile may only stand alone
            ty = self.check_expr(s.expr)
            if ty != T.VOID and ty != T.ERROR and not is_atomic(s.expr):
                self.error(
                    start_pos(s.expr), "the value of this expression is unused (assign it with 'let' or store it)"
                )

    def check_if(self, s: A.If) -> None:
        # A loop over the `else if` chain: it may be longer than the Python stack is deep.
        while True:
            self.condition(s.cond, "if")
            self.check_block(s.then)
            if not isinstance(s.orelse, A.If):
                break
            s = s.orelse
        if s.orelse is not None:
            self.check_block(s.orelse)

    def condition(self, e: A.Expr, what: str) -> None:
        ty = self.value(e)
        if ty != T.ERROR and ty != T.BOOL:
            hint = ""
            if isinstance(ty, T.Tile) and ty.element == "bool":  # the language's rule: reduce a tile first
                hint = (
                    "; a tile is no condition: reduce it to one bool first "
                    "(any: max(i32(t)) == 1, all: min(i32(t)) == 1)"
                )
            self.error(start_pos(e), f"the condition of '{what}' must be a bool scalar, got {ty}{hint}")

    def resolve_type(self, ref: A.TypeRef) -> T.Type:
        if ref.kind == "scalar":
            return T.Scalar(ref.element)
        if ref.kind == "tensor":
            return self.error(ref.pos, "only kernel parameters can be tensors; 'let' and 'var' hold tiles and scalars")
        shape = []
        for dim in ref.dims:
            if dim.value is not None:
                value = dim.value
            else:
                sym = self.lookup(dim.name)
                if sym is None:
                    return self.error(dim.pos, f"unknown identifier '{dim.name}'")
                if sym.ty == T.ERROR:
                    return T.ERROR
                value = (
                    sym.const
                    if sym.kind in ("const", "dim", "let")
                    and isinstance(sym.const, int)
                    and T.is_int(T.element(sym.ty))
                    else None
                )
                if value is None:
                    return self.error(dim.pos, f"tile dimension '{dim.name}' is not a compile-time constant")
            if value <= 0:
                return self.error(dim.pos, f"tile dimensions must be positive, got {value}")
            shape.append(value)
        return self.tile_type(ref.element, shape, ref.pos)

    def tile_type(self, elem: str, shape, pos: A.Pos, extents=()) -> T.Type:
        count = 1
        for d in shape:
            count *= d
        if count > MAX_TILE_ELEMENTS:
            return self.error(
                pos, f"a tile of {T.fmt_shape(shape)} has {count} elements, more than the limit of {MAX_TILE_ELEMENTS}"
            )
        if shape and self.gpu_tile_error(shape, pos, extents):
            return T.ERROR
        return T.make(elem, shape)

    def check_decl(self, s: A.Decl) -> None:
        value_ty = self.value(s.value)
        if s.type is not None:
            declared = self.resolve_type(s.type)
            if declared != T.ERROR and value_ty != T.ERROR:
                self.assignable(
                    value_ty,
                    s.value,
                    declared,
                    start_pos(s.value),
                    lambda: f"cannot initialize '{s.name}' of type {declared} with a value of type {value_ty}",
                )
        elif value_ty == T.ERROR:
            declared = T.ERROR
        else:
            declared = T.with_element(value_ty, T.default_element(value_ty.element))
            self.fits(s.value, declared.element)
            self.warn_half_dot(s.name, s.value)
        const = s.value.const if not s.mutable and isinstance(declared, T.Scalar) else None
        value_elem = T.element(value_ty)
        if const is not None and value_elem != declared.element and not T.is_untyped(value_elem):
            # A converted constant stays one only where the conversion keeps its value.
            const = const if T.exactly(const, declared.element) else None
        if const is not None and T.is_float(declared.element) and not isinstance(const, float):
            const = float(const)
        if const is not None and T.is_fp8(declared.element):
            const = T.rounded(float(const), declared.element)  # the value the name holds (`i32(q)` folds it)
        if const is not None and T.is_int(declared.element) and isinstance(const, float):
            const = int(const) if math.isfinite(const) else None  # `let i: i32 = inf` is reported above
        s.symbol = Symbol("var" if s.mutable else "let", s.name, declared, s.pos, const=const)
        self.declare(s.symbol)

    def check_assign(self, s: A.Assign) -> None:
        if isinstance(s.target, (A.Index, A.Call)):
            target_ty = self.check_expr(s.target)
            value_ty = self.value(s.value)
            if s.op != "=":
                value_ty = self.combine(s, target_ty, value_ty)
            if target_ty != T.ERROR and value_ty != T.ERROR:
                self.storable(value_ty, s.value, target_ty, unwrap_masked(s.target)[0])
            return
        name = s.target
        sym = self.lookup(name.name)
        value_ty = self.value(s.value)
        if sym is None:
            self.error(name.pos, f"unknown identifier '{name.name}'")
            return
        name.symbol = sym
        name.ty = sym.ty
        if sym.kind != "var":
            why = {
                "let": "it is declared with 'let' (use 'var' for a mutable variable)",
                "param": "it is a kernel parameter",
                "loop": "it is a loop variable",
                "dim": "it is a tensor dimension",
                "const": "it is an @autotune constant",
            }[sym.kind]
            if isinstance(sym.ty, T.Tensor):
                why = f"it is a tensor; store to a slice such as '{sym.name}[i :+ 32]'"
            self.error(name.pos, f"cannot assign to '{name.name}': {why}", ((sym.pos, "declared here"),))
            return
        if s.op == "+=" and (why := accumulator_error(s.value, sym.ty, name.name)) is not None:
            self.error(start_pos(s.value), why)
            return
        if s.op != "=":
            value_ty = self.combine(s, sym.ty, value_ty)
        if value_ty != T.ERROR and sym.ty != T.ERROR:
            expr = s.combined if s.combined is not None else s.value
            self.assignable(
                value_ty,
                expr,
                sym.ty,
                start_pos(s.value),
                lambda: f"cannot assign a value of type {value_ty} to '{name.name}' of type {sym.ty}",
            )

    def combine(self, s: A.Assign, target_ty: T.Type, value_ty: T.Type) -> T.Type:
        """Types `target op value` of a compound assignment (kept in s.combined)."""
        s.combined = A.Binary(s.op_pos, s.op[0], s.target, s.value)
        s.combined.ty = self.binary_type(s.combined, target_ty, value_ty)
        return s.combined.ty

    def fits(self, e: A.Expr, elem: str) -> bool:
        """An untyped constant `e` used as `elem`: reports if it does not fit."""
        if not T.is_untyped(T.element(e.ty)):
            return True
        if T.is_int(elem) and elem in T.INT_WIDTH:
            if isinstance(e.const, float):
                self.error(e.pos, f"cannot use the float constant {e.const} as {elem}")
                return False
            lo, hi = T.int_range(elem)
            if not lo <= e.const <= hi:
                self.error(e.pos, f"integer constant {e.const} does not fit in {elem}")
                return False
        elif elem == "bool":
            self.error(e.pos, f"cannot use the number {e.const} as a bool")
            return False
        elif elem in FLOAT_MAX and math.isfinite(e.const) and abs(e.const) > FLOAT_MAX[elem]:
            self.error(e.pos, f"the constant {e.const} is out of range for {elem} (it would be infinite)")
            return False
        elif T.is_fp8(elem) and abs(e.const) > T.FP8_MAX[elem] and not (math.isinf(e.const) and elem == "f8e5m2"):
            self.error(e.pos, literal_range_error(e.const, elem))
            return False
        return True

    def assignable(self, value_ty: T.Type, value: A.Expr, target: T.Type, pos: A.Pos, message) -> bool:
        """A value for a declared variable: a number of another type converts to
        the variable's type; bool and numbers do not mix."""
        ok = converts(value_ty.element, target.element)
        if ok:
            if isinstance(target, T.Scalar):
                ok = isinstance(value_ty, T.Scalar)
            else:
                ok = isinstance(value_ty, T.Scalar) or T.broadcast(value_ty.shape, target.shape) == target.shape
        if not ok:
            hint = ""
            if value_ty.element == "bool" and target.element in CONVERSIONS and type(value_ty) is type(target):
                hint = f" (convert with {target.element}(...))"
            why = conversion_error(value_ty.element, target.element)
            self.error(pos, message() + hint + (f": {why}" if why else ""))
            return False
        return self.fits(value, target.element)

    def storable(self, value_ty: T.Type, value: A.Expr, target_ty: T.Type, target: A.Index) -> None:
        """A value stored into a tensor converts to the tensor's element type
        (numbers only: bool and numbers do not mix)."""
        tensor_name = target.base.name
        ve, te = value_ty.element, target_ty.element
        if not converts(ve, te):
            hint = f" (convert with {te}(...))" if ve == "bool" and te in CONVERSIONS else ""
            why = conversion_error(ve, te)
            hint += f": {why}" if why else ""
            what = "a local tile" if getattr(target, "local", False) else "a tensor"  # h[v] of an atomic
            self.error(start_pos(value), f"cannot store {ve} values into '{tensor_name}', {what} of {te}{hint}")
            return
        if isinstance(value_ty, T.Tile):
            target_shape = T.shape(target_ty)
            if T.broadcast(value_ty.shape, target_shape) != tuple(target_shape):
                self.error(
                    start_pos(value),
                    f"cannot store a tile of shape {T.fmt_shape(value_ty.shape)} into a slice of "
                    f"shape {T.fmt_shape(target_shape)}",
                )
                return
        self.fits(value, te)

    # ================================================================== expressions

    def value(self, e: A.Expr) -> T.Type:
        """Checks `e` and requires a scalar or tile value."""
        ty = self.check_expr(e)
        if ty == T.ERROR or T.is_value(ty):
            return ty
        if isinstance(ty, T.Tensor):
            name = e.name if isinstance(e, A.Name) else "a tensor"
            return self.error(
                e.pos, f"tensor '{name}' cannot be used as a value; read a slice of it such as '{name}[i :+ 32]'"
            )
        if isinstance(ty, T.Builtin):
            return self.error(e.pos, f"'{ty.name}' is a builtin function; call it as {ty.name}(...)")
        if isinstance(ty, T.Ctx):
            return self.error(e.pos, f"'{ty}' is not a value (use ctx.block.x/y/z or ctx.grid.x/y/z)")
        if ty == T.VOID and isinstance(e, A.Call) and e.builtin:
            return self.error(e.pos, f"'{e.builtin}()' does not return a value")
        return self.error(e.pos, "this expression does not produce a value")

    def check_expr(self, e: A.Expr) -> T.Type:
        ty = self._check_expr(e)
        e.ty = ty
        return ty

    def _check_expr(self, e: A.Expr) -> T.Type:
        if isinstance(e, A.IntLit):
            e.const = e.value
            return T.Scalar(T.INT_LITERAL)
        if isinstance(e, A.FloatLit):
            e.const = e.value
            return T.Scalar(T.FLOAT_LITERAL)
        if isinstance(e, A.BoolLit):
            e.const = e.value
            return T.BOOL
        if isinstance(e, A.Name):
            return self.check_name(e)
        if isinstance(e, A.Member):
            return self.check_member(e)
        if isinstance(e, A.Unary):
            return self.check_unary(e)
        if isinstance(e, A.Binary):
            lt = self.value(e.lhs)
            rt = self.value(e.rhs)
            return self.binary_type(e, lt, rt)
        if isinstance(e, A.Call):
            return self.check_call(e)
        if isinstance(e, A.Index):
            return self.check_slice(e)
        if isinstance(e, A.StrLit):
            return self.error(e.pos, 'a string can only be the value of a keyword argument, such as sem = "acquire"')
        raise AssertionError(f"unknown expression {type(e).__name__}")

    def check_name(self, e: A.Name) -> T.Type:
        sym = self.lookup(e.name)
        if sym is not None:
            e.symbol = sym
            if sym.kind in ("dim", "const", "let") and sym.const is not None:
                e.const = sym.const
            return sym.ty
        if e.name in CONSTANTS:
            e.const = CONSTANTS[e.name]
            return T.Scalar(T.FLOAT_LITERAL)
        if e.name in BUILTINS:
            return T.Builtin(e.name)
        if e.name == "ctx":
            return T.Ctx(())
        return self.error(e.pos, f"unknown identifier '{e.name}'")

    def check_member(self, e: A.Member) -> T.Type:
        base = self.check_expr(e.base)
        if base == T.ERROR:
            return T.ERROR
        if isinstance(base, T.Ctx):
            if base.path == () and e.name in ("block", "grid"):
                return T.Ctx((e.name,))
            if len(base.path) == 1 and e.name in ("x", "y", "z"):
                e.grid_query = (base.path[0], "xyz".index(e.name))
                return T.INDEX
            expected = "block or grid" if base.path == () else "x, y or z"
            return self.error(e.pos, f"'{base}' has no field '{e.name}' (expected {expected})")
        return self.error(e.pos, f"a value of type {base} has no field '{e.name}'")

    def check_unary(self, e: A.Unary) -> T.Type:
        ty = self.value(e.operand)
        if ty == T.ERROR:
            return ty
        elem = ty.element
        if T.is_fp8(elem):
            return self.error(e.pos, operator_error(e.op, elem))
        if e.op == "-":
            if not T.is_numeric(elem):
                return self.error(e.pos, f"'-' is not defined on {ty}")
            if e.operand.const is not None:
                e.const = -e.operand.const
                return self.checked_const(e, ty)
            return ty
        if e.op == "~":
            if not T.is_int(elem):
                return self.error(e.pos, f"'~' needs an integer operand, got {ty}")
            if e.operand.const is not None:
                e.const = ~e.operand.const
            return ty
        if elem != "bool":
            return self.error(e.pos, f"'!' needs a bool operand, got {ty}")
        if e.operand.const is not None:
            e.const = not e.operand.const
        return ty

    def checked_const(self, e: A.Expr, ty: T.Type) -> T.Type:
        """Range-checks an integer constant just computed in `e`."""
        elem = ty.element
        if isinstance(e.const, int) and not isinstance(e.const, bool) and T.is_int(elem):
            lo, hi = T.int_range(elem if elem in T.INT_WIDTH else "i64")
            if not lo <= e.const <= hi:
                value, e.const = e.const, None
                return self.error(
                    e.pos,
                    f"constant expression overflows {elem if elem in T.INT_WIDTH else 'i64'} (its value is {value})",
                )
        return ty

    def unify_elements(
        self, pos: A.Pos, what: str, lt: T.Type, rt: T.Type, lhs: A.Expr | None = None, rhs: A.Expr | None = None
    ) -> str | None:
        """The element type operands of types `lt` and `rt` meet at (see
        types.promote); `lhs`/`rhs`, where given, are the operand expressions,
        whose constants may meet a tile at its element type."""
        le, re_ = lt.element, rt.element
        if le == re_:
            return le
        if T.is_untyped(le) and T.is_untyped(re_):
            return T.FLOAT_LITERAL
        if T.is_untyped(re_):
            le, re_, lt, rt = re_, le, rt, lt
        # Now `le` is untyped (or neither is).
        if le == T.INT_LITERAL and T.is_numeric(re_):
            return re_
        if le == T.FLOAT_LITERAL and T.is_float(re_):
            return re_
        if le == T.FLOAT_LITERAL and T.is_int(re_):
            return "f32"  # a float with an integer goes to the float (a float literal is an f32)
        if T.is_untyped(le):
            self.error(pos, f"cannot combine a {le} with {rt} in {what}")
            return None
        joined = self.constant_meets_tile(lt, rt, lhs, rhs) or self.constant_meets_tile(rt, lt, rhs, lhs)
        joined = joined or T.promote(le, re_)
        if joined is None:
            numeric = [t for t in (lt, rt) if T.is_numeric(t.element)]
            hint = f" (convert the bool with {T.default_element(numeric[0].element)}(...))" if len(numeric) == 1 else ""
            self.error(pos, f"operands of {what} have different types: {lt} and {rt}{hint}")
        return joined

    @staticmethod
    def constant_meets_tile(scalar: T.Type, tile: T.Type, e: A.Expr | None, _other) -> str | None:
        """A scalar constant meets a tile at the tile's element type where its
        value converts exactly (`x * TM` keeps an f16 or i32 tile `x`); a float
        constant never turns an integer tile into integers."""
        if not (isinstance(scalar, T.Scalar) and isinstance(tile, T.Tile) and e is not None):
            return None
        se, te = scalar.element, tile.element
        if e.const is None or not T.is_numeric(se) or not T.is_numeric(te):
            return None
        if T.is_float(se) and not T.is_float(te):
            return None
        return te if T.exactly(e.const, te) else None

    def binary_type(self, e: A.Binary, lt: T.Type, rt: T.Type) -> T.Type:
        if lt == T.ERROR or rt == T.ERROR:
            return T.ERROR
        if fp8_element(lt, rt):
            return self.error(e.pos, operator_error(e.op, fp8_element(lt, rt)))
        what = f"'{e.op}'"
        elem = self.unify_elements(e.pos, what, lt, rt, e.lhs, e.rhs)
        if elem is None:
            return T.ERROR
        shape = T.broadcast(T.shape(lt), T.shape(rt))
        if shape is None:
            return self.error(
                e.pos, f"shapes {T.fmt_shape(T.shape(lt))} and {T.fmt_shape(T.shape(rt))} do not broadcast in {what}"
            )
        if e.op in LOGICAL:
            if elem != "bool":
                return self.error(e.pos, f"{what} needs bool operands, got {lt} and {rt}")
            result_elem = "bool"
        elif e.op in BITWISE:
            if not T.is_int(elem):
                hint = " (for bool use '&&' or '||')" if elem == "bool" and e.op in "&|" else ""
                return self.error(e.pos, f"{what} needs integer operands, got {lt} and {rt}{hint}")
            result_elem = elem
        elif e.op in COMPARISONS:
            if elem == "bool" and e.op not in ("==", "!="):
                return self.error(e.pos, f"{what} is not defined on bool")
            result_elem = "bool"
        else:
            if not T.is_numeric(elem):
                return self.error(e.pos, f"{what} is not defined on {elem}")
            result_elem = elem
        e.operand_element = elem
        if not (self.fits(e.lhs, elem) and self.fits(e.rhs, elem)):
            return T.ERROR
        ty = self.tile_type(result_elem, shape, e.pos)
        if ty == T.ERROR:
            return ty
        a, b = e.lhs.const, e.rhs.const
        if a is not None and b is not None and (T.is_untyped(elem) or T.is_int(elem) or elem == "bool") and not shape:
            try:
                e.const = fold(e.op, a, b, elem)
            except FoldError as err:
                return self.error(e.pos, str(err))
            if T.is_untyped(result_elem) and isinstance(e.const, int) and abs(e.const) > 2**64:
                e.const = None
                return self.error(e.pos, "integer constant expression is too large")
            return self.checked_const(e, ty)
        return ty

    # ================================================================== slices

    def index_operand(self, e: A.Expr, what: str) -> T.Type:
        """An integer scalar used as an index (any integer type; cast to index)."""
        ty = self.value(e)
        if ty == T.ERROR:
            return ty
        if not isinstance(ty, T.Scalar) or not T.is_int(ty.element):
            return self.error(e.pos, f"{what} must be integer scalars, got {ty}")
        if ty.element == T.INT_LITERAL:
            self.fits(e, "index")
        return ty

    def check_indexed(self, e: A.Index) -> T.Type:
        """The type of what `e` subscripts, after checking every subscript's start and end as values."""
        base_ty = self.check_expr(e.base)
        for sub in e.subscripts:
            for part in (sub.start, sub.end):
                if part is not None:
                    self.value(part)
        return base_ty

    def check_slice(self, e: A.Index) -> T.Type:
        base_ty = self.check_indexed(e)
        if base_ty == T.ERROR:
            return T.ERROR
        if isinstance(base_ty, T.Tile) and getattr(e, "local", False):
            return self.check_local_gather(e, base_ty)
        if not isinstance(base_ty, T.Tensor):
            what = f"'{e.base.name}' is {base_ty}" if isinstance(e.base, A.Name) else f"this is {base_ty}"
            if isinstance(base_ty, T.Tile):  # docs/language.md, atomics on a local tile
                what += " (a local tile takes a tile of indices only as the target of atomic_add, max or min)"
            return self.error(e.pos, f"only tensor parameters can be sliced; {what}")
        name = e.base.name
        if len(e.subscripts) != base_ty.rank:
            return self.error(
                e.bracket or e.pos,
                f"'{name}' has {base_ty.rank} dimension{'s' * (base_ty.rank != 1)} "
                f"but the slice has {len(e.subscripts)} subscript"
                f"{'s' * (len(e.subscripts) != 1)}",
            )
        if is_gather(e):
            return self.check_gather(e, base_ty, name)
        ok = True
        shape = []
        for axis, sub in enumerate(e.subscripts):
            length = self.subscript(sub, base_ty, name, axis)
            if length is None:
                ok = False
                continue
            sub.length = length
            if sub.kind != "point":
                shape.append(length)
        if not ok:
            return T.ERROR
        return self.tile_type(base_ty.element, shape, *self.slice_pos(e, shape))

    def subscript(self, sub: A.Subscript, tensor: T.Tensor, name: str, axis: int) -> int | None:
        extent = tensor.static[axis]
        if sub.kind == "full":
            if extent is None:
                self.error(
                    sub.pos,
                    f"':' takes the whole dimension, which needs a compile-time extent; dimension "
                    f"{axis} of '{name}' is the runtime extent '{tensor.dims[axis]}'",
                )
                return None
            return extent
        for part in (sub.start, sub.end) if sub.kind == "range" else (sub.start,):
            ty = part.ty
            if ty == T.ERROR:
                return None
            if not isinstance(ty, T.Scalar) or not T.is_int(ty.element):
                self.error(part.pos, f"slice indices must be integer scalars, got {ty}")
                return None
            if ty.element == T.INT_LITERAL and not self.fits(part, "index"):
                return None
        start = sub.start.const
        if isinstance(start, int) and start < 0:
            self.error(sub.start.pos, f"slice start must not be negative, got {start}")
            return None
        if sub.kind == "point":
            length = 1
        elif sub.kind == "span":
            ty = sub.end.ty
            if ty == T.ERROR:
                return None
            if not isinstance(ty, T.Scalar) or not T.is_int(ty.element) or not isinstance(sub.end.const, int):
                self.error(start_pos(sub.end), "slice length must be a compile-time constant")
                return None
            length = sub.end.const
        else:
            length = constant_difference(sub.end, sub.start)
            if length is None:
                self.error(
                    start_pos(sub.end),
                    "slice length must be a compile-time constant (the end minus the start of "
                    "'a : b' must fold to a number)",
                )
                return None
        if length <= 0:
            self.error(
                start_pos(sub.end) if sub.end is not None else sub.pos, f"slice length must be positive, got {length}"
            )
            return None
        if extent is not None and length > extent:
            self.error(sub.pos, f"a slice of {length} elements is longer than dimension {axis} of '{name}' ({extent})")
            return None
        return length


def converts(value: str, target: str) -> bool:
    """Whether a value of element type `value` may be assigned or stored where
    `target` is declared: the same type, an integer literal into any number, a
    float literal into any float, and any typed number into any other (fp8
    included, except f64 into fp8: fp8_rules)."""
    if value == target:
        return True
    if value == T.INT_LITERAL:
        return T.is_numeric(target) or T.is_fp8(target)
    if value == T.FLOAT_LITERAL:
        return T.is_float(target) or T.is_fp8(target)
    typed = T.FLOATS + T.INTS + T.FP8
    return value in typed and target in typed and conversion_error(value, target) is None


def check_program(
    program: A.Program,
    diags: Diagnostics,
    defines: dict[str, int] | None = None,
    gpu_rules: bool = False,
    std: bool | None = None,
) -> None:
    Checker(diags, defines, gpu_rules).check_program(program, std)
