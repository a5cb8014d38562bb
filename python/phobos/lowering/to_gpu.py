"""Translation of one tile kernel into a `gpu.func` (the body of tile-lower-to-gpu).

Tiles become per-thread registers: a tile value is a 1-D `vector<n x T>`
holding the n elements this thread owns under the kernel's blocked layout
(layout.py explains which, placement.py where lower-rank tiles sit). This
module is the driver: it checks the kernel's tiles (checks.py), builds the
`gpu.module` with the kernel's signature (signature.py), sets up the lowering
context (context.py: parameters, thread coordinates, the shared-memory plan)
and lowers the body op by op through the registry, where each op family has
its emitter module (ops/, which the pass imports to register them).
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import gpu

from phobos.analysis.abi import abi_entries
from phobos.lowering.checks import check_tiles
from phobos.lowering.context import LoweringContext
from phobos.lowering.errors import LoweringError
from phobos.lowering.layout import Blocked
from phobos.lowering.shared_checks import check_shared_accesses
from phobos.lowering.signature import kernel_function, stored_params
from phobos.target import DEFAULT_CHIP

__all__ = ["LoweringError", "lower_kernel"]


def lower_kernel(
    fn: ir.Operation,
    layout: Blocked | None,
    target: ir.Attribute,
    noalias: bool = True,
    chip: str = DEFAULT_CHIP,
) -> ir.Operation:
    """Builds `gpu.module @<kernel>_module { gpu.func @<kernel> }` before the kernel `fn`
    and erases `fn`. Raises LoweringError for what it cannot do."""
    ctx = LoweringContext(fn, layout, chip)
    check_tiles(fn, ctx.kernel_layout, ctx.placement, ctx.threads)
    stored = stored_params(fn, noalias)
    abi = abi_entries(ctx.params)
    with ir.InsertionPoint(fn), fn.location:
        module = gpu.GPUModuleOp(f"{ctx.name}_module", targets=ir.ArrayAttr.get([target]))
        module.bodyRegion.blocks.append()
        with ir.InsertionPoint(module.bodyRegion.blocks[0]):
            func = kernel_function(fn, abi, stored, len(ctx.tensor_maps()), ctx.launch_threads)
        if ctx.smem is not None:
            ctx.smem.declare(module.bodyRegion.blocks[0])
    with ir.InsertionPoint(func.body.blocks[0]), fn.location:
        ctx.prologue(func, abi)
        if ctx.smem is not None:
            ctx.smem.make_views()
        ctx.lower_block(fn.regions[0].blocks[0])
    if ctx.smem is not None:
        ctx.smem.annotate(func)
    if ctx.launch_threads != ctx.threads:  # the contract launches the producer warpgroup too
        func.attributes["phobos.threads"] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), ctx.launch_threads)
    check_shared_accesses(ctx, func)
    ctx.checks.annotate(func)
    fn.erase()
    return module.operation
