"""8-bit operands on wgmma (sm_90a): i8 into s32, f8e4m3 / f8e5m2 into f32.

What differs from the 16-bit wgmma path (wgmma.py, ops/dot_wgmma.py):

  * **k32 per instruction**: `wgmma.mma_async m64nNk32 .s32.s8.s8` or
    `.f32.e4m3.e4m3` (`.e5m2`). A k32 step of 1-byte elements is 32 bytes of
    a swizzled row, as a k16 step of 2-byte ones is, so the descriptors and
    their per-step offsets are the 16-bit path's byte for byte; only the
    elements per 128-byte row change (128 instead of 64: a staged A tile is
    k = 128, a B tile k a multiple of 128).
  * **Both operands K-major**: for 8-bit types wgmma has no transpose
    (PTX: imm-trans-a/b exist for .f16/.bf16 only). A is [m][k] as it is
    loaded; B must be stored [n][k], which `dot_t(a, b)` with `b: [N, K]`
    gives. A plain `dot` whose B is [k][n] stays on mma.sync (byte loads of
    B, mma8.py), with a located warning saying why.
  * **A from shared memory only**: the register form of A is left to the
    16-bit path (its fragments would need mma8's byte packing).
  * **The accumulator** is the f32 one of the 16-bit path (s32 registers for
    i8), so the kernel layout (kernel_layout.wgmma_layout) is unchanged.
  * **Chips and PTX**: ptxas takes these from `.version 8.0` on sm_90a
    (checked with the pinned 12.9 ptxas: 7.8 is refused with "WGMMA with FP8
    types requires PTX ISA .version 8.0"), the floor of sm_90a already, so
    fp8 on wgmma needs no `+ptx84`; the mma.sync fallback for fp8 still does
    (mma8.fp8_refusal). Integer sums wrap (no `.satfinite`), as the
    interpreter's do.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import nvvm

from phobos.lowering.mma8 import K_STEP8, ptx_type

K_STEP = K_STEP8  # one k32 step, as on mma.sync
# operand element -> accumulator element, as the types print
TYPES = {"i8": "i32", "f8E4M3FN": "f32", "f8E5M2": "f32"}


def is_wgmma8(elem: ir.Type) -> bool:
    """Whether `elem` is an 8-bit operand type of wgmma."""
    return str(elem) in TYPES


def _is_transpose(v: ir.Value) -> bool:
    owner = v.owner if isinstance(v, ir.OpResult) else None
    return owner is not None and owner.name == "tile.transpose"


def k_major_refusal(dot: ir.Operation) -> str | None:
    """Why an 8-bit dot's operands are not both K-major (A [m][k], B [n][k]), or None.
    A property of the source, known before any plan: the text of the fallback warning."""
    lhs, rhs = list(dot.operands)[:2]
    if _is_transpose(lhs):
        return "its lhs is stored [k][m]; 8-bit wgmma reads both operands K-major (A as [m][k])"
    if not _is_transpose(rhs):
        return (
            "its rhs is stored [k][n]; 8-bit wgmma reads both operands K-major, so B must be [n][k]: "
            "write dot_t(a, b) with b as [N, K]"
        )
    return None


def refusal(dot: ir.Operation, lhs_in_registers: bool) -> str | None:
    """Why an 8-bit dot cannot take wgmma beyond the 16-bit path's rules (wgmma.why_not), or None."""
    elem = ir.RankedTensorType(dot.operands[0].type).element_type
    acc = ir.RankedTensorType(dot.results[0].type).element_type
    if str(acc) != TYPES[str(elem)]:
        return f"its accumulator is {acc} (8-bit wgmma of {elem} accumulates in {TYPES[str(elem)]})"
    why = k_major_refusal(dot)
    if why is None and lhs_in_registers:
        why = "its lhs is computed in registers (8-bit wgmma reads A from shared memory here)"
    return why


def nvvm_types(elem: ir.Type) -> tuple:
    """(operand type, accumulator type) of nvvm.wgmma.mma_async for operands of `elem`: f16 or
    bf16 into f32, or an 8-bit type (i8 into s32, fp8 into f32)."""
    if not is_wgmma8(elem):
        return (nvvm.WGMMATypes.f16 if isinstance(elem, ir.F16Type) else nvvm.WGMMATypes.bf16), nvvm.WGMMATypes.f32
    acc = nvvm.WGMMATypes.s32 if str(elem) == "i8" else nvvm.WGMMATypes.f32
    return getattr(nvvm.WGMMATypes, ptx_type(elem)), acc


def instruction(elem: ir.Type, n: int) -> str:
    """The PTX instruction of an 8-bit wgmma (the contract's and explain's words)."""
    t = ptx_type(elem)
    return f"wgmma.mma_async.sync.aligned.m64n{n}k{K_STEP}.{TYPES[str(elem)].replace('i', 's')}.{t}.{t}"
