"""The parser: tokens to the syntax tree of the grammar in docs/language.md.

Recursive descent, one method per grammar rule. A syntax error is reported
where it is found and the parser resynchronises at the end of the statement
(skipping any block the broken statement opened) or, outside kernel bodies,
at the next `kernel` or attribute, so one run reports several errors.
Nesting is bounded (the MAX_ constants below, and MAX_NESTING of the lowering
for blocks plus `else if`s) so that no input can exhaust the Python stack of
any later phase; an `else if` chain is read in a loop, not by recursion.
"""

from __future__ import annotations

from phobos.nesting import MAX_NESTING

from . import ast as A
from .errors import Diagnostics
from .lexer import EOF, FLOAT, IDENT, INT, NEWLINE, STRING, Token, tokenize
from .parse_functions import attach_docs, parse_function, parse_import

SCALAR_TYPES = ("f16", "bf16", "f32", "f64", "f8e4m3", "f8e5m2", "i8", "u8", "i32", "u32", "i64", "bool")
ASSIGN_OPS = ("=", "+=", "-=", "*=")
COMPARISONS = ("==", "!=", "<", "<=", ">", ">=")

# Deepest expression tree (in nodes), bracket nesting and block nesting accepted.
MAX_EXPR_DEPTH = 64
MAX_BRACKETS = 32
MAX_BLOCK_DEPTH = 24


class _SyntaxError(Exception):
    """Unwinds to the nearest recovery point; the diagnostic is already reported."""


def _depth(e: A.Expr) -> int:
    return getattr(e, "depth", 1)


