"""Small readers of tile IR shared by the planners and the emitters."""

from __future__ import annotations

from mlir import ir

from phobos.diagnostics import file_location


def tile_type(v: ir.Value) -> ir.RankedTensorType:
    """The ranked tensor type of a tile value."""
    return ir.RankedTensorType(v.type)


def where(op: ir.Operation) -> str:
    """`file:line:col` of an op, for messages and plan records (its raw location when it has none)."""
    found = file_location(op.location)
    return f"{found[0]}:{found[1]}:{found[2]}" if found is not None else str(op.location)
