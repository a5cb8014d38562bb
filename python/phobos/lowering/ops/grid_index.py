"""tile.block_id and tile.grid_dim: the CTA's coordinates in the launch grid, in a launch order.

Normally tile.block_id(d) is the hardware block index. Two launch orders
renumber the CTAs (a bijection onto the same grid: only which CTAs run at the
same time changes): kernels whose contiguous tiles are picked by block_id(1)
take consecutive column tiles on consecutive CTAs, and dot kernels walk the
grid in groups of GROUP_M row tiles (Triton's grouped order) so the CTAs
resident at once share operand tiles in L2, unless block_id(1) feeds every
dot operand (a head index: analysis/grid.dot_operands_shared_across_y).
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, gpu

from phobos.dialect import tile as T
from phobos.lowering.context import LoweringContext
from phobos.lowering.registry import lowers

GROUP_M = 8  # row tiles per group in the launch order of dot kernels
_DIMS = (gpu.Dimension.x, gpu.Dimension.y, gpu.Dimension.z)


@lowers(T.BlockIdOp, T.GridDimOp)
def lower_grid_index(ctx: LoweringContext, op: ir.Operation) -> None:
    d = op.opview.dim
    if isinstance(op.opview, T.BlockIdOp):
        ctx.values[op.results[0]] = block_index(ctx, d)
    else:
        ctx.values[op.results[0]] = gpu.GridDimOp(_DIMS[d], loc=op.location).result


def block_index(ctx: LoweringContext, d: int) -> ir.Value:
    """tile.block_id(d). Normally the hardware block index; when the kernel's
    contiguous tiles are picked by block_id(1) (grid.contiguous_block_dim),
    the CTAs are renumbered so that consecutive hardware CTAs take
    consecutive column tiles: with linear index l = x + y * nctaid.x,
    block_id(1) = l mod nctaid.y and block_id(0) = l div nctaid.y (a
    bijection onto the same grid; only the launch order changes)."""
    if d in ctx.block_ids:
        return ctx.block_ids[d]
    if ctx.smem is not None and ctx.smem.plan.has_dots and ctx.grouped_order and d < 2:
        return _grouped_block_index(ctx, d)
    if ctx.fast_block_dim != 1:
        value = ctx.at_entry(lambda: gpu.BlockIdOp(_DIMS[d]).result)
    else:

        def build():
            x, y = gpu.BlockIdOp(gpu.Dimension.x).result, gpu.BlockIdOp(gpu.Dimension.y).result
            nx, ny = gpu.GridDimOp(gpu.Dimension.x).result, gpu.GridDimOp(gpu.Dimension.y).result
            linear = arith.AddIOp(x, arith.MulIOp(y, nx).result).result
            ctx.block_ids[1] = arith.RemUIOp(linear, ny).result
            ctx.block_ids[0] = arith.DivUIOp(linear, ny).result
            return ctx.block_ids[d]

        value = ctx.at_entry(build)
    ctx.block_ids[d] = value
    return value


def _grouped_block_index(ctx: LoweringContext, d: int) -> ir.Value:
    """Dot kernels: CTAs in groups of GROUP_M rows of tiles (Triton's grouped
    order). With l = x + y * nctaid.x, each run of GROUP_M * nctaid.y
    consecutive CTAs covers GROUP_M row tiles by every column tile, column
    by column, so the CTAs resident at once share operand tiles in L2. A
    bijection onto the same grid: only the launch order changes."""

    def build():
        x, y = gpu.BlockIdOp(gpu.Dimension.x).result, gpu.BlockIdOp(gpu.Dimension.y).result
        nx, ny = gpu.GridDimOp(gpu.Dimension.x).result, gpu.GridDimOp(gpu.Dimension.y).result
        linear = arith.AddIOp(x, arith.MulIOp(y, nx).result).result
        per_group = arith.MulIOp(ny, ctx.index(GROUP_M)).result
        group = arith.DivUIOp(linear, per_group).result
        first = arith.MulIOp(group, ctx.index(GROUP_M)).result
        rows = arith.MinUIOp(arith.SubIOp(nx, first).result, ctx.index(GROUP_M)).result
        within = arith.RemUIOp(linear, per_group).result
        ctx.block_ids[0] = arith.AddIOp(first, arith.RemUIOp(within, rows).result).result
        ctx.block_ids[1] = arith.DivUIOp(within, rows).result
        return ctx.block_ids[d]

    return ctx.at_entry(build)
