"""The shared-memory plan of one kernel, for the planning passes of the gpu stage.

tile-plan-dots, tile-pipeline, tile-allocate-shared and tile-insert-barriers
each plan a kernel through their phase (shared_plan.PHASES), reading the
records of the phases before theirs, and record their own (plan_records.py).
"""

from __future__ import annotations

from collections.abc import Callable

from mlir import ir

from phobos.dialect import kernel as K
from phobos.lowering.errors import LoweringError
from phobos.lowering.exchange_plan import plan_scratch
from phobos.lowering.kernel_layout import choose_kernel_layout, read_kernel_layout
from phobos.lowering.placement import Placement
from phobos.lowering.shared_plan import DotPlan, folded_transpose, plan_dots
from phobos.nesting import nesting_message, too_deep


def plan_kernel(fn: ir.Operation, chip: str, upto: str) -> DotPlan | None:
    """`fn`'s plan through phase `upto` (None when it needs no shared memory); raises LoweringError."""
    deep = too_deep(fn)
    if deep is not None:
        raise LoweringError(deep, nesting_message())
    try:
        layout = read_kernel_layout(fn) or choose_kernel_layout(fn, chip)
    except ValueError as e:
        raise LoweringError(fn, f"kernel '{K.kernel_name(fn)}' has an invalid tile.layout: {e}") from None
    placement = Placement(fn)
    scratch = plan_scratch(fn, layout, placement, folded_transpose)
    return plan_dots(fn, layout, K.launch(fn)["threads"], chip, scratch, upto)


def record_plans(module: ir.Operation, chip: str, upto: str, record: Callable[[ir.Operation, DotPlan], None]):
    """Plans each kernel of `module` through phase `upto` and has `record` write that phase's
    records; returns the first LoweringError (the kernels after it are left alone), or None."""
    for fn in K.kernels(module):
        try:
            plan = plan_kernel(fn, chip, upto)
        except LoweringError as e:
            return e
        if plan is not None:
            record(fn, plan)
    return None
