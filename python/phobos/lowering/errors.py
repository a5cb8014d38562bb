"""The one error of the lowering: a kernel it cannot translate, located at an op.

Planners and emitters raise it alike; tile-lower-to-gpu reports it at `op`'s location.
"""

from __future__ import annotations

from mlir import ir

PASS = "tile-lower-to-gpu"


class LoweringError(Exception):
    """A kernel the lowering cannot translate; `op` locates the reason."""

    def __init__(self, op: ir.Operation, message: str):
        super().__init__(message)
        self.op = op
