"""tile-lower-to-gpu: tile kernels -> gpu.module/gpu.func with per-thread vectors."""

from __future__ import annotations

from mlir import ir

from phobos.dialect import kernel as K
from phobos.lowering import ops  # noqa: F401  (registers the emitters of every op family)
from phobos.lowering.kernel_layout import choose_kernel_layout, read_kernel_layout
from phobos.lowering.to_gpu import LoweringError, lower_kernel
from phobos.passes.registry import Option, fail, tile_pass
from phobos.target import DEFAULT_CHIP, TargetError, check_target

CONTAINER = "gpu.container_module"


def target_attr(chip: str, features: str) -> ir.Attribute:
    return ir.Attribute.parse(f'#nvvm.target<chip = "{chip}", features = "{features}">')


def _nowhere() -> ir.Location:
    """Where an option error goes: it is in no place of the input (`<unknown>:0:`, as mlir-opt says)."""
    return ir.Location.unknown()


@tile_pass(
    "tile-lower-to-gpu",
    options={
        "chip": Option(str, DEFAULT_CHIP, "the GPU to compile for (sm_70 or newer)"),
        "features": Option(str, "", "PTX ISA features, e.g. +ptx80 (default: the chip's minimum, at least +ptx80)"),
        "noalias": Option(bool, True, "declare tensors the kernel only reads noalias + readonly (ld.global.nc)"),
    },
)
def tile_lower_to_gpu(
    module: ir.Operation, pass_, chip: str = DEFAULT_CHIP, features: str = "", noalias: bool = True
) -> None:
    """Lowers tile kernels to gpu.func kernels on per-thread vectors. Each
    kernel goes into its own `gpu.module @<kernel>_module
    [#nvvm.target<chip, features>]`. Tiles become
    per-thread 1-D vectors under the kernel's `tile.layout` (lanes along the
    contiguous dimension); elementwise arith/math, broadcasts, scf.for and
    scf.if carry over to vectors; memory ops become 1-D vector.load/store
    (or scalar memref.load/store) on flat views of bare-pointer parameters,
    `vector_width` elements at a time with matching alignment, masked chunks
    under scf.if and proven in-bounds chunks unguarded; `tile.check_multiple`
    becomes a compare and a trap. Parameters: `!llvm.ptr` per tensor
    (llvm.noalias + llvm.readonly when never stored and the kernel has no
    barrier, unless noalias=false; llvm.align = 16 when
    `tile.ptr_align = 16`), i64 extents per dimension symbol, i64 leading
    strides, scalars by value (the contract's `abi`). Ops it cannot lower
    (tile.dot, reductions, unsupported ranks or element types) are located
    errors.

    Before: `func.func @scale(%X: memref<?x?xf32>, ...) attributes {tile.kernel, tile.layout = ...}`.
    After: `module attributes {gpu.container_module} { gpu.module @scale_module
    [#nvvm.target<chip = "sm_90", features = "+ptx80">] { gpu.func @scale(%arg0:
    !llvm.ptr {llvm.noalias, llvm.readonly}, ..., %arg4: f32) kernel ... } }`.
    """
    try:
        features = check_target(chip, features or None)
    except TargetError as e:
        fail(pass_, _nowhere(), str(e))
        return
    target = target_attr(chip, features)
    kernels = K.kernels(module)
    if not kernels:
        return
    module.attributes[CONTAINER] = ir.UnitAttr.get()
    for fn in kernels:
        try:
            layout = read_kernel_layout(fn) or choose_kernel_layout(fn, chip)
        except ValueError as e:
            fail(pass_, fn.location, f"kernel '{K.kernel_name(fn)}' has an invalid tile.layout: {e}")
            continue
        try:
            lower_kernel(fn, layout, target, noalias, chip)
        except LoweringError as e:
            fail(pass_, e.op.location, str(e))
            return
