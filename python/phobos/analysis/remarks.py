"""Optional remarks, printed the way mlir-opt prints diagnostics.

MLIR 22's Python bindings cannot emit remarks through MLIR's diagnostic
engine, so Phobos prints them itself, to stderr:

    file.mlir:12:8: remark: tile.load_slice: 1-element accesses: ...
      %x = "tile.load_slice"(...)
           ^
"""

from __future__ import annotations

import sys

from mlir import ir

from phobos.diagnostics import Diagnostic, Sources, file_location, render

_SOURCES = Sources()


def emit_remark(location: ir.Location, message: str, stream=None) -> None:
    """Prints `message` as a remark at `location` (with the source line when
    the file can be read)."""
    diag = Diagnostic("remark", message)
    where = file_location(location)
    if where is not None:
        diag.filename, diag.line, diag.col = where
    out = stream or sys.stderr
    out.write(render(diag, _SOURCES))
    out.flush()
