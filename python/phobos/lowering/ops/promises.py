"""`tile.check`: a promise verified on the device (check mode, device_checks.py).

Each thread tests the elements of the condition it holds; where one is false it
records the site and that element of the value, and exits.
"""

from __future__ import annotations

from mlir import ir

from phobos.dialect import tile as T
from phobos.lowering.context import LoweringContext
from phobos.lowering.device_checks import fail_unless
from phobos.lowering.registry import lowers


@lowers(T.CheckOp)
def lower_check(ctx: LoweringContext, op: ir.Operation) -> None:
    o = op.opview
    with op.location:
        fail_unless(ctx.checks, op, o.check, o.message, ctx.get(o.condition, op), ctx.get(o.value, op))
