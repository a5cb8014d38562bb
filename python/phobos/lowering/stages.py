"""The stages from tile IR to a cubin, shared by the pipeline passes and the compile driver.

    tile   tile-verify, tile-specialize{key}, tile-elide-masks, tile-assign-layout
           (the tile-level passes that exist in this installation, in this order)
    gpu    tile-lower-to-gpu{chip features}, canonicalize, cse
    nvvm   the gpu.module half of upstream's gpu-lower-to-nvvm-pipeline
           (UPSTREAM_TO_NVVM), without nvvm-attach-target (the gpu.module
           already has its #nvvm.target; a second one would make two objects)
           and without gpu-module-to-binary
    ptx    gpu-module-to-binary{format=isa}
    cubin  gpu-module-to-binary{format=bin toolkit=<nvidia-cuda-nvcc-cu12>}

The pipeline passes (tile-to-gpu, tile-to-nvvm, tile-to-ptx, tile-to-cubin)
run these from inside a Python pass: Phobos passes are called directly,
upstream pieces through a nested PassManager whose diagnostics are re-emitted
at their locations. (A nested run is safe because phobos.dialect preloads
convert-gpu-to-nvvm's dialects into every context; see load_tile_dialect.)
"""

from __future__ import annotations

from typing import Iterable, List, Optional, Tuple

from mlir import ir
from mlir.passmanager import PassManager

from phobos.lowering.target import TargetError, check_target_attrs, toolkit_dir
from phobos.passes import registry

Step = Tuple[str, str]  # (pass name, options text)

UPSTREAM_TO_NVVM = (
    "convert-nvgpu-to-nvvm",
    "convert-vector-to-scf{full-unroll=true}",
    "convert-scf-to-cf",
    "convert-nvvm-to-llvm",
    "convert-func-to-llvm",
    "expand-strided-metadata",
    "lower-affine",
    # No top-level convert-arith-to-llvm (upstream runs it for host code): inside
    # the gpu.module, convert-gpu-to-nvvm lowers arith itself and maps
    # arith.remf to libdevice's fmod, which llvm.frem would no longer reach.
    "canonicalize",
    "cse",
    "gpu.module(convert-gpu-to-nvvm{index-bitwidth=64})",
    # math ops without a libdevice function (math.trunc) become LLVM intrinsics.
    "gpu.module(convert-math-to-llvm)",
    "gpu.module(canonicalize)",
    "gpu.module(cse)",
    "gpu.module(reconcile-unrealized-casts)",
    "reconcile-unrealized-casts",
)
GPU_CLEANUP = ("canonicalize", "cse")


def tile_steps(key: str = "") -> List[Step]:
    """The tile-level passes, skipping those not installed."""
    steps: List[Step] = [("tile-verify", "")]
    spec = registry.lookup("tile-specialize")
    if spec is not None:
        steps.append(("tile-specialize", f"key={key}" if key and "key" in spec.options else ""))
    for name in ("tile-elide-masks", "tile-assign-layout"):
        if registry.lookup(name) is not None:
            steps.append((name, ""))
    return steps


def lower_step(chip: str, features: str = "", noalias: bool = True) -> Step:
    options = f"chip={chip}" + (f" features={features}" if features else "") + ("" if noalias else " noalias=false")
    return ("tile-lower-to-gpu", options)


def upstream_to_nvvm() -> str:
    return ",".join(UPSTREAM_TO_NVVM)


def binary_element(fmt: str) -> str:
    """gpu-module-to-binary for `fmt` ("isa" or "bin"); bin uses the pip ptxas."""
    if fmt == "isa":
        return "gpu-module-to-binary{format=isa}"
    toolkit = toolkit_dir()
    if toolkit is None:
        raise TargetError("ptxas was not found: install the nvidia-cuda-nvcc-cu12 package (it provides bin/ptxas)")
    if any(c.isspace() for c in toolkit):
        raise TargetError(f"the CUDA toolkit folder '{toolkit}' contains spaces, which MLIR's pass options cannot carry")
    return f"gpu-module-to-binary{{format=bin toolkit={toolkit}}}"


