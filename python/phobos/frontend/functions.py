"""Functions: `fn name<T>(x: tile<T>[R, C], eps: f32) -> tile<T>[R, C] { ...; return e }`.

The checker's part (a mixin of Checker). A function is checked once per *instance*: each call
binds the function's element-type parameters (`T`) and the dimension names of its parameters'
types (`R`, `C`) from the arguments, and the body is checked with those bindings, on its own
copy of the syntax tree, as a template is. Calls with the same bound parameter types share one
instance. Inside the body the bound dimensions are compile-time constants (`C` in `sum(x, 1) /
C`), the parameters are values, and nothing of the calling kernel is visible.

An error inside the body is reported at its line, with a note at each call that led there
(innermost first): the note chain. A function that calls itself, directly or not, is refused at
the call that closes the cycle: functions are inlined, so recursion has no meaning.

to_tile_ir emits each instance as a private `func.func` (named `name.<types>`) and each call as
a `func.call`; the tile stage's first pass, tile-inline, inlines them.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from . import ast as A
from . import types as T
from .builtins import BUILTINS, CONSTANTS, CONVERSIONS
from .symbols import Symbol


@dataclass(eq=False)
class Instance:
    """A function checked for one binding of its parameter types."""

    fn: A.Function
    name: str  # the symbol of its func.func
    params: list[Symbol]
    result: T.Type
    body: list[A.Stmt] = field(default_factory=list)  # the statements before the final return
    value: A.Expr | None = None  # the returned expression
    failed: bool = False


def type_text(ty: T.Type) -> str:
    """A type as part of an instance's symbol: `32x128xf32`, `f32`."""
    if isinstance(ty, T.Tile):
        return "x".join([*map(str, ty.shape), ty.element])
    return ty.element


