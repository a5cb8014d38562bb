"""The grouped launch order of dot kernels, shared by tile.block_id and the tile loop.

Triton's grouped order: with l = x + y * nx, each run of GROUP_M * ny consecutive
CTAs covers GROUP_M row tiles by every column tile, column by column, so the
CTAs resident at once share operand tiles in L2. A bijection onto the nx x ny
grid: only which tiles run at the same time changes.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith

GROUP_M = 8  # row tiles per group in the launch order of dot kernels


def grouped(ctx, linear: ir.Value, nx: ir.Value, ny: ir.Value) -> tuple[ir.Value, ir.Value]:
    """(row tile, column tile) of the `linear`-th CTA of an nx x ny grid in the grouped order."""
    per_group = arith.MulIOp(ny, ctx.index(GROUP_M)).result
    group = arith.DivUIOp(linear, per_group).result
    first = arith.MulIOp(group, ctx.index(GROUP_M)).result
    rows = arith.MinUIOp(arith.SubIOp(nx, first).result, ctx.index(GROUP_M)).result
    within = arith.RemUIOp(linear, per_group).result
    return arith.AddIOp(first, arith.RemUIOp(within, rows).result).result, arith.DivUIOp(within, rows).result
