"""Atomics: tile.atomic_rmw and tile.atomic_cas as PTX `atom`/`red` on global memory.

Each thread applies the atomics of the elements it owns, one instruction per element
(a replicated element, held by several threads where the tile is smaller than the
layout's reach, is applied by one of them only), under an `scf.if` on the element's
mask. The instruction is inline PTX, so that the memory order and scope are exactly
the op's (`atom.relaxed.gpu.global.add.f32`); where the op's result is unused and the
order allows it (relaxed or release) it is `red`, which returns nothing. Types follow
phobos.atomic_types: f16 add is `add.noftz.f16`, bf16 add `add.noftz.bf16` (sm_90),
integer max/min signed; float max/min work on the bits (a non-negative float orders
as a signed integer, a negative one in reverse as an unsigned integer), so that f32
max is `atom.max.s32` where the value is >= 0 and `atom.min.u32` where it is negative.
Values travel as integers of their width (`h`, `r`, `l` registers; PTX accepts a
bit-size register for a float instruction of its size).

An integer `red.add` of one value for the whole tile (a splat: a histogram's `+ 1`) at
offsets computed from loaded data (a gather's indices, which may repeat) is aggregated per
warp: the lanes that hit the same address (match.any.sync over the active lanes) elect their
lowest lane, which adds the value times their count. Integer addition is exact, so the result
is the same; a hot bin sees up to 32x fewer atomics (CUDA's warp-aggregated atomics).

Vector reductions (atomic_width): neighbouring elements of a thread that the access facts prove
contiguous, aligned and equally masked (the atomic's `vector_width`, capped by the layout's run,
as for loads) go as one instruction. Two f16 (bf16) elements are one `add.noftz.f16x2` on any
chip, and also where the old values are used. A `red` (old values unused, relaxed or release)
of f32 or f16/bf16 add on sm_90 and later takes up to 16 bytes: `red.global.add.v2/.v4.f32`,
`red.global.add.noftz.v2/.v4.f16x2` (PTX ISA 8.1, which the gpu.module's target is raised to
where one is emitted). Each element is still atomic on its own (the PTX ISA promises no more),
so the result is the scalar one; a thread issues up to four times fewer instructions, and their
number is what bounds a scatter-add of f32 rows.
"""

from __future__ import annotations

import re
from functools import partial

from mlir import ir
from mlir.dialects import arith, func, llvm, memref, scf, tensor, vector

from phobos.analysis.kernel_facts import element_bytes
from phobos.atomic_types import MIN_SM, unsupported
from phobos.dialect import tile as T
from phobos.dialect.tile import is_op
from phobos.lowering.context import LoweringContext
from phobos.lowering.errors import LoweringError
from phobos.lowering.ir_helpers import gpu_module_block, target_ptx
from phobos.lowering.kernel_layout import access_width, vector_width
from phobos.lowering.layout import Blocked
from phobos.lowering.registry import lowers
from phobos.target import chip_number

REGISTER_CLASS = {16: "h", 32: "r", 64: "l"}
VECTOR_RED_SM = 90  # red.global with .v2/.v4 (and .v8 for f16/bf16) vector types
VECTOR_RED_PTX = 81  # ... from PTX ISA 8.1


def atomic_type_name(elem: ir.Type) -> str:
    if isinstance(elem, ir.F16Type):
        return "f16"
    if isinstance(elem, ir.BF16Type):
        return "bf16"
    if isinstance(elem, ir.F32Type):
        return "f32"
    if isinstance(elem, ir.F64Type):
        return "f64"
    return f"i{ir.IntegerType(elem).width}" if isinstance(elem, ir.IntegerType) else str(elem)


