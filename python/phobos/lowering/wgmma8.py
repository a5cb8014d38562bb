"""Operand types wgmma reads K-major only: i8 into s32, f8e4m3 / f8e5m2 into f32, and f32 as
tf32 into f32.

What differs from the 16-bit wgmma path (wgmma.py, ops/dot_wgmma.py):

  * **a k step is 32 bytes**: `wgmma.mma_async m64nNk32 .s32.s8.s8` (`.u8.u8` for u8) or
    `.f32.e4m3.e4m3` (`.e5m2`) for 1-byte elements, `m64nNk8 .f32.tf32.tf32`
    for 4-byte ones. A k step of 32 bytes of a swizzled row is what a k16
    step of 2-byte elements is, so the descriptors and their per-step offsets
    are the 16-bit path's byte for byte; only the elements per 128-byte row
    change (128 bytes: 128 8-bit elements, 32 tf32 ones; a staged A tile is
    one row of k, a B tile k a multiple of it).
  * **Both operands K-major**: for these types wgmma has no transpose
    (PTX: imm-trans-a/b exist for .f16/.bf16 only). A is [m][k] as it is
    loaded; B must be stored [n][k], which `dot_t(a, b)` with `b: [N, K]`
    gives. A plain `dot` whose B is [k][n] stays on mma.sync (mma8.py,
    mma.py's tf32 m16n8k8), with a located warning saying why.
  * **A from shared memory only**: the register form of A is left to the
    16-bit path.
  * **The accumulator** is the f32 one of the 16-bit path (s32 registers for
    i8), so the kernel layout (kernel_layout.wgmma_layout) is unchanged.
  * **tf32 rounding**: wgmma reads the f32 words TMA copied and uses their
    top 19 bits (truncation toward zero: up to 2^-10 relative per operand),
    where mma.sync's path rounds each element to nearest first (cvt.rna,
    2^-11); the products and sums are f32.
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

K_STEP = K_STEP8  # one k32 step of 8-bit operands, as on mma.sync
STEP_BYTES = 32  # bytes of k per wgmma of these types (and of the 16-bit ones)
# operand element -> accumulator element, as the types print
TYPES = {"i8": "i32", "ui8": "i32", "f8E4M3FN": "f32", "f8E5M2": "f32", "f32": "f32"}


def is_wgmma8(elem: ir.Type) -> bool:
    """Whether wgmma reads operands of `elem` K-major only (8-bit types, and f32 as tf32)."""
    return str(elem) in TYPES


def element_bytes(elem: ir.Type) -> int:
    return 4 if isinstance(elem, ir.F32Type) else 1


def k_step(elem: ir.Type) -> int:
    """k of one wgmma of K-major operands: 32 bytes of elements (k32 for 8-bit, k8 for tf32)."""
    return STEP_BYTES // element_bytes(elem)


def _ptx(elem: ir.Type) -> str:
    return "tf32" if isinstance(elem, ir.F32Type) else ptx_type(elem)


def _is_transpose(v: ir.Value) -> bool:
    owner = v.owner if isinstance(v, ir.OpResult) else None
    return owner is not None and owner.name == "tile.transpose"


def k_major_refusal(dot: ir.Operation) -> str | None:
    """Why a dot of K-major-only operands is not both K-major (A [m][k], B [n][k]), or None.
    A property of the source, known before any plan: the text of the fallback warning."""
    lhs, rhs = list(dot.operands)[:2]
    elem = ir.RankedTensorType(lhs.type).element_type
    kind = "tf32" if isinstance(elem, ir.F32Type) else "8-bit"
    if _is_transpose(lhs):
        return f"its lhs is stored [k][m]; {kind} wgmma reads both operands K-major (A as [m][k])"
    if not _is_transpose(rhs):
        return (
            f"its rhs is stored [k][n]; {kind} wgmma reads both operands K-major, so B must be [n][k]: "
            "write dot_t(a, b) with b as [N, K]"
        )
    return None


def refusal(dot: ir.Operation, lhs_in_registers: bool) -> str | None:
    """Why a dot of K-major-only operands cannot take wgmma beyond the 16-bit path's rules
    (wgmma.why_not), or None."""
    elem = ir.RankedTensorType(dot.operands[0].type).element_type
    acc = ir.RankedTensorType(dot.results[0].type).element_type
    if str(acc) != TYPES[str(elem)]:
        return f"its accumulator is {acc} (wgmma of {elem} accumulates in {TYPES[str(elem)]})"
    why = k_major_refusal(dot)
    if why is None and lhs_in_registers:
        why = f"its lhs is computed in registers (wgmma of {elem} reads A from shared memory here)"
    return why


def nvvm_types(elem: ir.Type) -> tuple:
    """(operand type, accumulator type) of nvvm.wgmma.mma_async for operands of `elem`: f16 or
    bf16 into f32, or a K-major-only type (i8 into s32, fp8 and f32 as tf32 into f32)."""
    if not is_wgmma8(elem):
        return (nvvm.WGMMATypes.f16 if isinstance(elem, ir.F16Type) else nvvm.WGMMATypes.bf16), nvvm.WGMMATypes.f32
    acc = nvvm.WGMMATypes.s32 if TYPES[str(elem)] == "i32" else nvvm.WGMMATypes.f32
    return getattr(nvvm.WGMMATypes, _ptx(elem)), acc


def instruction(elem: ir.Type, n: int) -> str:
    """The PTX instruction of a wgmma of K-major-only operands (the contract's and explain's words)."""
    t = _ptx(elem)
    return f"wgmma.mma_async.sync.aligned.m64n{n}k{k_step(elem)}.{TYPES[str(elem)].replace('i', 's')}.{t}.{t}"
