"""The mask of each access in the access report: per slice dimension, whether
tile-elide-masks drops it and what proves it in bounds, or the fact it misses
(`access.slice_dim_verdict`); for offset accesses, whether the axis facts prove it all-true."""

from __future__ import annotations

from mlir import ir

from phobos.analysis.axis_info import AxisInfoAnalysis
from phobos.analysis.kernel_facts import TensorFacts, _entry_checks
from phobos.dialect import kernel as K
from phobos.report.model import Mask, MaskDim, _where


def _dropped_by(fn: ir.Operation, analysis: AxisInfoAnalysis, t: TensorFacts, d: int, start: ir.Value, extent: int):
    """What proves dimension d of a slice in bounds (for a dimension tile-elide-masks kept in bounds)."""
    info = analysis.get(start)
    static = t.static[d]
    if info is not None and info.constant is not None and static is not None:
        return [f"the constant start {info.constant} inside the literal extent {static}"]
    if static is not None:
        return [f"the literal extent {static}"]
    if extent == 1:
        return ["a tile extent of 1 whose start stays inside the tensor (the grid rule or a loop bound)"]
    symbol = t.dims[d]
    by = []
    try:
        promised = K.aligned(fn)
    except ValueError:
        promised = {}
    if symbol in promised and promised[symbol] % extent == 0:
        by.append(f"@aligned({symbol} = {promised[symbol]})")
    checks = _entry_checks(fn)
    if symbol in checks and symbol not in promised and checks[symbol] % extent == 0:
        by.append(f"the entry check tile.check_multiple({symbol}, {checks[symbol]})")
    fn_type = ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value)
    for i, ty in enumerate(fn_type.inputs):
        if not isinstance(ty, ir.MemRefType):
            continue
        other = analysis.kernel_facts(fn).tensors.get(i)
        if other is None:
            continue
        for dd, name in enumerate(other.dims):
            if name != symbol:
                continue
            if other.static[dd] is not None and other.static[dd] % extent == 0:
                by.append(f"the literal extent {other.static[dd]} of '{other.name}'")
            try:
                spec = K.arg_i64_array(fn, i, K.ARG_DIVISIBILITY)
            except ValueError:
                spec = None
            if spec is not None and dd < len(spec) and spec[dd] % extent == 0:
                by.append(f"the specialisation key ('{other.name}' extent {dd} a multiple of {spec[dd]})")
    if not by:
        by.append(f"the combined facts about '{symbol}' (a multiple of {t.extent_multiple[d]})")
    return by


def _slice_mask(fn, analysis, op, t: TensorFacts, facts, tile) -> Mask:
    view = op.opview
    promised = view.in_bounds
    dims = []
    for d, start in enumerate(view.starts):
        extent_text = t.extent_text(d)
        if promised[d]:
            dims.append(MaskDim(d, extent_text, True, ["in_bounds already on the op (tile-elide-masks ran)"]))
        elif facts.in_bounds[d]:
            dims.append(MaskDim(d, extent_text, True, _dropped_by(fn, analysis, t, d, start, tile[d])))
        else:
            dims.append(MaskDim(d, extent_text, False, why=facts.mask_reasons[d]))
    kept = [m for m in dims if not m.dropped]
    parts = []
    for m in dims:
        if m.dropped:
            parts.append(f"dim {m.dim} dropped by {' and '.join(m.by)}")
        else:
            parts.append(f"dim {m.dim} kept: {m.why}")
    state = "dropped" if not kept else ("kept" if len(kept) == len(dims) else "partial")
    return Mask(state, "; ".join(parts), dims)


def _offset_mask(analysis, mask: ir.Value | None, dropped: bool) -> Mask:
    if mask is None:
        return Mask("none", "none")
    if dropped:
        return Mask("dropped", "dropped: the axis facts prove it all-true")
    text = "kept: it is not proven all-true"
    if isinstance(mask, ir.OpResult):
        where, *_ = _where(mask.owner.location)
        text += f" (it is {mask.owner.name} at {where})"
    return Mask("kept", text)
