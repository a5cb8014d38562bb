"""Kernels written in Python: the body of an `@phobos.kernel` function as the `.ph` syntax tree.

The function's source is parsed with Python's `ast` and never run. Each statement and
expression becomes the node the `.ph` parser would build for the same kernel, at the Python
file's line and column, so the checker, the promotion and conversion rules and to_tile_ir are
the `.ph` ones: a kernel and its `.ph` twin give the same tile IR.

    program = parse_python(text, diags)   # every @kernel function of `text` (a whole .py file,
                                          # or phobos.decorator's excerpt of one, same lines)

Python constructs outside the language (a `try`, `**`, a comprehension, a call of a Python
function, ...) are located errors that say what to write instead. The spellings
(`span(s, n)` for `s :+ n`, `tensor[f32, "M", "N"]`, ...) are in docs/python.md.
"""

from __future__ import annotations

import ast as py

from . import ast as A
from .errors import Diagnostics
from .python_attrs import AttributeReader, TypeReader, Unsupported, decorator_kind, dotted, last_name
from .python_fn import FnInliner

BINARY = {py.Add: "+", py.Sub: "-", py.Mult: "*", py.Div: "/", py.Mod: "%"}
COMPARE = {py.Eq: "==", py.NotEq: "!=", py.Lt: "<", py.LtE: "<=", py.Gt: ">", py.GtE: ">="}
AUGMENTED = {py.Add: "+=", py.Sub: "-=", py.Mult: "*="}
# What to write instead of a Python operator the language does not have.
NO_OPERATOR = {
    py.Pow: "there is no power operator '**'; write the product (x * x) or, for x > 0, exp(y * log(x))",
    py.FloorDiv: "'//' is not in the language: '/' on integers truncates toward zero (as in C); write a / b",
    py.MatMult: "'@' is not in the language; write dot(a, b)",
    py.BitAnd: "bit operations are not in the language yet; for conditions write 'and'",
    py.BitOr: "bit operations are not in the language yet; for conditions write 'or'",
    py.BitXor: "bit operations are not in the language yet",
    py.LShift: "shifts are not in the language yet; multiply by a power of two",
    py.RShift: "shifts are not in the language yet; divide by a power of two",
}
# Statements outside the language, and what to write instead.
NO_STATEMENT = {
    py.Try: "'try' is not in the language: a kernel cannot raise; out-of-bounds slices are masked",
    py.With: "'with' is not in the language",
    py.Raise: "'raise' is not in the language: a kernel cannot raise",
    py.Assert: "'assert' is not in the language; promise divisibility with aligned= instead",
    py.Import: "import at the top of the file, not in a kernel",
    py.ImportFrom: "import at the top of the file, not in a kernel",
    py.Global: "'global' is not in the language: pass the value as a parameter",
    py.Nonlocal: "'nonlocal' is not in the language: pass the value as a parameter",
    py.Delete: "'del' is not in the language",
    py.FunctionDef: "a function inside a kernel: define it at the top level with @phobos.fn",
    py.ClassDef: "a class inside a kernel is not in the language",
}
NO_EXPRESSION = {
    py.ListComp: "a list comprehension is not in the language: tiles are values, compute on them whole "
    "(arange(n) numbers the positions)",
    py.SetComp: "a set comprehension is not in the language",
    py.DictComp: "a dict comprehension is not in the language",
    py.GeneratorExp: "a generator is not in the language: reduce a tile with sum(x) or rowsum(x)",
    py.Lambda: "'lambda' is not in the language: define a function with @phobos.fn",
    py.IfExp: "'a if c else b' is not in the language; write where(c, a, b)",
    py.List: "a list is not in the language: tiles come from slices of tensors and from arange(n)",
    py.Tuple: "a tuple is not in the language",
    py.Dict: "a dict is not in the language",
    py.Set: "a set is not in the language",
    py.JoinedStr: "a string is not in the language",
    py.Await: "'await' is not in the language",
    py.Starred: "'*' unpacking is not in the language",
    py.NamedExpr: "':=' is not in the language; assign on a line of its own",
}


