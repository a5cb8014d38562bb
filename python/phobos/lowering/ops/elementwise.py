"""Elementwise math and the ops that make or reshape register tiles.

Elementwise `arith`/`math`/`index` ops apply to a thread's registers unchanged
(the same op on `vector<n x T>`), except two f32 functions that get NVVM
intrinsics element by element: sqrt without `afn` (sqrt.rn) and exp with it
(ex2.approx.ftz), and 8-bit integers to f32/f16, which go through
the exponent bits (byte_to_float.py). Ranges, splats and broadcasts become vector constants,
`vector.broadcast` and `vector.shuffle` under the kernel's layout; reshapes
that add or remove unit dimensions and hints keep their registers;
`tile.check_multiple` becomes a compare and a trap (in check mode: a failed check
recorded for the launch to report, device_checks.py).
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, index, math, scf, tensor, vector

from phobos.dialect import tile as T
from phobos.dialect.tile import upstream_ops
from phobos.lowering.byte_to_float import is_byte_to_float, lower_byte_to_float
from phobos.lowering.context import LoweringContext
from phobos.lowering.device_checks import fail_unless
from phobos.lowering.errors import PASS, LoweringError
from phobos.lowering.fp8 import is_fp8_conversion, lower_fp8_conversion
from phobos.lowering.registry import lowers, register_classes


def _f32_math(op: ir.Operation) -> tuple[bool, bool]:
    """(whether a math op is on f32, whether it carries the `afn` fast-math flag)."""
    t = op.results[0].type
    elem = ir.ShapedType(t).element_type if isinstance(t, ir.ShapedType) else t
    text = str(op.attributes["fastmath"]) if "fastmath" in op.attributes else ""
    flags = set(text[text.find("<") + 1 : text.rfind(">")].replace(",", " ").split()) if "<" in text else set()
    return isinstance(elem, ir.F32Type), bool(flags & {"afn", "fast"})


def _precise_sqrt_needed(op: ir.Operation) -> bool:
    """f32 math.sqrt without the `afn` fast-math flag."""
    f32, fast = _f32_math(op)
    return f32 and not fast


def _fast_exp(op: ir.Operation) -> bool:
    """f32 math.exp with the `afn` flag: ex2.approx.ftz.f32 of x * log2(e)."""
    f32, fast = _f32_math(op)
    return isinstance(op.opview, math.ExpOp) and f32 and fast


def lower_elementwise(ctx: LoweringContext, op: ir.Operation) -> None:
    """An arith/math/index op on registers: the same op on the vectors (or scalars) it reads."""
    operands = [ctx.get(v, op) for v in op.operands]
    attrs = {name: op.attributes[name] for name in op.attributes}
    if is_fp8_conversion(op):
        return lower_fp8_conversion(ctx, op, operands[0])
    if is_byte_to_float(op):
        return lower_byte_to_float(ctx.values, op, operands[0])
    if isinstance(op.opview, math.SqrtOp) and _precise_sqrt_needed(op):
        return _sqrt_rn(ctx, op, operands[0])
    if _fast_exp(op):
        return _exp_ftz(ctx, op, operands[0])
    result_types = [ctx.vtype(r) for r in op.results]
    new = ir.Operation.create(op.name, results=result_types, operands=operands, attributes=attrs, loc=op.location)
    for old, r in zip(op.results, new.results):
        ctx.values[old] = r


def _sqrt_rn(ctx: LoweringContext, op: ir.Operation, value: ir.Value) -> None:
    """Correctly rounded f32 sqrt (PTX sqrt.rn.f32). The upstream lowering
    of math.sqrt goes through libdevice's __nv_sqrtf, which this build
    compiles to sqrt.approx.f32 (checked in test/Target/ptx-math.mlir), and marks llvm.intr.sqrt
    illegal; the NVVM intrinsic is applied element by element."""
    f32 = ir.F32Type.get()
    _per_element(ctx, op, value, lambda x: _call_intrinsic("llvm.nvvm.sqrt.rn.f", x, f32))


def _exp_ftz(ctx: LoweringContext, op: ir.Operation, value: ir.Value) -> None:
    """exp under @fastmath: ex2.approx.ftz.f32 of x * log2(e), which is libdevice's
    __nv_fast_expf (CUDA's __expf) with results below 2^-126 flushed to zero, as
    nvcc's --use_fast_math gives it. The non-ftz ex2.approx.f32 that __nv_fast_expf
    becomes costs three more instructions per element (a range test and two
    scalings around MUFU.EX2), a quarter of a flash-attention inner loop.

    exp(a - b) with `b` broadcast (a row maximum: softmax, attention) is ex2 of
    fma(a, log2(e), -(b * log2(e))), as Triton's and FlashAttention's kernels write
    it: one FFMA per element instead of an FADD and an FMUL, `b * log2(e)` once per
    distinct b. The difference is b * log2(e)'s rounding, an absolute error of
    |b| * 2^-24 in the exponent, inside ex2.approx's own."""
    f32 = ir.F32Type.get()
    with op.location:
        log2e = arith.ConstantOp(f32, ir.FloatAttr.get(f32, 1.4426950408889634)).result
        shifted = _broadcast_difference(ctx, op)
        if shifted is not None:
            a, b = shifted
            if isinstance(a.type, ir.VectorType):
                log2e = vector.BroadcastOp(a.type, log2e).result
            exponent = math.FmaOp(a, log2e, arith.NegFOp(arith.MulFOp(b, log2e).result).result).result
            _per_element(ctx, op, exponent, lambda x: _call_intrinsic("llvm.nvvm.ex2.approx.ftz.f", x, f32))
            return
    _per_element(
        ctx, op, value, lambda x: _call_intrinsic("llvm.nvvm.ex2.approx.ftz.f", arith.MulFOp(x, log2e).result, f32)
    )


def _broadcast_difference(ctx: LoweringContext, op: ir.Operation) -> tuple[ir.Value, ir.Value] | None:
    """(a, b) lowered, where exp's operand is `a - b` and b a broadcast, a splat or a scalar."""
    source = op.operands[0]
    if not isinstance(source, ir.OpResult) or not isinstance(source.owner.opview, arith.SubFOp):
        return None
    sub = source.owner
    rhs = sub.operands[1]
    cheap = not isinstance(rhs.type, ir.ShapedType) or (
        isinstance(rhs, ir.OpResult) and isinstance(rhs.owner.opview, (T.BroadcastOp, tensor.SplatOp))
    )
    if not cheap:
        return None
    return ctx.get(sub.operands[0], sub), ctx.get(rhs, sub)


def _per_element(ctx: LoweringContext, op: ir.Operation, value: ir.Value, one) -> None:
    """`op`'s result as `one` applied to each element of `value` (a scalar or a
    vector: the NVVM intrinsics take scalars)."""
    with op.location:
        if not isinstance(value.type, ir.VectorType):
            ctx.values[op.results[0]] = one(value)
            return
        n = ir.VectorType(value.type).shape[0]
        parts = [one(vector.ExtractOp(value, [], [i]).result) for i in range(n)]
        ctx.values[op.results[0]] = vector.FromElementsOp(value.type, parts).result


def _call_intrinsic(name: str, x: ir.Value, f32: ir.Type) -> ir.Value:
    return ir.Operation.create(
        "llvm.call_intrinsic",
        results=[f32],
        operands=[x],
        attributes={
            "intrin": ir.StringAttr.get(name),
            "op_bundle_sizes": ir.DenseI32ArrayAttr.get([]),
            "operandSegmentSizes": ir.DenseI32ArrayAttr.get([1, 0]),
        },
    ).result


@lowers(arith.ConstantOp)
def lower_constant(ctx: LoweringContext, op: ir.Operation) -> None:
    result = op.results[0]
    attr = op.attributes["value"]
    if not isinstance(result.type, ir.RankedTensorType):
        ctx.values[result] = arith.ConstantOp(result.type, attr, loc=op.location).result
        return
    dense = ir.DenseElementsAttr(attr)
    if not dense.is_splat:
        raise LoweringError(op, f"'arith.constant' op: non-splat tile constants are not supported by {PASS} yet")
    vt = ctx.vtype(result)
    splat = ir.DenseElementsAttr.get_splat(vt, dense.get_splat_value())
    ctx.values[result] = arith.ConstantOp(vt, splat, loc=op.location).result


@lowers(T.RangeOp)
def lower_range(ctx: LoweringContext, op: ir.Operation) -> None:
    o = op.opview
    result = op.results[0]
    d = ctx.placement.dims_of(result)[0]
    assert d is not None  # Placement leaves only the unit dimensions of higher-rank tiles nowhere
    extent = o.end - o.start
    vt = ctx.vtype(result)
    elem = vt.element_type
    offsets = [o.start + x for x in ctx.layout.offsets(d, extent)]
    base = ctx.coordinate_base(d, extent)
    with op.location:
        if not isinstance(elem, ir.IndexType):
            base = arith.IndexCastOp(elem, base).result
        splat = vector.BroadcastOp(vt, base).result
        ctx.values[result] = arith.AddIOp(splat, ctx.const(offsets, vt)).result


@lowers(tensor.SplatOp)
def lower_splat(ctx: LoweringContext, op: ir.Operation) -> None:
    with op.location:
        ctx.values[op.results[0]] = vector.BroadcastOp(ctx.vtype(op.results[0]), ctx.get(op.operands[0], op)).result


@lowers(T.BroadcastOp)
def lower_broadcast(ctx: LoweringContext, op: ir.Operation) -> None:
    src_old, res_old = op.operands[0], op.results[0]
    src = ctx.get(src_old, op)
    src_shape = ctx.placement.placed_shape(src_old)
    res_shape = ctx.placement.placed_shape(res_old)
    mapping = ctx.layout.broadcast_map(src_shape, res_shape)
    vt = ctx.vtype(res_old)
    with op.location:
        if mapping == list(range(len(mapping))) and ctx.vtype(src_old) == vt:
            ctx.values[res_old] = src
        elif ir.VectorType(src.type).shape[0] == 1:
            scalar = vector.ExtractOp(src, [], [0]).result
            ctx.values[res_old] = vector.BroadcastOp(vt, scalar).result
        else:
            ctx.values[res_old] = vector.ShuffleOp(src, src, mapping).result


@lowers(tensor.ExpandShapeOp, tensor.CollapseShapeOp)
def lower_reshape(ctx: LoweringContext, op: ir.Operation) -> None:
    # Adding or removing unit dimensions keeps the placed shape (placement.py).
    ctx.values[op.results[0]] = ctx.get(op.operands[0], op)


@lowers(T.HintOp)
def lower_hint(ctx: LoweringContext, op: ir.Operation) -> None:
    ctx.values[op.results[0]] = ctx.get(op.operands[0], op)


@lowers(T.CheckMultipleOp)
def lower_check_multiple(ctx: LoweringContext, op: ir.Operation) -> None:
    o = op.opview
    if o.divisor <= 0:
        raise LoweringError(op, f"'tile.check_multiple' op needs a positive divisor, got {o.divisor}")
    value = ctx.get(op.operands[0], op)
    with op.location:
        rem = arith.RemUIOp(value, ctx.index(o.divisor)).result
        if ctx.check_mode:  # recorded and reported at the launch, instead of a trap
            ok = arith.CmpIOp(arith.CmpIPredicate.eq, rem, ctx.index(0)).result
            message = f"@aligned promises that {o.symbol} is a multiple of {o.divisor}; the value is {o.symbol}"
            fail_unless(ctx.checks, op, "aligned", message, ok, value)
            ctx.values[op.results[0]] = value
            return
        broken = arith.CmpIOp(arith.CmpIPredicate.ne, rem, ctx.index(0)).result
        check = scf.IfOp(broken)
        with ir.InsertionPoint(check.then_block):
            ir.Operation.create("llvm.intr.trap")
            scf.YieldOp([])
    ctx.values[op.results[0]] = value


# Every other op of these dialects is elementwise (none has regions).
register_classes(upstream_ops(arith, math, index), lower_elementwise)
