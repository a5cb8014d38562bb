"""tile-to-cubin: the pipeline from tile IR to cubins in gpu.binary ops."""

from __future__ import annotations

from mlir import ir

from phobos.lowering import stages
from phobos.passes.registry import tile_pass


@tile_pass("tile-to-cubin", options=stages.pipeline_options())
def tile_to_cubin(module: ir.Operation, pass_, key: str = "", chip: str = "sm_90", features: str = "") -> None:
    """Pipeline: tile IR to cubins in gpu.binary ops. It runs tile-to-nvvm, then gpu-module-to-binary{format=bin toolkit=...}
    with the ptxas of the nvidia-cuda-nvcc-cu12 package (found through the
    import system, not PATH): each gpu.module becomes a gpu.binary holding a
    cubin (an ELF file) for the chip.

    Before: tile kernels. After: `gpu.binary @k_module [#gpu.object<#nvvm.target<...>, bin = "\\7FELF...">]`.
    """
    stages.run_to_binary(module, pass_, key, chip, features, "bin")
