"""Block-quantized contractions: `qdot_t(a, a_scales, w, w_scales)` and `qmma_t(...)`.

The original Phobos's Q8_0 contractions (its SPEC.md, "Quantized contraction"):
`[M, K] i8 x [N, K] i8 -> [M, N] f32` with one f32 scale per 32-element block of K,

    out[i, j] = sum_b (sum_{k in block b} a[i, k] * w[j, k]) * a_scales[i, b] * w_scales[j, b]

`a_scales` is `[M, K/32]`; `w_scales` is `[N, K/32]` for `qdot_t` and `[K/32, N]` for
`qmma_t` (whose M and N must be multiples of 8). Every argument is a rank-2 slice of a
tensor parameter. Along K, a slice may be `:` over a runtime extent, since K is never
a tile: the contraction walks it 32 elements at a time (quantized_ir.py).

Rules checked here (`QuantizedChecks`, a mixin of the Checker; every error is located):
- `a`, `w` slices of i8 tensors, the scales of f32 ones; no gathers, no single elements.
- The row extents agree: `a` with `a_scales`, `w` with `w_scales`.
- `a` and `w` have the same K extent: equal constants, or both `:` over one dimension.
- A K slice `k :+ L` (or `a : b`) is a whole number of 32-element blocks, so no block
  straddles its end; `:` takes the whole dimension, and a last partial block there
  reads zeros past the tensor's end, as any slice does (a Triton-style ragged edge).
- With both extents known, a scale slice holds ceil(K / 32) blocks. With both runtime (`:`
  over dimension symbols), the kernel records that the scales' symbol is ceil(K / 32) of
  K's (KernelInfo.extent_blocks, `tile.extent_blocks`): the launch refuses other extents,
  naming the parameter. A scale slice of another runtime form is not checked: a scale past
  the scale tensor's end reads zero (as any slice).
"""

from __future__ import annotations

from dataclasses import dataclass

from . import ast as A
from . import types as T
from .ast import start_pos

QUANTIZED = ("qdot_t", "qmma_t")
BLOCK = 32  # Q8_0: elements of K per scale
_ROLES = ("a", "a_scales", "w", "w_scales")


@dataclass
class Operand:
    """One checked argument: the slice, its tensor, and its extents along the
    output axis (`rows`) and the contraction axis (`depth`, None when runtime)."""

    role: str
    arg: A.Index
    tensor: T.Tensor
    k_axis: int
    rows: int
    depth: int | None

    @property
    def k_sub(self) -> A.Subscript:
        return self.arg.subscripts[self.k_axis]

    @property
    def row_sub(self) -> A.Subscript:
        return self.arg.subscripts[1 - self.k_axis]


@dataclass
class Quantized:
    """What the lowering needs: the four operands and the output's shape."""

    name: str
    operands: list[Operand]
    shape: tuple[int, int]

    @property
    def depth_dim(self) -> str:
        """The tensor dimension that a runtime K runs over (`a`'s)."""
        a = self.operands[0]
        return a.tensor.dims[a.k_axis]


def k_axis(name: str, role: str) -> int:
    return 0 if (name, role) == ("qmma_t", "w_scales") else 1