def atomic_instruction(kind: str, name: str, negative: bool = False) -> str:
    """The PTX operation and type of atomic `kind` on element type `name` (`add.f32`, `max.s32`, ...).
    `negative`: a float max/min on a negative value (reversed, unsigned)."""
    bits = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64, "i32": 32, "i64": 64, "f16x2": 32, "bf16x2": 32}[name]
    if kind == "add":
        if name.startswith(("f16", "bf16")):
            return f"add.noftz.{name}"
        return f"add.{name}" if name.startswith("f") else f"add.u{bits}"
    if kind in ("max", "min"):
        if name.startswith("f") and negative:
            return f"{'min' if kind == 'max' else 'max'}.u{bits}"
        return f"{kind}.s{bits}"
    return f"{'exch' if kind == 'xchg' else 'cas'}.b{bits}"


def _asm(op_text: str, sem: str, scope: str, width: int, operands: list[ir.Value], returns: bool) -> ir.Value | None:
    """One inline PTX atom (returns the old bits) or red (returns nothing) on the address operands[0]."""
    c = REGISTER_CLASS[width]
    if returns:
        args = ", ".join(f"${k + 1}" for k in range(1, len(operands)))
        text = f"atom.{sem}.{scope}.global.{op_text} $0, [$1], {args};"
        constraints = ",".join([f"={c}", "l"] + [c] * (len(operands) - 1))
        return llvm.InlineAsmOp(
            ir.IntegerType.get_signless(width), operands, text, constraints, has_side_effects=True
        ).res
    text = f"red.{sem}.{scope}.global.{op_text} [$0], $1;"
    llvm.InlineAsmOp(None, operands, text, ",".join(["l", c]), has_side_effects=True)
    return None


def _aggregated_red(op_text: str, sem: str, scope: str, width: int, address: ir.Value, value: ir.Value) -> None:
    """red of `value` times the number of active lanes at `address`, by the lowest of them."""
    wide = width == 64
    count = "cvt.u64.u32 agg_nw, agg_n;\nmul.lo.u64 agg_nw, agg_nw, $1;" if wide else "mul.lo.u32 agg_n, agg_n, $1;"
    text = (
        "{\n.reg .b32 agg_act, agg_grp, agg_low, agg_lane, agg_n;\n"
        + (".reg .b64 agg_nw;\n" if wide else "")
        + ".reg .pred agg_lead;\nactivemask.b32 agg_act;\nmatch.any.sync.b64 agg_grp, $0, agg_act;\n"
        "neg.s32 agg_low, agg_grp;\nand.b32 agg_low, agg_low, agg_grp;\nbfind.u32 agg_low, agg_low;\n"
        "mov.u32 agg_lane, %laneid;\nsetp.eq.u32 agg_lead, agg_low, agg_lane;\npopc.b32 agg_n, agg_grp;\n"
        f"{count}\n@agg_lead red.{sem}.{scope}.global.{op_text} [$0], {'agg_nw' if wide else 'agg_n'};\n}}"
    )
    llvm.InlineAsmOp(None, [address, value], text, ",".join(["l", REGISTER_CLASS[width]]), has_side_effects=True)


def _aggregates(op: ir.Operation, kind: str, name: str, returns: bool) -> bool:
    """Whether the atomic is an integer red.add of one value for the tile at offsets computed from loaded data."""
    o = op.opview
    if kind != "add" or returns or name not in ("i32", "i64") or o.sem not in ("relaxed", "release"):
        return False
    return isinstance(o.value.owner.opview, tensor.SplatOp) and vector_width(op) == 1 and _data_dependent(o.offsets)


def _data_dependent(value: ir.Value, budget: int = 64) -> bool:
    """Whether `value` may depend on loaded data or a loop-carried value (offsets that may collide
    in a warp), walking at most `budget` defining ops (past that, assumed so)."""
    pending = [value]
    while pending:
        owner = pending.pop().owner
        if isinstance(owner, ir.Block):  # a kernel parameter is uniform; a loop's block argument may be anything
            if not isinstance(owner.owner.opview, func.FuncOp):
                return True
            continue
        budget -= 1
        if budget < 0 or is_op(owner, *T.LOAD_OPS, *T.ATOMIC_OPS):
            return True
        pending.extend(owner.operands)
    return False


