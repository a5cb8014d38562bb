"""`@phobos.fn` functions: inlined at every call of a Python kernel.

A call `gelu(x)` of a function decorated with `@phobos.fn` (in the same file as the kernel)
becomes, before the statement that holds the call, one `let` per parameter bound to its
argument and the function's statements, its names renamed apart (`_gelu1_x`); the call itself
becomes the expression of the function's final `return`. So a function costs nothing at run
time and means what its body means written out, with the same checks. A parameter annotated
with a scalar type converts its argument as a declaration does; tile annotations document the
shape and are checked where the body uses the value.
"""

from __future__ import annotations

import ast as py
import copy

from . import ast as A
from .python_attrs import Unsupported, last_name

MAX_INLINE_DEPTH = 16


class _Rename(py.NodeTransformer):
    def __init__(self, names: dict[str, str]):
        self.names = names

    def visit_Name(self, node):
        if node.id in self.names:
            node.id = self.names[node.id]
        return node


class FnInliner:
    """Inlines `@phobos.fn` calls for one Translator."""

    def __init__(self, translator, fns: dict):
        self.t = translator
        self.fns = fns
        self.pending: list[A.Stmt] | None = None
        self.active: list[str] = []
        self.count = 0

    def hoisted(self, expr, where: str | None = None) -> tuple[list[A.Stmt], A.Expr]:
        """(statements that must run first, the expression) for a Python expression that may call fns."""
        outer, self.pending = self.pending, []
        try:
            value = self.t.expr(expr)
            pre = self.pending
        finally:
            self.pending = outer
        if pre and where is not None:
            raise Unsupported(
                expr,
                f"a @phobos.fn cannot be called in {where} (it is evaluated more than once); "
                "assign its value to a variable first",
            )
        return pre, value

    def call(self, e) -> A.Expr | None:
        """The inlined call, or None when `e` calls no @phobos.fn."""
        name = last_name(e.func)
        fn = self.fns.get(name) if name is not None else None
        if fn is None or self.t.lookup(name)[0]:
            return None
        if self.pending is None:
            raise Unsupported(e, f"'{name}' (a @phobos.fn) cannot be called here")
        if name in self.active:
            raise Unsupported(e, f"'{name}' calls itself: a @phobos.fn is inlined, so recursion is not allowed")
        if len(self.active) >= MAX_INLINE_DEPTH:
            raise Unsupported(e, f"@phobos.fn calls are nested more than {MAX_INLINE_DEPTH} deep")
        params = fn.args.posonlyargs + fn.args.args
        if fn.args.vararg or fn.args.kwarg or fn.args.kwonlyargs or len(params) != len(e.args):
            raise Unsupported(e, f"'{name}' takes {len(params)} argument(s) by position, got {len(e.args)}")
        self.count += 1
        self.active.append(name)
        try:
            return self._inline(fn, name, params, e)
        finally:
            self.active.pop()

    def _inline(self, fn, name: str, params, e) -> A.Expr:
        body = [s for s in fn.body if not (isinstance(s, py.Expr) and isinstance(s.value, py.Constant))]
        if not body or not isinstance(body[-1], py.Return) or body[-1].value is None:
            raise Unsupported(fn, f"a @phobos.fn ends with 'return value' ('{name}' does not)")
        local = {p.arg for p in params}
        for node in py.walk(py.Module(body=body, type_ignores=[])):
            if isinstance(node, py.Name) and isinstance(node.ctx, py.Store):
                local.add(node.id)
            elif isinstance(node, py.Return) and node is not body[-1]:
                raise Unsupported(node, "a @phobos.fn has one 'return', at its end")
        prefix = f"_{name}{self.count}_"
        names = {n: prefix + n for n in local}
        for param, arg in zip(params, e.args):
            value = self.t.expr(arg)
            type_ref = None
            if param.annotation is not None and not isinstance(param.annotation, py.Subscript):
                type_ref = self.t.types.type_ref(param.annotation, f"parameter '{param.arg}' of '{name}'")
            decl = A.Decl(self.t.pos(param, len(param.arg)), False, names[param.arg], type_ref, value)
            self.t.scopes[-1][decl.name] = decl
            self.pending.append(decl)
        renamed = [_Rename(names).visit(copy.deepcopy(s)) for s in body]
        for stmt in renamed[:-1]:
            self.pending.extend(self.t.statement(stmt))
        return self.t.expr(renamed[-1].value)
