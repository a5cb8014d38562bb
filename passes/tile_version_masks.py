"""tile-version-masks: a select on a bounds mask, skipped where every position passes.

`where(arange(BN) + j < S, x, -inf)` in a loop over key blocks pays a compare per
column and a select per element on every iteration, though only the last block
(where S is not a multiple of BN) masks anything. The mask's positions are a
range plus a scalar, compared with a scalar, so all of them pass exactly when
the extreme one does: a scalar test. The select becomes

    scf.if (the extreme position passes) { yield x } else { the mask; yield the select }

and a full block pays one uniform branch; the mask's ops are cloned into the
else branch (the originals go where nothing else reads them). Only selects in
loops are versioned: outside one, a select runs once per CTA.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, func, scf, tensor

from phobos.dialect import tile as T
from phobos.dialect.tile import defining_op, is_op
from phobos.passes.registry import tile_pass

# Predicates whose positions all pass when the extreme one does: which end is extreme.
_LAST = {"slt", "sle", "ult", "ule"}  # the largest position
_FIRST = {"sgt", "sge", "ugt", "uge"}  # the smallest
_OPPOSITE = (("slt", "sgt"), ("sle", "sge"), ("ult", "ugt"), ("ule", "uge"))
_SWAPPED = {a: b for pair in _OPPOSITE for a, b in (pair, pair[::-1])}  # x < y is y > x
# Ops a mask passes through unchanged in which values it holds (all true stays all true).
_RESHAPES = (tensor.ExpandShapeOp, tensor.CollapseShapeOp, T.BroadcastOp, T.TransposeOp)


def _positions(v: ir.Value):
    """(range op, scalar offset or None, chain ops) when v is a tile.range, its index_cast, or
    either plus the splat of a scalar."""
    op = defining_op(v)
    if op is None:
        return None
    if is_op(op, T.RangeOp):
        return op, None, [op]
    if is_op(op, arith.IndexCastOp):
        inner = _positions(op.operands[0])
        return None if inner is None or inner[1] is not None else (inner[0], None, inner[2] + [op])
    if not is_op(op, arith.AddIOp):
        return None
    for x, y in (op.operands[0], op.operands[1]), (op.operands[1], op.operands[0]):
        splat, inner = defining_op(y), _positions(x)
        if splat is not None and is_op(splat, tensor.SplatOp) and inner is not None and inner[1] is None:
            return inner[0], splat.operands[0], inner[2] + [splat, op]
    return None


class _Mask:
    """The scalar test that a mask tile is all true, and the ops that compute the mask."""

    def __init__(self):
        self.chain: list[ir.Operation] = []
        self.tests: list[tuple] = []  # (predicate, extreme position, its offset or None, bound)

    def read(self, v: ir.Value) -> bool:
        op = defining_op(v)
        if op is None or op in self.chain:
            return op is not None
        if is_op(op, *_RESHAPES):
            ok = self.read(op.operands[0])
        elif is_op(op, arith.AndIOp):
            ok = self.read(op.operands[0]) and self.read(op.operands[1])
        elif is_op(op, arith.CmpIOp):
            ok = self._compare(op)
        else:
            return False
        if ok:
            self.chain.append(op)
        return ok

    def _compare(self, cmp: ir.Operation) -> bool:
        pred = arith.CmpIPredicate(ir.IntegerAttr(cmp.attributes["predicate"]).value).name
        lhs, rhs = cmp.operands[0], cmp.operands[1]
        left = defining_op(lhs)
        if left is not None and is_op(left, tensor.SplatOp):  # b <pred> positions
            lhs, rhs, pred = rhs, lhs, _SWAPPED.get(pred, pred)
        found, bound = _positions(lhs), defining_op(rhs)
        if found is None or bound is None or not is_op(bound, tensor.SplatOp) or pred not in _LAST | _FIRST:
            return False
        rng, offset, chain = found
        if offset is not None and pred.startswith("u"):  # a wrapping sum: no extreme position
            return False
        start, end = (ir.IntegerAttr(rng.attributes[k]).value for k in ("start", "end"))
        if start >= end:  # (tile-verify also keeps start >= 0: the extremes are the unsigned ones too)
            return False
        self.tests.append((pred, end - 1 if pred in _LAST else start, offset, bound.operands[0]))
        self.chain.extend(op for op in chain + [bound] if op not in self.chain)
        return True

    def all_true(self) -> ir.Value:
        """The scalar i1 that every position passes (built at the current insertion point)."""
        result = None
        for pred, extreme, offset, bound in self.tests:
            position = arith.ConstantOp(bound.type, extreme).result
            if offset is not None:
                position = arith.AddIOp(position, offset).result
            test = arith.CmpIOp(getattr(arith.CmpIPredicate, pred), position, bound).result
            result = test if result is None else arith.AndIOp(result, test).result
        return result


def _clone_chain(chain: list[ir.Operation], at: ir.InsertionPoint) -> dict:
    """The chain's ops (in program order) cloned at `at`, reading each other's clones."""
    copies: dict = {}
    for op in chain:
        new = op.clone(ip=at)
        for i, operand in enumerate(op.operands):
            if operand in copies:
                new.operands[i] = copies[operand]
        for old, r in zip(op.results, new.results):
            copies[old] = r
    return copies


def _in_program_order(chain: list[ir.Operation], block: ir.Block) -> list[ir.Operation]:
    """The chain's ops as they stand in `block` (a mask is computed where its select is)."""
    order = {op.operation: i for i, op in enumerate(block.operations)}
    return sorted(chain, key=lambda op: order[op])