def walk(node, visit) -> None:
    """Calls `visit` on every syntax node and Pos under `node` (lists and tuples included)."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, (list, tuple)):
            stack.extend(n)
        elif isinstance(n, (A.Node, A.Pos)):
            visit(n)
            if isinstance(n, A.Node):
                stack.extend(v for v in vars(n).values() if isinstance(v, (A.Node, A.Pos, list, tuple)))


def _substitute_elements(body: A.Block, elements: dict[str, str]) -> None:
    """Replaces element-type parameters by their bindings: in types, and `T(x)` conversions."""

    def visit(n) -> None:
        if isinstance(n, A.TypeRef) and n.element in elements:
            n.element = elements[n.element]
        elif isinstance(n, A.Call) and isinstance(n.callee, A.Name) and n.callee.name in elements:
            n.callee.name = elements[n.callee.name]

    walk(body, visit)


class FunctionChecks:
    """The checker's functions (mixed into Checker, before BuiltinChecks)."""

    loop_depth: int
    functions: dict[str, A.Function]
    instances: dict[tuple, Instance]
    call_stack: list[tuple[A.Pos, str]]

    # ------------------------------------------------------------------ definitions

    def define_functions(self, program: A.Program, library: list[A.Function]) -> None:
        """Collects the program's functions and the library's (the program's win), checking signatures."""
        self.functions, self.instances, self.call_stack = {}, {}, []
        self.broken_functions: set[str] = set()
        kernels = {k.name for k in program.kernels}
        for fn in program.functions:
            if fn.name in self.functions:
                self.error(
                    fn.pos,
                    f"function '{fn.name}' is already defined",
                    ((self.functions[fn.name].pos, "the first definition is here"),),
                )
                continue
            if fn.name in BUILTINS or fn.name in CONSTANTS or fn.name in CONVERSIONS or fn.name == "ctx":
                self.error(fn.pos, f"'{fn.name}' is a builtin; a function cannot take its name")
                continue
            if fn.name in kernels:
                self.error(fn.pos, f"'{fn.name}' is also the name of a kernel")
                continue
            self.functions[fn.name] = fn
            before = self.error_count()
            self.check_signature(fn)
            if self.error_count() > before:
                self.broken_functions.add(fn.name)  # reported: its calls stay quiet
        for fn in library:
            self.functions.setdefault(fn.name, fn)

    def check_signature(self, fn: A.Function) -> None:
        names: dict[str, A.Pos] = {}
        dims: set[str] = set()
        used: set[str] = set()
        for p in fn.params:
            if p.name in names:
                self.error(p.pos, f"parameter '{p.name}' is declared twice", ((names[p.name], "first declared here"),))
            names[p.name] = p.pos
            if p.type.kind == "tensor":
                self.error(p.type.pos, "a function takes tiles and scalars; pass a slice of the tensor as a tile")
            used.add(p.type.element)
            dims.update(d.name for d in p.type.dims if d.name is not None)
        for name, pos in fn.type_params:
            if name not in used:
                self.error(
                    pos, f"element type '{name}' is not the element type of any parameter (it cannot be inferred)"
                )
        if fn.result.kind == "tensor":
            self.error(fn.result.pos, "a function returns a tile or a scalar, not a tensor")
        for d in fn.result.dims:
            if d.name is not None and d.name not in dims:
                self.error(d.pos, f"'{d.name}' in the result type is not a dimension of any parameter")
        stmts = fn.body.stmts
        if not stmts or not isinstance(stmts[-1], A.Return) or stmts[-1].value is None:
            where = stmts[-1].pos if stmts else fn.body.pos
            self.error(where, f"function '{fn.name}' must end with 'return <value>'")

        def visit(n) -> None:
            if isinstance(n, A.Return) and (not stmts or n is not stmts[-1]):
                self.error(n.pos, "a function returns once, with its last statement")

        walk(fn.body, visit)

    # ------------------------------------------------------------------ calls

    def check_call(self, e: A.Call) -> T.Type:
        callee = e.callee
        if isinstance(callee, A.Name) and callee.name in self.functions and self.lookup(callee.name) is None:
            return self.check_function_call(e, self.functions[callee.name])
        return super().check_call(e)  # type: ignore[misc]

    def check_function_call(self, e: A.Call, fn: A.Function) -> T.Type:
        arg_types = [self.value(a) for a in e.args]
        defined = ((fn.pos, f"'{fn.name}' is defined here"),)
        if len(e.args) != len(fn.params):
            n = len(fn.params)
            return self.error(
                e.callee.pos, f"'{fn.name}' takes {n} argument{'s' * (n != 1)}, got {len(e.args)}", defined
            )
        if any(t == T.ERROR for t in arg_types) or fn.name in self.broken_functions:
            return T.ERROR
        bound = self.bind_parameters(fn, e, arg_types)
        if bound is None:
            return T.ERROR
        param_types, elements, dims = bound
        for _, name in self.call_stack:
            if name == fn.name:
                return self.error(
                    e.callee.pos,
                    f"'{fn.name}' calls itself: functions are inlined at every call, so recursion is not allowed",
                    defined,
                )
        key = (fn.name, tuple(param_types))
        inst = self.instances.get(key)
        if inst is None:
            inst = self.instantiate(fn, e, param_types, elements, dims)
            self.instances[key] = inst
        e.function = inst
        return T.ERROR if inst.failed else inst.result

    def bind_parameters(self, fn: A.Function, e: A.Call, arg_types: list[T.Type]):
        """(parameter types, element bindings, dimension bindings) from the arguments, or None (reported)."""
        generic = {name for name, _ in fn.type_params}
        elements: dict[str, str] = {}
        dims: dict[str, int] = {}
        ok = True
        # Typed arguments bind first, so that a literal meets the element a tile gave `T`.
        order = sorted(range(len(fn.params)), key=lambda i: T.is_untyped(arg_types[i].element))
        for i in order:
            param, arg, ty = fn.params[i], e.args[i], arg_types[i]
            note = ((param.pos, f"parameter '{param.name}' of '{fn.name}' is declared here"),)
            ref = param.type
            if (ref.kind == "tile") != isinstance(ty, T.Tile):
                want = f"a tile of rank {len(ref.dims)}" if ref.kind == "tile" else "a scalar"
                self.error(A.start_pos(arg), f"argument '{param.name}' of '{fn.name}' must be {want}, got {ty}", note)
                ok = False
                continue
            if ref.element in generic:
                elem = ty.element if not T.is_untyped(ty.element) else T.default_element(ty.element)
                if not T.is_numeric(elem):
                    why = "fp8 is for storage and conversion: convert to f32 first, as in f32(x)"
                    why = why if T.is_fp8(elem) else f"{elem} is not a number type"
                    self.error(
                        A.start_pos(arg),
                        f"'{ref.element}' of '{fn.name}' stands for a number type, but the argument is {ty} ({why})",
                        note,
                    )
                    ok = False
                    continue
                previous = elements.setdefault(ref.element, elem)
                if previous != elem and not T.is_untyped(ty.element):
                    self.error(
                        A.start_pos(arg),
                        f"'{ref.element}' is {previous} from an earlier argument, but '{param.name}' is {ty}",
                        note,
                    )
                    ok = False
            if ref.kind == "tile":
                ok = self.bind_dims(fn, param, arg, ty, dims, note) and ok
        if not ok:
            return None
        types: list[T.Type] = []
        for param, arg, ty in zip(fn.params, e.args, arg_types):
            elem = elements.get(param.type.element, param.type.element)
            want = T.Scalar(elem) if param.type.kind == "scalar" else T.Tile(elem, T.shape(ty))
            msg = f"argument '{param.name}' of '{fn.name}' is {ty}, which does not convert to {want}"
            if not self.assignable(ty, arg, want, A.start_pos(arg), lambda m=msg: m):
                return None
            types.append(want)
        return types, elements, dims

    def bind_dims(self, fn, param: A.Param, arg: A.Expr, ty: T.Tile, dims: dict[str, int], note) -> bool:
        ref = param.type
        if len(ref.dims) != len(ty.shape):
            self.error(
                A.start_pos(arg),
                f"argument '{param.name}' of '{fn.name}' must be a tile of rank {len(ref.dims)}, got {ty}",
                note,
            )
            return False
        for d, extent in zip(ref.dims, ty.shape):
            want = d.value if d.name is None else dims.setdefault(d.name, extent)
            if want != extent:
                what = f"'{d.name}' is {want} from an earlier argument" if d.name else f"the dimension is {want}"
                self.error(
                    A.start_pos(arg),
                    f"argument '{param.name}' of '{fn.name}' is {ty}, but {what}",
                    note,
                )
                return False
        return True

    # ------------------------------------------------------------------ instances

    def instantiate(self, fn: A.Function, call: A.Call, param_types, elements, dims) -> Instance:
        name = f"{fn.name}." + ("_".join(type_text(t) for t in param_types) or "void")
        body = copy.deepcopy(fn.body)
        result_ref = copy.deepcopy(fn.result)
        _substitute_elements(body, elements)
        if result_ref.element in elements:
            result_ref.element = elements[result_ref.element]
        params = [Symbol("param", p.name, t, p.pos) for p, t in zip(fn.params, param_types)]
        inst = Instance(fn, name, params, T.ERROR)
        saved = (self.scopes, self.kernel_scope, self.loop_depth)
        before = self.error_count()
        self.scopes, self.loop_depth = [{}], 0
        self.kernel_scope = {d: Symbol("dim", d, T.INDEX, fn.pos, const=v) for d, v in dims.items()}
        self.call_stack.append((call.callee.pos, fn.name))
        try:
            inst.result = self.resolve_type(result_ref)
            for sym in params:
                self.declare(sym)
            stmts = body.stmts
            for stmt in stmts[:-1]:
                self.check_stmt(stmt)
            ret = stmts[-1] if stmts and isinstance(stmts[-1], A.Return) else None
            if ret is not None and ret.value is not None:
                ty = self.value(ret.value)
                if ty != T.ERROR and inst.result != T.ERROR:
                    result = inst.result
                    self.assignable(
                        ty,
                        ret.value,
                        result,
                        A.start_pos(ret.value),
                        lambda: f"'{fn.name}' returns {result}, but this value is {ty}",
                    )
                inst.body, inst.value = stmts[:-1], ret.value
        finally:
            self.call_stack.pop()
            self.scopes, self.kernel_scope, self.loop_depth = saved
        inst.failed = self.error_count() > before or inst.value is None
        return inst

    def error_count(self) -> int:
        return sum(1 for d in self.diags.records if d.severity == "error")

    def call_notes(self) -> tuple[tuple[A.Pos, str], ...]:
        """The note chain of an error inside a function instance: each call, innermost first."""
        return tuple((pos, f"in the call of '{name}' here") for pos, name in reversed(self.call_stack))
