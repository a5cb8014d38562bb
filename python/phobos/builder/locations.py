"""Source locations of built ops: the `file:line:col` of the user's own line."""

from __future__ import annotations

import inspect
import os

from mlir import ir

from phobos.dialect import tile as T

_PHOBOS_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(T.__file__)))


def _is_internal(filename: str) -> bool:
    path = os.path.abspath(filename)
    return path.startswith(_PHOBOS_ROOT) and "/test/" not in path and "/examples/" not in path


def caller_location() -> ir.Location:
    """The `file:line:col` of the innermost caller outside Phobos and MLIR."""
    frame = inspect.currentframe()
    try:
        while frame is not None:
            filename = frame.f_code.co_filename
            if not _is_internal(filename) and "/mlir/" not in filename:
                positions = inspect.getframeinfo(frame).positions
                line = positions.lineno if positions and positions.lineno else frame.f_lineno
                col = (positions.col_offset + 1) if positions and positions.col_offset is not None else 1
                return ir.Location.file(filename, line, col)
            frame = frame.f_back
        return ir.Location.unknown()
    finally:
        del frame


def loc_or_caller(loc: ir.Location | None) -> ir.Location:
    """`loc` where given, else the caller's location."""
    return loc if loc is not None else caller_location()
