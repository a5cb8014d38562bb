"""tile-specialize: apply a launch-time specialisation key to kernel parameters."""

from __future__ import annotations

from mlir import ir

from phobos.contract.specialization import SpecKey, TensorFacts
from phobos.dialect import kernel as K
from phobos.passes.registry import Option, fail, tile_pass


def _i64_array(values) -> ir.Attribute:
    return ir.DenseI64ArrayAttr.get([int(v) for v in values])


def _facts_attrs(fn: ir.Operation, index: int, facts) -> dict[str, ir.Attribute]:
    """The argument attributes that record `facts` for parameter `index`;
    raises ValueError when they do not fit its type."""
    name = K.arg_name(fn, index)
    arg_type = ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value).inputs[index]
    if isinstance(facts, TensorFacts):
        if not isinstance(arg_type, ir.MemRefType):
            raise ValueError(
                f"gives tensor facts '{facts.to_text()}' to '{name}', which is a scalar of type {arg_type}"
            )
        if len(facts.extents) != arg_type.rank:
            raise ValueError(f"gives '{name}' {len(facts.extents)} extent classes, but it has rank {arg_type.rank}")
        return {
            K.ARG_DIVISIBILITY: _i64_array(facts.extents),
            K.ARG_STRIDE_DIVISIBILITY: _i64_array(facts.strides),
            K.ARG_PTR_ALIGN: ir.IntegerAttr.get(ir.IntegerType.get_signless(64), facts.align),
        }
    if not isinstance(arg_type, (ir.IntegerType, ir.IndexType)):
        raise ValueError(f"gives the divisibility class {facts} to '{name}', which is not an integer (type {arg_type})")
    return {K.ARG_DIVISIBILITY: _i64_array([facts])}


def specialize(fn: ir.Operation, key: SpecKey) -> None:
    """Records `key` on the arguments of the kernel `fn` (ValueError on a mismatch)."""
    n = len(ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value).inputs)
    by_name = {K.arg_name(fn, i): i for i in range(n)}
    unknown = [name for name in key.params if name not in by_name]
    if unknown:
        raise ValueError(
            f"has no parameter named {', '.join(repr(u) for u in unknown)} (parameters: {', '.join(by_name) or 'none'})"
        )
    updates = {by_name[name]: _facts_attrs(fn, by_name[name], facts) for name, facts in key.params.items()}
    dicts: list[ir.Attribute] = []
    for i in range(n):
        attrs = dict(K.arg_attrs(fn, i))
        attrs.update(updates.get(i, {}))
        dicts.append(ir.DictAttr.get(attrs))
    fn.attributes["arg_attrs"] = ir.ArrayAttr.get(dicts)


def _nowhere() -> ir.Location:
    """Where an option error goes: it is in no place of the input (`<unknown>:0:`, as mlir-opt says)."""
    return ir.Location.unknown()


@tile_pass(
    "tile-specialize",
    options={
        "key": Option(str, "", "the specialisation key, e.g. X=a16.e16x16.s16;n=4 (see phobos/specialization.py)"),
        "kernel": Option(str, "", "the kernel to specialise (default: every kernel of the module)"),
    },
)
def tile_specialize(module: ir.Operation, pass_, key: str = "", kernel: str = "") -> None:
    """Applies a launch-time specialisation key to kernel parameters, by name
    (`tile.name`). A tensor parameter's facts `a16.e16x4.s16` become the
    argument attributes `tile.ptr_align = 16`, `tile.divisibility =
    array<i64: 16, 4>` (per extent) and `tile.stride_divisibility =
    array<i64: 16>` (per leading stride); an integer scalar's class `n=4`
    becomes `tile.divisibility = array<i64: 4>`. Parameters the key does not
    name are left alone; naming a parameter the kernel lacks, or facts that
    do not fit its type, is an error. A module with several kernels needs
    `kernel=<name>` (a key describes one launch); an empty key does nothing.

    Before: func.func @scale(%X: memref<?x?xf32> {tile.name = "X", ...}) attributes {tile.kernel}
    After (key=X=a16.e16x16.s16): %X: memref<?x?xf32> {tile.divisibility = array<i64: 16, 16>,
            tile.name = "X", tile.ptr_align = 16 : i64, tile.stride_divisibility = array<i64: 16>, ...}
    """
    try:
        spec = SpecKey.from_text(key)
    except ValueError as e:
        fail(pass_, _nowhere(), f"tile-specialize: {e}")
        return
    if not spec.params:
        return  # an empty key knows nothing: nothing to record
    kernels = K.kernels(module)
    names = [K.kernel_name(k) for k in kernels]
    if kernel:
        kernels = [k for k, n in zip(kernels, names) if n == kernel]
        if not kernels:
            fail(
                pass_,
                _nowhere(),
                f"tile-specialize: no kernel named '{kernel}' (kernels: {', '.join(names) or 'none'})",
            )
            return
    elif len(kernels) > 1:
        # A key describes the arguments of one launch: say which kernel.
        fail(
            pass_,
            _nowhere(),
            f"tile-specialize: the module has several kernels ({', '.join(names)}); name one with kernel=...",
        )
        return
    for fn in kernels:
        try:
            specialize(fn, spec)
        except ValueError as e:
            fail(pass_, fn.location, f"specialisation key '{key}' does not fit kernel '{K.kernel_name(fn)}': it {e}")
