"""`tile.dot` on Hopper's warpgroup tensor cores: TMA + mbarrier + wgmma (sm_90a).

Under `@tensorcore` on sm_90a, a pipelined K loop whose dots read f16 (or
bf16) tiles straight from 2-D tensors with 16-byte aligned rows runs as:

  * **TMA** copies each operand tile into 128-byte swizzled shared memory
    (one elected thread issues them; the tensor maps are kernel parameters
    the runtime encodes once per argument layout). Out-of-bounds rows and
    columns arrive as zeros, so ragged M, N and K need no masks;
  * an **mbarrier** per ring stage: the issuing thread arms it with the
    stage's byte count, and every thread waits on its phase before the
    stage's wgmmas read it (ops/pipelined_for.py runs the ring);
  * **wgmma** m64nNk16, N the whole accumulator width, issued by each
    warpgroup for its own m64 tiles, f32 accumulators in registers.

The kernel layout is kernel_layout.wgmma_layout: the mma layout with every
warp along M. Thread (warp w, lane l) holds, for row wrap v, the row
v * 8 W + 8 w + l / 4 (W warps) and the columns 8 j + 2 (l % 4) + {0, 1}.
wgmma gives warp q of warpgroup g, in its m64 tile i, the rows 16 q + 8 h +
l / 4 and the same columns. Pairing v = 2 i + h, the two agree once A's
8-row blocks are permuted in shared memory: the TMA box of A is 8 rows, and
logical block (2 i + h) W + 4 g + q lands at physical block 8 (g I + i) +
2 q + h (I = m64 tiles per warpgroup). The accumulator registers are then
exactly the thread's elements of the kernel layout, so the epilogue (masks,
conversions, stores) is the ordinary one.

Shared-memory matrix descriptors (PTX "matrix descriptor"): the start
address / 16, the leading byte offset / 16 at bit 16, the stride byte offset
/ 16 at bit 32, and the swizzle mode at bit 62 (1: 128 bytes). A is K-major
(rows of 64 k, 8-row atoms of 1024 bytes: stride 1024; each k16 step is 32
bytes on). B is either [k][n] (MN-major, `trans-b`): 64-column blocks of
TK rows, leading offset TK x 128 between the blocks, stride 1024, each k16
step 16 rows (2048 bytes) on; or [n][k] as `dot_t` gives it (K-major, like A;
k past 64 in further blocks of all the rows).

The left operand may instead come from registers (mma.a_in_registers: a
computed tile such as attention's P, or one loaded before the loop such as
its Q): wgmma's register A fragment of warp q is its rows 16 q + l / 4 and
+ 8, which in wgmma_layout are the thread's row wraps 2i and 2i + 1, with
mma.sync's columns. MLIR 22's wgmma op takes A only as a descriptor, so
that form is the PTX instruction as inline assembly.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from phobos.lowering.ir_helpers import tile_type, where
from phobos.lowering.kernel_layout import WGMMA_ELEMENTS, WGMMA_MAX_N, tma_rows

SWIZZLE = 128  # bytes per swizzled row
ATOM = 1024  # 8 rows of 128 bytes: the swizzle period, and the alignment TMA and wgmma need
BLOCK_ROWS = 8  # rows of one TMA box of A
K_STEP = 16
WARPGROUP = 128
K_TILE = 64  # k per stage: one 128-byte row of f16/bf16


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
    if not isinstance(acc, ir.F32Type):
        return f"its accumulator is {acc} (the wgmma path accumulates in f32)"
    if warps % 4 or m % (16 * warps) or n % 8 or n > WGMMA_MAX_N:
        return f"the [{m}, {n}] accumulator does not split into m64 x n tiles for {warps // 4} warpgroups"
    for role in ("lhs", "rhs"):
        o = plan.operands[(dot, role)]
        if o.registers:
            continue  # A from registers (mma.a_in_registers: wgmma's register A fragments too)
        if o.source is None:
            return f"its {role} is not a tile loaded from a tensor with nothing else reading it"
        if o.role == "lhs" and o.transposed:
            return "its lhs is transposed (wgmma reads A k-major here)"
        t = tile_type(o.source.results[0])
        if any(x != 1 for x in t.shape[:-2]):
            return f"its {role} is a {list(t.shape)} slice (TMA boxes here are 2-D tiles)"
        if str(t.element_type) not in WGMMA_ELEMENTS:
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
        if o.role == "lhs" and cols != K_TILE:
            return f"its lhs tile is [{rows}, {cols}]; the 128-byte swizzled rows hold k = {K_TILE}"
        if o.role == "rhs" and o.transposed and cols % K_TILE:
            return f"its rhs tile is [{rows}, {cols}] ([n, k]); k must be a multiple of {K_TILE}"
        if o.role == "rhs" and not o.transposed and (rows % K_TILE or cols % 64):
            return f"its rhs tile is [{rows}, {cols}]; [k, n] tiles need k and n multiples of 64"
    return None


def whole_a(param: int, m: int, warps: int) -> TensorMap | None:
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
    return TensorMap(param, (64, BLOCK_ROWS, 2, 4, warps // 4), ((8, 1), (2, 8 * warps), (4, 8), (None, 32)))


def plan_copies(operand, rows: int, cols: int, warps: int, m: int) -> tuple[list[Copy], tuple[int, int]]:
    """The TMA copies that fill one stage of `operand`'s [rows, cols] buffer,
    and the box (innermost first) of the tensor map they read."""
    if operand.role == "lhs":  # [m][k] in 8-row boxes, permuted (a_block_order)
        order = a_block_order(m, warps)
        return [Copy((0, BLOCK_ROWS * lb), ATOM * pb) for lb, pb in enumerate(order)], (64, BLOCK_ROWS)
    # [k][n] or [n][k]: blocks of 64 columns (n or k) of all the rows, one after the other
    return [Copy((64 * c, 0), c * rows * SWIZZLE) for c in range(cols // 64)], (64, rows)