def _used(op: ir.Operation) -> bool:
    return any(True for _ in op.results[0].uses)


def _check(ctx: LoweringContext, op: ir.Operation, kind: str, name: str) -> None:
    """Refuses, in the language's words (`atomic_add` on bf16), a type the GPU or the target chip lacks."""
    why = unsupported(kind, name)
    if why is not None:
        raise LoweringError(op, why)
    sm = MIN_SM.get((kind, name))
    chip = getattr(ctx, "chip", "sm_90")
    if sm is not None and int("".join(ch for ch in chip if ch.isdigit()) or 0) < sm:
        raise LoweringError(
            op,
            f"'atomic_{kind}' on {name} needs sm_{sm} or later (atom/red .{atomic_instruction(kind, name)}); "
            f"the target is {chip}",
        )


def _old_values_refusal(op: ir.Operation, kind: str, threads: int) -> str:
    """Why the old values of atomic `op` (a tile smaller than the CTA's layout) cannot be used."""
    shape = list(ir.RankedTensorType(op.opview.value.type).shape)
    call = f"'atomic_{kind}'"
    if shape == [1]:
        return (
            f"the old value of {call} on a single element is not available on the GPU yet (several of the "
            f"CTA's {threads} threads hold it); use the call as a statement, or take old values from a tile "
            f"that fills the CTA's layout"
        )
    return (
        f"the old values of {call} on a tile of {shape} are not available on the GPU yet: the tile is smaller "
        f"than the CTA's layout ({threads} threads), so several threads hold each element; use the call as a "
        f"statement, or its old values only on larger tiles"
    )


def _element(ctx, kind, name, o, address, pieces, returns, aggregate=False) -> ir.Value | None:
    """The atomic of one element (or an f16x2 pair, `name` "f16x2"): `pieces` the value (and, for cas, the
    expected value first), as integers."""
    sem, scope, width = o.sem, o.scope, ir.IntegerType(pieces[0].type).width
    if aggregate:
        _aggregated_red(atomic_instruction(kind, name), sem, scope, width, address, pieces[0])
        return None
    atom = returns or kind == "cas" or sem not in ("relaxed", "release")  # else red, which returns nothing
    if kind in ("max", "min") and name.startswith("f"):
        value = pieces[0]
        negative = arith.CmpIOp(arith.CmpIPredicate.slt, value, ctx.const(0, value.type)).result
        types = [value.type] if returns else []
        branch = scf.IfOp(negative, types, has_else=True)
        for block, neg in ((branch.then_block, True), (branch.else_block, False)):
            with ir.InsertionPoint(block):
                old = _asm(atomic_instruction(kind, name, neg), sem, scope, width, [address, value], atom)
                scf.YieldOp([old] if returns else [])
        return branch.results[0] if returns else None
    old = _asm(atomic_instruction(kind, name), sem, scope, width, [address, *pieces], atom)
    return old if returns else None


def atomic_width(op: ir.Operation, layout: Blocked, placed, last: int | None, chip: str) -> int:
    """Elements of a thread that one instruction of atomic `op` applies: the proven access width
    (access_width) for a red of f32 or f16/bf16 add on sm_90 and later (a vector red, at most 16
    bytes), a pair for another f16/bf16 add (f16x2) where the width allows, else 1."""
    o = op.opview
    elem = ir.RankedTensorType(o.value.type).element_type
    name = atomic_type_name(elem)
    if last is None:  # a tile placed nowhere: its one element
        return 1
    if is_op(op, T.AtomicCASOp) or o.kind != "add" or name not in ("f32", "f16", "bf16"):
        return 1
    widest = access_width(op, layout, placed, last, elem)
    width = 1
    while width * 2 <= widest and layout.run(last, placed[last]) % (width * 2) == 0:  # groups inside a run
        width *= 2
    red = not _used(op) and o.sem in ("relaxed", "release")
    if red and chip_number(chip) >= VECTOR_RED_SM:
        return width
    return min(width, 1 if name == "f32" else 2)


