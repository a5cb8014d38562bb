"""A checked syntax tree to tile IR, through the builder API (the front end's last step).

Each kernel becomes a `func.func` built by `builder.build_kernel` (which
emits the parameter extents and the `@aligned` entry checks). Every op carries
the `file:line:col` of the construct it comes from. Slices become
`tile.load_slice`/`tile.store_slice` (masked; proving masks away is the job
of a later pass). `var`s live in SSA form: a loop or branch that assigns a
`var` declared outside it carries it as an `scf.for`/`scf.while` iter_arg or
an `scf.if` result.

Mixed element types are made explicit here: wherever the checker let values
of one numeric type meet another (operands of arithmetic, comparisons,
`tmax`/`tmin`/`where` and `dot`, values assigned to declared variables or
stored into tensors), `lower_as` converts with arith.extf/truncf/sitofp/
fptosi/extsi/trunci/index_cast, so that the tile IR has one element type per
op.

This module trusts the checker: it runs only on programs without errors,
and anything unexpected here is a compiler bug (an exception), not a user error.
"""

from __future__ import annotations

from collections.abc import Sequence

from mlir import ir
from mlir.dialects import arith, scf, tensor

from phobos import builder as tb
from phobos.dialect import kernel as K
from phobos.dialect import load_tile_dialect
from phobos.dialect import tile as TD

from . import ast as A
from . import gathers, gathers_ir
from . import types as T
from .ast import start_pos
from .atomics import ATOMICS, is_atomic
from .atomics_ir import lower_atomic, lower_local_atomic
from .builtins import CONVERSIONS
from .exit_ir import rewrite_exits
from .local_atomics import local_access
from .math_ir import HANDLED as MATH_HANDLED
from .math_ir import lower_math
from .quantized import QUANTIZED
from .quantized_ir import lower_quantized
from .symbols import KernelInfo, Symbol

_ARITH_KIND = {"+": "add", "-": "sub", "*": "mul", "/": "div", "%": "rem"}
_ARITH_KIND.update({"&": "and", "|": "or", "^": "xor", "<<": "shl", ">>": "shr"})
_CMP_KIND = {"==": "eq", "!=": "ne", "<": "lt", "<=": "le", ">": "gt", ">=": "ge"}
_ACCUMULATE = ("dot", "dot_t")


def mlir_element(name: str) -> ir.Type:
    return tb.ScalarType(name).mlir()


def mlir_type(ty: T.Type) -> ir.Type:
    if isinstance(ty, T.Tile):
        return ir.RankedTensorType.get(list(ty.shape), mlir_element(ty.element))
    return mlir_element(ty.element)


def flip_sign(v: tb.Value, loc) -> tb.Value:
    """`v` (u8 or u32 bits) with its top bit flipped: unsigned order becomes signed order
    (x <u y exactly when flip(x) <s y's flip), so the signed max/min reductions serve."""
    width = ir.IntegerType(tb.element_type_of(v.type)).width
    return tb.binary("xor", v, tb.constant(-(1 << (width - 1)), v.type, loc=loc), loc=loc)


def _reassociation(kept: Sequence[bool]) -> list[list[int]]:
    """Groups the dims of a slice so that each kept dim absorbs the dropped
    (point) dims before it; trailing dropped dims join the last group."""
    groups: list[list[int]] = []
    pending: list[int] = []
    for axis, keep in enumerate(kept):
        pending.append(axis)
        if keep:
            groups.append(pending)
            pending = []
    if pending:
        groups[-1].extend(pending)
    return groups


