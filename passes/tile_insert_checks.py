"""tile-insert-checks: check mode. Marks kernels whose promises are verified on the
device and inserts the checks the tile IR can state (tile.check ops)."""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, memref, tensor

from phobos.analysis.axis_info import AxisInfoAnalysis
from phobos.dialect import kernel as K
from phobos.dialect import tile as T
from phobos.dialect.tile import is_op
from phobos.passes.registry import Option, tile_pass


def _const(value: int, type_: ir.Type) -> ir.Value:
    """The integer constant `value` of scalar or tile type `type_` (a splat for a tile)."""
    if isinstance(type_, ir.RankedTensorType):
        elem = ir.RankedTensorType(type_).element_type
        return arith.ConstantOp(type_, ir.DenseElementsAttr.get_splat(type_, ir.IntegerAttr.get(elem, value))).result
    return arith.ConstantOp(type_, ir.IntegerAttr.get(type_, value)).result


def _unit_dim(v: ir.Value, at: int) -> ir.Value:
    """`v` with a dimension of extent 1 inserted at `at`: in front of the range's dimension
    while that is `v`'s last, else appended. Either way it joins `v`'s last dimension."""
    current = list(ir.RankedTensorType(v.type).shape)
    new_shape = current[:at] + [1] + current[at:]
    reassoc = [[i] for i in range(len(current) - 1)] + [[len(current) - 1, len(current)]]
    elem = ir.RankedTensorType(v.type).element_type
    return tensor.ExpandShapeOp(ir.RankedTensorType.get(new_shape, elem), v, reassoc, [], new_shape).result


def _coordinates(type_: ir.RankedTensorType, dim: int) -> ir.Value:
    """The tile of `type_`'s shape holding each element's coordinate along `dim`."""
    shape, elem = list(type_.shape), type_.element_type
    v = T.RangeOp(0, shape[dim], elem).result
    for at in range(dim):  # unit dimensions in front of it, one at a time, as the builder adds them
        v = _unit_dim(v, at)
    for at in range(dim + 1, len(shape)):  # and after it
        v = _unit_dim(v, at)
    return T.BroadcastOp(v, shape).result if len(shape) > 1 else v


def _hint_condition(op: ir.Operation, analysis: AxisInfoAnalysis) -> ir.Value | None:
    """i1 (tile) that holds where the hint's divisibility holds: every element for a scalar,
    else the first element of each contiguous group along each dimension (AXIS_INFO.md)."""
    hint = op.opview
    divisibility = hint.facts("divisibility")
    if divisibility is None or all(d == 1 for d in divisibility):
        return None
    value = op.results[0]
    type_ = value.type
    computed = analysis.get(value)
    assert computed is not None  # a hint's value is an integer scalar or tile: the analysis has its facts
    contiguity = hint.facts("contiguity") or computed.contiguity
    cond = None
    for dim, divisor in enumerate(divisibility):
        if divisor == 1:
            continue
        ok = arith.CmpIOp(
            arith.CmpIPredicate.eq, arith.RemSIOp(value, _const(divisor, type_)).result, _const(0, type_)
        ).result
        group = contiguity[dim] if isinstance(type_, ir.RankedTensorType) else 1
        if group > 1:  # only a group's first element is promised to be a multiple
            coord = _coordinates(ir.RankedTensorType(type_), dim)
            inside = arith.CmpIOp(
                arith.CmpIPredicate.ne, arith.RemSIOp(coord, _const(group, coord.type)).result, _const(0, coord.type)
            ).result
            ok = arith.OrIOp(inside, ok).result
        cond = ok if cond is None else arith.AndIOp(cond, ok).result
    return cond


def _check_hint(op: ir.Operation, analysis: AxisInfoAnalysis) -> None:
    with ir.InsertionPoint.after(op), op.location:
        cond = _hint_condition(op, analysis)
        if cond is None:
            return
        divisibility = op.opview.facts("divisibility")
        what = "multiples of " + " x ".join(str(d) for d in divisibility)
        message = f"tile.hint promises the values (the first of each contiguous group) are {what}"
        T.CheckOp(cond, op.results[0], "hint", message)


def _element_count(base: ir.Value) -> ir.Value:
    """The number of elements of tensor parameter `base` (the product of its extents)."""
    rank = ir.MemRefType(base.type).rank
    count = None
    for axis in range(rank):
        extent = memref.DimOp(base, arith.ConstantOp(ir.IndexType.get(), axis).result).result
        count = extent if count is None else arith.MulIOp(count, extent).result
    return count


def _check_offsets(op: ir.Operation) -> None:
    """An offset-form access reads or writes inside its tensor (where its mask holds)."""
    view = op.opview
    offsets = view.offsets
    type_ = ir.RankedTensorType(offsets.type)
    with ir.InsertionPoint(op), op.location:
        count = _element_count(view.base)
        wide = offsets  # compared as index: an element count need not fit the offsets' type
        if not isinstance(type_.element_type, ir.IndexType):
            type_ = ir.RankedTensorType.get(list(type_.shape), ir.IndexType.get())
            wide = arith.IndexCastOp(type_, offsets).result
        bound = tensor.SplatOp(type_, count, []).result
        below = arith.CmpIOp(arith.CmpIPredicate.slt, wide, bound).result
        above = arith.CmpIOp(arith.CmpIPredicate.sge, wide, _const(0, type_)).result
        inside = arith.AndIOp(below, above).result
        where = "" if view.mask is None else " where its mask holds"
        if view.mask is not None:
            off = arith.XOrIOp(view.mask, _const(1, view.mask.type)).result
            inside = arith.OrIOp(inside, off).result
        message = f"this {op.name}'s offsets{where} lie inside its tensor (0 <= offset < element count)"
        T.CheckOp(inside, offsets, "bounds", message + "; the value is the offset")


def _instrument(fn: ir.Operation) -> None:
    fn.attributes[K.CHECK_MODE] = ir.UnitAttr.get()
    analysis = AxisInfoAnalysis(fn)
    hints, offset_accesses = [], []

    def visit(op):
        if is_op(op, T.HintOp):
            hints.append(op)
        elif is_op(op, *T.OFFSET_OPS, *T.ATOMIC_OPS):
            offset_accesses.append(op)
        return ir.WalkResult.ADVANCE

    fn.walk(visit)
    for op in hints:
        _check_hint(op, analysis)
    for op in offset_accesses:
        _check_offsets(op)


@tile_pass(
    "tile-insert-checks",
    options={"check": Option(bool, False, "check every kernel (without it: the kernels marked tile.checked)")},
)
def tile_insert_checks(module: ir.Operation, pass_, check: bool = False) -> None:
    """Puts kernels in check mode (tile.check_mode): every kernel with `check=true`
    (PHOBOS_CHECK=1, phobos.compile(check=True)), else those marked tile.checked
    (@checked). In check mode each promise the compiler relies on is verified on
    the device where it is used, and a broken one raises phobos.PromiseBroken at
    the launch. This pass inserts the checks the tile IR states: each tile.hint's
    divisibility (of a scalar, or of the first element of each contiguous group
    of a tile) and the offsets of each tile.load/tile.store/atomic (inside the
    tensor, where the mask holds). tile-elide-masks checks each mask it drops and each slice it
    proves in bounds; the lowering checks each vector access's alignment,
    contiguity and mask, and each @aligned promise (docs/check-mode.md).

    Before: %o = tile.hint %x {divisibility = array<i64: 16>} : index
    After:  ... tile.check %ok, %o {check = "hint", message = "..."} : i1, index
    """
    for fn in K.kernels(module):
        if check or K.CHECKED in fn.attributes:
            _instrument(fn)
