"""Tile IR of the math builtins of issue 29 (the checker's math_builtins.py).

Each becomes upstream `math`/`arith` ops on scalars or tiles, so the GPU
lowering treats them as every elementwise op (the same op on a thread's
registers) and the NVVM pipeline picks the PTX: libdevice for `erf`, `exp2`,
`log2`, `rsqrt`, `pow`, `sin`, `cos`, single instructions for `floor` (cvt.rmi),
`ceil` (cvt.rpi), `round` (math.roundeven: cvt.rni, ties to even), `fma`
(fma.rn) and `popcount` (popc). The rest are compositions:

  sigmoid(x)   e = exp(-|x|), d = 1 + e, then 1 / d where x >= 0 and e / d elsewhere
               (never exp of a large positive number: no overflow, subnormal results kept);
               f16 and bf16 in f32, rounded once
  rsqrt(x) of f64   1 / sqrt(x) (sqrt.rn.f64, div.rn.f64): libdevice's __nv_rsqrt is a bare
               rsqrt.approx.f64
  clamp(x, lo, hi)   min(max(x, lo), hi) (NaN propagates, as np.clip)
  isnan(x)     x != x (cmpf uno);   isinf(x)  |x| == inf (cmpf oeq)
  argmax(x[, axis]) / argmin / rowargmax / rowargmin
               the max (min) along the axis, broadcast back; the positions that hold it,
               or hold a NaN (max and min propagate NaN, so then only NaNs match);
               the smallest such position (a min reduction of the positions, the extent
               elsewhere): ties go to the lowest index and a NaN wins, as numpy's argmax.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, math

from phobos import builder as tb

from . import ast as A
from . import types as T

_UNARY = {
    "erf": math.ErfOp,
    "exp2": math.Exp2Op,
    "log2": math.Log2Op,
    "log1p": math.Log1pOp,
    "expm1": math.ExpM1Op,
    "rsqrt": math.RsqrtOp,
    "floor": math.FloorOp,
    "ceil": math.CeilOp,
    "round": math.RoundEvenOp,
    "sin": math.SinOp,
    "cos": math.CosOp,
}
HANDLED = frozenset(_UNARY) | {
    "sigmoid",
    "pow",
    "fma",
    "clamp",
    "isnan",
    "isinf",
    "argmax",
    "argmin",
    "rowargmax",
    "rowargmin",
    "popcount",
}


def _op(cls, *operands: tb.Value, loc) -> tb.Value:
    return tb.Value(cls(*(v.value for v in operands), loc=loc).result)


def _float_const(value: float, like: tb.Value, loc) -> tb.Value:
    return tb.constant(value, like.type, loc=loc)


def lower_math(emitter, e: A.Call, loc) -> tb.Value:
    """The tile IR of math builtin call `e` (emitter: the KernelEmitter lowering it)."""
    name = e.builtin
    if name in _UNARY or name == "sigmoid":
        x = emitter.lower_as(e.args[0], e.ty)
        elem = T.element(e.ty)
        if name == "sigmoid":
            return _in_f32(x, elem, lambda v: _sigmoid(v, loc), loc) if elem in ("f16", "bf16") else _sigmoid(x, loc)
        if name == "rsqrt" and elem == "f64":
            # libdevice's __nv_rsqrt is a bare rsqrt.approx.f64: 1 / sqrt (sqrt.rn.f64, div.rn.f64) instead
            root = _op(math.SqrtOp, x, loc=loc)
            return tb.binary("div", _float_const(1.0, root, loc), root, loc=loc)
        return _op(_UNARY[name], x, loc=loc)
    if name in ("pow", "fma", "clamp"):
        ty = T.with_element(e.ty, e.operand_element)
        args = [emitter.coerce(emitter.lower_as(a, ty), ty, a.pos) for a in e.args]
        if name == "pow":
            return _op(math.PowFOp, *args, loc=loc)
        if name == "fma":
            return _op(math.FmaOp, *args, loc=loc)
        unsigned = T.is_unsigned(e.operand_element)
        low = tb.maximum(args[0], args[1], loc=loc, unsigned=unsigned)
        return tb.minimum(low, args[2], loc=loc, unsigned=unsigned)
    if name in ("isnan", "isinf"):
        x = emitter.lower_as(e.args[0], T.Scalar(e.operand_element))
        return _isnan(x, loc) if name == "isnan" else _isinf(x, loc)
    if name == "popcount":
        return _op(math.CtPopOp, emitter.lower_expr(e.args[0]), loc=loc)
    x = emitter.lower_expr(e.args[0])
    if T.is_unsigned(T.element(e.args[0].ty)):  # unsigned order as signed order (to_tile_ir.flip_sign)
        from .to_tile_ir import flip_sign

        x = flip_sign(x, loc)
    return _arg_reduce(x, name, e.axis, loc)


def _in_f32(x: tb.Value, elem: str, fn, loc) -> tb.Value:
    """fn computed in f32 on a 16-bit float value and rounded back once."""
    wide = ir.F32Type.get()
    shape = x.shape
    like = ir.RankedTensorType.get(shape, wide) if shape else wide
    result = fn(tb.Value(arith.ExtFOp(like, x.value, loc=loc).result))
    narrow = emitter_type(elem, shape)
    return tb.Value(arith.TruncFOp(narrow, result.value, loc=loc).result)


def emitter_type(elem: str, shape) -> ir.Type:
    t = tb.ScalarType(elem).mlir()
    return ir.RankedTensorType.get(list(shape), t) if shape else t


def _sigmoid(x: tb.Value, loc) -> tb.Value:
    magnitude = math.AbsFOp(x.value, loc=loc).result
    e = tb.Value(math.ExpOp(arith.NegFOp(magnitude, loc=loc).result, loc=loc).result)
    d = tb.binary("add", _float_const(1.0, e, loc), e, loc=loc)
    positive = tb.compare("ge", x, _float_const(0.0, x, loc), loc=loc)
    above, below = tb.binary("div", _float_const(1.0, d, loc), d, loc=loc), tb.binary("div", e, d, loc=loc)
    return tb.where(positive, above, below, loc=loc)


def _isnan(x: tb.Value, loc) -> tb.Value:
    return tb.Value(arith.CmpFOp(arith.CmpFPredicate.UNO, x.value, x.value, loc=loc).result)


def _isinf(x: tb.Value, loc) -> tb.Value:
    magnitude = tb.Value(math.AbsFOp(x.value, loc=loc).result)
    inf = _float_const(float("inf"), magnitude, loc)
    return tb.Value(arith.CmpFOp(arith.CmpFPredicate.OEQ, magnitude.value, inf.value, loc=loc).result)


def _positions(shape: list[int], axes: list[int], loc) -> tb.Value:
    """An i32 tile of `shape`: each element's row-major position within the `axes` (one axis:
    its index along that axis; every axis: its index in the flattened tile)."""
    total = None
    stride = 1
    for axis in reversed(axes):
        r = tb.arange(0, shape[axis], loc=loc)
        for d in range(len(shape)):
            if d != axis:
                r = tb.expand_dims(r, d, loc=loc)
        r = tb.broadcast_to(r, shape, loc=loc)
        if stride != 1:
            r = tb.binary("mul", r, tb.constant(stride, r.type, loc=loc), loc=loc)
        total = r if total is None else tb.binary("add", total, r, loc=loc)
        stride *= shape[axis]
    return total


def _reduce_axes(v: tb.Value, kind: str, axes: list[int], loc) -> tb.Value:
    for axis in sorted(axes, reverse=True):
        v = tb.reduce(v, kind, axis, loc=loc)
    return v


def _arg_reduce(x: tb.Value, name: str, axis: int | None, loc) -> tb.Value:
    shape = list(x.shape)
    axes = list(range(len(shape))) if axis is None else [axis]
    kind = "max" if name in ("argmax", "rowargmax") else "min"
    best = _reduce_axes(x, kind, axes, loc)
    if axis is not None and isinstance(best.type, ir.RankedTensorType):
        best = tb.expand_dims(best, axis, loc=loc)
    best = tb.broadcast_to(best, shape, loc=loc)
    hit = tb.compare("eq", x, best, loc=loc)
    if isinstance(ir.RankedTensorType(x.type).element_type, ir.FloatType):
        hit = tb.binary("or", hit, _isnan(x, loc), loc=loc)
    positions = _positions(shape, axes, loc)
    count = 1
    for a in axes:
        count *= shape[a]
    candidates = tb.where(hit, positions, tb.constant(count, positions.type, loc=loc), loc=loc)
    index = _reduce_axes(candidates, "min", axes, loc)
    if name.startswith("row"):
        if not isinstance(index.type, ir.RankedTensorType):
            return tb.full([1], index, loc=loc)
        return tb.expand_dims(index, axis, loc=loc)
    return index
