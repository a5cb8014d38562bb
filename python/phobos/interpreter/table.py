"""The op table: op name -> the handler that computes the op's results with NumPy.

A handler is `handler(op, cta, args)`: `op` the prepared op (executor.Op: `attrs`,
result types `out`/`types`, operand types `in_types`, `loc`), `cta` the running
CTA (`block` ids and `grid`), `args` the operand values. It returns the one
result, a tuple of results, or None. Handlers work on whole tiles, never change
their operands (values are shared) and raise InterpreterError for what would be
wrong on the GPU; the executor adds the op's location. Scalars are NumPy scalars.
Control flow (scf) and grid barriers live in the executor, which owns regions.
"""

from __future__ import annotations

HANDLERS: dict = {}
PREPARERS: dict = {}  # op name -> fn(op): work done once per op before any CTA runs (constants)


def handles(*names):
    """Registers the decorated function as the handler of the ops `names`."""

    def register(fn):
        for name in names:
            HANDLERS[name] = fn
        return fn

    return register


def prepares(*names):
    """Registers the decorated function to run once on each prepared op of the ops `names`."""

    def register(fn):
        for name in names:
            PREPARERS[name] = fn
        return fn

    return register