def parse_python(text: str, diags: Diagnostics) -> A.Program:
    """The kernels (`@...kernel` functions, at any depth) of Python source `text` as a `.ph`
    program; `@...fn` functions are inlined where they are called. Errors go to `diags`."""
    lines = text.splitlines()
    try:
        tree = py.parse(text, filename=diags.filename)
    except SyntaxError as e:
        col = _chars(lines, e.lineno or 1, (e.offset or 1) - 1) + 1
        diags.error(A.Pos(e.lineno or 1, col), f"Python syntax error: {e.msg}")
        return A.Program(A.Pos(1, 1), [])
    kernels, fns = [], {}
    for node in py.walk(tree):
        if isinstance(node, (py.FunctionDef, py.AsyncFunctionDef)):
            kinds = [decorator_kind(d) for d in node.decorator_list]
            if "kernel" in kinds:
                kernels.append(node)
            elif "fn" in kinds:
                fns[node.name] = node
    out = []
    for node in kernels:
        translator = Translator(lines, diags, fns)
        kernel = translator.kernel(node)
        if kernel is not None:
            out.append(kernel)
    return A.Program(A.Pos(1, 1), out)


def _chars(lines: list[str], line: int, byte_col: int) -> int:
    """Python's column (UTF-8 bytes) as characters of the line."""
    if not 1 <= line <= len(lines):
        return byte_col
    return len(lines[line - 1].encode()[:byte_col].decode(errors="ignore"))


