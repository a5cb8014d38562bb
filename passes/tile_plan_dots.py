"""tile-plan-dots: choose the instruction each kernel's dots run on."""

from __future__ import annotations

from mlir import ir

from phobos.diagnostics import emit_warning
from phobos.lowering import plan_records as records
from phobos.lowering.planning import record_plans
from phobos.passes.registry import Option, fail, tile_pass
from phobos.target import DEFAULT_CHIP


@tile_pass(
    "tile-plan-dots",
    options={
        "chip": Option(str, DEFAULT_CHIP, "the GPU the plan is for (its shared memory, and whether it has wgmma)")
    },
)
def tile_plan_dots(module: ir.Operation, pass_, chip: str = DEFAULT_CHIP) -> None:
    """Chooses the instruction each kernel's dots run on and records it on each
    `tile.dot` as `tile.dot_path`: "fma" (CUDA cores) without @tensorcore;
    with it "mma.sync" (ldmatrix + mma.sync), or "wgmma" (TMA + mbarrier +
    wgmma) on sm_90a where every dot of the kernel can take it, with
    `tile.dot_path_note` saying why not where the chip has wgmma and the
    kernel does not take it. Later phases and tile-lower-to-gpu follow the
    record; "mma.sync" written by hand keeps a kernel off wgmma. Where the
    tensor cores cannot run a dot of a @tensorcore kernel (its types, or its
    shapes on the kernel's warps), the kernel's dots run on CUDA cores, as the
    original Phobos specifies: "fma", with `tile.dot_path_note` saying why not
    mma.sync, and a located warning at that dot.

    Before: `%c = "tile.dot"(%a, %b, %acc) : (...) -> tensor<128x128xf32>` in a
    @tensorcore @pipeline kernel with 16-byte aligned rows, chip=sm_90a.
    After: the same op with `{tile.dot_path = "wgmma"}`.
    """

    def record(fn: ir.Operation, plan) -> None:
        records.write_dot_path(plan, fn)
        for warning in (records.fallback_warning(plan), records.k_major_warning(plan, fn)):
            if warning is not None:
                emit_warning(warning[0].location, warning[1])

    error = record_plans(module, chip, "dot-path", record)
    if error is not None:
        fail(pass_, error.op.location, str(error))
