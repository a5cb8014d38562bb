"""Stores that several CTAs of one launch may make to the same elements (issue 23, item 4).

A plain store is a race when two CTAs write one element: the GPU fixes no order, so the
result is whichever write lands last, and a read-modify-write (`Y[0 :+ 1] += ...`) loses
updates. Under the grid rule (grid.py), grid axis d launches more than one CTA unless its
rule is the constant 1. A store is reported along such an axis when

  * nothing that decides where or whether it writes depends on `ctx.block` along d: its
    starts (slice form) or offsets and mask (offset form), and the conditions and bounds of
    the `if`s and loops around it (a store under `if ctx.block.x == 0` is one CTA's); or
  * a slice dimension starts at `ctx.block.d * c` with c smaller than the slice's extent
    there, and no other start depends on d: neighbouring CTAs' boxes overlap.

Dependence is over-approximated (a loop-carried value depends on everything its loop
reads), so a report means the boxes really can coincide; stores through gathers whose
indices depend on the block are not reported (that needs the data). Atomics are the fix and
are never reported. `overlapping_stores` gives (op, axis, why) for tile-check-overlap (a
warning at compile time) and `phobos explain`.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import scf

from phobos.analysis.abi import Param
from phobos.analysis.grid import _block_times, infer_grid
from phobos.dialect import tile as T
from phobos.dialect.tile import is_op, ops_of, region_yields

AXES = "xyz"


class _Dependence:
    """Which grid axes' block ids each value depends on (memoised, iterative)."""

    def __init__(self):
        self.memo: dict = {}

    def of(self, v: ir.Value) -> frozenset:
        key = v
        if key in self.memo:
            return self.memo[key]
        seen: set = set()
        axes: set = set()
        stack = [v]
        while stack:
            value = stack.pop()
            if value in seen:
                continue
            seen.add(value)
            if value in self.memo:
                axes |= self.memo[value]
                continue
            if isinstance(value, ir.OpResult):
                op = value.owner
                if is_op(op, T.BlockIdOp):
                    axes.add(op.opview.dim)
                stack.extend(op.operands)
                stack.extend(region_yields(op))
            else:
                parent = ir.BlockArgument(value).owner.owner
                stack.extend(parent.operands)
                stack.extend(region_yields(parent))
        result = frozenset(axes)
        self.memo[key] = result
        return result


def _deciding(op: ir.Operation) -> list[ir.Value]:
    """The values that decide where and whether a store writes: its address operands and the
    operands (conditions, bounds) of the control flow around it."""
    view = op.opview
    values = list(view.starts) if is_op(op, T.StoreSliceOp) else [view.offsets]
    if is_op(op, T.StoreOp) and view.mask is not None:
        values.append(view.mask)
    parent = op.operation.parent
    while parent is not None and parent.name != "func.func":
        parent = parent.operation
        if is_op(parent, scf.IfOp, scf.ForOp, scf.WhileOp):
            values.extend(parent.operands)
            if is_op(parent, scf.WhileOp):
                values.extend(region_yields(parent))
        parent = parent.parent
    return values


def overlapping_stores(fn: ir.Operation, params: list[Param]) -> list[tuple[ir.Operation, int, str]]:
    """(store, grid axis, why) for each plain store that CTAs along that axis may make to the same elements."""
    grid = infer_grid(fn, params)
    many = [d for d in range(3) if grid[d] != 1]
    if not many:
        return []
    dep = _Dependence()
    found = []
    for op in ops_of(fn, T.STORE_OPS):
        axes: set = set()
        for v in _deciding(op):
            axes |= dep.of(v)
        for d in many:
            if d not in axes:
                found.append((op, d, f"where it writes does not depend on ctx.block.{AXES[d]}"))
                continue
            step = _short_step(op, d, dep)
            if step is not None:
                found.append((op, d, step))
    return found


def _short_step(op: ir.Operation, d: int, dep: _Dependence) -> str | None:
    """Why neighbouring CTAs along d overlap, when a slice start is block_id(d) * c with c below the
    slice's extent and no other start depends on d."""
    if not is_op(op, T.StoreSliceOp):
        return None
    starts = list(op.opview.starts)
    shape = ir.RankedTensorType(op.opview.value.type).shape
    stepping = []
    for i, s in enumerate(starts):
        found = _block_times(s)
        if found is not None and found[0] == d:
            stepping.append((i, found[1]))
        elif d in dep.of(s):
            return None
    if len(stepping) == 1 and stepping[0][1] < shape[stepping[0][0]]:
        i, c = stepping[0]
        return f"dimension {i} starts at ctx.block.{AXES[d]} * {c}, less than the slice's {shape[i]} elements there"
    return None


def overlap_message(op: ir.Operation, d: int, why: str, tensor: str) -> str:
    return (
        f"CTAs along grid axis {AXES[d]} may store to the same elements of '{tensor}' ({why}); plain stores "
        f"from several CTAs race (the last write wins, read-modify-writes lose updates): store from one CTA, "
        f"or accumulate with atomic_add"
    )