def _lower(ctx: LoweringContext, op: ir.Operation, kind: str) -> None:
    o = op.opview
    elem = ir.RankedTensorType(o.value.type).element_type
    name = atomic_type_name(elem)
    _check(ctx, op, kind, name)
    returns = _used(op)
    shape = ctx.placement.placed_shape(o.value)
    dims = ctx.placement.dims_of(o.value)
    guard = ctx.owner_guard(shape, dims)
    if guard is not None and returns:
        raise LoweringError(op, _old_values_refusal(op, kind, ctx.layout.threads))
    aggregate = _aggregates(op, kind, name, returns)
    width = atomic_width(op, ctx.layout, shape, dims[-1], ctx.chip)
    if _is_vector(width, elem):
        _require_ptx(VECTOR_RED_PTX)
    groups = _groups(ctx, shape, dims, ir.VectorType(ctx.vtype(o.value)).shape[0], width)
    p = ctx.param_index(o.base, op)
    i64 = ir.IntegerType.get_signless(64)
    base = arith.IndexCastOp(i64, memref.ExtractAlignedPointerAsIndexOp(ctx.views[p]).result).result
    regs = [ctx.get(v, op) for v in ([o.compare] if kind == "cas" else []) + [o.value]]
    offsets = ctx.get(o.offsets, op)
    mask = ctx.get(o.mask, op) if o.mask is not None else None
    olds = []
    for j, n in groups:
        address = _address(ctx, base, offsets, j, elem)
        if _is_vector(n, elem):
            words = _words(regs[-1], j, n, elem)
            emit = partial(_vector_red, _vector_instruction(name, n), o.sem, o.scope, address, words)
            _guarded(ctx, _condition(mask, j, guard), None, False, emit)
            continue
        bits_t = ir.IntegerType.get_signless(element_bytes(elem) * 8 * n)
        pieces = [_packed(r, j, n, elem, bits_t) for r in regs]
        what = name + ("x2" if n == 2 else "")
        emit = partial(_element, ctx, kind, what, o, address, pieces, returns, aggregate)
        old = _guarded(ctx, _condition(mask, j, guard), bits_t, returns, emit)
        if returns:
            olds.extend(_unpacked(old, n, elem))
    if returns:
        ctx.values[op.results[0]] = vector.FromElementsOp(ctx.vtype(op.results[0]), olds).result


def _is_vector(elements: int, elem: ir.Type) -> bool:
    """Whether `elements` neighbours take a vector red (several, more than the 4 bytes of one f32 or f16x2)."""
    return elements > 1 and elements * element_bytes(elem) > 4


def _require_ptx(version: int) -> None:
    """Raises the PTX ISA version of the gpu.module being built to `version` where it is older
    (later versions keep every instruction of the earlier ones)."""
    if target_ptx() >= version:
        return
    module = gpu_module_block().owner
    targets = str(module.attributes["targets"])
    module.attributes["targets"] = ir.Attribute.parse(re.sub(r"\+ptx\d+", f"+ptx{version}", targets))


def _address(ctx: LoweringContext, base: ir.Value, offsets: ir.Value, j: int, elem: ir.Type) -> ir.Value:
    """The byte address (i64) of register j's element: the base plus its offset times the element size."""
    i64 = ir.IntegerType.get_signless(64)
    off = vector.ExtractOp(offsets, [], [j]).result
    off = off if isinstance(off.type, ir.IntegerType) else arith.IndexCastOp(i64, off).result
    if ir.IntegerType(off.type).width != 64:
        off = arith.ExtSIOp(i64, off).result
    return arith.AddIOp(base, arith.MulIOp(off, ctx.const(element_bytes(elem), i64)).result).result


def _condition(mask: ir.Value | None, j: int, guard: ir.Value | None) -> ir.Value | None:
    """Where the instruction of the group starting at register j runs: its mask (constant over the
    group) and the owner guard of a replicated tile; None for always."""
    cond = vector.ExtractOp(mask, [], [j]).result if mask is not None else None
    if guard is not None:
        cond = guard if cond is None else arith.AndIOp(cond, guard).result
    return cond


