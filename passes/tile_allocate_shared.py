"""tile-allocate-shared: place each kernel's shared-memory buffers."""

from __future__ import annotations

from mlir import ir

from phobos.lowering import plan_records as records
from phobos.lowering.planning import record_plans
from phobos.passes.registry import Option, fail, tile_pass
from phobos.target import DEFAULT_CHIP


@tile_pass(
    "tile-allocate-shared",
    options={"chip": Option(str, DEFAULT_CHIP, "the GPU the plan is for (its shared memory limit)")},
)
def tile_allocate_shared(module: ir.Operation, pass_, chip: str = DEFAULT_CHIP) -> None:
    """Places the shared-memory buffers of each kernel: dot operands (staged
    copies and register tiles), ring stages and the scratch of reductions,
    scans and transposes, each padded against bank conflicts (or laid out
    for ldmatrix or the 128-byte TMA swizzle), buffers whose live ranges do
    not overlap sharing bytes (Triton's allocation). Records
    `tile.shared = {bytes = N, buffers = [{name, offset, ld, stages, bytes}]}`
    on the kernel; tile-lower-to-gpu addresses the buffers at those offsets.
    A kernel over the chip's shared memory is a located error.

    Before: a kernel with one tile.dot of two staged [64, 32] f32 operands.
    After: the kernel with `tile.shared = {buffers = [{bytes = 9216 : i64,
    ld = 36 : i64, name = "lhs of the dot at k.ph:9:10", offset = 0 : i64,
    stages = 1 : i64}, ...], bytes = ...}`.
    """
    error = record_plans(module, chip, "allocation", lambda fn, plan: records.write_allocation(plan, fn))
    if error is not None:
        fail(pass_, error.op.location, str(error))
