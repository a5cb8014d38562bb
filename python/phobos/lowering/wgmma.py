"""The wgmma path's plan: when a @tensorcore dot may take it, and how TMA fills its operands.

`why_not` says why a dot cannot run as TMA + mbarrier + wgmma (sm_90a; the
planner records it as tile.dot_path_note); `TensorMap` and `plan_copies` are
the tensor maps (kernel parameters the runtime encodes) and the boxes each
staged load copies into its 128-byte swizzled stage, `whole_a` the one-copy
map of a whole A tile, `a_block_order` the row order those copies give. The
instructions are emitted by ops/dot_wgmma.py (whose docstring walks through
them) and tma.py.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from phobos.lowering.ir_helpers import tile_type, where
from phobos.lowering.kernel_layout import WGMMA_ELEMENTS, WGMMA_MAX_N, tma_rows
from phobos.lowering.wgmma8 import element_bytes, is_wgmma8, refusal

SWIZZLE = 128  # bytes per swizzled row
ATOM = 1024  # 8 rows of 128 bytes: the swizzle period, and the alignment TMA and wgmma need
BLOCK_ROWS = 8  # rows of one TMA box of A
K_STEP = 16
WARPGROUP = 128
K_TILE = 64  # k per stage: one 128-byte row of f16/bf16


def row_elements(elem: ir.Type) -> int:
    """k per 128-byte swizzled row: a staged A's k, the unit of B's k (128 for 8-bit operands,
    32 for tf32)."""
    return SWIZZLE // element_bytes(elem) if is_wgmma8(elem) else K_TILE


@dataclass(frozen=True)
class TensorMap:
    """A tensor map kernel parameter: the runtime encodes `param`'s 2-D array
    with this box (innermost first) and 128-byte swizzle. Without `split` the
    map is the array itself (row elements, rows). With it, the rows are split
    into dimensions of (count, stride in rows), the last one's count the
    whole number of its strides that fit (None): a view whose box lands
    a tile's rows in another order (wgmma_layout's permuted A)."""

    param: int
    box: tuple[int, ...]
    split: tuple[tuple[int | None, int], ...] | None = None

    def to_json(self) -> dict:
        out = {"kind": "tensormap", "param": self.param, "box": list(self.box), "swizzle": SWIZZLE}
        if self.split is not None:
            out["split"] = [list(x) for x in self.split]
        return out


@dataclass
class Copy:
    """One TMA copy of a staged load: the coordinates' offsets from the load's
    start (innermost first) and the byte offset in the stage."""

    offset: tuple[int, int]
    at: int


def a_block_order(m: int, warps: int) -> list[int]:
    """physical 8-row block of each logical 8-row block of an [m, 64] A tile
    (module docstring): the permutation that makes the wgmma fragments the
    thread's elements of wgmma_layout."""
    groups = warps // 4
    tiles = m // (16 * warps)  # m64 tiles per warpgroup
    order = [0] * (m // BLOCK_ROWS)
    for i in range(tiles):
        for h in range(2):
            for g in range(groups):
                for q in range(4):
                    order[(2 * i + h) * warps + 4 * g + q] = 8 * (g * tiles + i) + 2 * q + h
    return order


def why_not(plan, dot: ir.Operation, warps: int, facts, args: list) -> str | None:
    """Why a @tensorcore dot cannot take the TMA + wgmma path (None when it can).
    `facts`: the kernel's KernelFacts (what the specialisation key proves of
    each tensor), `args`: the kernel's arguments."""

    m, n = tile_type(dot.results[0]).shape
    acc = tile_type(dot.results[0]).element_type
    elem = tile_type(dot.operands[0]).element_type
    if is_wgmma8(elem):  # the K-major rule first: it holds whatever the arguments are
        why = refusal(dot, plan.operands[(dot, "lhs")].registers)
        if why is not None:
            return why
    elif not isinstance(acc, ir.F32Type):
        return f"its accumulator is {acc} (the wgmma path accumulates in f32)"
    if warps % 4 or m % (16 * warps) or n % 8 or n > WGMMA_MAX_N:
        return f"the [{m}, {n}] accumulator does not split into m64 x n tiles for {warps // 4} warpgroups"
    for role in ("lhs", "rhs"):
        o = plan.operands[(dot, role)]
        if o.registers:
            continue  # A from registers (mma.a_in_registers: wgmma's register A fragments too)
        if o.source is None:
            return f"its {role} is not a tile loaded from a tensor with nothing else reading it"
        if o.widened is not None:
            return f"its {role} is widened from 8 bits in registers (wgmma reads both operands from shared memory)"
        if o.role == "lhs" and o.transposed:
            return "its lhs is transposed (wgmma reads A k-major here)"
        t = tile_type(o.source.results[0])
        if any(x != 1 for x in t.shape[:-2]):
            return f"its {role} is a {list(t.shape)} slice (TMA boxes here are 2-D tiles)"
        if str(t.element_type) not in WGMMA_ELEMENTS and not is_wgmma8(t.element_type):
            return f"its {role} has {t.element_type} elements"
        base = o.source.operands[0]
        param = next((i for i, a in enumerate(args) if a == base), None)
        if param is None:
            return f"its {role} does not read a tensor parameter directly"
        if not tma_rows(facts.tensors[param]):
            # TMA bounds the copies itself, so masks do not matter here: only the rows' alignment
            return (
                f"the rows of its {role} at {where(o.source)} are not proven 16-byte aligned "
                "(TMA needs 16-byte aligned rows and base)"
            )
        if o.source not in plan.ring_of:
            return f"its {role} is not loaded in a pipelined loop (@pipeline)"
        rows, cols = t.shape[-2:]
        k_row = row_elements(t.element_type)
        if o.role == "lhs" and cols != k_row:
            return f"its lhs tile is [{rows}, {cols}]; the 128-byte swizzled rows hold k = {k_row}"
        if o.role == "rhs" and o.transposed and cols % k_row:
            return f"its rhs tile is [{rows}, {cols}] ([n, k]); k must be a multiple of {k_row}"
        if o.role == "rhs" and not o.transposed and (rows % K_TILE or cols % 64):
            return f"its rhs tile is [{rows}, {cols}]; [k, n] tiles need k and n multiples of 64"
    return None


def whole_a(param: int, m: int, warps: int, k_row: int = K_TILE) -> TensorMap | None:
    """The map of parameter `param` that copies a whole [m, 64] A tile, permuted, in one TMA copy
    (None where the tile holds several m64 tiles per warpgroup: that needs six
    dimensions). Row v 8 W + 8 w + r of the tile (v = h, w = 4 g + q) is
    r + 8 W h + 8 q + 32 g: dimensions r, h, q, g in the order the physical
    blocks 2 q + h + 8 g run, and g's count left open so that its coordinate
    carries the tile's start (m0 / 32). It reads rows past the tile's own
    only where they are rows of the tensor: the kernel uses it for tiles
    entirely inside."""
    if m != 16 * warps:
        return None
    return TensorMap(param, (k_row, BLOCK_ROWS, 2, 4, warps // 4), ((8, 1), (2, 8 * warps), (4, 8), (None, 32)))


def plan_copies(
    operand, rows: int, cols: int, warps: int, m: int, k_row: int = K_TILE
) -> tuple[list[Copy], tuple[int, int]]:
    """The TMA copies that fill one stage of `operand`'s [rows, cols] buffer,
    and the box (innermost first) of the tensor map they read; `k_row`: the
    elements of a 128-byte row (row_elements)."""
    if operand.role == "lhs":  # [m][k] in 8-row boxes, permuted (a_block_order)
        order = a_block_order(m, warps)
        return [Copy((0, BLOCK_ROWS * lb), ATOM * pb) for lb, pb in enumerate(order)], (k_row, BLOCK_ROWS)
    # [k][n] or [n][k]: blocks of 128-byte columns (n or k) of all the rows, one after the other
    return [Copy((k_row * c, 0), c * rows * SWIZZLE) for c in range(cols // k_row)], (k_row, rows)
