"""The launch-grid rule of a kernel, read from its tile IR.

A grid axis d is sized by the access patterns that use `tile.block_id(d)`:

  * slice form: `block_id(d) * c` as the start along a dimension whose extent
    is the symbol S                                     -> cdiv(S, c)
  * offset form: `block_id(d) * c + range` compared `<` against the extent
    of symbol S                                         -> cdiv(S, c)
  * offset form on a 1-D tensor of extent S whose offsets are exactly
    `block_id(d) * c + range`                           -> cdiv(S, c)

A static extent gives a number instead of a symbol; an axis no block_id uses
is 1; an axis whose uses match nothing, or disagree, is None (the caller must
give the grid). Matching looks through splats, broadcasts, unit reshapes,
index casts and hints.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, memref, scf

from phobos.analysis.abi import Param, TensorParam
from phobos.dialect import tile as T
from phobos.dialect.tile import defining_op, is_op, ops_of, region_yields, yielded

Rule = None | int | dict[str, object]


def _def(v: ir.Value) -> ir.Operation | None:
    return v.owner if isinstance(v, ir.OpResult) else None


def _strip(v: ir.Value) -> ir.Value:
    op = _def(v)
    while op is not None and is_op(op, *T.LOOK_THROUGH_OPS):
        v = op.operands[0]
        op = _def(v)
    return v


def _const(v: ir.Value) -> int | None:
    op = _def(_strip(v))
    if op is None or not is_op(op, arith.ConstantOp):
        return None
    attr = op.attributes["value"]
    if isinstance(attr, ir.IntegerAttr):
        return attr.value
    if isinstance(attr, ir.DenseIntElementsAttr) and attr.is_splat:
        return ir.IntegerAttr(attr.get_splat_value()).value
    return None


def _block_times(v: ir.Value) -> tuple[int, int] | None:
    """(d, c) when v is block_id(d) * c (c a constant)."""
    op = _def(_strip(v))
    if op is None:
        return None
    if is_op(op, T.BlockIdOp):
        return op.opview.dim, 1
    if is_op(op, arith.MulIOp):
        for a, b in ((op.operands[0], op.operands[1]), (op.operands[1], op.operands[0])):
            inner = _def(_strip(a))
            c = _const(b)
            if inner is not None and is_op(inner, T.BlockIdOp) and c is not None and c > 0:
                return inner.opview.dim, c
    return None


def _block_plus_range(v: ir.Value) -> tuple[int, int] | None:
    """(d, c) when v is block_id(d) * c + range."""
    op = _def(_strip(v))
    if op is None or not is_op(op, arith.AddIOp):
        return None
    for a, b in ((op.operands[0], op.operands[1]), (op.operands[1], op.operands[0])):
        r = _def(_strip(b))
        found = _block_times(a)
        if found is not None and r is not None and is_op(r, T.RangeOp):
            return found
    return None


class _Rules:
    def __init__(self, fn: ir.Operation, params: list[Param]):
        self.args = list(fn.regions[0].blocks[0].arguments)
        self.params = params
        self.found: dict[int, list[Rule]] = {}
        self.axes: dict[int, set] = {}  # block dim -> {whether it indexes a contiguous last axis}

    def extent_of(self, p: int, axis: int) -> Rule | None:
        param = self.params[p]
        if not isinstance(param, TensorParam):
            return None
        return param.shape[axis] if param.shape[axis] is not None else param.dims[axis]

    def param_of(self, v: ir.Value) -> int | None:
        for i, a in enumerate(self.args):
            if a == v:
                return i
        return None

    def dim_source(self, v: ir.Value) -> tuple[int | None, int]:
        """(parameter, axis) when v is the extent of a tensor dimension, else (None, 0)."""
        op = _def(_strip(v))
        if op is None or not is_op(op, memref.DimOp):
            return None, 0
        axis = _const(op.operands[1])
        return self.param_of(op.operands[0]), (axis if axis is not None else -1)

    def dim_extent(self, v: ir.Value) -> str | int | None:
        """The symbol (or static extent) when v is the extent of a tensor dimension."""
        op = _def(_strip(v))
        if op is None or not is_op(op, memref.DimOp):
            return None
        p = self.param_of(op.operands[0])
        axis = _const(op.operands[1])
        if p is None or axis is None:
            return None
        return self.extent_of(p, axis)

    def note_axis(self, d: int, p: int | None, axis: int) -> None:
        """Block dimension d picks tiles along `axis` of tensor parameter p."""
        if p is not None and isinstance(self.params[p], TensorParam):
            self.axes.setdefault(d, set()).add(axis == self.params[p].rank - 1 and self.params[p].rank > 1)

    def add(self, d: int, extent: str | int | None, tile: int) -> None:
        if extent is None:
            return
        rule: Rule = -(-extent // tile) if isinstance(extent, int) else {"symbol": extent, "tile": tile}
        self.found.setdefault(d, []).append(rule)

    def visit(self, op: ir.Operation) -> None:
        if is_op(op, *T.SLICE_OPS):
            o = op.opview
            p = self.param_of(o.base)
            if p is None:
                return
            for axis, start in enumerate(o.starts):
                found = _block_times(start)
                if found is not None:
                    self.add(found[0], self.extent_of(p, axis), found[1])
                    self.note_axis(found[0], p, axis)
        elif is_op(op, arith.CmpIOp):
            pred = ir.IntegerAttr(op.attributes["predicate"]).value
            # slt = 2, ult = 6 compare lhs < rhs; sgt = 4, ugt = 8 compare rhs < lhs.
            if pred in (2, 6):
                lhs, rhs = op.operands[0], op.operands[1]
            elif pred in (4, 8):
                lhs, rhs = op.operands[1], op.operands[0]
            else:
                return
            found = _block_plus_range(lhs)
            if found is not None:
                self.add(found[0], self.dim_extent(rhs), found[1])
                self.note_axis(found[0], *self.dim_source(rhs))
        elif is_op(op, *T.OFFSET_OPS):
            o = op.opview
            p = self.param_of(o.base)
            if p is None or not isinstance(self.params[p], TensorParam) or self.params[p].rank != 1:
                return
            found = _block_plus_range(o.offsets)
            if found is not None:
                self.add(found[0], self.extent_of(p, 0), found[1])


def _analyse(fn: ir.Operation, params: list[Param]) -> tuple[_Rules, set, bool]:
    rules = _Rules(fn, params)
    used = set()
    ordered = [False]  # whether CTAs may observe each other (grid barriers, persistent kernels)

    def visit(op):
        if is_op(op, T.BlockIdOp):
            used.add(op.opview.dim)
        elif is_op(op, T.GridBarrierOp):
            ordered[0] = True
        rules.visit(op)
        return ir.WalkResult.ADVANCE

    fn.walk(visit)
    return rules, used, ordered[0]


def contiguous_block_dim(fn: ir.Operation, params: list[Param]) -> int | None:
    """The block dimension to make the fastest in launch order, when it is not x.

    CTAs start roughly in hardware order (x fastest). A 2-D kernel whose
    block_id(0) picks row tiles and block_id(1) column tiles would have its
    concurrently running CTAs each read a short piece of many far-apart rows;
    with the order reversed they read whole rows, as a copy does (better DRAM
    page and TLB locality). Returns 1 when block_id(1), and only it, indexes
    contiguous last axes and block_id(0) only leading axes, in a grid of x and
    y only; None otherwise (including kernels whose CTAs synchronise)."""
    from phobos.dialect import kernel as K

    rules, used, ordered = _analyse(fn, params)
    if ordered or K.PERSISTENT in fn.attributes or used != {0, 1}:
        return None
    if rules.axes.get(1) == {True} and rules.axes.get(0) == {False}:
        return 1
    return None


def infer_grid(fn: ir.Operation, params: list[Param]) -> list[Rule]:
    rules, used, _ = _analyse(fn, params)
    grid: list[Rule] = []
    for d in range(3):
        if d not in used:
            grid.append(1)
            continue
        candidates = rules.found.get(d, [])
        distinct = {repr(r) for r in candidates}
        grid.append(candidates[0] if len(distinct) == 1 else None)
    return grid


def dot_operands_shared_across_y(fn: ir.Operation) -> bool:
    """Whether some dot operand is the same for CTAs that differ only in block_id(1), so that the
    grouped launch order of dot kernels (ops/grid_index.py: GROUP_M row tiles by every column
    tile) lets the CTAs resident at once share it in L2, as a GEMM's rows of A do.

    False when block_id(1) feeds both operands of every dot: a head or batch index, as in
    attention, where Q, K and V all read head ctx.block.y. CTAs of different heads then share
    nothing, and the hardware order (all of one head's query blocks together) keeps that head's
    K and V in L2, where the grouped order would spread the resident CTAs over a few query
    blocks of every head (at 128 heads, S 8192 and D 128: 66 MB of K and V, past the L2)."""
    dots = ops_of(fn, (T.DotOp,))
    return any(not _reads_block_id(v, 1) for dot in dots for v in list(dot.operands)[:2])


def _reads_block_id(value: ir.Value, d: int) -> bool:
    """Whether block_id(d) is in the backward slice of `value` (_sources: through defining ops,
    the values regions yield and loops' carried values)."""
    seen: set[ir.Value] = set()
    pending = [value]
    while pending:
        v = pending.pop()
        if v in seen:
            continue
        seen.add(v)
        op = defining_op(v)
        if op is not None and is_op(op, T.BlockIdOp) and op.opview.dim == d:
            return True
        pending.extend(_sources(v, op))
    return False


def _sources(v: ir.Value, op: ir.Operation | None) -> list[ir.Value]:
    """The values `v` is computed from. A loop's induction variable: its bounds and step; its
    i-th carried value or result: the i-th initial value and the i-th value the body yields; an
    scf.if's i-th result: the condition and each branch's i-th yield; another op's result: its
    operands, and every value its regions yield."""
    if op is None:  # a block argument
        owner = v.owner.owner
        if owner is None:
            return []
        owner = owner.operation
        if not is_op(owner, scf.ForOp):
            return list(owner.operands)
        n = v.arg_number
        return list(owner.operands)[:3] if n == 0 else _carried(owner, n - 1)
    if is_op(op, scf.ForOp):
        return _carried(op, v.result_number)
    if is_op(op, scf.IfOp):
        return [op.operands[0]] + [yielded(block)[v.result_number] for r in op.regions for block in r.blocks]
    return list(op.operands) + region_yields(op)


def _carried(loop: ir.Operation, i: int) -> list[ir.Value]:
    """An scf.for's i-th carried value: its initial value, the value the body yields, the bounds."""
    return list(loop.operands)[:3] + [loop.operands[3 + i], yielded(loop.regions[0].blocks[0])[i]]
