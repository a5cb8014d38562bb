"""tile-pipeline: plan the @pipeline rings of each kernel's staged loads."""

from __future__ import annotations

from mlir import ir

from phobos.lowering import plan_records as records
from phobos.lowering.planning import record_plans
from phobos.passes.registry import Option, fail, tile_pass
from phobos.target import DEFAULT_CHIP


@tile_pass(
    "tile-pipeline",
    options={"chip": Option(str, DEFAULT_CHIP, "the GPU the plan is for (its shared memory)")},
)
def tile_pipeline(module: ir.Operation, pass_, chip: str = DEFAULT_CHIP) -> None:
    """Plans the software pipeline of @pipeline kernels: each loop whose
    staged loads (operand tiles copied straight into shared memory) depend
    only on the induction variable becomes a ring of stages filled ahead of
    use (cp.async groups, or TMA copies on the wgmma path). Records on each
    such loop `tile.pipeline_stages = S` (0 with `tile.pipeline_note` saying
    why when it cannot be pipelined); tile-lower-to-gpu builds the ring with
    that many stages, so a hand-edited count is honoured (2 or more).

    Before: `scf.for %k = ... { %a = "tile.load_slice"(%A, %i, %k) ...
    "tile.dot"(%a, %b, %acc) }` in a @pipeline kernel.
    After: the same loop with `{tile.pipeline_stages = 3 : i64}`.
    """
    error = record_plans(module, chip, "pipeline", lambda fn, plan: records.write_pipeline(plan))
    if error is not None:
        fail(pass_, error.op.location, str(error))