class Translator:
    """One kernel: Python statements and expressions to `.ph` nodes."""

    def __init__(self, lines: list[str], diags: Diagnostics, fns: dict):
        self.lines = lines
        self.diags = diags
        self.scopes: list[dict[str, A.Decl | None]] = []
        self.attrs = AttributeReader(self.pos)
        self.types = TypeReader(self.pos)
        self.inliner = FnInliner(self, fns)

    # ------------------------------------------------------------------ positions

    def pos(self, node, length: int | None = None) -> A.Pos:
        if node is None or not hasattr(node, "lineno"):
            return A.Pos(1, 1)
        line = node.lineno
        col = _chars(self.lines, line, node.col_offset)
        if length is None:
            end_line = getattr(node, "end_lineno", line)
            if end_line == line and getattr(node, "end_col_offset", None) is not None:
                length = max(_chars(self.lines, line, node.end_col_offset) - col, 1)
            else:
                length = max(len(self.lines[line - 1]) - col, 1) if line <= len(self.lines) else 1
        return A.Pos(line, col + 1, length)

    def op_pos(self, lhs, rhs, text: str, fallback) -> A.Pos:
        """The operator between `lhs` and `rhs` (as the `.ph` parser places binary operators)."""
        if getattr(lhs, "end_lineno", None) == getattr(rhs, "lineno", None) == lhs.end_lineno:
            line = self.lines[lhs.end_lineno - 1]
            start = _chars(self.lines, lhs.end_lineno, lhs.end_col_offset)
            end = _chars(self.lines, rhs.lineno, rhs.col_offset)
            at = line.find(text, start, end)
            if at >= 0:
                return A.Pos(lhs.end_lineno, at + 1, len(text))
        return self.pos(fallback, 1)

    def name_pos(self, node, name: str) -> A.Pos:
        """Where `name` is written in the header line of a def (or the node's start)."""
        line = self.lines[node.lineno - 1] if node.lineno <= len(self.lines) else ""
        at = line.find(name, _chars(self.lines, node.lineno, node.col_offset))
        return A.Pos(node.lineno, at + 1, len(name)) if at >= 0 else self.pos(node)

    def fail(self, node, message: str) -> Unsupported:
        return Unsupported(node, message)

    def report(self, e: Unsupported) -> None:
        self.diags.error(self.pos(e.node) if e.node is not None else None, e.message)

    # ------------------------------------------------------------------ kernels

    def kernel(self, node) -> A.Kernel | None:
        try:
            if isinstance(node, py.AsyncFunctionDef):
                raise self.fail(node, "a kernel is a plain 'def', not 'async def'")
            attributes = []
            for dec in node.decorator_list:
                if decorator_kind(dec) == "kernel":
                    attributes.extend(self.attrs.attributes(dec))
        except Unsupported as e:
            self.report(e)
            return None
        params = self.params(node)
        self.scopes = [{p.name: None for p in params}]
        body = self.block(node.body, docstring=True)
        return A.Kernel(self.name_pos(node, node.name), node.name, attributes, params, body)

    def params(self, node) -> list[A.Param]:
        args = node.args
        for extra, what in ((args.vararg, "*args"), (args.kwarg, "**kwargs")):
            if extra is not None:
                self.report(self.fail(extra, f"a kernel has no {what}: name each parameter with its type"))
        if args.defaults or args.kw_defaults and any(d is not None for d in args.kw_defaults):
            default = (args.defaults or [d for d in args.kw_defaults if d is not None])[0]
            self.report(self.fail(default, "kernel parameters have no default values (pass every argument)"))
        out = []
        for arg in args.posonlyargs + args.args + args.kwonlyargs:
            try:
                if arg.annotation is None:
                    raise self.fail(
                        arg,
                        f"parameter '{arg.arg}' has no type: annotate it, as in "
                        f"{arg.arg}: tensor[f32, 'N'] or {arg.arg}: f32",
                    )
                type_ref = self.types.type_ref(arg.annotation, f"parameter '{arg.arg}'")
            except Unsupported as e:
                self.report(e)
                type_ref = A.TypeRef(self.pos(arg), "scalar", "f32")  # checked on; the error stands
            out.append(A.Param(self.pos(arg, len(arg.arg)), arg.arg, type_ref))
        return out

    # ------------------------------------------------------------------ statements

    def block(self, stmts: list, docstring: bool = False, bindings: tuple[str, ...] = ()) -> A.Block:
        self.scopes.append({name: None for name in bindings})
        out: list[A.Stmt] = []
        try:
            for i, stmt in enumerate(stmts):
                if i == 0 and docstring and _is_docstring(stmt):
                    continue
                try:
                    out.extend(self.statement(stmt))
                except Unsupported as e:
                    self.report(e)
        finally:
            self.scopes.pop()
        return A.Block(self.pos(stmts[0]) if stmts else A.Pos(1, 1), out)

    def lookup(self, name: str) -> tuple[bool, A.Decl | None]:
        for scope in reversed(self.scopes):
            if name in scope:
                return True, scope[name]
        return False, None

    def statement(self, s) -> list[A.Stmt]:
        if isinstance(s, py.Assign):
            return self.assign(s)
        if isinstance(s, py.AnnAssign):
            return self.ann_assign(s)
        if isinstance(s, py.AugAssign):
            return self.aug_assign(s)
        if isinstance(s, py.For):
            return self.for_(s)
        if isinstance(s, py.While):
            if s.orelse:
                raise self.fail(s.orelse[0], "'while ... else' is not in the language")
            pre, cond = self.inliner.hoisted(s.test, "a while condition")
            return pre + [A.While(self.pos(s, 5), cond, self.block(s.body))]
        if isinstance(s, py.If):
            return self.if_(s)
        if isinstance(s, py.Expr):
            if _is_docstring(s):
                return []
            pre, value = self.inliner.hoisted(s.value)
            return pre + [A.ExprStmt(value.pos, value)]
        if isinstance(s, py.Pass):
            return []
        if isinstance(s, (py.Break, py.Continue)):
            return [(A.Break if isinstance(s, py.Break) else A.Continue)(self.pos(s))]
        if isinstance(s, py.Return):
            value = self.expr(s.value) if s.value is not None else None
            return [A.Return(self.pos(s, 6), value)]  # a value is the checker's error, at the value
        for kind, message in NO_STATEMENT.items():
            if isinstance(s, kind):
                raise self.fail(s, message)
        raise self.fail(s, f"'{type(s).__name__}' statements are not in the language")

    def assign(self, s) -> list[A.Stmt]:
        if len(s.targets) != 1:
            raise self.fail(s.targets[1], "chained assignment (a = b = e) is not in the language; assign each name")
        target = s.targets[0]
        if isinstance(target, (py.Tuple, py.List)):
            raise self.fail(target, "unpacking (a, b = ...) is not in the language; assign each name on its own line")
        pre, value = self.inliner.hoisted(s.value)
        return pre + [self.store(target, value, "=", None, s)]

    def ann_assign(self, s) -> list[A.Stmt]:
        if not isinstance(s.target, py.Name):
            raise self.fail(s.target, "only a name can be declared with a type (x: tile[f32, 64] = 0.0)")
        if s.value is None:
            raise self.fail(s, f"'{s.target.id}' is declared without a value: write {s.target.id}: ... = value")
        declared, _ = self.lookup(s.target.id)
        if declared:
            raise self.fail(s.target, f"'{s.target.id}' is already declared; a type goes on its first assignment only")
        type_ref = self.types.type_ref(s.annotation, f"variable '{s.target.id}'")
        pre, value = self.inliner.hoisted(s.value)
        return pre + [self.declare(s.target, type_ref, value)]

    def aug_assign(self, s) -> list[A.Stmt]:
        op = AUGMENTED.get(type(s.op))
        if op is None:
            message = NO_OPERATOR.get(type(s.op))
            if isinstance(s.op, py.Div):
                message = "'/=' is not in the language; write x = x / e"
            raise self.fail(s, message or "this compound assignment is not in the language; write x = x op e")
        pre, value = self.inliner.hoisted(s.value)
        op_pos = self.op_pos(s.target, s.value, op, s)
        return pre + [self.store(s.target, value, op, op_pos, s)]

    def store(self, target, value: A.Expr, op: str, op_pos, s) -> A.Stmt:
        if isinstance(target, py.Name):
            declared, decl = self.lookup(target.id)
            if not declared:
                if op != "=":
                    raise self.fail(target, f"'{target.id}' is updated before it is assigned")
                return self.declare(target, None, value)
            if decl is not None:
                decl.mutable = True  # assigned again: a `var`
            lhs = A.Name(self.pos(target), target.id)
            return A.Assign(lhs.pos, lhs, op, value, op_pos or self.op_pos(target, s.value, op, s))
        if isinstance(target, py.Subscript):
            lhs = self.expr(target)
            return A.Assign(lhs.pos, lhs, op, value, op_pos or self.op_pos(target, s.value, op, s))
        raise self.fail(target, "cannot assign to this (expected a name or a slice such as Y[span(i, 32)])")

    def declare(self, target, type_ref, value: A.Expr) -> A.Decl:
        decl = A.Decl(self.pos(target), False, target.id, type_ref, value)
        self.scopes[-1][target.id] = decl
        return decl

    def for_(self, s) -> list[A.Stmt]:
        if s.orelse:
            raise self.fail(s.orelse[0], "'for ... else' is not in the language")
        if not isinstance(s.target, py.Name):
            raise self.fail(s.target, "a loop variable is one name: for i in range(...)")
        it = s.iter
        if not (isinstance(it, py.Call) and last_name(it.func) == "range") or it.keywords or not 1 <= len(it.args) <= 3:
            raise self.fail(
                it, "a loop runs over range([start, ]stop[, step]); other iterables are not in the language"
            )
        pre, bounds = [], []
        for arg in it.args:
            more, bound = self.inliner.hoisted(arg)
            pre += more
            bounds.append(bound)
        if len(bounds) == 1:
            start, stop, step = A.IntLit(bounds[0].pos, 0), bounds[0], None
        else:
            start, stop, step = bounds[0], bounds[1], bounds[2] if len(bounds) == 3 else None
        body = self.block(s.body, bindings=(s.target.id,))
        return pre + [A.For(self.pos(s, 3), s.target.id, self.pos(s.target), start, stop, step, body)]

    def if_(self, s) -> list[A.Stmt]:
        pre, cond = self.inliner.hoisted(s.test)
        node = A.If(self.pos(s, 2), cond, self.block(s.body))
        if len(s.orelse) == 1 and isinstance(s.orelse[0], py.If) and _is_elif(self.lines, s.orelse[0]):
            more = self.if_(s.orelse[0])
            if len(more) == 1:
                node.orelse = more[0]
            else:
                node.orelse = A.Block(more[0].pos, more)
        elif s.orelse:
            node.orelse = self.block(s.orelse)
        return pre + [node]

    # ------------------------------------------------------------------ expressions

    def expr(self, e) -> A.Expr:
        if isinstance(e, py.Constant):
            return self.constant(e)
        if isinstance(e, py.Name):
            return A.Name(self.pos(e), e.id)
        if isinstance(e, py.BinOp):
            return self.binary(e)
        if isinstance(e, py.UnaryOp):
            return self.unary(e)
        if isinstance(e, py.BoolOp):
            op = "&&" if isinstance(e.op, py.And) else "||"
            word = "and" if op == "&&" else "or"
            out = self.expr(e.values[0])
            for prev, value in zip(e.values, e.values[1:]):
                out = A.Binary(self.op_pos(prev, value, word, e), op, out, self.expr(value))
            return out
        if isinstance(e, py.Compare):
            return self.compare(e)
        if isinstance(e, py.Call):
            return self.call(e)
        if isinstance(e, py.Attribute):
            return self.attribute(e)
        if isinstance(e, py.Subscript):
            return self.index(e)
        if isinstance(e, py.Slice):
            raise self.fail(e, "a slice outside brackets is not in the language")
        for kind, message in NO_EXPRESSION.items():
            if isinstance(e, kind):
                raise self.fail(e, message)
        raise self.fail(e, f"'{type(e).__name__}' expressions are not in the language")

    def constant(self, e) -> A.Expr:
        value = e.value
        if isinstance(value, bool):
            return A.BoolLit(self.pos(e), value)
        if isinstance(value, int):
            return A.IntLit(self.pos(e), value)
        if isinstance(value, float):
            return A.FloatLit(self.pos(e), value)
        what = "a string" if isinstance(value, str) else f"'{value!r}'"
        raise self.fail(e, f"{what} is not a value in the language")

    def binary(self, e) -> A.Expr:
        op = BINARY.get(type(e.op))
        if op is None:
            raise self.fail(e, NO_OPERATOR.get(type(e.op), "this operator is not in the language"))
        lhs, rhs = self.expr(e.left), self.expr(e.right)
        return A.Binary(self.op_pos(e.left, e.right, op, e), op, lhs, rhs)

    def unary(self, e) -> A.Expr:
        if isinstance(e.op, py.UAdd):
            return self.expr(e.operand)
        if isinstance(e.op, py.Invert):
            raise self.fail(e, "'~' is not in the language; for a condition write 'not c'")
        op = "-" if isinstance(e.op, py.USub) else "!"
        return A.Unary(self.pos(e, 1 if op == "-" else 3), op, self.expr(e.operand))

    def compare(self, e) -> A.Expr:
        if len(e.ops) > 1:
            raise self.fail(e, "comparisons cannot be chained (a < b < c); write (a < b) and (b < c)")
        op = COMPARE.get(type(e.ops[0]))
        if op is None:
            raise self.fail(e, "'is' and 'in' are not in the language; compare values with == and !=")
        lhs, rhs = self.expr(e.left), self.expr(e.comparators[0])
        return A.Binary(self.op_pos(e.left, e.comparators[0], op, e), op, lhs, rhs)

    def call(self, e) -> A.Expr:
        keywords = [self.keyword(k) for k in e.keywords]  # the atomics' sem= and scope= (the checker says where)
        inlined = self.inliner.call(e)
        if inlined is not None:
            if keywords:
                raise self.fail(e.keywords[0], "a @phobos.fn function takes no keyword arguments")
            return inlined
        name = last_name(e.func)
        if name == "span":
            raise self.fail(e, "span(start, length) is a subscript: use it inside brackets, X[span(s, n)]")
        callee = A.Name(self.pos(e.func if isinstance(e.func, py.Name) else e.func, len(name or "x")), name or "")
        if name is None:
            raise self.fail(e.func, "only builtins and @phobos.fn functions can be called")
        if isinstance(e.func, py.Attribute):
            callee.pos = self.attr_pos(e.func)
            self.check_prefix(e.func)
        return A.Call(callee.pos, callee, [self.expr(a) for a in e.args], keywords)

    def keyword(self, k) -> tuple[str, A.Pos, A.Expr]:
        """`name=value` of a call: a string value is a string literal (sem="acquire")."""
        if k.arg is None:
            raise self.fail(k, "'**' arguments are not in the language")
        value = k.value
        if isinstance(value, py.Constant) and isinstance(value.value, str):
            expr: A.Expr = A.StrLit(self.pos(value), value.value)
        else:
            expr = self.expr(value)
        return k.arg, self.pos(k, len(k.arg)), expr

    def attr_pos(self, e) -> A.Pos:
        """The position of the last name of `a.b.name`."""
        line = self.lines[e.end_lineno - 1]
        end = _chars(self.lines, e.end_lineno, e.end_col_offset)
        return A.Pos(e.end_lineno, end - len(e.attr) + 1, len(e.attr)) if line else self.pos(e)

    def check_prefix(self, e) -> None:
        """`ph.exp(...)`: the module prefix of a builtin must be a module, not a value of the kernel."""
        text = dotted(e.value) or ""
        root = text.split(".", 1)[0]
        declared, _ = self.lookup(root)
        if declared or root == "ctx":
            raise self.fail(e, f"'{text}.{e.attr}' is not in the language (methods are not; write {e.attr}(x))")

    def attribute(self, e) -> A.Expr:
        text = dotted(e)
        root = text.split(".", 1)[0] if text else None
        if text is not None and root != "ctx" and not self.lookup(root)[0]:
            return A.Name(self.attr_pos(e), e.attr)  # ph.inf, math.inf: a name of the language
        base = self.expr(e.value)
        return A.Member(self.attr_pos(e), base, e.attr)

    def index(self, e) -> A.Expr:
        base = self.expr(e.value)
        items = e.slice.elts if isinstance(e.slice, py.Tuple) else [e.slice]
        subs = [self.subscript(item) for item in items]
        line = self.lines[e.value.end_lineno - 1]
        at = line.find("[", _chars(self.lines, e.value.end_lineno, e.value.end_col_offset))
        bracket = A.Pos(e.value.end_lineno, at + 1) if at >= 0 else base.pos
        return A.Index(base.pos, base, subs, bracket)

    def subscript(self, item) -> A.Subscript:
        if isinstance(item, py.Slice):
            if item.step is not None:
                raise self.fail(item.step, "a slice has no step in the language (a : b, span(s, n) or :)")
            if item.lower is None and item.upper is None:
                return A.Subscript(self.pos(item, 1), "full")
            if item.lower is None or item.upper is None:
                missing = "start" if item.lower is None else "end"
                raise self.fail(item, f"a range needs its {missing}: write a : b, or ':' for the whole dimension")
            start = self.expr(item.lower)
            return A.Subscript(start.pos, "range", start, self.expr(item.upper))
        if isinstance(item, py.Call) and last_name(item.func) == "span":
            if len(item.args) != 2 or item.keywords:
                raise self.fail(item, "span takes a start and a length: span(s, n) is the n elements from s")
            start = self.expr(item.args[0])
            return A.Subscript(start.pos, "span", start, self.expr(item.args[1]))
        start = self.expr(item)
        return A.Subscript(start.pos, "point", start)


def _is_docstring(s) -> bool:
    return isinstance(s, py.Expr) and isinstance(s.value, py.Constant) and isinstance(s.value.value, str)


def _is_elif(lines: list[str], node) -> bool:
    """An `elif` (its own line starts with `elif`), not an `if` nested in an `else:` block."""
    line = lines[node.lineno - 1] if node.lineno <= len(lines) else ""
    return line[_chars(lines, node.lineno, node.col_offset) :].startswith("elif")
