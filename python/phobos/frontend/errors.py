"""Front-end diagnostics: a collector for one source buffer and `CompileError`.

Diagnostics are `phobos.diagnostics.Diagnostic` records, printed by its
`render` in the compiler style (`file:line:col: error: message`, the source
line, a caret under the token). `CompileError.diagnostics` gives them as plain
tuples `(filename, line, col, severity, message)`, notes after their error.
"""

from __future__ import annotations

from phobos.diagnostics import Diagnostic, Sources, render

from .ast import Pos

DiagnosticTuple = tuple[str, int, int, str, str]


class Diagnostics:
    """Collects the diagnostics about one source buffer."""

    def __init__(self, filename: str, source: str):
        self.filename = filename
        self.source = source
        self.records: list[Diagnostic] = []
        self.sources: dict[str, str] = {}  # other buffers positions may point into (the standard library)

    def error(self, pos: Pos | None, message: str, notes: tuple[tuple[Pos, str], ...] = ()) -> Diagnostic:
        diag = self._make("error", pos, message)
        diag.notes = [self._make("note", p, m) for p, m in notes]
        self.records.append(diag)
        return diag

    def warning(self, pos: Pos | None, message: str) -> Diagnostic:
        """A located warning: the program is valid, but may not mean what its author expects."""
        diag = self._make("warning", pos, message)
        self.records.append(diag)
        return diag

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.records if d.severity == "warning"]

    def render_warnings(self) -> str:
        """The warnings as a compiler prints them (`file:line:col: warning: ...`, line, caret)."""
        sources = Sources()
        for name, text in {**self.sources, self.filename: self.source}.items():
            sources.add(name, text)
        return "".join(render(d, sources) for d in self.warnings)

    def _make(self, severity: str, pos: Pos | None, message: str) -> Diagnostic:
        if pos is None:
            return Diagnostic(severity, message, self.filename, 0, 0)
        return Diagnostic(severity, message, pos.file or self.filename, pos.line, pos.col, pos.length)

    @property
    def has_errors(self) -> bool:
        return any(d.severity == "error" for d in self.records)

    def raise_if_errors(self) -> None:
        if self.has_errors:
            raise CompileError(self.records, {**self.sources, self.filename: self.source})


def as_tuples(records: list[Diagnostic]) -> list[DiagnosticTuple]:
    out: list[DiagnosticTuple] = []
    for d in records:
        out.append((d.filename or "<unknown>", d.line, d.col, d.severity, d.message))
        out.extend(as_tuples(d.notes))
    return out


class CompileError(Exception):
    """A program the front end rejects. `str()` is the full report (every
    diagnostic with its source line and caret); `.diagnostics` the tuples
    `(filename, line, col, severity, message)`; `.records` the Diagnostic
    objects."""

    def __init__(self, records: list[Diagnostic], sources: dict | None = None):
        self.records = list(records)
        self.diagnostics = as_tuples(self.records)
        self._sources = Sources()
        for name, text in (sources or {}).items():
            self._sources.add(name, text)
        super().__init__(self.report())

    def report(self) -> str:
        # A record with no place (about the options, not the source) reads "error: ...", not
        # MLIR's "<unknown>:0: error: ...", which looks like a place in a file.
        text = "".join(
            render(d, self._sources) if d.filename is not None else f"{d.severity}: {d.message}\n" for d in self.records
        )
        count = sum(1 for d in self.records if d.severity == "error")
        if count > 1:
            text += f"{count} errors generated.\n"
        return text

    def __str__(self) -> str:
        return self.report()
