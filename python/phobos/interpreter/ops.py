"""Every op the interpreter runs: importing the handler modules fills the table."""

from __future__ import annotations

from phobos.interpreter import (  # noqa: F401  (they register their handlers)
    arith,
    atomics,
    math_extra,
    memory,
    reductions,
    shapes,
)
from phobos.interpreter.table import HANDLERS

__all__ = ["HANDLERS"]
