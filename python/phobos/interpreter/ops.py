"""Every op the interpreter runs: importing the handler modules fills the table."""

from __future__ import annotations

from phobos.interpreter import arith, memory, reductions, shapes  # noqa: F401  (they register their handlers)
from phobos.interpreter.table import HANDLERS

__all__ = ["HANDLERS"]
