"""What `phobos run --trace` calls a traced value: the kernel's own words, not op names.

The interpreter reports each value with the source position of the op that
made it. The position is that of a node of the syntax tree (a slice, an
operator, a name, a call), so the label is that expression written back out
(`pm * TM`), or the variable a `let`, `var` or assignment binds it to (`x`)
when the op makes the whole right-hand side. Ops the lowering adds to convert
or broadcast an operand share their expression's position; they say so.
"""

from __future__ import annotations

import dataclasses

from phobos.frontend import ast as A

# Ops that convert or broadcast an operand on the way to the op at the same position.
_CONVERSIONS = ("arith.ext", "arith.trunc", "arith.sitofp", "arith.uitofp", "arith.fpto", "arith.index_cast")
_BROADCASTS = ("tensor.splat", "tensor.broadcast", "tile.broadcast", "linalg.broadcast")


def unparse(e: A.Expr) -> str:
    """The expression as source text (spacing normalised)."""
    if isinstance(e, (A.IntLit, A.FloatLit)):
        return repr(e.value)
    if isinstance(e, A.BoolLit):
        return "true" if e.value else "false"
    if isinstance(e, A.Name):
        return e.name
    if isinstance(e, A.Member):
        return f"{unparse(e.base)}.{e.name}"
    if isinstance(e, A.Unary):
        return f"{e.op}{unparse(e.operand)}"
    if isinstance(e, A.Binary):
        return f"{unparse(e.lhs)} {e.op} {unparse(e.rhs)}"
    if isinstance(e, A.Call):
        return f"{unparse(e.callee)}({', '.join(unparse(a) for a in e.args)})"
    if isinstance(e, A.Index):
        return f"{unparse(e.base)}[{', '.join(_subscript(s) for s in e.subscripts)}]"
    return type(e).__name__


def _subscript(s: A.Subscript) -> str:
    if s.kind == "full":
        return ":"
    if s.kind == "point":
        return unparse(s.start)
    return f"{unparse(s.start)} {':+' if s.kind == 'span' else ':'} {unparse(s.end)}"


def _children(node):
    for f in dataclasses.fields(node):
        value = getattr(node, f.name)
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, A.Node):
                yield item


class Labels:
    """(line, col) -> what the source calls the value made there."""

    def __init__(self, program: A.Program, source: str = ""):
        self.lines = source.split("\n")
        self.names: dict[tuple[int, int], str] = {}  # whole right-hand sides of bindings
        self.texts: dict[tuple[int, int], str] = {}  # any expression
        stack = [program]
        while stack:  # parents before children: an index and its base name share a position
            node = stack.pop()
            if isinstance(node, A.Decl):
                self.names.setdefault(_at(node.value.pos), node.name)
            elif isinstance(node, A.Assign) and isinstance(node.target, A.Name):
                self.names.setdefault(_at(node.value.pos if node.op == "=" else node.op_pos), node.target.name)
            if isinstance(node, A.Expr):
                self.texts.setdefault(_at(node.pos), unparse(node))
            stack.extend(reversed(list(_children(node))))

    def line_text(self, line: int) -> str:
        return self.lines[line - 1].strip() if 1 <= line <= len(self.lines) else ""

    def label(self, line: int, col: int, op_name: str) -> str:
        at = (line, col)
        text = self.names.get(at) or self.texts.get(at) or op_name
        if op_name.startswith(_CONVERSIONS):
            return f"{self.texts.get(at, text)} (an operand converted)"
        if op_name.startswith(_BROADCASTS):
            return f"{self.texts.get(at, text)} (an operand broadcast)"
        return text


def _at(pos: A.Pos) -> tuple[int, int]:
    return pos.line, pos.col


def labels_for(path: str) -> Labels | None:
    """The labels of a .ph file, or None (MLIR input, unreadable or unparsable: op names then)."""
    if not path.endswith(".ph"):
        return None
    try:
        from phobos.frontend import parse_source

        with open(path, encoding="utf-8") as f:
            text = f.read()
        return Labels(parse_source(text, path), text)
    except Exception:  # the run itself reports a broken file; the trace falls back to op names
        return None
