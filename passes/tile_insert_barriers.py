"""tile-insert-barriers: decide the barriers each kernel's shared memory needs."""

from __future__ import annotations

from mlir import ir

from phobos.lowering import plan_records as records
from phobos.lowering.planning import record_plans
from phobos.passes.registry import Option, fail, tile_pass
from phobos.target import DEFAULT_CHIP


@tile_pass(
    "tile-insert-barriers",
    options={"chip": Option(str, DEFAULT_CHIP, "the GPU the plan is for (its shared memory)")},
)
def tile_insert_barriers(module: ir.Operation, pass_, chip: str = DEFAULT_CHIP) -> None:
    """Decides where each kernel needs a CTA barrier between shared-memory
    accesses (Triton's Membar): before a write that could overwrite what
    another thread has not finished reading, and before a read of what
    another thread wrote, unless a barrier already separates them on every
    path (loops and branches included, buffers sharing bytes counted).
    Records on each op with a shared-memory event a `tile.sync` entry per
    event, `{barrier = true|false, at, why, order}`, kept or elided with the
    reason, and `tile.sync_planned` on the kernel; tile-lower-to-gpu emits
    the barriers recorded as kept.

    Before: a loop whose body copies a tile into shared memory and a dot reads it.
    After: the copy with `tile.sync = {copy = {at = "...", barrier = true,
    order = 0 : i64, why = "the copy overwrites what the dot of the previous
    iteration read ..."}}`.
    """
    error = record_plans(module, chip, "barriers", lambda fn, plan: records.write_barriers(plan, fn))
    if error is not None:
        fail(pass_, error.op.location, str(error))
