"""Small readers of tile IR shared by the planners and the emitters."""

from __future__ import annotations

import re

from mlir import ir
from mlir.dialects import gpu, vector

from phobos.diagnostics import file_location
from phobos.target import PTX_FLOOR


def tile_type(v: ir.Value) -> ir.RankedTensorType:
    """The ranked tensor type of a tile value."""
    return ir.RankedTensorType(v.type)


def element_type(t: ir.Type) -> ir.Type:
    """The element type of a shaped type (tensor, vector, memref); a scalar type itself."""
    return ir.ShapedType(t).element_type if isinstance(t, ir.ShapedType) else t


def where(op: ir.Operation) -> str:
    """`file:line:col` of an op, for messages and plan records (its raw location when it has none)."""
    found = file_location(op.location)
    return f"{found[0]}:{found[1]}:{found[2]}" if found is not None else str(op.location)


def gpu_module_block() -> ir.Block:
    """The body of the gpu.module being built (above the current insertion point)."""
    op = ir.InsertionPoint.current.block.owner
    while op is not None and not isinstance(op.operation.opview, gpu.GPUModuleOp):
        op = op.parent
    assert op is not None, "a module-level helper asked for outside a gpu.module"
    return op.regions[0].blocks[0]


def target_ptx() -> int:
    """The PTX ISA version (x10) of the gpu.module being built: its #nvvm.target's features."""
    module = gpu_module_block().owner
    found = re.search(r"\+ptx(\d+)", str(module.attributes["targets"]))
    return int(found.group(1)) if found else PTX_FLOOR


def declare_once(block: ir.Block, symbol: str, text: str) -> None:
    """Adds the globals and functions of `text` (LLVM dialect, parsed together so that its
    functions can name its globals) at the top of the gpu.module body `block`, each unless
    a symbol of its name is there already; nothing (not even the parse) when `symbol`, one
    of them, is there."""
    present = {ir.StringAttr(op.attributes["sym_name"]).value for op in block.operations if "sym_name" in op.attributes}
    if symbol in present:
        return
    parsed = ir.Module.parse(text)
    first = block.operations[0]  # the module holds the kernel's gpu.func already
    for new in list(parsed.body.operations):
        if ir.StringAttr(new.operation.attributes["sym_name"]).value not in present:
            new.operation.move_before(first)


def concat_vectors(pieces: list[ir.Value]) -> ir.Value:
    """1-D vectors joined in order, pairwise (a balanced tree of vector.shuffle)."""
    while len(pieces) > 1:
        merged = []
        for a, b in zip(pieces[0::2], pieces[1::2]):
            n = ir.VectorType(a.type).shape[0] + ir.VectorType(b.type).shape[0]
            merged.append(vector.ShuffleOp(a, b, list(range(n))).result)
        if len(pieces) % 2:
            merged.append(pieces[-1])
        pieces = merged
    return pieces[0]