def gpu_targets_text(module: ir.Operation) -> str:
    """The printed `targets` of every gpu.module (for check_target_attrs)."""
    found = []

    def visit(op):
        if op.name == "gpu.module" and "targets" in op.attributes:
            found.append(str(op.attributes["targets"]))
        return ir.WalkResult.ADVANCE

    module.walk(visit)
    return " ".join(found)


# ----------------------------------------------------------------------------- running inside a pass


class _Recorder:
    """Stands in for the pass handle of a sub-pass and remembers a failure."""

    def __init__(self, pass_):
        self._pass = pass_
        self.failed = False

    def signal_pass_failure(self):
        self.failed = True
        self._pass.signal_pass_failure()

    def __getattr__(self, name):
        return getattr(self._pass, name)


def run_phobos_steps(module: ir.Operation, pass_, steps: Iterable[Step]) -> bool:
    """Runs registered Phobos passes in order; False (already reported) on failure."""
    for name, options in steps:
        info = registry.lookup(name)
        if info is None:
            module.location.emit_error(f"pipeline step '{name}' is not a registered Phobos pass")
            pass_.signal_pass_failure()
            return False
        try:
            values = info.parse_options(options)
        except ValueError as e:
            module.location.emit_error(str(e))
            pass_.signal_pass_failure()
            return False
        recorder = _Recorder(pass_)
        info.run(module, recorder, **values)
        if recorder.failed:
            return False
    return True


def run_upstream(module: ir.Operation, pass_, pipeline: str, check_targets: bool = False) -> bool:
    """Runs upstream pipeline text on `module` (nested); diagnostics are re-emitted."""
    if check_targets:
        try:
            check_target_attrs(gpu_targets_text(module))
        except TargetError as e:
            module.location.emit_error(str(e))
            pass_.signal_pass_failure()
            return False
    try:
        PassManager.parse(f"builtin.module({pipeline})", module.context).run(module)
    except ir.MLIRError as e:
        for d in e.error_diagnostics or []:
            d.location.emit_error(d.message)
        if not e.error_diagnostics:
            module.location.emit_error(str(e))
        pass_.signal_pass_failure()
        return False
    return True


def run_to_gpu(module: ir.Operation, pass_, key: str, chip: str, features: str) -> bool:
    return (run_phobos_steps(module, pass_, tile_steps(key) + [lower_step(chip, features)])
            and run_upstream(module, pass_, ",".join(GPU_CLEANUP)))


def run_to_nvvm(module: ir.Operation, pass_, key: str, chip: str, features: str) -> bool:
    return (run_to_gpu(module, pass_, key, chip, features)
            and run_upstream(module, pass_, upstream_to_nvvm(), check_targets=True))


def run_to_binary(module: ir.Operation, pass_, key: str, chip: str, features: str, fmt: str) -> bool:
    try:
        element = binary_element(fmt)
    except TargetError as e:
        module.location.emit_error(str(e))
        pass_.signal_pass_failure()
        return False
    return (run_to_nvvm(module, pass_, key, chip, features)
            and run_upstream(module, pass_, element, check_targets=True))


def pipeline_options():
    """The options every tile-to-* pipeline takes."""
    from phobos.lowering.target import DEFAULT_CHIP

    Option = registry.Option
    return {
        "key": Option(str, "", "a specialisation key's text (passed to tile-specialize)"),
        "chip": Option(str, DEFAULT_CHIP, "the GPU to compile for (sm_70 or newer)"),
        "features": Option(str, "", "PTX ISA features, e.g. +ptx80 (default: the chip's minimum, at least +ptx80)"),
    }


def extract_binaries(module: ir.Module) -> List[Tuple[str, bytes]]:
    """(gpu.binary symbol, object bytes) of each gpu.binary in `module`."""
    from mlir.dialects import gpu

    found = []
    for op in module.body.operations:
        op = op.operation
        if op.name == "gpu.binary":
            objects = ir.ArrayAttr(op.attributes["objects"])
            name = ir.StringAttr(op.attributes["sym_name"]).value
            found.append((name, bytes(gpu.ObjectAttr(objects[0]).object)))
    return found


def first_binary(module: ir.Module, symbol: Optional[str] = None) -> Optional[bytes]:
    for name, data in extract_binaries(module):
        if symbol is None or name == symbol:
            return data
    return None
