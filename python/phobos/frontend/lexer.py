"""The lexer: source text to tokens with positions.

A newline ends a statement, so the lexer emits NEWLINE tokens, except inside
`(...)` and `[...]` where a parameter list or subscript may span lines (the
innermost open bracket decides; `{` opens a block where newlines count again).
A `(` or `[` still open when a block opens or a statement keyword starts is
taken as unclosed (the grammar allows neither inside brackets), so one missing
`)` does not swallow the newlines of the statements after it.
Comments run from `//` to the end of the line. Bad characters and malformed
numbers are reported and skipped, so the parser still sees the rest.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass

from .ast import Pos
from .errors import Diagnostics

KEYWORDS = frozenset(
    {"kernel", "let", "var", "if", "else", "for", "in", "while", "true", "false", "break", "continue", "return"}
)
# Keywords that only start a statement or a kernel: never inside brackets.
STATEMENT_KEYWORDS = frozenset({"kernel", "let", "var", "if", "for", "while", "break", "continue", "return"})

# Longest first: the lexer tries them in this order.
PUNCTUATION = (
    ":+",
    "<<",
    ">>",
    "+=",
    "->",
    "-=",
    "*=",
    "==",
    "!=",
    "<=",
    ">=",
    "&&",
    "||",
    "&",
    "|",
    "^",
    "~",
    "+",
    "-",
    "*",
    "/",
    "%",
    "<",
    ">",
    "!",
    "=",
    ":",
    ",",
    ";",
    ".",
    "@",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
)

INT_MAX = 2**63 - 1

# Functions and imports (frontend/parse_functions.py) start a top-level item.
KEYWORDS = KEYWORDS | {"fn", "import"}
STATEMENT_KEYWORDS = STATEMENT_KEYWORDS | {"fn", "import"}

# Token kinds besides the punctuation strings themselves and the keywords.
IDENT, INT, FLOAT, NEWLINE, EOF = "ident", "int", "float", "newline", "end of file"
STRING = "string"  # "relaxed": only as the value of a keyword argument (sem = "acquire")


@dataclass
class Token:
    kind: str  # IDENT, INT, FLOAT, NEWLINE, EOF, a keyword or a punctuation string
    text: str
    line: int
    col: int
    value: object = None  # int or float for numbers

    @property
    def pos(self) -> Pos:
        return Pos(self.line, self.col, max(len(self.text), 1))

    def describe(self) -> str:
        """How a message names this token."""
        if self.kind == NEWLINE:
            return "end of line"
        if self.kind == EOF:
            return "end of file"
        return f"'{self.text}'"


def _is_ident_start(ch: str) -> bool:
    return ch == "_" or ("a" <= ch <= "z") or ("A" <= ch <= "Z")


def _is_digit(ch: str) -> bool:
    return "0" <= ch <= "9"


def _is_ident_char(ch: str) -> bool:
    return _is_ident_start(ch) or _is_digit(ch)


def tokenize(source: str, diags: Diagnostics) -> list[Token]:
    tokens: list[Token] = []
    brackets: list[str] = []  # open brackets, innermost last
    swallowed: list[Token] = []  # the newline last suppressed inside brackets
    i, line, line_start, n = 0, 1, 0, len(source)

    def newline_counts() -> bool:
        return not brackets or brackets[-1] == "{"

    def close_dangling(restore_newline: bool) -> None:
        while brackets and brackets[-1] != "{":
            brackets.pop()
        if restore_newline and swallowed and tokens and tokens[-1].kind != NEWLINE:
            tokens.append(swallowed[0])
        swallowed.clear()

    while i < n:
        ch = source[i]
        col = i - line_start + 1
        if ch == "\n":
            if newline_counts():
                if tokens and tokens[-1].kind != NEWLINE:
                    tokens.append(Token(NEWLINE, "\n", line, col))
            else:
                swallowed[:] = [Token(NEWLINE, "\n", line, col)]
            i += 1
            line += 1
            line_start = i
            continue
        if ch in " \t\r\f\v":
            i += 1
            continue
        if source.startswith("//", i):
            end = source.find("\n", i)
            i = n if end < 0 else end
            continue
        if _is_ident_start(ch):
            j = i + 1
            while j < n and _is_ident_char(source[j]):
                j += 1
            text = source[i:j]
            if text in STATEMENT_KEYWORDS and not newline_counts():
                close_dangling(restore_newline=True)
            swallowed.clear()
            tokens.append(Token(text if text in KEYWORDS else IDENT, text, line, col))
            i = j
            continue
        if ch == '"':
            end = source.find('"', i + 1)
            stop = source.find("\n", i + 1)
            if end < 0 or (0 <= stop < end):
                diags.error(Pos(line, col), "unterminated string (a string ends with '\"' on the same line)")
                i = n if stop < 0 else stop
                continue
            tokens.append(Token(STRING, source[i : end + 1], line, col, source[i + 1 : end]))
            i = end + 1
            continue
        if _is_digit(ch):
            swallowed.clear()
            i = _number(source, i, line, col, tokens, diags)
            continue
        swallowed.clear()
        for punct in PUNCTUATION:
            if source.startswith(punct, i):
                if punct in ("{", "@") and not newline_counts():
                    close_dangling(restore_newline=False)
                tokens.append(Token(punct, punct, line, col))
                _track_brackets(punct, brackets)
                i += len(punct)
                break
        else:
            shown = ch if ch.isprintable() else repr(ch)
            diags.error(Pos(line, col), f"unexpected character '{shown}'")
            i += 1
    tokens.append(Token(EOF, "", line, n - line_start + 1))
    return tokens


def _track_brackets(punct: str, brackets: list[str]) -> None:
    if punct in "([{":
        brackets.append(punct)
    elif punct in ")]":
        if brackets and brackets[-1] == {")": "(", "]": "["}[punct]:
            brackets.pop()
    elif punct == "}":
        # A `}` closes its block and any bracket left open inside it.
        while brackets and brackets[-1] != "{":
            brackets.pop()
        if brackets:
            brackets.pop()


def _number(source: str, i: int, line: int, col: int, tokens: list[Token], diags: Diagnostics) -> int:
    n = len(source)
    j = i
    while j < n and _is_digit(source[j]):
        j += 1
    is_float = False
    if j + 1 < n and source[j] == "." and _is_digit(source[j + 1]):
        is_float = True
        j += 1
        while j < n and _is_digit(source[j]):
            j += 1
    if j < n and source[j] in "eE":
        k = j + 1
        if k < n and source[k] in "+-":
            k += 1
        if k < n and _is_digit(source[k]):
            is_float = True
            j = k
            while j < n and _is_digit(source[j]):
                j += 1
    # A number running into letters (`12abc`) is one bad token, not two.
    k = j
    while k < n and _is_ident_char(source[k]):
        k += 1
    text = source[i:k]
    if k > j:
        diags.error(Pos(line, col, len(text)), f"invalid number '{text}'")
        tokens.append(Token(INT, text, line, col, 0))
        return k
    pos = Pos(line, col, len(text))
    if is_float:
        tokens.append(Token(FLOAT, text, line, col, _float_value(text, pos, diags)))
    else:
        tokens.append(Token(INT, text, line, col, _int_value(text, pos, diags)))
    return k


def _shown(text: str) -> str:
    """A literal as a message quotes it: a literal of thousands of digits is abridged."""
    return text if len(text) <= 40 else f"{text[:20]}...{text[-8:]} ({len(text)} characters)"


def _int_value(text: str, pos: Pos, diags: Diagnostics) -> int:
    # Compared as digits first: int() refuses strings past sys.get_int_max_str_digits().
    digits = text.lstrip("0") or "0"
    if len(digits) > len(str(INT_MAX)) or int(digits) > INT_MAX:
        diags.error(pos, f"integer literal {_shown(text)} is too large (the limit is {INT_MAX})")
        return 0
    return int(digits)


def _float_value(text: str, pos: Pos, diags: Diagnostics) -> float:
    # float() never fails on these digits, but rounds a too-large value to infinity.
    value = float(text)
    if math.isinf(value):
        diags.error(
            pos, f"float literal {_shown(text)} is too large (the largest finite float is {sys.float_info.max:.6g})"
        )
        return 0.0
    return value
