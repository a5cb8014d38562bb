"""tile-narrow-compares: compare positions along a tile in 32 bits, not 64.

A mask such as `arange(BN) + j < S` compares `index` values, which are 64-bit
on the GPU: two instructions per element (ISETP and ISETP.EX) and a 64-bit
add. Since the range's values are small constants, `x + j < S` is `x < S - j`,
and `S - j` may be clamped to [start - 1, end] without changing any result;
the clamped bound fits an i32, so the comparison becomes one 32-bit ISETP
per element against a scalar computed once.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, memref, scf, tensor

from phobos.dialect import tile as T
from phobos.dialect.tile import defining_op, is_op
from phobos.passes.registry import tile_pass

_SIGNED = {"slt", "sle", "sgt", "sge"}
_UNSIGNED = {"ult": "slt", "ule": "sle", "ugt": "sgt", "uge": "sge"}  # same as signed for non-negative sides
_I32_MAX = (1 << 31) - 1


def _non_negative(v: ir.Value, depth: int = 0) -> bool:
    """Whether an index scalar is known to be >= 0 (and, like every tensor index
    here, far from overflowing): constants, tensor extents, block ids, the
    induction variable of a loop from a non-negative start, and sums and
    products of those."""
    if depth > 8:
        return False
    op = defining_op(v)
    if op is None:  # a block argument: an scf.for induction variable from a non-negative start
        block = v.owner
        parent = block.owner.operation if block.owner is not None else None
        if parent is None or not is_op(parent, scf.ForOp) or ir.BlockArgument(v).arg_number != 0:
            return False
        return _non_negative(parent.operands[0], depth + 1) and _constant(parent.operands[2], lambda s: s > 0)
    if is_op(op, arith.ConstantOp):
        return _constant(v, lambda c: c >= 0)
    if is_op(op, memref.DimOp, *T.GRID_INDEX_OPS):
        return True
    if is_op(op, arith.AddIOp, arith.MulIOp):
        return all(_non_negative(x, depth + 1) for x in op.operands)
    return False


def _constant(v: ir.Value, test) -> bool:
    op = defining_op(v)
    if op is None or not is_op(op, arith.ConstantOp):
        return False
    attr = op.attributes["value"]
    return isinstance(attr, ir.IntegerAttr) and test(ir.IntegerAttr(attr).value)


def _range_plus(v: ir.Value):
    """(range op, index scalar a) when v is index_cast(tile.range) + splat(a), either order."""
    add = defining_op(v)
    if add is None or not is_op(add, arith.AddIOp):
        return None
    for x, y in (add.operands[0], add.operands[1]), (add.operands[1], add.operands[0]):
        cast, splat = defining_op(x), defining_op(y)
        if cast is None or splat is None or not is_op(cast, arith.IndexCastOp) or not is_op(splat, tensor.SplatOp):
            continue
        rng = defining_op(cast.operands[0])
        if rng is not None and is_op(rng, T.RangeOp):
            return rng, splat.operands[0]
    return None


def _narrow(cmp: ir.Operation) -> bool:
    """Rewrites one arith.cmpi of the form (index_cast(range) + splat(a)) <pred> splat(b)."""
    pred = arith.CmpIPredicate(ir.IntegerAttr(cmp.attributes["predicate"]).value).name
    found = _range_plus(cmp.operands[0])
    bound = defining_op(cmp.operands[1])
    if found is None or bound is None or not is_op(bound, tensor.SplatOp):
        return False
    rng, a = found
    b = bound.operands[0]
    start, end = (ir.IntegerAttr(rng.attributes[k]).value for k in ("start", "end"))
    if pred not in _SIGNED and pred not in _UNSIGNED:
        return False
    if not (_non_negative(a) and _non_negative(b)) or start < 1 - _I32_MAX or end > _I32_MAX:
        return False
    pred = _UNSIGNED.get(pred, pred)
    index, i32 = ir.IndexType.get(), ir.IntegerType.get_signless(32)
    with ir.InsertionPoint(cmp), cmp.location:
        # x + a <pred> b  <=>  x <pred> b - a; for x in [start, end) any b - a below start - 1
        # or above end acts as those ends, so the clamped bound gives the same results in i32.
        limit = arith.SubIOp(b, a).result
        low = arith.ConstantOp(index, start - 1).result
        high = arith.ConstantOp(index, end).result
        clamped = arith.MinSIOp(arith.MaxSIOp(limit, low).result, high).result
        narrow = arith.IndexCastOp(i32, clamped).result
        t = ir.RankedTensorType(rng.results[0].type)
        splat = tensor.SplatOp(t, narrow, []).result
        new = arith.CmpIOp(getattr(arith.CmpIPredicate, pred), rng.results[0], splat).result
    cmp.results[0].replace_all_uses_with(new)
    dead = [defining_op(cmp.operands[0]), bound]
    cmp.erase()
    for op in dead:  # the 64-bit sum and the splats, unless something else reads them
        if op is not None and all(len(list(r.uses)) == 0 for r in op.results):
            inputs = [defining_op(x) for x in op.operands]
            op.erase()
            dead.extend(x for x in inputs if x is not None and is_op(x, arith.IndexCastOp, tensor.SplatOp))
    return True


@tile_pass("tile-narrow-compares")
def tile_narrow_compares(module: ir.Operation, pass_) -> None:
    """Compares tile positions such as `arange(BN) + j < S` in 32 bits.

    Rewrites each `(index_cast(tile.range) + splat(a)) <pred> splat(b)` on
    index tiles, with a and b known non-negative (extents, block ids, loop
    variables from non-negative starts, constants, their sums and products)
    and pred an ordering, into a 32-bit compare of the range itself with
    `clamp(b - a, start - 1, end)`. It runs after tile-elide-masks, whose axis
    facts read the original form.

    Before: %m = arith.cmpi slt, %x_plus_j, %S_splat : tensor<64xindex>
    After:  %m = arith.cmpi slt, %range, %bound_splat : tensor<64xi32>
    """
    found = []

    def collect(op):
        if is_op(op, arith.CmpIOp) and isinstance(op.operands[0].type, ir.RankedTensorType):
            if isinstance(ir.RankedTensorType(op.operands[0].type).element_type, ir.IndexType):
                found.append(op)
        return ir.WalkResult.ADVANCE

    module.walk(collect)
    for op in found:
        _narrow(op)