def _in_loop(op: ir.Operation) -> bool:
    """Whether `op` runs in an scf.for: outside loops a select runs once, and the branch saves
    nothing worth a second path."""
    parent = op.parent
    while parent is not None and not is_op(parent, func.FuncOp):
        if is_op(parent, scf.ForOp):
            return True
        parent = parent.parent
    return False


def _version(select: ir.Operation) -> bool:
    mask = _Mask()
    if not mask.read(select.operands[0]) or any(op.parent != select.parent for op in mask.chain):
        return False
    chain = _in_program_order(mask.chain, select.block)
    result = select.results[0]
    with ir.InsertionPoint(select), select.location:
        branch = scf.IfOp(mask.all_true(), [result.type], has_else=True)
        with ir.InsertionPoint(branch.then_block):
            scf.YieldOp([select.operands[1]])
        with ir.InsertionPoint(branch.else_block):
            copies = _clone_chain(chain, ir.InsertionPoint(branch.else_block))
            masked = arith.SelectOp(copies[select.operands[0]], select.operands[1], select.operands[2]).result
            scf.YieldOp([masked])
    result.replace_all_uses_with(branch.results[0])
    select.erase()
    for op in reversed(chain):
        if all(len(list(r.uses)) == 0 for r in op.results):
            op.erase()
    return True


@tile_pass("tile-version-masks")
def tile_version_masks(module: ir.Operation, pass_) -> None:
    """Skips a select on a bounds mask in a loop where every position passes: one scalar test.

    Rewrites each `arith.select` of tiles whose condition is built from compares of
    positions (a `tile.range`, its index_cast, plus the splat of a scalar) with the
    splat of a scalar, through reshapes, broadcasts, transposes and `and`s, into an
    `scf.if` on the scalar test that the extreme position passes: its then branch
    yields the selected value, its else branch computes the mask and the select.

    Before: %s = arith.select %mask, %x, %neg_inf : tensor<64x64xi1>, tensor<64x64xf32>
    After:  %s = scf.if %last_passes -> (tensor<64x64xf32>) { scf.yield %x }
                 else { ...the mask...; %m = arith.select ...; scf.yield %m }
    """
    found = []

    def collect(op):
        if is_op(op, arith.SelectOp) and isinstance(op.operands[0].type, ir.RankedTensorType) and _in_loop(op):
            found.append(op)
        return ir.WalkResult.ADVANCE

    module.walk(collect)
    for op in found:
        _version(op)