def assigned_outer(stmts: Sequence[A.Stmt]) -> list[Symbol]:
    """The symbols assigned in `stmts` (at any depth) that are declared outside them, in order."""
    assigned: list[Symbol] = []
    declared = set()

    def visit(s: A.Stmt) -> None:
        if isinstance(s, A.Decl):
            declared.add(id(s.symbol))
        elif isinstance(s, A.Assign) and isinstance(s.target, A.Name):
            if s.target.symbol not in assigned:
                assigned.append(s.target.symbol)
        elif isinstance(s, A.ExprStmt) and local_access(s.expr) is not None:
            sym = local_access(s.expr).base.symbol  # an atomic on a local tile assigns it
            if sym not in assigned:
                assigned.append(sym)
        elif isinstance(s, A.For):
            declared.add(id(s.symbol))
            for inner in s.body.stmts:
                visit(inner)
        elif isinstance(s, A.While):
            for inner in s.body.stmts:
                visit(inner)
        elif isinstance(s, A.If):
            for inner in s.then.stmts:
                visit(inner)
            if isinstance(s.orelse, A.Block):
                for inner in s.orelse.stmts:
                    visit(inner)
            elif s.orelse is not None:
                visit(s.orelse)

    for s in stmts:
        visit(s)
    return [sym for sym in assigned if id(sym) not in declared]


