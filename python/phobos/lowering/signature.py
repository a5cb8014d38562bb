"""The kernel's gpu.func signature: the ABI's parameters and their LLVM attributes.

Kernel parameters follow abi.py: `!llvm.ptr` per tensor, i64 extents and
strides, scalars by value, then one pointer per TMA tensor map. A tensor the
kernel never stores to is declared `llvm.noalias` + `llvm.readonly` (which
gives `ld.global.nc`): launching with it overlapping a written tensor is then
allowed only in the elementwise in-place way (each element read before it is
written, by the thread that writes it); kernels with barriers, and the
`noalias=false` option, get no such declaration. `llvm.align = 16` comes only
from `tile.ptr_align = 16` (the specialisation key's a16), and not in check mode,
which verifies the alignment instead of letting LLVM assume it. Each pointer is
seen by the body through a flat `memref<?xT>` view (`flat_view`).
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import gpu

from phobos.dialect import kernel as K
from phobos.dialect.tile import ATOMIC_OPS, BARRIER_OPS, STORE_OPS, is_op


def _i64() -> ir.Type:
    return ir.IntegerType.get_signless(64)


def _llvm_ptr() -> ir.Type:
    return ir.Type.parse("!llvm.ptr")


def _descriptor_type() -> ir.Type:
    return ir.Type.parse("!llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>")


def stored_params(fn: ir.Operation, noalias: bool) -> set[int]:
    """Parameters that may not be declared noalias + readonly: those the
    kernel stores to, and all of them in a kernel with barriers (where a
    thread may read, through an aliasing parameter, what another wrote)."""
    args = list(fn.regions[0].blocks[0].arguments)
    stored: set[int] = set()

    def visit(op):
        if is_op(op, *BARRIER_OPS) or not noalias:
            stored.update(range(len(args)))
        elif is_op(op, *STORE_OPS, *ATOMIC_OPS):
            base = op.opview.base
            for i, a in enumerate(args):
                if a == base:
                    stored.add(i)
        return ir.WalkResult.ADVANCE

    fn.walk(visit)
    return stored


def kernel_function(
    fn: ir.Operation, abi: list[dict], stored: set[int], tensor_maps: int, threads: int
) -> gpu.GPUFuncOp:
    """The gpu.func of kernel `fn`: its ABI's parameters (abi.py) with their LLVM attributes, then one
    pointer per TMA tensor map; the launch bounds of `tile.launch`, with `threads` in the CTA (the
    kernel's own, and a producer warpgroup's under warp roles: warp_roles.py)."""
    types, attrs = [], []
    for entry in abi:
        p = entry["param"]
        if entry["kind"] == "ptr":
            types.append(_llvm_ptr())
            a = {}
            if p not in stored:
                a["llvm.noalias"] = ir.UnitAttr.get()
                a["llvm.readonly"] = ir.UnitAttr.get()
            align = K.arg_attrs(fn, p).get(K.ARG_PTR_ALIGN)
            # check mode verifies the alignment on the device: LLVM must not take it as given
            if align is not None and ir.IntegerAttr(align).value >= 16 and K.CHECK_MODE not in fn.attributes:
                a["llvm.align"] = ir.IntegerAttr.get(_i64(), 16)
            attrs.append(ir.DictAttr.get(a))
        elif entry["kind"] in ("extent", "stride"):
            types.append(_i64())
            attrs.append(ir.DictAttr.get({}))
        else:
            t = fn.regions[0].blocks[0].arguments[p].type
            types.append(_i64() if isinstance(t, ir.IndexType) else t)
            attrs.append(ir.DictAttr.get({}))
    for _ in range(tensor_maps):  # after the ABI's own entries: the contract appends them so
        types.append(_llvm_ptr())
        attrs.append(ir.DictAttr.get({}))
    func = gpu.GPUFuncOp(
        ir.FunctionType.get(types, []),
        sym_name=K.kernel_name(fn),
        kernel=True,
        known_block_size=[threads, 1, 1],
    )
    func.attributes["arg_attrs"] = ir.ArrayAttr.get(attrs)
    # tile.launch: PTX .maxntid (the CTA size), .minnctapersm and .maxnreg.
    launch = K.launch(fn)
    i32 = ir.IntegerType.get_signless(32)
    for fact, attr in (("min_blocks", "nvvm.minctasm"), ("max_regs", "nvvm.maxnreg")):
        if launch.get(fact):
            func.attributes[attr] = ir.IntegerAttr.get(i32, launch[fact])
    func.body.blocks.append(*types, arg_locs=[fn.location] * len(types))
    return func


def flat_view(ptr: ir.Value, element: ir.Type) -> ir.Value:
    """A `memref<?xT>` over the bare pointer (a descriptor built in place:
    the upstream memref lowering then addresses it like any memref)."""
    desc_t = _descriptor_type()
    zero = ir.Operation.create(
        "llvm.mlir.constant", results=[_i64()], attributes={"value": ir.IntegerAttr.get(_i64(), 0)}
    ).result
    one = ir.Operation.create(
        "llvm.mlir.constant", results=[_i64()], attributes={"value": ir.IntegerAttr.get(_i64(), 1)}
    ).result
    unbounded = ir.Operation.create(
        "llvm.mlir.constant", results=[_i64()], attributes={"value": ir.IntegerAttr.get(_i64(), 2**63 - 1)}
    ).result
    desc = ir.Operation.create("llvm.mlir.poison", results=[desc_t]).result
    for position, value in (([0], ptr), ([1], ptr), ([2], zero), ([3, 0], unbounded), ([4, 0], one)):
        desc = ir.Operation.create(
            "llvm.insertvalue",
            results=[desc_t],
            operands=[desc, value],
            attributes={"position": ir.DenseI64ArrayAttr.get(position)},
        ).result
    view_t = ir.MemRefType.get([ir.ShapedType.get_dynamic_size()], element)
    return ir.Operation.create("builtin.unrealized_conversion_cast", results=[view_t], operands=[desc]).result
