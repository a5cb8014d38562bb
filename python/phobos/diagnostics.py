"""Diagnostics in the style of LLVM's SourceMgr (what mlir-opt prints).

    file.mlir:6:19: error: use of undeclared SSA value name
      %x = arith.addi %y, %y : i32
                      ^

`Diagnostic` is a plain record (no MLIR objects), so the front end and the
runtime can build and print diagnostics too; `from_mlir` converts what MLIR
reports, and `Sources` finds the text of the line to show.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field


@dataclass
class Diagnostic:
    severity: str  # "error", "warning", "note" or "remark"
    message: str
    filename: str | None = None  # None: no file location (printed as <unknown>:0)
    line: int = 0
    col: int = 0
    length: int = 0  # characters to underline after the caret (0: caret only)
    notes: list[Diagnostic] = field(default_factory=list)

    def prefix(self) -> str:
        if self.filename is None:
            return "<unknown>:0"
        if self.line <= 0:  # about the whole file (no line to point at)
            return self.filename
        return f"{self.filename}:{self.line}:{self.col}"


class Sources:
    """Source buffers by file name, for the line under a diagnostic.

    Buffers registered with `add` win; other names are read from disk on
    demand (as SourceMgr does for locations in other files).
    """

    def __init__(self):
        self._buffers: dict[str, list[str]] = {}

    def add(self, filename: str, text: str) -> None:
        self._buffers[filename] = text.split("\n")

    def line(self, filename: str, line: int) -> str | None:
        if filename not in self._buffers:
            try:
                if not os.path.isfile(filename):
                    return None
                with open(filename, encoding="utf-8", errors="replace") as f:
                    self._buffers[filename] = f.read().split("\n")
            except OSError:
                return None
        lines = self._buffers[filename]
        if 1 <= line <= len(lines):
            return lines[line - 1].rstrip("\r")
        return None


def caret_line(source_line: str, col: int, length: int = 0) -> str:
    """Spaces up to `col` (tabs kept so the caret lines up), then ^ and ~s."""
    pad = "".join("\t" if ch == "\t" else " " for ch in source_line[: max(col - 1, 0)])
    return pad + "^" + "~" * max(length - 1, 0)


def render(diag: Diagnostic, sources: Sources | None = None, show_source: bool = True) -> str:
    """The diagnostic and its notes as text, each followed by a newline.

    As SourceMgr does, a note at its diagnostic's own location does not repeat
    the source line."""
    out = [f"{diag.prefix()}: {diag.severity}: {diag.message}\n"]
    if show_source and diag.filename is not None and diag.line > 0 and sources is not None:
        text = sources.line(diag.filename, diag.line)
        if text is not None:
            out.append(text + "\n")
            out.append(caret_line(text, diag.col, diag.length) + "\n")
    for note in diag.notes:
        same_place = note.prefix() == diag.prefix()
        out.append(render(note, sources, show_source=not same_place))
    return "".join(out)


# ----------------------------------------------------------------------------- MLIR


def file_location(loc) -> tuple | None:
    """(filename, line, col) of the first file location inside an MLIR location."""
    if loc.is_a_file():
        return loc.filename, loc.start_line, loc.start_col
    if loc.is_a_name():
        return file_location(loc.child_loc)
    if loc.is_a_callsite():
        return file_location(loc.callee)
    if loc.is_a_fused():
        for inner in loc.locations:
            found = file_location(inner)
            if found is not None:
                return found
    return None


_SEVERITY = {"ERROR": "error", "WARNING": "warning", "NOTE": "note", "REMARK": "remark"}


def from_mlir(info, rename: dict[str, str] | None = None) -> Diagnostic:
    """Converts an `ir.DiagnosticInfo`; `rename` maps MLIR buffer names (e.g. "-")
    to the names the user knows."""
    severity = _SEVERITY.get(str(info.severity).rsplit(".", 1)[-1], "error")
    where = file_location(info.location)
    diag = Diagnostic(severity, info.message)
    if where is not None:
        filename, line, col = where
        diag.filename = (rename or {}).get(filename, filename)
        diag.line, diag.col = line, col
    diag.notes = [from_mlir(n, rename) for n in info.notes]
    return diag


class Collector:
    """Attaches to an MLIR context and keeps every diagnostic it reports.

    MLIR's `Diagnostic` objects die when the handler returns, so each one is
    copied into an `ir.DiagnosticInfo` first.
    """

    def __init__(self, context):
        from mlir import ir

        self._ir = ir
        self.infos: list = []
        context.emit_error_diagnostics = True
        self._handle = context.attach_diagnostic_handler(self._on_diagnostic)

    def _on_diagnostic(self, d) -> bool:
        self.infos.append(self._ir.DiagnosticInfo(d))
        return True

    def take(self) -> list:
        infos, self.infos = self.infos, []
        return infos

    def detach(self) -> None:
        self._handle.detach()


# ----------------------------------------------------------------------------- warnings


def emit_warning(location, message: str) -> None:
    """A located warning at an MLIR location, printed on stderr as mlir-opt prints one
    (file:line:col: warning: ..., the line, a caret): MLIR 22's Python bindings emit
    errors only (Location.emit_error), so a pass that warns calls this."""
    import sys

    diag = Diagnostic("warning", message)
    where = file_location(location)
    if where is not None:
        diag.filename, diag.line, diag.col = where
    sys.stderr.write(render(diag, Sources()))
