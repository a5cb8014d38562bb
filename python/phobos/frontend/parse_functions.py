"""The parser's part for functions and imports (the grammar's `function` and `import` rules).

    function = "fn" ident [ "<" ident { "," ident } ">" ] "(" [ params ] ")" "->" type block ;
    import   = "import" ident { "." ident } ;

Each function is called with the Parser, whose token methods it uses; a syntax error unwinds
as the parser's own do. `attach_docs` gives each function the `//` comment block written just
above it (the standard library's reference is generated from those).
"""

from __future__ import annotations

from . import ast as A
from .lexer import EOF, IDENT, NEWLINE


def parse_function(p) -> A.Function:
    p.advance()  # fn
    name = p.expect(IDENT, "after 'fn'")
    type_params: list[tuple[str, A.Pos]] = []
    if p.accept("<"):
        while True:
            tok = p.expect(IDENT, "as an element-type parameter")
            if tok.text in p.type_params or any(tok.text == n for n, _ in type_params):
                raise p.error(tok, f"element-type parameter '{tok.text}' is declared twice")
            type_params.append((tok.text, tok.pos))
            if not p.accept(","):
                break
        p.expect(">", "after the element-type parameters")
    outer = p.type_params
    p.type_params = tuple(n for n, _ in type_params)
    try:
        p.expect("(", f"after the function name '{name.text}'")
        params = []
        if not p.at(")"):
            params.append(p.parse_param())
            while p.accept(","):
                params.append(p.parse_param())
        p.expect(")", "after the parameters")
        if not p.at("->"):
            raise p.error(p.peek(), f"expected '->' and the result type after the parameters of '{name.text}'")
        p.advance()
        result = p.parse_type()
        body = p.parse_block()
    finally:
        p.type_params = outer
    return A.Function(name.pos, name.text, type_params, params, result, body)


def parse_import(p) -> A.Import:
    kw = p.advance()  # import
    parts = [p.expect(IDENT, "after 'import' (a module such as std.nn)")]
    while p.accept("."):
        parts.append(p.expect(IDENT, "after '.' in the module name"))
    if not p.at(NEWLINE, ";", EOF):
        raise p.error(p.peek(), f"expected a new line after the import, got {p.peek().describe()}")
    first = parts[0]
    pos = A.Pos(first.line, first.col, parts[-1].col + len(parts[-1].text) - first.col)
    del kw
    return A.Import(pos, ".".join(t.text for t in parts))


def attach_docs(program: A.Program, source: str) -> None:
    """Sets each function's `doc` to the `//` lines right above its `fn` (markers stripped)."""
    lines = source.splitlines()
    for fn in program.functions:
        doc: list[str] = []
        i = fn.pos.line - 2  # the line above `fn` (0-based)
        while 0 <= i < len(lines) and lines[i].lstrip().startswith("//"):
            text = lines[i].lstrip()[2:]
            doc.append(text[1:] if text.startswith(" ") else text)
            i -= 1
        fn.doc = "\n".join(reversed(doc)).strip()
