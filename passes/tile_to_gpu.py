"""tile-to-gpu: the pipeline from tile IR to gpu.module/gpu.func."""

from __future__ import annotations

from mlir import ir

from phobos.lowering import stages
from phobos.passes.registry import tile_pass


@tile_pass("tile-to-gpu", options=stages.pipeline_options())
def tile_to_gpu(module: ir.Operation, pass_, key: str = "", chip: str = "sm_90", features: str = "") -> None:
    """Pipeline: tile IR to gpu.module/gpu.func (the "gpu" stage). It runs tile-verify,
    tile-specialize{key} and tile-elide-masks (where installed),
    tile-assign-layout, tile-lower-to-gpu{chip features}, canonicalize, cse.
    The result is what the compile driver prints as the "gpu" stage.

    Before: tile kernels (`func.func ... attributes {tile.kernel}`).
    After: `module attributes {gpu.container_module} { gpu.module @k_module
    [#nvvm.target<...>] { gpu.func @k(...) kernel ... } }`.
    """
    stages.run_to_gpu(module, pass_, key, chip, features)