def _groups(ctx: LoweringContext, shape, dims, count: int, width: int) -> list[tuple[int, int]]:
    """(first register, registers) of each instruction: runs of `width` neighbours along the last
    dimension (atomic_width says they are contiguous, aligned and equally masked), else one."""
    if width == 1:
        return [(j, 1) for j in range(count)]
    last = dims[-1]
    return [(j, width) for j, k in enumerate(ctx.layout.register_indices(shape)) if k[last] % width == 0]


def _packed(reg: ir.Value, j: int, n: int, elem: ir.Type, bits_t: ir.Type) -> ir.Value:
    """Registers j..j+n-1 of `reg` as one integer of their bits."""
    if n == 1:
        x = vector.ExtractOp(reg, [], [j]).result
        return x if x.type == bits_t else arith.BitcastOp(bits_t, x).result
    pair = vector.ShuffleOp(reg, reg, [j, j + 1]).result
    return vector.ExtractOp(vector.BitCastOp(ir.VectorType.get([1], bits_t), pair).result, [], [0]).result


def _words(reg: ir.Value, j: int, n: int, elem: ir.Type) -> list[ir.Value]:
    """Registers j..j+n-1 of `reg` as 32-bit words: one f32 each, or a pair of f16/bf16 each."""
    i32 = ir.IntegerType.get_signless(32)
    per_word = 4 // element_bytes(elem)
    return [_packed(reg, j + i, per_word, elem, i32) for i in range(0, n, per_word)]


def _vector_instruction(name: str, n: int) -> str:
    """The PTX operation and vector type of an add of `n` neighbours: `add.v4.f32`, `add.noftz.v2.f16x2`."""
    if name == "f32":
        return f"add.v{n}.f32"
    return f"add.noftz.v{n // 2}.{name}x2"


def _vector_red(op_text: str, sem: str, scope: str, address: ir.Value, words: list[ir.Value]) -> None:
    """One inline PTX vector red of 32-bit `words` at `address` (16-byte aligned for v4, 8 for v2)."""
    values = ", ".join(f"${k + 1}" for k in range(len(words)))
    text = f"red.{sem}.{scope}.global.{op_text} [$0], {{{values}}};"
    constraints = ",".join(["l"] + ["r"] * len(words))
    llvm.InlineAsmOp(None, [address, *words], text, constraints, has_side_effects=True)


def _unpacked(old: ir.Value, n: int, elem: ir.Type) -> list[ir.Value]:
    if n == 1:
        return [old if old.type == elem else arith.BitcastOp(elem, old).result]
    pair = vector.BitCastOp(
        ir.VectorType.get([2], elem), vector.FromElementsOp(ir.VectorType.get([1], old.type), [old])
    )
    return [vector.ExtractOp(pair.result, [], [i]).result for i in range(2)]


def _guarded(ctx: LoweringContext, cond, bits_t, returns: bool, emit) -> ir.Value | None:
    """`emit()` where `cond` holds (always when None); the old bits, zero where it does not hold."""
    if cond is None:
        return emit()
    branch = scf.IfOp(cond, [bits_t] if returns else [], has_else=returns)
    with ir.InsertionPoint(branch.then_block):
        old = emit()
        scf.YieldOp([old] if returns else [])
    if not returns:
        return None
    with ir.InsertionPoint(branch.else_block):
        scf.YieldOp([ctx.const(0, bits_t)])
    return branch.results[0]


@lowers(T.AtomicRMWOp)
def lower_atomic_rmw(ctx: LoweringContext, op: ir.Operation) -> None:
    with op.location:
        _lower(ctx, op, op.opview.kind)


@lowers(T.AtomicCASOp)
def lower_atomic_cas(ctx: LoweringContext, op: ir.Operation) -> None:
    with op.location:
        _lower(ctx, op, "cas")
