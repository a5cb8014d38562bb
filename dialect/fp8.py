"""The fp8 element types in tile IR: f8E4M3FN (`f8e4m3`) and f8E5M2 (`f8e5m2`), storage and conversion only.

A tile or scalar of an fp8 type may be loaded, stored, moved (extracted,
splat, broadcast, reshaped, carried through `scf` loops and branches), made
by a constant, and converted: `arith.extf` to f16, bf16, f32 or f64 and
`arith.truncf` from f16, bf16 or f32 (f64 would round twice through f32,
which is what the GPU converts from). `tile.dot` takes two fp8 operands of
one type into an f32 accumulator (exact products, f32 sums; the tensor cores'
mma.sync m16n8k32). Every other op on fp8 values computes
on them, which nothing lowers: tile-verify refuses it at the op, and
tile-lower-to-gpu refuses what a later pass might add (FP8_OPS is the one
list both read).
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, scf, tensor

from . import tile as T

FP8_TYPES = (ir.Float8E4M3FNType, ir.Float8E5M2Type)
# The ops an fp8 tile or scalar may be an operand or result of.
FP8_OPS = (
    *T.MEMORY_OPS,
    T.BroadcastOp,
    *T.RESHAPE_OPS,
    tensor.ExtractOp,
    tensor.SplatOp,
    tensor.FromElementsOp,
    arith.ConstantOp,
    arith.ExtFOp,
    arith.TruncFOp,
    scf.ForOp,
    scf.IfOp,
    scf.WhileOp,
    scf.YieldOp,
    scf.ConditionOp,
    T.DotOp,
)
_CONVERTIBLE = (ir.F16Type, ir.BF16Type, ir.F32Type)  # what extf/truncf pair with fp8 in one op


def is_fp8(t: ir.Type) -> bool:
    """Whether `t` is an fp8 type, or a tile (ranked tensor) of one; memrefs are storage and do not count."""
    if isinstance(t, ir.RankedTensorType):
        t = t.element_type
    return isinstance(t, FP8_TYPES)


def fp8_misuse(op: ir.Operation) -> str | None:
    """Why `op` may not touch the fp8 values it touches (the message after "'<op>' op "), or None."""
    values = list(op.operands) + list(op.results)
    found = next((v.type for v in values if is_fp8(v.type)), None)
    if found is None:
        return None
    elem = found.element_type if isinstance(found, ir.RankedTensorType) else found
    if not isinstance(op.opview, FP8_OPS + (T.TransposeOp,)):
        return (
            f"computes on {elem} values; fp8 types are for storage and conversion "
            f"(convert with arith.extf to f32 first)"
        )
    if isinstance(op.opview, T.TransposeOp) and all(isinstance(u.owner.opview, T.DotOp) for u in op.results[0].uses):
        return None  # dot_t's right operand: the dot reads its buffer along K (no elements move)
    if isinstance(op.opview, T.DotOp):
        types = [ir.RankedTensorType(v.type).element_type for v in values]
        if types[0] != types[1] or not isinstance(types[2], ir.F32Type):
            return f"multiplies {types[0]} by {types[1]} into {types[2]}; fp8 dots take one fp8 type into f32"
        return None
    if isinstance(op.opview, (arith.ExtFOp, arith.TruncFOp)):
        other = op.results[0].type if isinstance(op.opview, arith.ExtFOp) else op.operands[0].type
        other = other.element_type if isinstance(other, ir.RankedTensorType) else other
        ok = _CONVERTIBLE + ((ir.F64Type,) if isinstance(op.opview, arith.ExtFOp) else ())
        if not isinstance(other, ok):
            return (
                f"converts between {elem} and {other}; fp8 converts to f16, bf16, f32 and f64 and from "
                f"f16, bf16 and f32 (convert through f32)"
            )
    return None
