"""The same kernel without its `@aligned` promise, for the view's side-by-side comparison.

The promise is dropped from the source text: the attribute's characters (from
its `@` to the closing parenthesis, found with the front end's own parser) are
replaced by spaces, so every other token keeps its line and column and the two
variants' reports and steps name the same places. The result goes through the
whole compiler like any other source.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Dropped:
    text: str  # the source with the attribute blanked
    attribute: str  # what was dropped, as written: "@aligned(M = TILE_M, N = TILE_N)"
    start: tuple[int, int]  # (line, col) of its '@', 1-based
    end: tuple[int, int]  # (line, col) just past its ')'


def _offset(text: str, line: int, col: int) -> int:
    lines = text.split("\n")
    return sum(len(s) + 1 for s in lines[: line - 1]) + col - 1


def _position(text: str, offset: int) -> tuple[int, int]:
    before = text[:offset]
    return before.count("\n") + 1, offset - (before.rfind("\n") + 1) + 1


def drop_aligned(text: str, filename: str, kernel: str | None = None) -> Dropped | None:
    """`text` (.ph source) with the @aligned attribute of `kernel` (the only kernel when None)
    blanked; None when that kernel has no @aligned. Syntax errors raise the front end's CompileError."""
    from phobos.frontend import parse_source

    program = parse_source(text, filename)
    kernels = [k for k in program.kernels if kernel is None or k.name == kernel]
    if len(kernels) != 1:
        return None  # the compile driver reports a missing or ambiguous kernel itself
    attrs = [a for a in kernels[0].attributes if a.name == "aligned"]
    if not attrs:
        return None
    start = _offset(text, attrs[0].pos.line, attrs[0].pos.col)
    end = start + attrs[0].pos.length
    if attrs[0].has_parens:
        depth = 0
        for i in range(end, len(text)):
            if text[i] == "(":
                depth += 1
            elif text[i] == ")":
                depth -= 1
                if depth == 0:
                    end = i + 1
                    break
    blank = "".join(c if c == "\n" else " " for c in text[start:end])
    return Dropped(text[:start] + blank + text[end:], text[start:end], _position(text, start), _position(text, end))
