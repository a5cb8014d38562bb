"""`--verify-diagnostics`: check diagnostics against `expected-*` comments.

Same syntax and messages as upstream MLIR's SourceMgrDiagnosticVerifierHandler:

    // expected-error {{substring}}            on this line
    // expected-error @+1 {{substring}}        on the next line (@-N: N lines up)
    // expected-note @above / @below {{...}}    the previous / next line that is
                                                not itself an expected-* line
    // expected-error @unknown {{...}}          a diagnostic without a file location
    // expected-remark-re {{fixed {{[0-9]+}} text}}   {{...}} parts are regexes

A diagnostic matches an expectation on its line whose text it contains (or
whose regex it matches) and whose severity it has.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from phobos.diagnostics import Diagnostic, Sources, render

_EXPECTED = re.compile(
    r"expected-(error|note|remark|warning)(-re)? *(@([+-][0-9]+|above|below|unknown))? *\{\{(.*)\}\}$"
)


@dataclass
class Expectation:
    severity: str
    line: int  # the line the diagnostic must be on (0 for @unknown)
    comment_line: int  # where the expected-* text is
    comment_col: int
    text: str
    regex: re.Pattern | None = None
    unknown_location: bool = False
    matched: bool = False

    def matches(self, message: str) -> bool:
        if self.regex is not None:
            return self.regex.search(message) is not None
        return self.text in message


# Python's words for a bad pattern -> the words of LLVM's regerror, which
# mlir-opt prints ("invalid regex: brackets ([ ]) not balanced").
_LLVM_REGEX_ERRORS = (
    ("unterminated character set", "brackets ([ ]) not balanced"),
    ("missing ), unterminated subpattern", "parentheses not balanced"),
    ("unbalanced parenthesis", "parentheses not balanced"),
    ("nothing to repeat", "repetition-operator operand invalid"),
    ("multiple repeat", "repetition-operator operand invalid"),
    ("min repeat greater than max repeat", "invalid repetition count(s)"),
    ("the repetition number is too large", "invalid repetition count(s)"),
    ("bad character range", "invalid character range"),
    ("bad escape (end of pattern)", "trailing backslash (\\)"),
    ("invalid group reference", "invalid backreference number"),
    ("cannot refer to an open group", "invalid backreference number"),
)


def _regex_error(error: re.error) -> str:
    for python_words, llvm_words in _LLVM_REGEX_ERRORS:
        if error.msg.startswith(python_words):
            return f"invalid regex: {llvm_words}"
    return f"invalid regex: {error.msg}"


def _compile_regex(text: str) -> re.Pattern:
    """Literal text with `{{regex}}` blocks, as upstream's computeRegex.

    Each block is checked alone, as upstream does, and so is the joined
    pattern: Python's blocks can be valid alone and clash once joined (a group
    name defined twice, `(?i)` after literal text). Raises ValueError with
    mlir-opt's message.
    """
    out = []
    rest = text
    while rest:
        start = rest.find("{{")
        if start < 0:
            out.append(re.escape(rest))
            break
        out.append(re.escape(rest[:start]))
        rest = rest[start + 2 :]
        end = rest.find("}}")
        if end < 0:
            raise ValueError("found start of regex with no end '}}'")
        block = rest[:end]
        _checked(block)
        out.append(f"({block})")
        rest = rest[end + 2 :]
    return _checked("".join(out))


def _checked(pattern: str) -> re.Pattern:
    try:
        return re.compile(pattern)
    except re.error as e:
        raise ValueError(_regex_error(e)) from None


class DiagnosticVerifier:
    """Expectations of one source file; `process` each diagnostic, then `finish`."""

    def __init__(self, filename: str, text: str, sources: Sources):
        self.filename = filename
        self.sources = sources
        self.expectations: list[Expectation] = []
        self.ok = True
        self.messages: list[str] = []  # errors about the expectations themselves
        self._scan(text)

    def _scan(self, text: str) -> None:
        lines = text.split("\n")
        last_plain = 0  # 0-based index of the last line without a designator
        pending_below: list[Expectation] = []
        for index, raw in enumerate(lines):
            m = _EXPECTED.search(raw.rstrip())
            if m is None:
                for e in pending_below:
                    e.line = index + 1
                pending_below = []
                last_plain = index
                continue
            severity, is_re, designator, where, body = m.groups()
            e = Expectation(severity, index + 1, index + 1, m.start() + 1, body)
            if is_re:
                try:
                    e.regex = _compile_regex(body)
                except ValueError as err:
                    self._error_at(e, str(err))
                    continue
            if designator:
                if where[0] in "+-":
                    e.line += int(where) if where[0] == "+" else -int(where[1:])
                elif where == "unknown":
                    e.unknown_location = True
                    e.line = 0
                elif where == "above":
                    e.line = last_plain + 1
                else:
                    pending_below.append(e)
                    e.line = len(lines)
            self.expectations.append(e)

    def _error_at(self, e: Expectation, message: str, underline: bool = True) -> None:
        self.ok = False
        diag = Diagnostic(
            "error", message, self.filename, e.comment_line, e.comment_col, length=len(e.text) if underline else 0
        )
        self.messages.append(render(diag, self.sources))

    def process(self, diag: Diagnostic) -> str | None:
        """Matches one diagnostic (and its notes); returns text to print for mismatches."""
        out = []
        for d in [diag] + list(diag.notes):
            text = self._process_one(d)
            if text:
                out.append(text)
        return "".join(out) or None

    def _process_one(self, d: Diagnostic) -> str | None:
        near_miss = None
        for e in self.expectations:
            if d.filename is None:
                if not e.unknown_location:
                    continue
            elif e.unknown_location or d.filename != self.filename or d.line != e.line:
                continue
            if e.matches(d.message):
                if e.severity == d.severity:
                    e.matched = True
                    return None
                near_miss = e
        self.ok = False
        if near_miss is not None:
            miss = Diagnostic(
                "error",
                f"'{d.severity}' diagnostic emitted when expecting a '{near_miss.severity}'",
                self.filename,
                near_miss.comment_line,
                near_miss.comment_col,
            )
            return render(miss, self.sources)
        unexpected = Diagnostic("error", f"unexpected {d.severity}: {d.message}", d.filename, d.line, d.col)
        return render(unexpected, self.sources)

    def finish(self) -> str:
        """Reports every expectation that was not matched (text to print)."""
        for e in self.expectations:
            if not e.matched:
                self._error_at(e, f'expected {e.severity} "{e.text}" was not produced')
        return "".join(self.messages)
