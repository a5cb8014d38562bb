"""The interpreter's one error: a message at the location of the op that failed."""

from __future__ import annotations


class InterpreterError(Exception):
    """A kernel did something that would be wrong on the GPU (a broken @aligned promise,
    an out-of-bounds offset, a division by zero) or used an op the interpreter lacks.

    `loc` is [file, line, col] of the op, or None; str() prints the diagnostic the way
    the compiler does: `file:line:col: error: message`.
    """

    def __init__(self, message: str, loc=None):
        super().__init__(message)
        self.message = message
        self.loc = list(loc) if loc else None

    def __str__(self) -> str:
        if not self.loc:
            return f"error: {self.message}"
        file, line, col = self.loc
        return f"{file}:{line}:{col}: error: {self.message}"