class QuantizedChecks:
    """Checks `qdot_t` and `qmma_t` (uses the Checker's `error`, `value`, `check_expr`,
    `subscript`, `tile_type`, `arity`, `check_keywords_allowed`)."""

    def call_quantized(self, e: A.Call, name: str) -> T.Type:
        if not self.check_keywords_allowed(e) or not self.arity(e, name, e.args, 4):
            return T.ERROR  # the arguments unchecked: a `:` over K would only add noise
        ops = [self.quantized_operand(name, role, arg) for role, arg in zip(_ROLES, e.args)]
        if any(op is None for op in ops):
            return T.ERROR
        shape = self.quantized_shapes(e, name, ops)
        if shape is None:
            return T.ERROR
        ty = self.tile_type("f32", shape, e.pos)
        if ty != T.ERROR:
            e.quantized = Quantized(name, ops, shape)
        return ty

    def quantized_operand(self, name: str, role: str, arg: A.Expr) -> Operand | None:
        """Checks one argument: a rank-2 slice of a tensor of the role's element type."""
        elem = "i8" if role in ("a", "w") else "f32"
        shape = "[rows, K]" if role in ("a", "w") else ("[K/32, N]" if k_axis(name, role) == 0 else "[rows, K/32]")
        want = f"the {role} of '{name}' must be a slice of a tensor<{elem}> parameter, {shape}"
        if not isinstance(arg, A.Index):
            self.check_expr(arg)
            return self.error_none(start_pos(arg), f"{want}, such as 'X[r :+ 8, :]'")
        tensor = self.check_indexed(arg)
        if tensor == T.ERROR:
            return None
        if not isinstance(tensor, T.Tensor) or tensor.rank != 2 or len(arg.subscripts) != 2:
            n = len(arg.subscripts)
            return self.error_none(start_pos(arg), f"{want}; got {tensor} with {n} subscript{'s' * (n != 1)}")
        if tensor.element != elem:
            return self.error_none(start_pos(arg), f"{want}; '{arg.base.name}' is {tensor}")
        if any(sub.kind == "point" or isinstance(getattr(sub.start, "ty", None), T.Tile) for sub in arg.subscripts):
            return self.error_none(arg.pos, f"{want}: a span, range or ':' in both dimensions (no index, no gather)")
        axis = k_axis(name, role)
        rows = self.subscript(arg.subscripts[1 - axis], tensor, arg.base.name, 1 - axis)
        depth = self.quantized_depth(arg.subscripts[axis], tensor, arg.base.name, axis)
        if rows is None or depth is False:
            return None
        arg.subscripts[1 - axis].length = rows
        arg.subscripts[axis].length = depth
        arg.ty = T.VOID  # an operand of the call, never a tile of its own
        return Operand(role, arg, tensor, axis, rows, depth)

    def quantized_depth(self, sub: A.Subscript, tensor: T.Tensor, name: str, axis: int) -> int | None | bool:
        """The extent along K: a constant, None for `:` over a runtime extent, False after an error."""
        if sub.kind == "full" and tensor.static[axis] is None:
            return None
        length = self.subscript(sub, tensor, name, axis)
        return False if length is None else length

    def record_scale_blocks(self, a: Operand, scales: tuple[Operand, ...]) -> None:
        """A runtime K: each scale slice that is `:` over a dimension symbol makes that symbol
        ceil(K / 32), checked at the launch."""
        k_symbol = a.tensor.dims[a.k_axis]
        for op in scales:
            symbol = op.tensor.dims[op.k_axis]
            if op.depth is None and op.k_sub.kind == "full" and symbol != k_symbol:
                self.info.extent_blocks[symbol] = (k_symbol, BLOCK)

    def error_none(self, pos: A.Pos, message: str) -> None:
        self.error(pos, message)
        return None

    def quantized_shapes(self, e: A.Call, name: str, ops: list[Operand]) -> tuple[int, int] | None:
        """The output shape once the operands agree (rows, K, blocks), else None after errors."""
        a, a_s, w, w_s = ops
        ok = True
        for data, scales in ((a, a_s), (w, w_s)):
            if data.rows != scales.rows:
                self.error(
                    scales.row_sub.pos,
                    f"the {scales.role} of '{name}' cover {scales.rows} rows of its output, "
                    f"but {data.role} has {data.rows}",
                )
                ok = False
        ok = self.quantized_depths(name, ops) and ok
        if name == "qmma_t":
            for op in (a, w):
                if op.rows % 8:
                    self.error(
                        op.row_sub.pos,
                        f"'qmma_t' needs M and N multiples of 8; the {op.role} slice has {op.rows} rows "
                        "(use qdot_t, which takes any)",
                    )
                    ok = False
        return (a.rows, w.rows) if ok else None

    def quantized_depths(self, name: str, ops: list[Operand]) -> bool:
        """K agrees between `a` and `w`, is whole blocks where sliced, and fits the scales."""
        a, a_s, w, w_s = ops
        if a.depth != w.depth or (a.depth is None and a.tensor.dims[1] != w.tensor.dims[1]):
            what = [
                str(op.depth) if op.depth is not None else f"the runtime extent '{op.tensor.dims[1]}'" for op in (a, w)
            ]
            self.error(
                w.k_sub.pos,
                f"the K extents of '{name}' do not agree: a has {what[0]}, w has {what[1]} "
                "(both the same constant, or both ':' over one dimension)",
            )
            return False
        for op in (a, w):
            if op.k_sub.kind != "full" and op.depth % BLOCK:
                self.error(
                    op.k_sub.end.pos if op.k_sub.kind == "span" else op.k_sub.pos,
                    f"a K slice of '{name}' must be a whole number of {BLOCK}-element Q8_0 blocks; "
                    f"the {op.role} slice has {op.depth} elements",
                )
                return False
        if a.depth is None:
            self.record_scale_blocks(a, (a_s, w_s))
            return True
        blocks = -(-a.depth // BLOCK)
        ok = True
        for op in (a_s, w_s):
            if op.depth is not None and op.depth != blocks:
                self.error(
                    op.k_sub.pos,
                    f"the {op.role} of '{name}' hold {op.depth} blocks along K, but K = {a.depth} "
                    f"is {blocks} blocks of {BLOCK}",
                )
                ok = False
        return ok
