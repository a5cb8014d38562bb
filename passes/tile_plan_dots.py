"""tile-plan-dots: choose the instruction each kernel's dots run on."""

from __future__ import annotations

from mlir import ir

from phobos.dialect import kernel as K
from phobos.lowering import plan_records as records
from phobos.lowering.errors import LoweringError
from phobos.lowering.planning import plan_kernel
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
    record; "mma.sync" written by hand keeps a kernel off wgmma. A dot the
    tensor cores cannot run under @tensorcore is a located error.

    Before: `%c = "tile.dot"(%a, %b, %acc) : (...) -> tensor<128x128xf32>` in a
    @tensorcore @pipeline kernel with 16-byte aligned rows, chip=sm_90a.
    After: the same op with `{tile.dot_path = "wgmma"}`.
    """
    for fn in K.kernels(module):
        try:
            plan = plan_kernel(fn, chip, "dot-path")
        except LoweringError as e:
            fail(pass_, e.op.location, str(e))
            return
        if plan is not None:
            records.write_dot_path(plan, fn)
