"""tile-to-nvvm: the pipeline from tile IR to the LLVM/NVVM dialects."""

from __future__ import annotations

from mlir import ir

from phobos.lowering import stages
from phobos.passes.registry import tile_pass


@tile_pass("tile-to-nvvm", options=stages.pipeline_options())
def tile_to_nvvm(module: ir.Operation, pass_, key: str = "", chip: str = "sm_90", features: str = "") -> None:
    """Pipeline: tile IR to LLVM/NVVM dialect kernels (the "llvm" stage). It runs tile-to-gpu, then the gpu.module half of upstream's
    gpu-lower-to-nvvm-pipeline (convert-scf-to-cf, convert-arith-to-llvm,
    gpu.module(convert-gpu-to-nvvm), reconcile-unrealized-casts, ...) without
    nvvm-attach-target (the lowering attached the target) and without
    serialisation. The result is the "llvm" stage: each gpu.module holds
    llvm.func kernels ready for gpu-module-to-binary.

    Before: tile kernels. After: `gpu.module @k_module [#nvvm.target<...>] {
    llvm.func @k(...) attributes {gpu.kernel, nvvm.kernel, ...} }`.
    """
    stages.run_to_nvvm(module, pass_, key, chip, features)
