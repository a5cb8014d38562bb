"""tile-to-ptx: the pipeline from tile IR to PTX text in gpu.binary ops."""

from __future__ import annotations

from mlir import ir

from phobos.lowering import stages
from phobos.passes.registry import tile_pass


@tile_pass("tile-to-ptx", options=stages.pipeline_options())
def tile_to_ptx(module: ir.Operation, pass_, key: str = "", chip: str = "sm_90", features: str = "") -> None:
    """Pipeline: tile IR to PTX in gpu.binary ops. It runs tile-to-nvvm, then gpu-module-to-binary{format=isa}: each
    gpu.module becomes a gpu.binary whose object holds the PTX text (chip and
    features are checked first, since a bad pair aborts LLVM). Print the PTX
    itself with `python -m phobos.compiler FILE --emit=ptx`.

    Before: tile kernels. After: `gpu.binary @k_module [#gpu.object<#nvvm.target<...>,
    assembly = "...">]`.
    """
    stages.run_to_binary(module, pass_, key, chip, features, "isa")