class KernelEmitter:
    """Builds one kernel's `func.func` from its checked syntax tree."""

    def __init__(self, kernel: A.Kernel, filename: str):
        self.kernel = kernel
        self.info: KernelInfo = kernel.info
        self.filename = filename
        self.env: dict[Symbol, tb.Value] = {}

    def loc(self, pos: A.Pos) -> ir.Location:
        return ir.Location.file(pos.file or self.filename, pos.line, pos.col)

    # ------------------------------------------------------------------ kernel

    def lower(self) -> None:
        info = self.info
        params = []
        for param, sym in zip(self.kernel.params, info.params):
            if isinstance(sym.ty, T.Tensor):
                dims = [int(d) if d.isdigit() else d for d in sym.ty.dims]
                spec = tb.Tensor(tb.ScalarType(sym.ty.element), *dims, static=dict(info.bindings))
            else:
                spec = tb.ScalarType(sym.ty.element)
            params.append((param.name, spec))
        fn = tb.build_kernel(
            self.kernel.name,
            params,
            self._body,
            launch=info.launch["threads"] if info.launch else None,
            aligned=dict(info.aligned) or None,
            aligned_locs={name: self.loc(pos) for name, pos in info.aligned_at.items()},
            autotune=dict(info.space) or None,
            bindings=dict(info.bindings) or None,
            pipeline=(info.pipeline_depth or True) if "pipeline" in info.flags else False,
            tensorcore="tensorcore" in info.flags,
            persistent="persistent" in info.flags,
            assert_coalesced="assert_coalesced" in info.flags,
            fastmath="fastmath" in info.flags,
            checked="checked" in info.flags,  # @checked: what tile-check-overlap warns about is an error
            loc=self.loc(self.kernel.pos),
            arg_locs=[self.loc(p.pos) for p in self.kernel.params],
        )
        i64 = ir.IntegerType.get_signless(64)
        if info.launch and len(info.launch) > 1:
            fn.attributes[K.LAUNCH] = ir.DictAttr.get({k: ir.IntegerAttr.get(i64, v) for k, v in info.launch.items()})
        if info.extent_blocks:  # a runtime K's Q8_0 scales: checked at the launch
            fn.attributes[K.EXTENT_BLOCKS] = ir.DictAttr.get(
                {
                    s: ir.DictAttr.get({"of": ir.StringAttr.get(of), "block": ir.IntegerAttr.get(i64, b)})
                    for s, (of, b) in sorted(info.extent_blocks.items())
                }
            )

    def _body(self, *args, extents):
        for sym, arg in zip(self.info.params, args):
            self.env[sym] = arg
        for name, sym in self.info.dims.items():
            if sym.const is None:
                self.env[sym] = extents[name]
        self.lower_block(rewrite_exits(self.kernel))  # break, continue, return as flags (exit_ir.py)

    # ------------------------------------------------------------------ statements

    def lower_block(self, block: A.Block) -> None:
        for s in block.stmts:
            self.lower_stmt(s)

    def lower_stmt(self, s: A.Stmt) -> None:
        if isinstance(s, A.Decl):
            ty = s.symbol.ty
            self.env[s.symbol] = self.coerce(self.lower_as(s.value, ty), ty, s.value.pos)
        elif isinstance(s, A.Assign):
            if isinstance(s.target, (A.Index, A.Call)):
                self.lower_store(s)
            else:
                self.lower_assign(s)
        elif isinstance(s, A.For):
            self.lower_for(s)
        elif isinstance(s, A.While):
            self.lower_while(s)
        elif isinstance(s, A.If):
            self.lower_if(s)
        elif isinstance(s, A.ExprStmt) and local_access(s.expr) is not None:
            lower_local_atomic(self, s.expr)
        elif isinstance(s, A.ExprStmt) and is_atomic(s.expr):
            lower_atomic(self, s.expr, unused=True)
        elif isinstance(s, A.ExprStmt):
            self.lower_expr(s.expr)
        else:
            raise AssertionError(type(s).__name__)

    def lower_assign(self, s: A.Assign) -> None:
        sym = s.target.symbol
        value = s.value
        if s.op == "+=" and accumulates_into(value, sym.ty):
            # acc += dot(a, b) accumulates in the dot itself, in the accumulator's type.
            new = self.lower_dot(value, acc=self.env[sym])
        elif s.combined is not None:
            new = self.lower_as(s.combined, sym.ty)
        else:
            new = self.lower_as(value, sym.ty)
        self.env[sym] = self.coerce(new, sym.ty, value.pos)

    def coerce(self, v: tb.Value, ty: T.Type, pos: A.Pos) -> tb.Value:
        """Broadcasts `v` to a tile type (scalars splat, extent-1 dims expand)."""
        if isinstance(ty, T.Tile) and v.shape != list(ty.shape):
            return tb.broadcast_to(v, list(ty.shape), loc=self.loc(pos))
        return v

    def to_index(self, v: tb.Value, pos: A.Pos) -> ir.Value:
        value = v.value
        if not isinstance(value.type, ir.IndexType):
            value = arith.IndexCastOp(ir.IndexType.get(), value, loc=self.loc(pos)).result
        return value

    def lower_for(self, s: A.For) -> None:
        carried = assigned_outer(s.body.stmts)
        loc = self.loc(s.pos)
        bounds = [self.to_index(self.lower_as(b, T.INDEX), b.pos) for b in (s.start, s.stop)]
        step = (
            self.to_index(self.lower_as(s.step, T.INDEX), s.step.pos)
            if s.step is not None
            else arith.ConstantOp(ir.IndexType.get(), 1, loc=loc).result
        )
        loop = scf.ForOp(bounds[0], bounds[1], step, [self.env[c].value for c in carried], loc=loc)
        saved = dict(self.env)
        with ir.InsertionPoint(loop.body):
            self.env[s.symbol] = tb.Value(loop.induction_variable)
            self._bind(carried, loop.inner_iter_args)
            self.lower_block(s.body)
            scf.YieldOp([self.env[c].value for c in carried], loc=loc)
        self.env = saved
        self._bind(carried, loop.results)

    def _bind(self, symbols, values) -> None:
        """Names the loop-carried or yielded `values` after their variables."""
        for sym, value in zip(symbols, values):
            self.env[sym] = tb.Value(value)

    def lower_while(self, s: A.While) -> None:
        carried = assigned_outer(s.body.stmts)
        loc = self.loc(s.pos)
        types = [self.env[c].type for c in carried]
        loop = scf.WhileOp(types, [self.env[c].value for c in carried], loc=loc)
        saved = dict(self.env)
        before = loop.before.blocks.append(*types, arg_locs=[loc] * len(types))
        with ir.InsertionPoint(before):
            self._bind(carried, before.arguments)
            cond = self.lower_expr(s.cond)
            scf.ConditionOp(cond.value, list(before.arguments), loc=loc)
        self.env = dict(saved)
        after = loop.after.blocks.append(*types, arg_locs=[loc] * len(types))
        with ir.InsertionPoint(after):
            self._bind(carried, after.arguments)
            self.lower_block(s.body)
            scf.YieldOp([self.env[c].value for c in carried], loc=loc)
        self.env = saved
        self._bind(carried, loop.results)

    def lower_if(self, s: A.If) -> None:
        else_stmts = s.orelse.stmts if isinstance(s.orelse, A.Block) else ([s.orelse] if s.orelse else [])
        carried = assigned_outer(s.then.stmts)
        for sym in assigned_outer(else_stmts):
            if sym not in carried:
                carried.append(sym)
        loc = self.loc(s.pos)
        cond = self.lower_expr(s.cond)
        has_else = bool(carried) or s.orelse is not None
        op = scf.IfOp(cond.value, [self.env[c].type for c in carried], has_else=has_else, loc=loc)
        saved = dict(self.env)
        for block, stmts in ((op.then_block, s.then.stmts), (op.else_block if has_else else None, else_stmts)):
            if block is None:
                continue
            with ir.InsertionPoint(block):
                for stmt in stmts:
                    self.lower_stmt(stmt)
                scf.YieldOp([self.env[c].value for c in carried], loc=loc)
            self.env = dict(saved)
        self._bind(carried, op.results)

    # ------------------------------------------------------------------ slices

    def slice_starts(self, idx: A.Index) -> list[ir.Value]:
        starts = []
        for sub in idx.subscripts:
            if sub.kind == "full":
                starts.append(arith.ConstantOp(ir.IndexType.get(), 0, loc=self.loc(sub.pos)).result)
            else:
                starts.append(self.to_index(self.lower_as(sub.start, T.INDEX), sub.start.pos))
        return starts

    def load_slice(self, idx: A.Index, starts: list[ir.Value] | None = None, padding=None) -> tb.Value:
        if gathers.is_gather(idx):
            return gathers_ir.load(self, idx, padding=padding)
        loc = self.loc(idx.pos)
        starts = starts if starts is not None else self.slice_starts(idx)
        full = [sub.length for sub in idx.subscripts]
        kept = [sub.kind != "point" for sub in idx.subscripts]
        tile = tb.load_slice(self.env[idx.base.symbol], starts, full, padding=padding, loc=loc)
        if all(kept):
            return tile
        if not any(kept):
            zero = arith.ConstantOp(ir.IndexType.get(), 0, loc=loc).result
            return tb.Value(tensor.ExtractOp(tile.value, [zero] * len(full), loc=loc).result)
        result_type = mlir_type(idx.ty)
        return tb.Value(tensor.CollapseShapeOp(result_type, tile.value, _reassociation(kept), loc=loc).result)

    def lower_store(self, s: A.Assign) -> None:
        idx, mask = gathers.unwrap_masked(s.target)
        scatter = mask is not None or gathers.is_gather(idx)
        loc = self.loc(idx.pos)
        starts = None if scatter else self.slice_starts(idx)
        target_ty = idx.ty
        if s.combined is not None:
            combined = s.combined
            operand_ty = T.with_element(combined.ty, combined.operand_element)
            old = gathers_ir.load(self, idx, mask) if scatter else self.load_slice(idx, starts)
            old = self.convert(old, target_ty.element, combined.operand_element, loc)
            rhs = self.lower_as(s.value, operand_ty)
            unsigned = T.is_unsigned(combined.operand_element)
            value = tb.binary(_ARITH_KIND[combined.op], old, rhs, loc=self.loc(combined.pos), unsigned=unsigned)
            value = self.convert(value, combined.operand_element, target_ty.element, loc)
        else:
            value = self.lower_as(s.value, target_ty)
        if scatter:
            gathers_ir.store(self, idx, value, mask)
            return
        full = [sub.length for sub in idx.subscripts]
        kept = [sub.kind != "point" for sub in idx.subscripts]
        if not isinstance(value.type, ir.RankedTensorType):
            tile = tb.full(full, value, loc=loc)
        else:
            kept_shape = [n for n, k in zip(full, kept) if k]
            tile = tb.broadcast_to(value, kept_shape, loc=loc)
            if not all(kept):
                full_type = ir.RankedTensorType.get(full, tile.element_type)
                tile = tb.Value(
                    tensor.ExpandShapeOp(full_type, tile.value, _reassociation(kept), [], full, loc=loc).result
                )
        tb.store_slice(self.env[idx.base.symbol], starts, tile, loc=loc)

    # ------------------------------------------------------------------ expressions

    def lower_as(self, e: A.Expr, ty: T.Type) -> tb.Value:
        """Lowers `e` where a value of element type `ty.element` is wanted: an
        untyped constant becomes a constant of that type (a dense tile constant
        when `ty` is a tile), and so does a typed scalar constant whose value the
        type holds exactly; any other value of another numeric type is converted."""
        if isinstance(e.ty, T.Scalar) and T.is_untyped(e.ty.element):
            elem = T.default_element(ty.element) if ty is not None else T.default_element(e.ty.element)
            target = T.with_element(ty, elem) if isinstance(ty, T.Tile) else T.Scalar(elem)
            return tb.constant(e.const, mlir_type(target), loc=self.loc(e.pos))
        if ty is None or not T.is_value(e.ty):
            return self.lower_expr(e)
        src, dst = e.ty.element, T.default_element(ty.element)
        if src == dst or src == "bool" or dst == "bool":
            return self.lower_expr(e)
        if isinstance(e.ty, T.Scalar) and e.const is not None and T.exactly(e.const, dst):
            value = float(e.const) if T.is_float(dst) else int(e.const)
            return tb.constant(value, mlir_element(dst), loc=self.loc(e.pos))
        return self.convert(self.lower_expr(e), src, dst, self.loc(e.pos))

    def lower_expr(self, e: A.Expr) -> tb.Value:
        ty = e.ty
        loc = self.loc(e.pos)
        if isinstance(ty, T.Scalar) and e.const is not None:
            elem = T.default_element(ty.element)
            return tb.constant(e.const, mlir_element(elem), loc=loc)
        if isinstance(e, A.Name):
            return self.env[e.symbol]
        if isinstance(e, A.Member):
            # Located at `ctx`, the start of `ctx.block.x`.
            return self.grid_query(e.grid_query, self.loc(start_pos(e)))
        if isinstance(e, A.Unary):
            v = self.lower_expr(e.operand)
            if e.op == "-":
                return tb.negate(v, loc=loc)
            if e.op == "~":
                return tb.binary("xor", v, tb.constant(-1, mlir_type(e.ty), loc=loc), loc=loc)
            return tb.binary("xor", v, tb.constant(True, mlir_type(e.operand.ty), loc=loc), loc=loc)
        if isinstance(e, A.Binary):
            fused = dot_plus(e)
            if fused is not None:
                # x + dot(a, b) accumulates in the dot itself, starting from x.
                dot, addend = fused
                return self.lower_dot(dot, acc=self.lower_expr(addend))
            operand_ty = T.with_element(ty, e.operand_element)
            a = self.lower_as(e.lhs, operand_ty)
            b = self.lower_as(e.rhs, operand_ty)
            unsigned = T.is_unsigned(e.operand_element)
            if e.op in _ARITH_KIND:
                return tb.binary(_ARITH_KIND[e.op], a, b, loc=loc, unsigned=unsigned)
            if e.op in _CMP_KIND:
                return tb.compare(_CMP_KIND[e.op], a, b, loc=loc, unsigned=unsigned)
            return tb.binary("and" if e.op == "&&" else "or", a, b, loc=loc)
        if isinstance(e, A.Call):
            return self.lower_call(e)
        if isinstance(e, A.Index):
            return self.load_slice(e)
        raise AssertionError(type(e).__name__)

    def grid_query(self, query, loc) -> tb.Value:
        kind, dim = query
        return tb.block_id(dim, loc=loc) if kind == "block" else tb.grid_dim(dim, loc=loc)

    # ------------------------------------------------------------------ builtins

    def lower_dot(self, e: A.Call, acc: tb.Value | None = None) -> tb.Value:
        loc = self.loc(e.pos)
        # Operands of different types are converted to the type they meet at.
        operand = e.operand_element
        a = self.lower_as(e.args[0], T.Scalar(operand))
        b = self.lower_as(e.args[1], T.Scalar(operand))
        if e.builtin == "dot_t" and T.is_fp8(operand):  # the builder moves no fp8 between threads
            b = tb.Value(TD.TransposeOp(b.value, (1, 0), loc=loc).result)
        elif e.builtin == "dot_t":
            b = tb.transpose(b, (1, 0), loc=loc)
        if acc is None:
            acc = tb.constant(0, mlir_type(e.ty), loc=loc)
        unsigned = T.is_unsigned(operand)  # u8 x u8: the IR's i8 operands, multiplied unsigned
        return tb.Value(TD.DotOp(a.value, b.value, acc.value, unsigned=unsigned, loc=loc).result)

    def lower_call(self, e: A.Call) -> tb.Value:
        name = e.builtin
        loc = self.loc(e.pos)
        if e.function is not None:
            from .functions_ir import lower_function_call

            return lower_function_call(self, e, loc)
        if name in _ACCUMULATE:
            return self.lower_dot(e)
        if name in QUANTIZED:
            return lower_quantized(self, e, loc)
        if name == "program_id":
            return self.grid_query(e.grid_query, loc)
        if name == "arange":
            return tb.arange(0, e.extent, loc=loc)
        if name == "barrier":
            tb.barrier(loc=loc)
            return None
        if name == "grid_barrier":
            TD.GridBarrierOp(loc=loc)
            return None
        if name in MATH_HANDLED:
            return lower_math(self, e, loc)
        if name in ("exp", "log", "sqrt", "tanh", "abs"):
            return tb.unary_math(name, self.lower_as(e.args[0], e.ty), loc=loc)
        if name in ("tmax", "tmin", "where"):
            operand_ty = T.with_element(e.ty, e.operand_element)
            *cond, a, b = e.args
            a, b = self.lower_as(a, operand_ty), self.lower_as(b, operand_ty)
            if name == "where":
                return tb.where(self.lower_expr(cond[0]), a, b, loc=loc)
            unsigned = T.is_unsigned(e.operand_element)
            return (tb.maximum if name == "tmax" else tb.minimum)(a, b, loc=loc, unsigned=unsigned)
        if name == "padded":
            source = e.args[0]
            if isinstance(source, A.Call):  # padded(masked(X[...], m), v): v where masked off too
                return gathers_ir.load(self, source.args[0], source.args[1], padding=e.padding)
            return self.load_slice(source, padding=e.padding)
        if name in ATOMICS:
            return lower_atomic(self, e, unused=False)
        if name == "masked":
            return gathers_ir.load(self, e.args[0], e.args[1])
        if name in CONVERSIONS:
            return self.convert(self.lower_expr(e.args[0]), e.args[0].ty.element, name, loc)
        v = self.lower_expr(e.args[0])
        rank = len(v.shape)
        flip = name in ("max", "min", "rowmax", "rowmin") and T.is_unsigned(T.element(e.args[0].ty))
        if flip:  # unsigned order is signed order with the sign bit flipped: reduce, flip back
            return flip_sign(self.lower_tile_builtin(e, flip_sign(v, loc), rank, loc), loc)
        return self.lower_tile_builtin(e, v, rank, loc)

    def lower_tile_builtin(self, e: A.Call, v: tb.Value, rank: int, loc) -> tb.Value:
        """Reductions, transpose, cumsum and tril of the tile `v` (of rank `rank`), call `e`'s argument."""
        name = e.builtin
        if name in ("sum", "max", "min"):
            axis = getattr(e, "axis", None)
            if axis is not None:
                return tb.reduce(v, name, axis, loc=loc)
            while isinstance(v.type, ir.RankedTensorType):
                v = tb.reduce(v, name, len(v.shape) - 1, loc=loc)
            return v
        if name in ("rowsum", "rowmax", "rowmin"):
            r = tb.reduce(v, name[3:], rank - 1, loc=loc)
            if rank == 1:
                return tb.full([1], r, loc=loc)
            return tb.expand_dims(r, rank - 1, loc=loc)
        if name == "transpose":
            return tb.transpose(v, (1, 0), loc=loc)
        if name == "cumsum":
            return tb.scan(v, "sum", e.axis, loc=loc)
        if name == "tril":
            return self.tril(v, loc)
        raise AssertionError(name)

    def tril(self, v: tb.Value, loc) -> tb.Value:
        """Keeps x[i, j] for j <= i and zeroes the rest: ranges, compare, select."""
        rows, cols = v.shape
        r = tb.broadcast_to(tb.expand_dims(tb.arange(0, rows, loc=loc), 1, loc=loc), [rows, cols], loc=loc)
        c = tb.broadcast_to(tb.expand_dims(tb.arange(0, cols, loc=loc), 0, loc=loc), [rows, cols], loc=loc)
        keep = tb.compare("ge", r, c, loc=loc)
        return tb.where(keep, v, tb.constant(0, v.type, loc=loc), loc=loc)

    def convert(self, v: tb.Value, src: str, dst: str, loc) -> tb.Value:
        """`v`, of element type `src`, converted to `dst` by the rules the builder shares (phobos.builder.convert)."""
        if src == dst:
            return v
        return tb.convert(v, dst, loc=loc, src_unsigned=T.is_unsigned(src))


