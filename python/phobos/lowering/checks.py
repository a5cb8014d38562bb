"""Rules every tile of a kernel must meet before it can live in registers.

A tile is 1-D to 3-D, of an element type the lowering handles (fp8 only in the
ops dialect/fp8.py allows), with power-of-two extents (the blocked layout
splits extents by powers of two), and needs at most MAX_REGISTERS elements per
thread under the kernel's layout.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import memref

from phobos.dialect import kernel as K
from phobos.dialect.fp8 import FP8_TYPES, fp8_misuse
from phobos.lowering.errors import PASS, LoweringError
from phobos.lowering.layout import Blocked, is_pow2
from phobos.lowering.placement import Placement

MAX_TILE_RANK = 3
MAX_REGISTERS = 1024  # elements of one tile per thread


def _supported_element(t: ir.Type) -> bool:
    if isinstance(t, ir.IntegerType):
        return t.width in (1, 8, 16, 32, 64)
    return isinstance(t, (ir.IndexType, ir.F16Type, ir.BF16Type, ir.F32Type, ir.F64Type, *FP8_TYPES))


def _refuse_bool_tensor(fn: ir.Operation, op: ir.Operation) -> None:
    """A bool tensor's elements are 1-bit in the IR, which no load or store lowers
    (MLIR's memref lowering aborts the process on them): refuse the access."""
    if isinstance(op.opview, memref.DimOp):  # an extent, not an access
        return
    for v in op.operands:
        if isinstance(v.type, ir.MemRefType) and ir.MemRefType(v.type).element_type == ir.IntegerType.get_signless(1):
            name = K.arg_name(fn, ir.BlockArgument(v).arg_number) if isinstance(v, ir.BlockArgument) else "?"
            raise LoweringError(
                op,
                f"'{name}' is a tensor of bool, which the GPU cannot read or write yet: pass it as a "
                f"tensor<u8> (torch: x.view(torch.uint8)), read it with '{name}[...] != 0' and store u8(b)",
            )


def check_tiles(fn: ir.Operation, layout: Blocked | None, placement: Placement, threads: int) -> None:
    """Raises LoweringError at the first op whose tiles the lowering cannot hold in registers."""
    errors: list[LoweringError] = []

    def visit(op):
        try:
            check(op)
        except LoweringError as e:  # exceptions must not cross the walk callback
            errors.append(e)
            return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE

    def check(op):
        misuse = fp8_misuse(op)  # an op a pass added after tile-verify (tile-verify refuses the rest)
        if misuse is not None:
            raise LoweringError(op, f"'{op.name}' op {misuse}")
        _refuse_bool_tensor(fn, op)
        for v in list(op.results) + list(op.operands):
            t = v.type
            if isinstance(t, ir.RankedTensorType):
                t = ir.RankedTensorType(t)
                if t.rank == 0 or t.rank > MAX_TILE_RANK:
                    raise LoweringError(
                        op,
                        f"'{op.name}' op uses a rank-{t.rank} tile ({t}); "
                        f"{PASS} supports tiles of rank 1 to {MAX_TILE_RANK}",
                    )
                if not _supported_element(t.element_type):
                    raise LoweringError(
                        op,
                        f"'{op.name}' op uses tiles of element type {t.element_type}, which {PASS} does not support",
                    )
                if any(not is_pow2(s) for s in t.shape):
                    raise LoweringError(
                        op, f"'{op.name}' op uses the tile shape {list(t.shape)}; {PASS} needs power-of-two extents"
                    )
                if layout is not None and isinstance(v, ir.OpResult):
                    n = layout.registers(placement.placed_shape(v))
                    if n > MAX_REGISTERS:
                        raise LoweringError(
                            op,
                            f"'{op.name}' op makes a tile of {list(t.shape)} that needs {n} "
                            f"elements per thread with {threads} threads (at most {MAX_REGISTERS})",
                        )

    fn.walk(visit)
    if errors:
        raise errors[0]