class Parser:
    def __init__(self, tokens: list[Token], diags: Diagnostics):
        self.tokens = tokens
        self.i = 0
        self.diags = diags
        self.block_depth = 0
        self.nesting = 0
        self.else_ifs = 0  # `else if`s around the current position (see enter_else_if)
        self.lexer_error_lines = {d.line for d in diags.records}
        self.type_params: tuple[str, ...] = ()  # element-type parameters of the function being read

    # ------------------------------------------------------------------ tokens

    def peek(self, k: int = 0) -> Token:
        return self.tokens[min(self.i + k, len(self.tokens) - 1)]

    def at(self, *kinds: str) -> bool:
        return self.peek().kind in kinds

    def advance(self) -> Token:
        tok = self.peek()
        if tok.kind != EOF:
            self.i += 1
        return tok

    def accept(self, kind: str) -> Token | None:
        return self.advance() if self.at(kind) else None

    def error(self, tok: Token, message: str, notes=()) -> _SyntaxError:
        # A line with a bad character is reported once, by the lexer.
        if tok.line not in self.lexer_error_lines:
            self.diags.error(tok.pos, message, notes)
        return _SyntaxError()

    def expect(self, kind: str, context: str) -> Token:
        if self.at(kind):
            return self.advance()
        what = f"'{kind}'" if kind not in (IDENT, INT) else ("a name" if kind == IDENT else "an integer")
        raise self.error(self.peek(), f"expected {what} {context}, got {self.peek().describe()}")

    def skip_newlines(self) -> None:
        while self.at(NEWLINE, ";"):
            self.advance()

    def _node(self, node: A.Expr, *children: A.Expr | None) -> A.Expr:
        node.depth = 1 + max((_depth(c) for c in children if c is not None), default=0)
        if node.depth > MAX_EXPR_DEPTH:
            self.diags.error(node.pos, f"expression is nested too deeply (more than {MAX_EXPR_DEPTH} levels)")
            raise _SyntaxError()
        return node

    # ------------------------------------------------------------------ program

    def parse_program(self) -> A.Program:
        program = A.Program(self.peek().pos, [])
        while True:
            self.skip_newlines()
            if self.at(EOF):
                break
            try:
                if self.at("fn"):
                    program.functions.append(parse_function(self))
                elif self.at("import"):
                    program.imports.append(parse_import(self))
                else:
                    program.kernels.append(self.parse_kernel())
            except _SyntaxError:
                self.sync_top_level()
        return program

    def sync_top_level(self) -> None:
        """Skips to the next `@`, `kernel`, `fn` or `import` outside any block."""
        depth = 0
        while not self.at(EOF):
            tok = self.peek()
            if depth == 0 and tok.kind in ("@", "kernel", "fn", "import"):
                return
            if tok.kind == "{":
                depth += 1
            elif tok.kind == "}":
                depth = max(depth - 1, 0)
            self.advance()

    def parse_kernel(self) -> A.Kernel:
        attributes = []
        while self.at("@"):
            attributes.append(self.parse_attribute())
            self.skip_newlines()
        if not self.at("kernel"):
            context = "after the attributes" if attributes else "at the top level"
            tok = self.advance()
            expected = "'kernel'" if attributes else "'kernel', 'fn' or 'import'"
            raise self.error(tok, f"expected {expected} {context}, got {tok.describe()}")
        self.advance()
        name = self.expect(IDENT, "after 'kernel'")
        self.expect("(", f"after the kernel name '{name.text}'")
        params = []
        if not self.at(")"):
            params.append(self.parse_param())
            while self.accept(","):
                params.append(self.parse_param())
        self.expect(")", "after the parameters")
        body = self.parse_block()
        return A.Kernel(name.pos, name.text, attributes, params, body)

    def parse_attribute(self) -> A.Attribute:
        at = self.advance()
        name = self.expect(IDENT, "after '@'")
        pos = A.Pos(at.line, at.col, name.col + len(name.text) - at.col)
        args: list[A.AttrArg] = []
        has_parens = False
        if self.accept("("):
            has_parens = True
            if not self.at(")"):
                args.append(self.parse_attr_arg())
                while self.accept(","):
                    args.append(self.parse_attr_arg())
            self.expect(")", f"after the arguments of '@{name.text}'")
        if not self.at(NEWLINE, "@", "kernel", EOF):
            raise self.error(self.peek(), f"expected a new line after '@{name.text}', got {self.peek().describe()}")
        return A.Attribute(pos, name.text, args, has_parens)

    def parse_attr_arg(self) -> A.AttrArg:
        tok = self.peek()
        if tok.kind == IDENT and self.peek(1).kind == "in":
            self.advance()
            self.advance()
            self.expect("[", f"after '{tok.text} in'")
            values = [self.parse_attr_int()]
            while self.accept(","):
                values.append(self.parse_attr_int())
            self.expect("]", "after the values")
            return A.AttrArg(tok.pos, "space", name=tok.text, values=values)
        if tok.kind == IDENT and self.peek(1).kind == "=":
            self.advance()
            self.advance()
            return A.AttrArg(tok.pos, "keyword", name=tok.text, value=self.parse_attr_value())
        return A.AttrArg(tok.pos, "positional", value=self.parse_attr_value())

    def parse_attr_int(self) -> A.IntLit:
        value = self.parse_attr_value()
        if not isinstance(value, A.IntLit):
            self.diags.error(value.pos, "expected an integer")
            raise _SyntaxError()
        return value

    def parse_attr_value(self) -> A.Expr:
        """A literal (optionally negative) or a name."""
        tok = self.peek()
        sign = 1
        if tok.kind == "-":
            self.advance()
            sign = -1
        num = self.peek()
        if num.kind == INT:
            self.advance()
            return A.IntLit(self._span(tok, num), sign * num.value)
        if num.kind == FLOAT:
            self.advance()
            return A.FloatLit(self._span(tok, num), sign * num.value)
        if num.kind == IDENT and sign == 1:
            self.advance()
            return A.Name(num.pos, num.text)
        raise self.error(num, f"expected a literal or a name, got {num.describe()}")

    @staticmethod
    def _span(first: Token, last: Token) -> A.Pos:
        if first.line != last.line:
            return last.pos
        return A.Pos(first.line, first.col, last.col + len(last.text) - first.col)

    def parse_param(self) -> A.Param:
        name = self.expect(IDENT, "as a parameter name")
        self.expect(":", f"after the parameter name '{name.text}'")
        return A.Param(name.pos, name.text, self.parse_type())

    def parse_type(self) -> A.TypeRef:
        tok = self.peek()
        if tok.kind != IDENT:
            raise self.error(tok, f"expected a type, got {tok.describe()}")
        self.advance()
        if tok.text in ("tensor", "tile"):
            self.expect("<", f"after '{tok.text}'")
            element = self.expect(IDENT, "as the element type")
            self.check_scalar(element)
            self.expect(">", "after the element type")
            self.expect("[", f"after '{tok.text}<{element.text}>' (the dimensions)")
            dims = [self.parse_dim()]
            while self.accept(","):
                dims.append(self.parse_dim())
            self.expect("]", "after the dimensions")
            return A.TypeRef(tok.pos, tok.text, element.text, dims)
        if tok.text in SCALAR_TYPES or tok.text in self.type_params:
            return A.TypeRef(tok.pos, "scalar", tok.text)
        raise self.error(
            tok,
            f"unknown type '{tok.text}' (expected one of {', '.join(SCALAR_TYPES)}, tensor<T>[dims] or tile<T>[dims])",
        )

    def check_scalar(self, tok: Token) -> None:
        if tok.text not in SCALAR_TYPES and tok.text not in self.type_params:
            raise self.error(tok, f"unknown element type '{tok.text}' (expected one of {', '.join(SCALAR_TYPES)})")

    def parse_dim(self) -> A.DimRef:
        tok = self.peek()
        if tok.kind == IDENT:
            self.advance()
            return A.DimRef(tok.pos, name=tok.text)
        if tok.kind == INT:
            self.advance()
            return A.DimRef(tok.pos, value=tok.value)
        raise self.error(tok, f"expected a dimension (a name or an integer), got {tok.describe()}")

    # ------------------------------------------------------------------ statements

    def parse_block(self) -> A.Block:
        # `{` may start the next line (nothing else can follow a header there).
        while self.at(NEWLINE) and self.peek(1).kind == "{":
            self.advance()
        if self.block_depth >= MAX_BLOCK_DEPTH and self.at("{"):
            # Not consumed: recovery skips the whole block.
            raise self.error(self.peek(), f"blocks are nested too deeply (more than {MAX_BLOCK_DEPTH} levels)")
        if self.block_depth + self.else_ifs >= MAX_NESTING and self.at("{"):
            raise self.error(
                self.peek(),
                f"blocks are nested more deeply than {MAX_NESTING} levels (counting each enclosing 'else if')",
            )
        lbrace = self.expect("{", "to open a block")
        self.block_depth += 1
        try:
            stmts: list[A.Stmt] = []
            while True:
                self.skip_newlines()
                if self.at("}"):
                    self.advance()
                    break
                if self.at(EOF):
                    raise self.error(
                        self.peek(),
                        "expected '}' at the end of the block",
                        notes=((lbrace.pos, "the block starts here"),),
                    )
                try:
                    stmts.append(self.parse_statement())
                except _SyntaxError:
                    self.sync_statement()
            return A.Block(lbrace.pos, stmts)
        finally:
            self.block_depth -= 1

    def sync_statement(self) -> None:
        """Skips the rest of a broken statement, including any block it opened,
        up to its end (consumed) or the `}` of the enclosing block (kept)."""
        depth = 0
        while not self.at(EOF):
            tok = self.peek()
            if tok.kind == "{":
                depth += 1
            elif tok.kind == "}":
                if depth == 0:
                    return
                depth -= 1
                if depth == 0:
                    self.advance()
                    if not self.at("else"):
                        return
                    continue
            elif depth == 0 and tok.kind in (NEWLINE, ";"):
                self.advance()
                return
            self.advance()

    def parse_statement(self) -> A.Stmt:
        tok = self.peek()
        if tok.kind in ("let", "var"):
            return self.parse_decl()
        if tok.kind == "for":
            return self.parse_for()
        if tok.kind == "while":
            self.advance()
            cond = self.parse_expr()
            return A.While(tok.pos, cond, self.parse_block())
        if tok.kind == "if":
            return self.parse_if()
        if tok.kind in ("break", "continue", "return"):
            return self.parse_exit()
        if tok.kind == "else":
            raise self.error(
                tok, "'else' without a matching 'if' (it must follow the '}' of the if block on the same line)"
            )
        if tok.kind in ("kernel", "@", "fn", "import"):
            what = "kernels" if tok.kind in ("kernel", "@") else "functions and imports"
            raise self.error(tok, f"expected '}}' before {tok.describe()} ({what} cannot be nested)")
        expr = self.parse_expr()
        if self.at(*ASSIGN_OPS):
            op = self.advance()
            if not self._is_lvalue(expr):
                raise self.error(
                    op,
                    "cannot assign to this expression "
                    f"(expected a name or a slice such as 'Y[i :+ 32]' before '{op.text}')",
                )
            value = self.parse_expr()
            self.expect_end()
            return A.Assign(expr.pos, expr, op.text, value, op.pos)
        self.expect_end()
        return A.ExprStmt(expr.pos, expr)

    @staticmethod
    def _is_lvalue(e: A.Expr) -> bool:
        if isinstance(e, A.Call) and isinstance(e.callee, A.Name) and e.callee.name == "masked" and e.args:
            e = e.args[0]  # masked(X[idx], m) = v: a scatter where m holds
        return isinstance(e, A.Name) or (isinstance(e, A.Index) and isinstance(e.base, A.Name))

    def expect_end(self) -> None:
        if self.at(NEWLINE, ";"):
            self.advance()
        elif not self.at("}", EOF):
            raise self.error(
                self.peek(), f"expected the end of the statement (a new line or ';'), got {self.peek().describe()}"
            )

    def parse_exit(self) -> A.Stmt:
        """`break`, `continue`, `return [expr]` (the checker says where each may stand)."""
        tok = self.advance()
        if tok.kind == "return":
            value = None if self.at(NEWLINE, ";", "}", EOF) else self.parse_expr()
            self.expect_end()
            return A.Return(tok.pos, value)
        self.expect_end()
        return A.Break(tok.pos) if tok.kind == "break" else A.Continue(tok.pos)

    def parse_decl(self) -> A.Decl:
        kw = self.advance()
        name = self.expect(IDENT, f"after '{kw.text}'")
        type_ref = self.parse_type() if self.accept(":") else None
        self.expect("=", f"after '{kw.text} {name.text}' (a declaration needs a value)")
        value = self.parse_expr()
        self.expect_end()
        return A.Decl(name.pos, kw.kind == "var", name.text, type_ref, value)

    def parse_for(self) -> A.For:
        kw = self.advance()
        var = self.expect(IDENT, "after 'for'")
        self.expect("in", f"after 'for {var.text}'")
        rng = self.peek()
        if rng.kind != IDENT or rng.text != "range":
            raise self.error(rng, f"expected 'range([start, ]stop[, step])' after 'in', got {rng.describe()}")
        self.advance()
        self.expect("(", "after 'range'")
        first = self.parse_expr()
        step = None
        if self.at(")"):  # range(n), as Python users write it: range(0, n)
            start, stop = A.IntLit(first.pos, 0), first
        else:
            start = first
            self.expect(",", "after the start of the range (range takes [start,] stop and an optional step)")
            stop = self.parse_expr()
            step = self.parse_expr() if self.accept(",") else None
        self.expect(")", "after the range")
        body = self.parse_block()
        return A.For(kw.pos, var.text, var.pos, start, stop, step, body)

    def parse_if(self) -> A.If:
        # An `else if` chain is read in a loop, not by recursion: chains of
        # thousands of branches are legal (the lowering bounds their length).
        chain: list[A.If] = []
        orelse = None
        outer = self.else_ifs
        try:
            while True:
                kw = self.advance()
                cond = self.parse_expr()
                chain.append(A.If(kw.pos, cond, self.parse_block()))
                if self.at(NEWLINE) and self.peek(1).kind == "else":
                    # Report it, then read it as the else it was meant to be.
                    self.advance()
                    self.diags.error(self.peek().pos, "'else' must follow the '}' of the if block on the same line")
                if not self.accept("else"):
                    break
                if not self.at("if"):
                    orelse = self.parse_block()
                    break
                self.enter_else_if()
        finally:
            self.else_ifs = outer
        for node in reversed(chain):
            node.orelse, orelse = orelse, node
        return orelse

    def enter_else_if(self) -> None:
        # An `else if` is an `if` inside the previous `else`: it nests as a block does
        # in the lowered kernel, so it counts towards MAX_NESTING (blocks count too).
        self.else_ifs += 1
        if self.block_depth + self.else_ifs >= MAX_NESTING:
            raise self.error(
                self.peek(),
                f"'else if' is nested more deeply than {MAX_NESTING} levels "
                "(each 'else if' nests inside the 'else' before it; use fewer branches or nest less)",
            )

    # ------------------------------------------------------------------ expressions

    def parse_expr(self) -> A.Expr:
        # Every nested parenthesis, argument list and subscript comes through
        # here: bound the recursion before it happens.
        if self.nesting >= MAX_BRACKETS:
            raise self.error(self.peek(), f"expression is nested too deeply (more than {MAX_BRACKETS} levels)")
        self.nesting += 1
        try:
            return self.parse_or()
        finally:
            self.nesting -= 1

    def parse_or(self) -> A.Expr:
        lhs = self.parse_and()
        while self.at("||"):
            op = self.advance()
            rhs = self.parse_and()
            lhs = self._node(A.Binary(op.pos, "||", lhs, rhs), lhs, rhs)
        return lhs

    def parse_and(self) -> A.Expr:
        lhs = self.parse_cmp()
        while self.at("&&"):
            op = self.advance()
            rhs = self.parse_cmp()
            lhs = self._node(A.Binary(op.pos, "&&", lhs, rhs), lhs, rhs)
        return lhs

    def parse_cmp(self) -> A.Expr:
        lhs = self.parse_bits("|")
        if self.at(*COMPARISONS):
            op = self.advance()
            rhs = self.parse_bits("|")
            lhs = self._node(A.Binary(op.pos, op.text, lhs, rhs), lhs, rhs)
            if self.at(*COMPARISONS):
                raise self.error(self.peek(), "comparisons cannot be chained; combine them with '&&'")
        return lhs

    def parse_bits(self, level: str) -> A.Expr:
        """The bit operators, below the comparisons as in Python (x & 1 == 0 is (x & 1) == 0):
        | then ^ then & then the shifts, each binding tighter than the one before."""
        inner = {"|": "^", "^": "&", "&": "<<"}.get(level)
        sub = (lambda: self.parse_bits(inner)) if inner else self.parse_sum
        ops = ("<<", ">>") if level == "<<" else (level,)
        lhs = sub()
        while self.at(*ops):
            op = self.advance()
            rhs = sub()
            lhs = self._node(A.Binary(op.pos, op.text, lhs, rhs), lhs, rhs)
        return lhs

    def parse_sum(self) -> A.Expr:
        lhs = self.parse_prod()
        while self.at("+", "-"):
            op = self.advance()
            rhs = self.parse_prod()
            lhs = self._node(A.Binary(op.pos, op.text, lhs, rhs), lhs, rhs)
        return lhs

    def parse_prod(self) -> A.Expr:
        lhs = self.parse_unary()
        while self.at("*", "/", "%"):
            op = self.advance()
            if op.text == "*" and self.at("*") and (self.peek().line, self.peek().col) == (op.line, op.col + 1):
                self.diags.error(
                    A.Pos(op.line, op.col, 2),
                    "there is no power operator '**' yet; write the product (x * x, x * x * x) "
                    "or, for x > 0, exp(y * log(x))",
                )
                raise _SyntaxError()
            rhs = self.parse_unary()
            lhs = self._node(A.Binary(op.pos, op.text, lhs, rhs), lhs, rhs)
        return lhs

    def parse_unary(self) -> A.Expr:
        ops = []
        while self.at("-", "!", "~"):
            ops.append(self.advance())
        expr = self.parse_postfix()
        for op in reversed(ops):
            expr = self._node(A.Unary(op.pos, op.text, expr), expr)
        return expr

    def parse_postfix(self) -> A.Expr:
        expr = self.parse_primary()
        while True:
            if self.at("["):
                bracket = self.advance()
                subs = [self.parse_subscript()]
                while self.accept(","):
                    subs.append(self.parse_subscript())
                self.expect("]", "after the subscripts")
                children = [expr] + [e for s in subs for e in (s.start, s.end)]
                expr = self._node(A.Index(expr.pos, expr, subs, bracket.pos), *children)
            elif self.at("("):
                self.advance()
                args, keywords = self.parse_arguments()
                values = [v for _, _, v in keywords]
                expr = self._node(A.Call(expr.pos, expr, args, keywords), expr, *args, *values)
            elif self.at("."):
                self.advance()
                field = self.expect(IDENT, "after '.'")
                expr = self._node(A.Member(field.pos, expr, field.text), expr)
            else:
                return expr

    def parse_arguments(self) -> tuple[list[A.Expr], list[tuple[str, A.Pos, A.Expr]]]:
        """The arguments of a call after its '(': expressions, then `name = value` keywords."""
        args: list[A.Expr] = []
        keywords: list[tuple[str, A.Pos, A.Expr]] = []
        while not self.at(")"):
            if self.peek().kind == IDENT and self.peek(1).kind == "=":
                name = self.advance()
                if any(k == name.text for k, _, _ in keywords):
                    raise self.error(name, f"keyword argument '{name.text}' is given twice")
                self.advance()
                keywords.append((name.text, name.pos, self.parse_expr()))
            elif keywords:
                raise self.error(self.peek(), "a positional argument cannot follow a keyword argument")
            else:
                args.append(self.parse_expr())
            if not self.accept(","):
                break
        self.expect(")", "after the arguments")
        return args, keywords

    def parse_subscript(self) -> A.Subscript:
        tok = self.peek()
        if tok.kind == ":":
            self.advance()
            if not self.at(",", "]"):
                raise self.error(self.peek(), "expected ',' or ']' after ':' (a range needs a start, as in 'a : b')")
            return A.Subscript(tok.pos, "full")
        start = self.parse_expr()
        if self.accept(":"):
            return A.Subscript(start.pos, "range", start, self.parse_expr())
        if self.accept(":+"):
            return A.Subscript(start.pos, "span", start, self.parse_expr())
        return A.Subscript(start.pos, "point", start)

    def parse_primary(self) -> A.Expr:
        tok = self.peek()
        if tok.kind == INT:
            self.advance()
            return A.IntLit(tok.pos, tok.value)
        if tok.kind == FLOAT:
            self.advance()
            return A.FloatLit(tok.pos, tok.value)
        if tok.kind in ("true", "false"):
            self.advance()
            return A.BoolLit(tok.pos, tok.kind == "true")
        if tok.kind == IDENT:
            self.advance()
            return A.Name(tok.pos, tok.text)
        if tok.kind == STRING:
            self.advance()
            return A.StrLit(tok.pos, tok.value)
        if tok.kind == "(":
            self.advance()
            inner = self.parse_expr()
            self.expect(")", "to close the parenthesis")
            return inner
        raise self.error(tok, f"expected an expression, got {tok.describe()}")


def parse(source: str, diags: Diagnostics) -> A.Program:
    """Parses a whole `.ph` source; errors go to `diags`. A `.py` file holds kernels written in
    Python (`@phobos.kernel`): python_source reads them into the same syntax tree."""
    if diags.filename.endswith(".py"):
        from .python_source import parse_python

        return parse_python(source, diags)
    tokens = tokenize(source, diags)
    program = Parser(tokens, diags).parse_program()
    attach_docs(program, source)
    return program