def accumulates_into(value: A.Expr, target: T.Type) -> bool:
    """Whether `target += value` is one tile.dot accumulating in `target`: a
    dot whose result has the accumulator's shape and whose accumulator kind
    (float or integer) matches; the accumulator's type is the one it keeps."""
    return (
        isinstance(value, A.Call)
        and value.builtin in _ACCUMULATE
        and isinstance(target, T.Tile)
        and isinstance(value.ty, T.Tile)
        and value.ty.shape == target.shape
        and T.is_float(value.ty.element) == T.is_float(target.element)
    )


def dot_plus(e: A.Binary) -> tuple[A.Call, A.Expr] | None:
    """(dot, x) when `e` is `x + dot(a, b)` or `dot(a, b) + x` with x of exactly
    the dot's result type: one tile.dot that starts from x, as `acc += dot(a, b)`
    does, rather than a dot from zero and a separate addition."""
    if e.op != "+":
        return None
    for dot, other in ((e.rhs, e.lhs), (e.lhs, e.rhs)):
        if (
            isinstance(dot, A.Call)
            and dot.builtin in _ACCUMULATE
            and isinstance(dot.ty, T.Tile)
            and dot.ty == e.ty
            and other.ty == e.ty
        ):
            return dot, other
    return None


def emit_program(program: A.Program, filename: str, context: ir.Context) -> ir.Module:
    """Builds the tile IR module of a checked program in `context`."""
    load_tile_dialect(context)
    with context, ir.Location.unknown(context):
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            from .functions_ir import emit_instances

            emit_instances(program, filename)  # func.func private @name.<types>, called by func.call
            for kernel in program.kernels:
                KernelEmitter(kernel, filename).lower()
    return module
