"""The checker: names, types, shapes and kernel attributes.

It walks the syntax tree once per kernel, reports every error it can (an
expression already found wrong gets the type ERROR, which silences the errors
it would cause further up), and annotates the tree for the lowering:

  expression.ty / .const   its type and, for compile-time constants, its value
  Name.symbol              the declaration it refers to
  Kernel.info              a KernelInfo (autotune space and bindings, launch,
                           aligned promises, flags, parameters, dimensions)

Integer scalars: extents, block ids and loop counters are `index`. Integer
types never convert implicitly (an `i32` parameter combined with an `index`
is a type error; write `i32(x)`), except where a position only makes sense as
an index (slice starts, range bounds), which accept any integer scalar.
Untyped literals take the type of the other operand and must fit it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Set, Tuple

from . import ast as A
from . import types as T
from .errors import Diagnostics

MAX_TILE_ELEMENTS = 1 << 24
# The largest finite value of each float type (a literal beyond it would round to inf).
FLOAT_MAX = {"f16": 65504.0, "bf16": 3.3895313892515355e38, "f32": 3.4028234663852886e38}
MAX_THREADS = 1024

FLAG_ATTRIBUTES = ("pipeline", "tensorcore", "persistent")
KNOWN_ATTRIBUTES = ("autotune", "launch", "aligned") + FLAG_ATTRIBUTES
LAUNCH_FIELDS = ("threads", "minBlocks", "maxRegs")

CONVERSIONS = ("f16", "bf16", "f32", "f64", "i8", "i32", "i64")
ELEMENTWISE_FLOAT = ("exp", "log", "sqrt", "tanh")
BUILTINS = frozenset(
    ("dot", "dot_t", "abs", "tmax", "tmin", "where", "sum", "rowsum", "rowmax", "transpose", "cumsum",
     "tril", "barrier", "grid_barrier", "program_id") + ELEMENTWISE_FLOAT + CONVERSIONS
)

ARITHMETIC = ("+", "-", "*", "/", "%")
COMPARISONS = ("==", "!=", "<", "<=", ">", ">=")
LOGICAL = ("&&", "||")


class Symbol:
    """A declaration: a parameter, a dimension symbol, an @autotune constant,
    a `let`/`var` or a loop variable. Identity matters: the lowering maps
    symbols to SSA values."""

    __slots__ = ("kind", "name", "ty", "pos", "const", "index")

    def __init__(self, kind: str, name: str, ty: T.Type, pos: A.Pos, const=None, index: int = -1):
        self.kind = kind  # "param", "dim", "const", "let", "var", "loop"
        self.name = name
        self.ty = ty
        self.pos = pos
        self.const = const
        self.index = index

    def describe(self) -> str:
        return {
            "param": "parameter", "dim": "dimension", "const": "@autotune constant",
            "let": "'let' binding", "var": "variable", "loop": "loop variable",
        }[self.kind]

    def __repr__(self) -> str:
        return f"Symbol({self.kind} {self.name}: {self.ty})"


@dataclass
class KernelInfo:
    space: Dict[str, List[int]] = field(default_factory=dict)
    bindings: Dict[str, int] = field(default_factory=dict)
    launch: Optional[Dict[str, int]] = None
    aligned: Dict[str, int] = field(default_factory=dict)
    flags: Set[str] = field(default_factory=set)
    params: List[Symbol] = field(default_factory=list)
    dims: Dict[str, Symbol] = field(default_factory=dict)


class _FoldError(Exception):
    pass


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _fold(op: str, a, b, elem: str):
    """Folds `a op b` of constants; raises _FoldError for division by zero."""
    if op in COMPARISONS:
        return {"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]
    if op == "&&":
        return bool(a and b)
    if op == "||":
        return bool(a or b)
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if b == 0:
        raise _FoldError("division by zero in a constant expression")
    if T.is_float(elem):
        return a / b if op == "/" else math.fmod(a, b)
    q = _trunc_div(a, b)
    return q if op == "/" else a - b * q


class Checker:
    def __init__(self, diags: Diagnostics, defines: Optional[Dict[str, int]] = None):
        self.diags = diags
        self.defines = dict(defines or {})
        self.used_defines: Set[str] = set()
        self.scopes: List[Dict[str, Symbol]] = []
        self.kernel_scope: Dict[str, Symbol] = {}
        self.info: Optional[KernelInfo] = None

    def error(self, pos: A.Pos, message: str, notes=()) -> T.Type:
        self.diags.error(pos, message, notes)
        return T.ERROR

    # ================================================================== program

    def check_program(self, program: A.Program) -> None:
        seen: Dict[str, A.Kernel] = {}
        for kernel in program.kernels:
            if kernel.name in seen:
                self.error(kernel.pos, f"kernel '{kernel.name}' is already defined",
                           ((seen[kernel.name].pos, "the first definition is here"),))
            else:
                seen[kernel.name] = kernel
            self.check_kernel(kernel)
        unused = [n for n in self.defines if n not in self.used_defines]
        if unused:
            pos = program.kernels[0].pos if program.kernels else A.Pos(1, 1)
            for name in unused:
                self.error(pos, f"-D {name}={self.defines[name]} does not name an @autotune constant of any kernel")

    # ================================================================== kernels

    def check_kernel(self, kernel: A.Kernel) -> None:
        info = KernelInfo()
        self.info = info
        kernel.info = info
        self.kernel_scope = {}
        self.scopes = []
        self.broken_consts: Dict[str, A.Pos] = {}
        by_name = self._attributes_by_name(kernel)
        if "autotune" in by_name:
            self._autotune(by_name["autotune"], info)
        for name, value in info.bindings.items():
            self.kernel_scope[name] = Symbol("const", name, T.INDEX, by_name["autotune"].pos, const=value)
        for name, pos in self.broken_consts.items():
            # Already reported: uses of the name stay quiet.
            self.kernel_scope.setdefault(name, Symbol("const", name, T.ERROR, pos))
        self._params(kernel, info)
        if "launch" in by_name:
            info.launch = self._launch(by_name["launch"])
        if "aligned" in by_name:
            self._aligned(by_name["aligned"], info)
        for flag in FLAG_ATTRIBUTES:
            if flag in by_name:
                attr = by_name[flag]
                if attr.args:
                    self.error(attr.args[0].pos, f"@{flag} takes no arguments")
                info.flags.add(flag)
        self.check_block(kernel.body)

    def _attributes_by_name(self, kernel: A.Kernel) -> Dict[str, A.Attribute]:
        by_name: Dict[str, A.Attribute] = {}
        for attr in kernel.attributes:
            if attr.name not in KNOWN_ATTRIBUTES:
                self.error(attr.pos, f"unknown attribute '@{attr.name}' (expected one of "
                                     f"{', '.join('@' + a for a in KNOWN_ATTRIBUTES)})")
            elif attr.name in by_name:
                self.error(attr.pos, f"duplicate attribute '@{attr.name}'",
                           ((by_name[attr.name].pos, "first given here"),))
            else:
                by_name[attr.name] = attr
        return by_name

    def _autotune(self, attr: A.Attribute, info: KernelInfo) -> None:
        if not attr.args:
            self.error(attr.pos, "@autotune needs at least one 'NAME in [values]'")
        for arg in attr.args:
            if arg.kind != "space":
                self.error(arg.pos, "expected 'NAME in [values]' in @autotune")
                continue
            if arg.name in info.space:
                self.error(arg.pos, f"'{arg.name}' is already autotuned")
                continue
            values = self._space_values(arg)
            if values is None:
                self.broken_consts[arg.name] = arg.pos
                continue
            info.space[arg.name] = values
            if arg.name in self.defines:
                self.used_defines.add(arg.name)
                chosen = self.defines[arg.name]
                if chosen not in values:
                    self.error(arg.pos, f"-D {arg.name}={chosen} is not in the @autotune space of '{arg.name}': {values}")
                    chosen = values[0]  # keeps checking the rest with a valid binding
                info.bindings[arg.name] = chosen
            else:
                info.bindings[arg.name] = values[0]

    def _space_values(self, arg: A.AttrArg) -> Optional[List[int]]:
        raw = [v.value for v in arg.values]
        for lit in arg.values:
            if lit.value <= 0:
                self.error(lit.pos, f"@autotune values must be positive, got {lit.value}")
                return None
        if len(raw) == 2 and raw[0] < raw[1]:
            lo, hi = raw
            for lit in arg.values:
                if lit.value & (lit.value - 1):
                    self.error(lit.pos, f"'{arg.name} in [{lo}, {hi}]' means the powers of two from {lo} to {hi}, "
                                        f"so both ends must be powers of two; {lit.value} is not")
                    return None
            values, p = [], lo
            while p <= hi:
                values.append(p)
                p *= 2
            return values
        if len(set(raw)) != len(raw):
            self.error(arg.pos, f"@autotune space of '{arg.name}' lists a value twice: {raw}")
            return None
        return raw

    def _params(self, kernel: A.Kernel, info: KernelInfo) -> None:
        for index, param in enumerate(kernel.params):
            ty = self._param_type(param)
            sym = Symbol("param", param.name, ty, param.pos, index=index)
            info.params.append(sym)
            previous = self.kernel_scope.get(param.name)
            if previous is not None:
                self.error(param.pos, f"'{param.name}' is already declared as a {previous.describe()}",
                           ((previous.pos, "declared here"),))
                continue
            self.kernel_scope[param.name] = sym
        # Dimension symbols: one per name, shared by every parameter using it.
        for param, sym in zip(kernel.params, info.params):
            if not isinstance(sym.ty, T.Tensor):
                continue
            for dim in param.type.dims:
                if dim.name is None:
                    continue
                existing = self.kernel_scope.get(dim.name)
                if existing is None:
                    self.kernel_scope[dim.name] = info.dims[dim.name] = Symbol("dim", dim.name, T.INDEX, dim.pos)
                elif existing.kind == "const":
                    info.dims.setdefault(dim.name, existing)
                elif existing.kind == "param":
                    self.error(dim.pos, f"'{dim.name}' names both a parameter and a dimension",
                               ((existing.pos, "the parameter is declared here"),))

    def _param_type(self, param: A.Param) -> T.Type:
        ref = param.type
        if ref.kind == "scalar":
            return T.Scalar(ref.element)
        if ref.kind == "tile":
            return self.error(ref.pos, f"kernel parameters cannot be tiles; pass a tensor<{ref.element}>[...] "
                                       "and slice it")
        static: List[Optional[int]] = []
        for dim in ref.dims:
            if dim.value is not None:
                if dim.value <= 0:
                    self.error(dim.pos, f"tensor dimensions must be positive, got {dim.value}")
                    return T.ERROR
                static.append(dim.value)
            else:
                static.append(self.info.bindings.get(dim.name))
        return T.Tensor(ref.element, tuple(d.text() for d in ref.dims), tuple(static))

    def _attr_int(self, value: A.Expr, what: str) -> Optional[int]:
        """An attribute value that must be an integer: a literal or an @autotune constant."""
        if isinstance(value, A.IntLit):
            return value.value
        if isinstance(value, A.Name):
            if value.name in self.info.bindings:
                return self.info.bindings[value.name]
            if value.name in self.broken_consts:
                return None
            self.error(value.pos, f"unknown constant '{value.name}' in {what} (expected a literal or an @autotune constant)")
            return None
        self.error(value.pos, f"{what} expects an integer, got {value.value}")
        return None

    def _launch(self, attr: A.Attribute) -> Optional[Dict[str, int]]:
        values: Dict[str, Tuple[int, A.Pos]] = {}
        if not attr.args:
            self.error(attr.pos, "@launch needs the number of threads per CTA, as in @launch(256)")
            return None
        for i, arg in enumerate(attr.args):
            if arg.kind == "space":
                self.error(arg.pos, "@launch takes (threads[, minBlocks[, maxRegs]]), not a search space")
                return None
            if arg.kind == "keyword":
                if arg.name not in LAUNCH_FIELDS:
                    self.error(arg.pos, f"@launch has no argument '{arg.name}' (expected {', '.join(LAUNCH_FIELDS)})")
                    return None
                name = arg.name
            elif i >= len(LAUNCH_FIELDS):
                self.error(arg.pos, f"@launch takes at most 3 arguments (threads, minBlocks, maxRegs), got {len(attr.args)}")
                return None
            else:
                name = LAUNCH_FIELDS[i]
            if name in values:
                self.error(arg.pos, f"@launch {name} is given twice")
                return None
            v = self._attr_int(arg.value, f"@launch {name}")
            if v is None:
                return None
            values[name] = (v, arg.value.pos)
        if "threads" not in values:
            self.error(attr.pos, "@launch needs the number of threads per CTA")
            return None
        threads, pos = values["threads"]
        ok = True
        if threads <= 0 or threads % 32:
            self.error(pos, f"@launch threads must be a multiple of 32, got {threads}")
            ok = False
        elif threads > MAX_THREADS:
            self.error(pos, f"@launch threads must be at most {MAX_THREADS}, got {threads}")
            ok = False
        for name in ("minBlocks", "maxRegs"):
            if name in values and values[name][0] <= 0:
                self.error(values[name][1], f"@launch {name} must be positive, got {values[name][0]}")
                ok = False
        if not ok:
            return None
        out = {"threads": threads}
        if "minBlocks" in values:
            out["min_blocks"] = values["minBlocks"][0]
        if "maxRegs" in values:
            out["max_regs"] = values["maxRegs"][0]
        return out

    def _aligned(self, attr: A.Attribute, info: KernelInfo) -> None:
        if not attr.args:
            self.error(attr.pos, "@aligned needs at least one 'DIM = tile'")
        for arg in attr.args:
            if arg.kind != "keyword":
                self.error(arg.pos, "expected 'DIM = tile' in @aligned")
                continue
            if arg.name in info.aligned:
                self.error(arg.pos, f"'{arg.name}' is already aligned")
                continue
            divisor = self._attr_int(arg.value, "@aligned")
            if divisor is None:
                continue
            if divisor <= 0:
                self.error(arg.value.pos, f"@aligned tile must be positive, got {divisor}")
                continue
            dim = info.dims.get(arg.name)
            if dim is None:
                self.error(arg.pos, f"@aligned names '{arg.name}', which is not a dimension of any tensor parameter")
                continue
            if dim.const is not None and dim.const % divisor:
                self.error(arg.value.pos, f"@aligned promises that '{arg.name}' is a multiple of {divisor}, "
                                          f"but it is the constant {dim.const}")
                continue
            info.aligned[arg.name] = divisor

    # ================================================================== scopes

    def lookup(self, name: str) -> Optional[Symbol]:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return self.kernel_scope.get(name)

    def declare(self, sym: Symbol) -> None:
        scope = self.scopes[-1]
        previous = scope.get(sym.name) or self.kernel_scope.get(sym.name)
        if previous is not None:
            where = "in this scope" if sym.name in scope else "in this kernel"
            self.error(sym.pos, f"'{sym.name}' is already declared {where} (as a {previous.describe()})",
                       ((previous.pos, "the previous declaration is here"),))
        scope[sym.name] = sym

    # ================================================================== statements

    def check_block(self, block: A.Block, bindings: Tuple[Symbol, ...] = ()) -> None:
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
            self.check_block(s.body, (s.symbol,))
        elif isinstance(s, A.While):
            self.condition(s.cond, "while")
            self.check_block(s.body)
        elif isinstance(s, A.If):
            self.condition(s.cond, "if")
            self.check_block(s.then)
            if isinstance(s.orelse, A.Block):
                self.check_block(s.orelse)
            elif s.orelse is not None:
                self.check_stmt(s.orelse)
        elif isinstance(s, A.ExprStmt):
            ty = self.check_expr(s.expr)
            if ty != T.VOID and ty != T.ERROR:
                self.error(start_pos(s.expr), "the value of this expression is unused (assign it with 'let' or store it)")

    def condition(self, e: A.Expr, what: str) -> None:
        ty = self.value(e)
        if ty != T.ERROR and ty != T.BOOL:
            self.error(start_pos(e), f"the condition of '{what}' must be a bool scalar, got {ty}")

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
                value = sym.const if sym.kind in ("const", "dim", "let") and isinstance(sym.const, int) \
                    and T.is_int(T.element(sym.ty)) else None
                if value is None:
                    return self.error(dim.pos, f"tile dimension '{dim.name}' is not a compile-time constant")
            if value <= 0:
                return self.error(dim.pos, f"tile dimensions must be positive, got {value}")
            shape.append(value)
        return self.tile_type(ref.element, shape, ref.pos)

    def tile_type(self, elem: str, shape, pos: A.Pos) -> T.Type:
        count = 1
        for d in shape:
            count *= d
        if count > MAX_TILE_ELEMENTS:
            return self.error(pos, f"a tile of {T.fmt_shape(shape)} has {count} elements, more than the limit of "
                                   f"{MAX_TILE_ELEMENTS}")
        return T.make(elem, shape)

    def check_decl(self, s: A.Decl) -> None:
        value_ty = self.value(s.value)
        if s.type is not None:
            declared = self.resolve_type(s.type)
            if declared != T.ERROR and value_ty != T.ERROR:
                self.assignable(value_ty, s.value, declared, start_pos(s.value),
                                lambda: f"cannot initialize '{s.name}' of type {declared} with a value of type {value_ty}")
        elif value_ty == T.ERROR:
            declared = T.ERROR
        else:
            declared = T.with_element(value_ty, T.default_element(value_ty.element))
            self.fits(s.value, declared.element)
        const = s.value.const if not s.mutable and isinstance(declared, T.Scalar) else None
        if const is not None and T.is_float(declared.element) and not isinstance(const, float):
            const = float(const)
        s.symbol = Symbol("var" if s.mutable else "let", s.name, declared, s.pos, const=const)
        self.declare(s.symbol)

    def check_assign(self, s: A.Assign) -> None:
        if isinstance(s.target, A.Index):
            target_ty = self.check_expr(s.target)
            value_ty = self.value(s.value)
            if s.op != "=":
                value_ty = self.combine(s, target_ty, value_ty)
            if target_ty != T.ERROR and value_ty != T.ERROR:
                self.storable(value_ty, s.value, target_ty, s.target)
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
            why = {"let": "it is declared with 'let' (use 'var' for a mutable variable)",
                   "param": "it is a kernel parameter",
                   "loop": "it is a loop variable",
                   "dim": "it is a tensor dimension",
                   "const": "it is an @autotune constant"}[sym.kind]
            if isinstance(sym.ty, T.Tensor):
                why = f"it is a tensor; store to a slice such as '{sym.name}[i :+ 32]'"
            self.error(name.pos, f"cannot assign to '{name.name}': {why}", ((sym.pos, "declared here"),))
            return
        if s.op != "=":
            value_ty = self.combine(s, sym.ty, value_ty)
        if value_ty != T.ERROR and sym.ty != T.ERROR:
            expr = s.combined if s.combined is not None else s.value
            self.assignable(value_ty, expr, sym.ty, start_pos(s.value),
                            lambda: f"cannot assign a value of type {value_ty} to '{name.name}' of type {sym.ty}")

    def combine(self, s: A.Assign, target_ty: T.Type, value_ty: T.Type) -> T.Type:
        """Types `target op value` of a compound assignment (kept in s.combined)."""
        s.combined = A.Binary(s.op_pos, s.op[0], s.target, s.value)
        return self.binary_type(s.combined, target_ty, value_ty)

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
        return True

    def assignable(self, value_ty: T.Type, value: A.Expr, target: T.Type, pos: A.Pos, message) -> bool:
        ve, te = value_ty.element, target.element
        ok = ve == te or (ve == T.INT_LITERAL and T.is_numeric(te)) or (ve == T.FLOAT_LITERAL and T.is_float(te))
        if ok:
            if isinstance(target, T.Scalar):
                ok = isinstance(value_ty, T.Scalar)
            else:
                ok = isinstance(value_ty, T.Scalar) or T.broadcast(value_ty.shape, target.shape) == target.shape
        if not ok:
            hint = ""
            if ve != te and T.is_numeric(ve) and te in CONVERSIONS and not T.is_untyped(ve):
                hint = f" (convert with {te}(...))"
            self.error(pos, message() + hint)
            return False
        return self.fits(value, te)

    def storable(self, value_ty: T.Type, value: A.Expr, target_ty: T.Type, target: A.Index) -> None:
        tensor_name = target.base.name
        ve, te = value_ty.element, target_ty.element
        if not (ve == te or (ve == T.INT_LITERAL and T.is_numeric(te)) or (ve == T.FLOAT_LITERAL and T.is_float(te))):
            self.error(start_pos(value), f"cannot store {ve} values into '{tensor_name}', a tensor of {te}"
                                  + (f" (convert with {te}(...))" if te in CONVERSIONS and T.is_numeric(ve) else ""))
            return
        if isinstance(value_ty, T.Tile):
            target_shape = T.shape(target_ty)
            if T.broadcast(value_ty.shape, target_shape) != tuple(target_shape):
                self.error(start_pos(value), f"cannot store a tile of shape {T.fmt_shape(value_ty.shape)} into a slice of "
                                      f"shape {T.fmt_shape(target_shape)}")
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
            return self.error(e.pos, f"tensor '{name}' cannot be used as a value; read a slice of it such as "
                                     f"'{name}[i :+ 32]'")
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
        raise AssertionError(f"unknown expression {type(e).__name__}")

    def check_name(self, e: A.Name) -> T.Type:
        sym = self.lookup(e.name)
        if sym is not None:
            e.symbol = sym
            if sym.kind in ("dim", "const", "let") and sym.const is not None:
                e.const = sym.const
            return sym.ty
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
        if e.op == "-":
            if not T.is_numeric(elem):
                return self.error(e.pos, f"'-' is not defined on {ty}")
            if e.operand.const is not None:
                e.const = -e.operand.const
                return self.checked_const(e, ty)
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
                return self.error(e.pos, f"constant expression overflows {elem if elem in T.INT_WIDTH else 'i64'} "
                                         f"(its value is {value})")
        return ty

    def unify_elements(self, pos: A.Pos, what: str, lt: T.Type, rt: T.Type) -> Optional[str]:
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
        if T.is_untyped(le):
            self.error(pos, f"cannot combine a {le} with {rt} in {what}")
        else:
            self.error(pos, f"operands of {what} have different types: {lt} and {rt}"
                            + (" (convert one with f32(...), i32(...), ...)" if T.is_numeric(lt.element)
                               and T.is_numeric(rt.element) else ""))
        return None

    def binary_type(self, e: A.Binary, lt: T.Type, rt: T.Type) -> T.Type:
        if lt == T.ERROR or rt == T.ERROR:
            return T.ERROR
        what = f"'{e.op}'"
        elem = self.unify_elements(e.pos, what, lt, rt)
        if elem is None:
            return T.ERROR
        shape = T.broadcast(T.shape(lt), T.shape(rt))
        if shape is None:
            return self.error(e.pos, f"shapes {T.fmt_shape(T.shape(lt))} and {T.fmt_shape(T.shape(rt))} do not "
                                     f"broadcast in {what}")
        if e.op in LOGICAL:
            if elem != "bool":
                return self.error(e.pos, f"{what} needs bool operands, got {lt} and {rt}")
            result_elem = "bool"
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
        if a is not None and b is not None and (T.is_untyped(elem) or T.is_int(elem) or elem == "bool") \
                and not shape:
            try:
                e.const = _fold(e.op, a, b, elem)
            except _FoldError as err:
                return self.error(e.pos, str(err))
            if T.is_untyped(result_elem) and isinstance(e.const, int) and abs(e.const) > 2 ** 64:
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

    def check_slice(self, e: A.Index) -> T.Type:
        base_ty = self.check_expr(e.base)
        for sub in e.subscripts:
            for part in (sub.start, sub.end):
                if part is not None:
                    self.value(part)
        if base_ty == T.ERROR:
            return T.ERROR
        if not isinstance(base_ty, T.Tensor):
            what = f"'{e.base.name}' is {base_ty}" if isinstance(e.base, A.Name) else f"this is {base_ty}"
            return self.error(e.pos, f"only tensor parameters can be sliced; {what}")
        name = e.base.name
        if len(e.subscripts) != base_ty.rank:
            return self.error(e.bracket or e.pos, f"'{name}' has {base_ty.rank} dimension{'s' * (base_ty.rank != 1)} "
                                                  f"but the slice has {len(e.subscripts)} subscript"
                                                  f"{'s' * (len(e.subscripts) != 1)}")
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
        return self.tile_type(base_ty.element, shape, e.pos)

    def subscript(self, sub: A.Subscript, tensor: T.Tensor, name: str, axis: int) -> Optional[int]:
        extent = tensor.static[axis]
        if sub.kind == "full":
            if extent is None:
                self.error(sub.pos, f"':' takes the whole dimension, which needs a compile-time extent; dimension "
                                    f"{axis} of '{name}' is the runtime extent '{tensor.dims[axis]}'")
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
            length = _constant_difference(sub.end, sub.start)
            if length is None:
                self.error(start_pos(sub.end), "slice length must be a compile-time constant (the end minus the start of "
                                        "'a : b' must fold to a number)")
                return None
        if length <= 0:
            self.error(start_pos(sub.end) if sub.end is not None else sub.pos, f"slice length must be positive, got {length}")
            return None
        if extent is not None and length > extent:
            self.error(sub.pos, f"a slice of {length} elements is longer than dimension {axis} of '{name}' ({extent})")
            return None
        return length

    # ================================================================== calls

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
        arg_types = [self.value(arg) for arg in e.args]
        if any(t == T.ERROR for t in arg_types):
            return T.ERROR
        method = getattr(self, "call_" + name, None)
        if method is None:
            return self.call_generic(e, name, arg_types)
        return method(e, arg_types)

    def arity(self, e: A.Call, name: str, types_, lo: int, hi: Optional[int] = None) -> bool:
        hi = lo if hi is None else hi
        n = len(types_)
        if lo <= n <= hi:
            return True
        want = f"{lo}" if lo == hi else f"{lo} or {hi}"
        self.error(e.callee.pos, f"'{name}' expects {want} argument{'s' * (hi != 1)}, got {n}")
        return False

    def tile_arg(self, e: A.Call, name: str, ty: T.Type, arg: A.Expr, rank: Optional[int] = None,
                 numeric: bool = True) -> bool:
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

    def call_generic(self, e: A.Call, name: str, ts: List[T.Type]) -> T.Type:
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
            if not (T.is_numeric(src) or src == "bool"):
                return self.error(e.args[0].pos, f"cannot convert {ty} to {name}")
            const = e.args[0].const
            if const is not None and isinstance(ty, T.Scalar) and (T.is_int(name) or T.is_untyped(src)):
                # Fold: integer results may size slices; literals need a type anyway.
                if T.is_float(name):
                    e.const = float(const)
                    return T.Scalar(name)
                if isinstance(const, float) and not math.isfinite(const):
                    return self.error(e.args[0].pos, f"cannot convert {const} to {name}")
                e.const = int(math.trunc(const)) if isinstance(const, float) else int(const)
                return self.checked_const(e, T.Scalar(name))
            return T.with_element(ty, name)
        raise AssertionError(name)

    def call_dot(self, e: A.Call, ts: List[T.Type], transposed: bool = False) -> T.Type:
        name = "dot_t" if transposed else "dot"
        if not self.arity(e, name, ts, 2):
            return T.ERROR
        if not all(self.tile_arg(e, name, t, a, rank=2) for t, a in zip(ts, e.args)):
            return T.ERROR
        a, b = ts
        (m, k), (k2, n) = a.shape, (b.shape[::-1] if transposed else b.shape)
        if k != k2:
            if transposed:
                return self.error(e.callee.pos, f"dot_t shapes do not agree: {T.fmt_shape(a.shape)} x "
                                                f"{T.fmt_shape(b.shape)} (dot_t(a, b) needs a: [M, K] and b: [N, K])")
            return self.error(e.callee.pos, f"dot shapes do not agree: {T.fmt_shape(a.shape)} x {T.fmt_shape(b.shape)}")
        if a.element != b.element:
            return self.error(e.callee.pos, f"'{name}' operands have different element types: {a} and {b}")
        acc = {"f16": "f32", "bf16": "f32", "f32": "f32", "f64": "f64", "i8": "i32", "i32": "i32", "i64": "i64"}
        if a.element not in acc:
            return self.error(e.args[0].pos, f"'{name}' is not defined on {a.element} tiles")
        return self.tile_type(acc[a.element], (m, n), e.pos)

    def call_dot_t(self, e, ts):
        return self.call_dot(e, ts, transposed=True)

    def call_abs(self, e, ts):
        if not self.arity(e, "abs", ts, 1):
            return T.ERROR
        if not T.is_numeric(ts[0].element):
            return self.error(e.args[0].pos, f"'abs' needs a numeric operand, got {ts[0]}")
        if e.args[0].const is not None:
            e.const = abs(e.args[0].const)
            return self.checked_const(e, ts[0])
        return ts[0]

    def _elementwise(self, e: A.Call, name: str, args: List[A.Expr], ts: List[T.Type]) -> Optional[Tuple[str, tuple]]:
        elem = ts[0].element
        shape: Optional[tuple] = T.shape(ts[0])
        for t in ts[1:]:
            elem = self.unify_elements(e.callee.pos, f"'{name}'", T.Scalar(elem), t) if elem is not None else None
            if elem is None:
                return None
            shape = T.broadcast(shape, T.shape(t))
            if shape is None:
                self.error(e.callee.pos, f"the operands of '{name}' do not broadcast: "
                                         f"{', '.join(str(t) for t in ts)}")
                return None
        for arg in args:
            if not self.fits(arg, elem):
                return None
        return elem, shape

    def call_tmax(self, e, ts, name="tmax"):
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
            e.const = max(a, b) if name == "tmax" else min(a, b)
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

    def call_sum(self, e, ts):
        if not self.arity(e, "sum", ts, 1, 2):
            return T.ERROR
        if not self.tile_arg(e, "sum", ts[0], e.args[0]):
            return T.ERROR
        shape = ts[0].shape
        if len(ts) == 1:
            return T.Scalar(ts[0].element)
        axis = e.args[1].const
        if not isinstance(axis, int) or isinstance(axis, bool) or not T.is_int(ts[1].element):
            return self.error(e.args[1].pos, "the axis of 'sum' must be an integer constant")
        if not 0 <= axis < len(shape):
            return self.error(e.args[1].pos, f"axis {axis} is out of range for {ts[0]}")
        e.axis = axis
        return T.make(ts[0].element, shape[:axis] + shape[axis + 1:])

    def call_rowsum(self, e, ts, name="rowsum"):
        if not self.arity(e, name, ts, 1) or not self.tile_arg(e, name, ts[0], e.args[0]):
            return T.ERROR
        return T.Tile(ts[0].element, ts[0].shape[:-1] + (1,))

    def call_rowmax(self, e, ts):
        return self.call_rowsum(e, ts, "rowmax")

    def call_cumsum(self, e, ts):
        if not self.arity(e, "cumsum", ts, 1) or not self.tile_arg(e, "cumsum", ts[0], e.args[0]):
            return T.ERROR
        return ts[0]

    def call_transpose(self, e, ts):
        if not self.arity(e, "transpose", ts, 1) or not self.tile_arg(e, "transpose", ts[0], e.args[0], rank=2,
                                                                       numeric=False):
            return T.ERROR
        return T.Tile(ts[0].element, ts[0].shape[::-1])

    def call_tril(self, e, ts):
        if not self.arity(e, "tril", ts, 1) or not self.tile_arg(e, "tril", ts[0], e.args[0], rank=2):
            return T.ERROR
        return ts[0]

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
            return self.error(e.args[0].pos, f"program_id expects the constant 0, 1 or 2, got "
                                             f"{d if d is not None else ts[0]}")
        e.grid_query = ("block", d)
        return T.INDEX


def start_pos(e: A.Expr) -> A.Pos:
    """Where an expression starts in the source (for messages about all of it)."""
    while True:
        if isinstance(e, A.Binary):
            e = e.lhs
        elif isinstance(e, (A.Index, A.Member)):
            e = e.base
        elif isinstance(e, A.Call):
            e = e.callee
        else:
            return e.pos


# ----------------------------------------------------------------------------- constant differences


def _constant_difference(end: A.Expr, start: A.Expr) -> Optional[int]:
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


def _linear(e: A.Expr) -> Optional[Tuple[int, Dict[tuple, int]]]:
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


def check_program(program: A.Program, diags: Diagnostics, defines: Optional[Dict[str, int]] = None) -> None:
    Checker(diags, defines).check_program(program)
