"""Soundness of the axis-info analysis, checked on numbers.

Hypothesis builds random integer programs from the ops the analysis knows
(arith, casts, cmpi/select, splat/broadcast/expand/collapse/transpose, hints,
scf.if, scf.for with loop-carried values), from leaves whose concrete values
are drawn to satisfy their entry facts (aligned extents, specialised
arguments, block ids, hints). Each program is evaluated with exact integer
semantics (C-style truncating divsi/remsi, unsigned ops on the two's
complement bits, i1 as 0/1) and every fact the analysis claims about every
value is checked against the numbers. An op whose evaluation would be
undefined or overflow (the analysis assumes no overflow, as Triton does) is
left out of the program rather than rejecting the example.

The cases that broke Triton are drawn on purpose: remainders by non-constant
divisors and by tiles, negative dividends (triton issue 11544: rem may claim
divisibility only for the first element of each run).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mlir import ir
from mlir.dialects import arith, func, memref, scf, tensor

from phobos.analysis.axis_info import AxisInfoAnalysis
from phobos.dialect import make_context
from phobos.dialect import tile as T

MAX_EXAMPLES = 3000
LOOP_EXAMPLES = 1000
SETTINGS = dict(
    deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)

SHAPES = [(8,), (16,), (6,), (12,), (4, 8), (2, 6), (8, 2), (1, 8)]
INTERESTING = [0, 1, -1, 2, 3, -3, 4, -4, 5, 8, -8, 12, 16, -16, 48, 64, 96, 128, -128, 7, 1024]
BINARY = [
    "addi",
    "subi",
    "muli",
    "divsi",
    "divui",
    "remsi",
    "remui",
    "shli",
    "shrsi",
    "shrui",
    "andi",
    "ori",
    "xori",
    "minsi",
    "maxsi",
    "minui",
    "maxui",
]
PREDICATES = ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"]
# Index arithmetic first: that is where kernels live and where Triton broke.
WEIGHTED_BINARY = BINARY + ["addi", "addi", "subi", "subi", "muli", "divsi", "remsi", "remsi", "remui"]


class Undefined(Exception):
    """The op would be undefined (or overflow) on these numbers."""


# ----------------------------------------------------------------------------- claims


def _lines(values: np.ndarray, d: int) -> np.ndarray:
    return np.moveaxis(values, d, -1).reshape(-1, values.shape[d])


def violated_claim(info, values: np.ndarray) -> str | None:
    """The first claim of `info` that `values` (of the value's shape) contradicts."""
    flat = values.reshape(-1)
    if info.constant is not None and any(v != info.constant for v in flat):
        return f"constant = {info.constant}"
    if info.non_negative and any(v < 0 for v in flat):
        return "non_negative"
    for d in range(values.ndim):
        n = values.shape[d]
        lines = _lines(values, d)
        c, dv, k = info.contiguity[d], info.divisibility[d], info.constancy[d]
        if n % c or n % k:
            return f"groups of dim {d} are not whole (C={c}, K={k}, extent {n})"
        for line in lines:
            for g in range(0, n, c):
                if any(line[g + j] != line[g] + j for j in range(c)):
                    return f"contiguity[{d}] = {c}"
                if line[g] % dv:
                    return f"divisibility[{d}] = {dv}"
            for g in range(0, n, k):
                if any(line[g + j] != line[g] for j in range(k)):
                    return f"constancy[{d}] = {k}"
    return None


def true_facts(values: np.ndarray, d: int) -> tuple[int, int]:
    """(largest whole contiguity, largest whole constancy) along d."""
    n = values.shape[d]
    lines = _lines(values, d)

    def largest(ok):
        size = n & -n
        while size > 1 and not ok(size):
            size //= 2
        return size

    c = largest(lambda s: all(line[g + j] == line[g] + j for line in lines for g in range(0, n, s) for j in range(s)))
    k = largest(lambda s: all(line[g + j] == line[g] for line in lines for g in range(0, n, s) for j in range(s)))
    return c, k


def base_divisibility(values: np.ndarray, d: int, group: int) -> int:
    """The largest power of two (up to 2^20) dividing every element at a multiple of `group` along d."""
    lines = _lines(values, d)
    best = 1 << 20
    for line in lines:
        for g in range(0, values.shape[d], group):
            while line[g] % best:
                best //= 2
    return best


# ----------------------------------------------------------------------------- semantics


def _signed(x: int, width: int) -> int:
    if width == 1:
        return x & 1
    half = 1 << (width - 1)
    return ((x + half) % (1 << width)) - half


def _u(x: int, width: int) -> int:
    return x % (1 << width)


def _fits(x: int, width: int) -> int:
    if width > 1 and not -(1 << (width - 1)) <= x < (1 << (width - 1)):
        raise Undefined("overflow")
    return x


def _nonzero(b: int) -> int:
    if b == 0:
        raise Undefined("division by zero")
    return b


def _tdiv(a: int, b: int) -> int:
    q = abs(a) // abs(_nonzero(b))
    return q if (a >= 0) == (b >= 0) else -q


def _shift(b: int, width: int) -> int:
    if not 0 <= b < width:
        raise Undefined("shift out of range")
    return b


def binary_semantics(op: str, width: int) -> Callable[[int, int], int]:
    w = width
    table = {
        "addi": lambda a, b: _fits(a + b, w),
        "subi": lambda a, b: _fits(a - b, w),
        "muli": lambda a, b: _fits(a * b, w),
        "divsi": lambda a, b: _fits(_tdiv(a, b), w),
        "divui": lambda a, b: _signed(_u(a, w) // _u(_nonzero(b), w), w),
        "remsi": lambda a, b: a - b * _tdiv(a, b),
        "remui": lambda a, b: _signed(_u(a, w) % _u(_nonzero(b), w), w),
        "shli": lambda a, b: _fits(a << _shift(b, w), w),
        "shrsi": lambda a, b: a >> _shift(b, w),
        "shrui": lambda a, b: _signed(_u(a, w) >> _shift(b, w), w),
        "andi": lambda a, b: _signed(a & b, w),
        "ori": lambda a, b: _signed(a | b, w),
        "xori": lambda a, b: _signed(a ^ b, w),
        "minsi": min,
        "maxsi": max,
        "minui": lambda a, b: a if _u(a, w) <= _u(b, w) else b,
        "maxui": lambda a, b: a if _u(a, w) >= _u(b, w) else b,
    }
    return table[op]


def compare(pred: str, a: int, b: int, width: int) -> int:
    if pred[0] == "u":
        a, b = _u(a, width), _u(b, width)
    return int(
        {
            "eq": a == b,
            "ne": a != b,
            "slt": a < b,
            "sle": a <= b,
            "sgt": a > b,
            "sge": a >= b,
            "ult": a < b,
            "ule": a <= b,
            "ugt": a > b,
            "uge": a >= b,
        }[pred]
    )


def elementwise(fn, *arrays) -> np.ndarray:
    shape = arrays[0].shape
    flat = [a.reshape(-1) for a in arrays]
    out = [fn(*xs) for xs in zip(*flat)]
    return np.array(out, dtype=object).reshape(shape)


# ----------------------------------------------------------------------------- programs

Lookup = Callable[[int], np.ndarray]


@dataclass
class Node:
    """One value: how to compute its numbers from its operands' (`compute`),
    how to build it (`build(program) -> ir.Value`), and its numbers at the
    program's entry (`values`)."""

    shape: tuple[int, ...]  # (1,) for a scalar
    scalar: bool
    width: int  # 64, 32 or 1
    compute: Callable[[Lookup], np.ndarray]
    build: Callable[[Program], ir.Value]
    what: str
    values: np.ndarray | None = None


def _ty(node_shape, scalar, width):
    element = ir.IntegerType.get_signless(width)
    return element if scalar else ir.RankedTensorType.get(list(node_shape), element)


def _fixed(values: np.ndarray) -> Callable[[Lookup], np.ndarray]:
    return lambda get: values


@dataclass
class Program:
    shape: tuple[int, ...]
    allow_hints: bool = True
    nodes: list[Node] = field(default_factory=list)
    scalar_args: list[tuple[int, int]] = field(default_factory=list)  # (divisibility, value)
    extents: dict[str, int] = field(default_factory=dict)
    built: dict[int, ir.Value] = field(default_factory=dict)
    args: list[ir.Value] = field(default_factory=list)

    def value(self, i: int) -> ir.Value:
        if i not in self.built:
            self.built[i] = self.nodes[i].build(self)
        return self.built[i]

    def add(self, node: Node) -> int:
        """Adds `node`, computing its entry values (raises Undefined)."""
        node.values = node.compute(lambda k: self.nodes[k].values)
        self.nodes.append(node)
        return len(self.nodes) - 1

    def matching(self, shape, scalar, width) -> list[int]:
        return [i for i, n in enumerate(self.nodes) if n.shape == shape and n.scalar == scalar and n.width == width]


def const_value(v: int, node_shape, scalar, width):
    t = _ty(node_shape, scalar, width)
    attr = ir.IntegerAttr.get(ir.IntegerType.get_signless(width), v)
    if not scalar:
        attr = ir.DenseElementsAttr.get_splat(t, attr)
    return arith.ConstantOp(t, attr).result


def add_constant(p: Program, v: int, s, scalar: bool, width: int) -> int:
    return p.add(
        Node(
            s,
            scalar,
            width,
            _fixed(np.full(s, v, dtype=object)),
            lambda p: const_value(v, s, scalar, width),
            f"const {v}",
        )
    )


def draw_leaf(data, p: Program) -> None:
    shape = p.shape
    kind = data.draw(
        st.sampled_from(
            ["const", "splat_const", "dense", "arg", "block_id", "dim", "range", "range", "hint_tile", "hint_scalar"]
        )
    )
    if kind in ("const", "splat_const"):
        v = data.draw(st.sampled_from(INTERESTING) | st.integers(-300, 300))
        add_constant(p, v, (1,) if kind == "const" else shape, kind == "const", 64)
    elif kind == "dense":
        size = int(np.prod(shape))
        vals = data.draw(st.lists(st.sampled_from(INTERESTING) | st.integers(-40, 40), min_size=size, max_size=size))

        def build(p):
            ty = _ty(shape, False, 64)
            attr = ir.DenseIntElementsAttr.get(np.array(vals, dtype=np.int64).reshape(shape), type=ty)
            return arith.ConstantOp(ty, attr).result

        p.add(Node(shape, False, 64, _fixed(np.array(vals, dtype=object).reshape(shape)), build, f"dense {vals}"))
    elif kind in ("arg", "hint_scalar"):
        d = data.draw(st.sampled_from([1, 2, 4, 16, 64]))
        v = d * data.draw(st.integers(-40, 40))
        hinted = kind == "hint_scalar"
        p.scalar_args.append((1 if hinted else d, v))
        index = len(p.scalar_args) - 1

        def build(p):
            arg = p.args[2 + index]
            return T.HintOp(arg, divisibility=[d]).result if hinted else arg

        p.add(
            Node(
                (1,),
                True,
                64,
                _fixed(np.array([v], dtype=object)),
                build,
                f"{'hinted ' if hinted else ''}arg div {d} = {v}",
            )
        )
    elif kind == "block_id":
        v = data.draw(st.integers(0, 70))

        def build(p):
            return arith.IndexCastOp(ir.IntegerType.get_signless(64), T.BlockIdOp(0).result).result

        p.add(Node((1,), True, 64, _fixed(np.array([v], dtype=object)), build, f"block_id = {v}"))
    elif kind == "dim":
        axis = data.draw(st.sampled_from([0, 1, 2]))
        v = {0: p.extents["M"], 1: p.extents["N"], 2: 12}[axis]

        def build(p):
            index = ir.IndexType.get()
            if axis == 2:
                d = memref.DimOp(p.args[1], arith.ConstantOp(index, 0).result).result
            else:
                d = memref.DimOp(p.args[0], arith.ConstantOp(index, axis).result).result
                if axis == 0:
                    d = T.CheckMultipleOp(d, 48, "M").result
            return arith.IndexCastOp(ir.IntegerType.get_signless(64), d).result

        p.add(Node((1,), True, 64, _fixed(np.array([v], dtype=object)), build, f"dim {axis} = {v}"))
    elif kind == "range":
        axis = data.draw(st.integers(0, len(shape) - 1))
        start = data.draw(st.sampled_from([0, 1, 3, 4, 16, 64]))
        n = shape[axis]
        view = [1] * len(shape)
        view[axis] = n
        values = np.broadcast_to(np.arange(start, start + n, dtype=object).reshape(view), shape).copy()

        def build(p):
            i64 = ir.IntegerType.get_signless(64)
            r = T.RangeOp(start, start + n, i64).result
            if len(shape) == 1:
                return r
            expanded = tensor.ExpandShapeOp(ir.RankedTensorType.get(view, i64), r, [[0, 1]], [], view).result
            return T.BroadcastOp(expanded, list(shape)).result

        p.add(Node(shape, False, 64, _fixed(values), build, f"range from {start} along {axis}"))
    else:
        draw_hinted_tile(data, p)


def _line_with(data, n, c, dv, k) -> list[int]:
    out = []
    if c > 1:
        for _ in range(n // c):
            base = dv * data.draw(st.integers(-8, 8))
            out += [base + j for j in range(c)]
    else:
        for _ in range(n // k):
            out += [dv * data.draw(st.integers(-8, 8))] * k
    return out


def draw_hinted_tile(data, p: Program) -> None:
    """A tile of unknown origin (a load) with hinted facts its numbers satisfy."""
    shape = p.shape
    n = shape[-1]
    pow2s = [x for x in (1, 2, 4, 8, 16) if n % x == 0]
    c = data.draw(st.sampled_from(pow2s))
    k = 1 if c > 1 else data.draw(st.sampled_from(pow2s))
    dv = data.draw(st.sampled_from([1, 2, 4, 16]))
    rows = int(np.prod(shape[:-1]))
    values = np.array(sum((_line_with(data, n, c, dv, k) for _ in range(rows)), []), dtype=object).reshape(shape)
    lead = [1] * (len(shape) - 1)
    div = [dv if c == 1 else 1] * (len(shape) - 1) + [dv]
    given = data.draw(st.sampled_from(["all", "contiguity", "divisibility"]))
    if given == "divisibility":
        # without a contiguity hint the divisibility is about every element
        div = [base_divisibility(values, d, 1) for d in range(len(shape))]

    def build(p):
        i64 = ir.IntegerType.get_signless(64)
        offsets = T.RangeOp(0, int(np.prod(shape)), ir.IntegerType.get_signless(32)).result
        loaded = T.LoadOp(p.args[2 + len(p.scalar_args)], offsets).result
        if len(shape) > 1:
            loaded = tensor.ExpandShapeOp(
                ir.RankedTensorType.get(list(shape), i64), loaded, [list(range(len(shape)))], [], list(shape)
            ).result
        kwargs = {}
        if given in ("all", "divisibility"):
            kwargs["divisibility"] = div
        if given in ("all", "contiguity"):
            kwargs["contiguity"] = lead + [c]
            kwargs["constancy"] = lead + [k]
        return T.HintOp(loaded, **kwargs).result

    p.add(Node(shape, False, 64, _fixed(values), build, f"hinted tile C={c} D={dv} K={k} ({given})"))


_ARITH = {
    "addi": arith.AddIOp,
    "subi": arith.SubIOp,
    "muli": arith.MulIOp,
    "divsi": arith.DivSIOp,
    "divui": arith.DivUIOp,
    "remsi": arith.RemSIOp,
    "remui": arith.RemUIOp,
    "shli": arith.ShLIOp,
    "shrsi": arith.ShRSIOp,
    "shrui": arith.ShRUIOp,
    "andi": arith.AndIOp,
    "ori": arith.OrIOp,
    "xori": arith.XOrIOp,
    "minsi": arith.MinSIOp,
    "maxsi": arith.MaxSIOp,
    "minui": arith.MinUIOp,
    "maxui": arith.MaxUIOp,
}


def draw_op(data, p: Program) -> None:
    kinds = ["binary"] * 6 + ["cmpi", "select", "splat", "cast", "shape", "if"] + (["hint"] if p.allow_hints else [])
    kind = data.draw(st.sampled_from(kinds))
    # Mostly chains (the newest value), so that deep expressions are common.
    newest = data.draw(st.booleans())
    i = len(p.nodes) - 1 if newest else data.draw(st.integers(0, len(p.nodes) - 1))
    handler = {
        "binary": _binary,
        "cmpi": _cmpi,
        "select": _select,
        "splat": _splat,
        "cast": _cast,
        "shape": _reshape,
        "hint": _hint_existing,
        "if": _if,
    }[kind]
    try:
        handler(data, p, i)
    except Undefined:
        pass


def _partner(data, p: Program, i: int) -> int:
    """A second operand like node i: often a fresh constant (the rules'
    special cases live there), else any value of the same type."""
    x = p.nodes[i]
    if x.width > 1 and data.draw(st.booleans()):
        v = data.draw(st.sampled_from(INTERESTING + [-2, 6, 24, 32, 256]))
        return add_constant(p, v, x.shape, x.scalar, x.width)
    return data.draw(st.sampled_from(p.matching(x.shape, x.scalar, x.width)))


def _condition(data, p: Program, shape, scalar: bool) -> int:
    """An i1 value of the shape (or a scalar one): an existing one or a new comparison."""
    options = [c for c, n in enumerate(p.nodes) if n.width == 1 and n.shape == shape and n.scalar == scalar]
    if options and data.draw(st.booleans()):
        return data.draw(st.sampled_from(options))
    sources = [k for k, n in enumerate(p.nodes) if n.width > 1 and n.shape == shape and n.scalar == scalar]
    if not sources:
        raise Undefined("no value to compare")
    _cmpi(data, p, data.draw(st.sampled_from(sources)))
    return len(p.nodes) - 1


def _binary(data, p: Program, i: int) -> None:
    x = p.nodes[i]
    op = data.draw(st.sampled_from(["andi", "ori", "xori"] if x.width == 1 else WEIGHTED_BINARY))
    if op.startswith("sh") and data.draw(st.booleans()):
        j = add_constant(p, data.draw(st.sampled_from([0, 1, 2, 3, 4])), x.shape, x.scalar, x.width)
    else:
        j = _partner(data, p, i)
    binary_node(p, op, i, j)


def binary_node(p: Program, op: str, i: int, j: int) -> int:
    x = p.nodes[i]
    fn = binary_semantics(op, x.width)
    return p.add(
        Node(
            x.shape,
            x.scalar,
            x.width,
            lambda get: elementwise(fn, get(i), get(j)),
            lambda p: _ARITH[op](p.value(i), p.value(j)).result,
            op,
        )
    )


def _cmpi(data, p: Program, i: int) -> None:
    x = p.nodes[i]
    j = _partner(data, p, i)
    pred = data.draw(st.sampled_from(PREDICATES))
    p.add(
        Node(
            x.shape,
            x.scalar,
            1,
            lambda get: elementwise(lambda a, b: compare(pred, a, b, x.width), get(i), get(j)),
            lambda p: arith.CmpIOp(getattr(arith.CmpIPredicate, pred), p.value(i), p.value(j)).result,
            f"cmpi {pred}",
        )
    )


def _select(data, p: Program, i: int) -> None:
    x = p.nodes[i]
    if x.width == 1:
        return
    j = _partner(data, p, i)
    scalar_cond = x.scalar or data.draw(st.booleans())
    c = _condition(data, p, (1,) if scalar_cond else x.shape, scalar_cond)

    def compute(get):
        cv = np.broadcast_to(get(c)[0], x.shape) if scalar_cond else get(c)
        return np.where(cv.astype(bool), get(i), get(j)).astype(object)

    p.add(
        Node(
            x.shape,
            x.scalar,
            x.width,
            compute,
            lambda p: arith.SelectOp(p.value(c), p.value(i), p.value(j)).result,
            "select",
        )
    )


def _splat(data, p: Program, i: int) -> None:
    x = p.nodes[i]
    if not x.scalar or x.width == 1:
        return
    shape = p.shape
    p.add(
        Node(
            shape,
            False,
            x.width,
            lambda get: np.full(shape, get(i)[0], dtype=object),
            lambda p: tensor.SplatOp(_ty(shape, False, x.width), p.value(i), []).result,
            "splat",
        )
    )


def _cast(data, p: Program, i: int) -> None:
    x = p.nodes[i]
    t = lambda w: _ty(x.shape, x.scalar, w)  # noqa: E731
    if x.width == 1:
        signed = data.draw(st.booleans())
        fn = (lambda a: -a) if signed else (lambda a: a)
        op = arith.ExtSIOp if signed else arith.ExtUIOp
        p.add(
            Node(
                x.shape,
                x.scalar,
                64,
                lambda get: elementwise(fn, get(i)),
                lambda p: op(t(64), p.value(i)).result,
                "extsi i1" if signed else "extui i1",
            )
        )
    elif x.width == 64:
        if data.draw(st.booleans()):
            p.add(
                Node(
                    x.shape,
                    x.scalar,
                    32,
                    lambda get: elementwise(lambda a: _fits(a, 32), get(i)),
                    lambda p: arith.TruncIOp(t(32), p.value(i)).result,
                    "trunci",
                )
            )
        else:

            def build(p):
                index = ir.IndexType.get()
                it = index if x.scalar else ir.RankedTensorType.get(list(x.shape), index)
                return arith.IndexCastOp(t(64), arith.IndexCastOp(it, p.value(i)).result).result

            p.add(Node(x.shape, x.scalar, 64, lambda get: get(i), build, "index_cast round trip"))
    else:
        signed = data.draw(st.booleans())
        fn = (lambda a: a) if signed else (lambda a: _u(a, 32))
        op = arith.ExtSIOp if signed else arith.ExtUIOp
        p.add(
            Node(
                x.shape,
                x.scalar,
                64,
                lambda get: elementwise(fn, get(i)),
                lambda p: op(t(64), p.value(i)).result,
                "extsi" if signed else "extui",
            )
        )


def _reshape(data, p: Program, i: int) -> None:
    x = p.nodes[i]
    if x.scalar:
        return
    et = lambda s: _ty(s, False, x.width)  # noqa: E731
    if len(x.shape) == 2:
        r, c = x.shape
        how = data.draw(st.sampled_from(["transpose", "collapse", "broadcast"]))
        if how == "transpose":
            p.add(
                Node(
                    (c, r),
                    False,
                    x.width,
                    lambda get: get(i).T.copy(),
                    lambda p: T.TransposeOp(p.value(i), [1, 0]).result,
                    "transpose",
                )
            )
        elif how == "collapse":
            p.add(
                Node(
                    (r * c,),
                    False,
                    x.width,
                    lambda get: get(i).reshape(-1).copy(),
                    lambda p: tensor.CollapseShapeOp(et((r * c,)), p.value(i), [[0, 1]]).result,
                    "collapse",
                )
            )
        elif 1 in x.shape:
            target = list(x.shape)
            target[x.shape.index(1)] = data.draw(st.sampled_from([2, 4, 6]))
            p.add(
                Node(
                    tuple(target),
                    False,
                    x.width,
                    lambda get: np.broadcast_to(get(i), target).copy(),
                    lambda p: T.BroadcastOp(p.value(i), target).result,
                    f"broadcast to {target}",
                )
            )
    else:
        (n,) = x.shape
        a = data.draw(st.sampled_from([a for a in (1, 2, 3, 4, n) if n % a == 0]))
        b = n // a
        p.add(
            Node(
                (a, b),
                False,
                x.width,
                lambda get: get(i).reshape(a, b).copy(),
                lambda p: tensor.ExpandShapeOp(et((a, b)), p.value(i), [[0, 1]], [], [a, b]).result,
                f"expand to {a}x{b}",
            )
        )


def _hint_existing(data, p: Program, i: int) -> None:
    """A hint on a computed value, promising no more than its numbers show."""
    x = p.nodes[i]
    if x.width == 1:
        return
    cs, ks, ds = [], [], []
    for d in range(len(x.shape)):
        c_true, k_true = true_facts(x.values, d)
        c = data.draw(st.sampled_from([v for v in (1, 2, 4, 8, 16) if v <= c_true]))
        cs.append(c)
        ks.append(data.draw(st.sampled_from([v for v in (1, 2, 4, 8, 16) if v <= k_true])))
        ds.append(base_divisibility(x.values, d, c))
    given = data.draw(st.sampled_from(["contiguity", "divisibility", "constancy", "all"]))
    if given == "divisibility":
        # without a contiguity hint the divisibility is about every element
        ds = [base_divisibility(x.values, d, 1) for d in range(len(x.shape))]
    ds = [data.draw(st.sampled_from([v for v in (1, 2, 4, 8, 16, 64) if v <= top])) for top in ds]
    kwargs = {}
    if given in ("contiguity", "all"):
        kwargs["contiguity"] = cs
    if given in ("divisibility", "all"):
        kwargs["divisibility"] = ds
    if given in ("constancy", "all"):
        kwargs["constancy"] = ks
    p.add(
        Node(
            x.shape,
            x.scalar,
            x.width,
            lambda get: get(i),
            lambda p: T.HintOp(p.value(i), **kwargs).result,
            f"hint {kwargs}",
        )
    )


def _if(data, p: Program, i: int) -> None:
    x = p.nodes[i]
    j = _partner(data, p, i)
    c = _condition(data, p, (1,), True)

    def build(p):
        op = scf.IfOp(p.value(c), [_ty(x.shape, x.scalar, x.width)], has_else=True)
        with ir.InsertionPoint(op.then_block):
            scf.YieldOp([p.value(i)])
        with ir.InsertionPoint(op.else_block):
            scf.YieldOp([p.value(j)])
        return op.results[0]

    p.add(Node(x.shape, x.scalar, x.width, lambda get: get(i) if get(c)[0] else get(j), build, "scf.if"))


# ----------------------------------------------------------------------------- building and checking

_CONTEXT = None


def context() -> ir.Context:
    global _CONTEXT
    if _CONTEXT is None:
        _CONTEXT = make_context()
    return _CONTEXT


def kernel_module(p: Program, body: Callable[[], None], flat: ir.Type | None = None) -> ir.Module:
    """A kernel with X: memref<?x?xf32>[M, N] (@aligned(M = 48), N specialised
    to a multiple of 16), S: memref<12x?xf32>, the scalar arguments (with
    their specialised divisibility), an i64 tensor of opaque data, and when
    `flat` is given a 16-byte aligned F: memref<?x flat>."""
    i64 = ir.IntegerType.get_signless(64)
    dyn = ir.ShapedType.get_dynamic_size()
    f32 = ir.F32Type.get()
    types = [ir.MemRefType.get([dyn, dyn], f32), ir.MemRefType.get([12, dyn], f32)]
    types += [i64] * len(p.scalar_args) + [ir.MemRefType.get([dyn], i64)]
    if flat is not None:
        types.append(ir.MemRefType.get([dyn], flat))
    arr = ir.DenseI64ArrayAttr.get
    names = lambda xs: ir.ArrayAttr.get([ir.StringAttr.get(x) for x in xs])  # noqa: E731
    module = ir.Module.create()
    with ir.InsertionPoint(module.body):
        fn = func.FuncOp("k", ir.FunctionType.get(types, []))
        fn.attributes["tile.kernel"] = ir.UnitAttr.get()
        fn.attributes["tile.aligned"] = ir.DictAttr.get({"M": ir.IntegerAttr.get(i64, 48)})
        attrs = [
            ir.DictAttr.get({"tile.dims": names(["M", "N"]), "tile.divisibility": arr([1, 16])}),
            ir.DictAttr.get({"tile.dims": names(["12", "K"])}),
        ]
        attrs += [ir.DictAttr.get({"tile.divisibility": arr([d])}) for d, _ in p.scalar_args]
        attrs += [ir.DictAttr.get({"tile.dims": names(["L"])})]
        if flat is not None:
            attrs.append(
                ir.DictAttr.get(
                    {
                        "tile.name": ir.StringAttr.get("F"),
                        "tile.dims": names(["F"]),
                        "tile.ptr_align": ir.IntegerAttr.get(i64, 16),
                    }
                )
            )
        fn.arg_attrs = ir.ArrayAttr.get(attrs)
        entry = fn.add_entry_block()
        p.args = list(entry.arguments)
        with ir.InsertionPoint(entry):
            body()
            func.ReturnOp([])
    return module


def check(analysis: AxisInfoAnalysis, p: Program, i: int, values: np.ndarray, where: str) -> None:
    info = analysis.get(p.built[i])
    problem = violated_claim(info, values)
    assert problem is None, (
        f"{where}node {i} ({p.nodes[i].what}) claims {problem}, but its values are {values.tolist()}\n"
        f"facts: {info.to_text()}\nprogram: {[n.what for n in p.nodes]}"
    )


def draw_program(data, allow_hints: bool = True) -> Program:
    p = Program(data.draw(st.sampled_from(SHAPES)), allow_hints)
    p.extents = {"M": 48 * data.draw(st.integers(0, 5)), "N": 16 * data.draw(st.integers(0, 5))}
    for _ in range(data.draw(st.integers(2, 5))):
        draw_leaf(data, p)
    for _ in range(data.draw(st.integers(1, 16))):
        draw_op(data, p)
    return p


@settings(max_examples=MAX_EXAMPLES, **SETTINGS)
@given(st.data())
def test_every_claim_holds_on_numbers(data):
    p = draw_program(data)
    with context(), ir.Location.unknown():
        module = kernel_module(p, lambda: [p.value(i) for i in range(len(p.nodes))])
        analysis = AxisInfoAnalysis(module)
        for i, node in enumerate(p.nodes):
            check(analysis, p, i, node.values, "")


# ----------------------------------------------------------------------------- loops


@settings(max_examples=LOOP_EXAMPLES, **SETTINGS)
@given(st.data())
def test_loop_facts_hold_in_every_iteration(data):
    """scf.for: the induction variable, the loop-carried values (a fixed point
    from an optimistic start), every value of the body in every iteration,
    and the loop's results."""
    outer = draw_program(data)
    lb = data.draw(st.sampled_from([0, 1, 4, 16, -8]))
    step = data.draw(st.sampled_from([1, 2, 4, 16, 48]))
    ub = lb + data.draw(st.integers(0, 5)) * step - data.draw(st.integers(0, step - 1))
    carried = data.draw(
        st.lists(st.sampled_from([i for i, n in enumerate(outer.nodes) if n.width == 64]), min_size=1, max_size=3)
    )

    # The body: the iv, the carried values and some outer values as leaves,
    # then random ops; hints are left out (their promise would only be
    # checked against the first iteration's numbers).
    body = Program(outer.shape, allow_hints=False)
    iv = body.add(Node((1,), True, 64, _fixed(np.array([lb], dtype=object)), None, "iv"))
    slots = [
        body.add(
            Node(
                outer.nodes[c].shape,
                outer.nodes[c].scalar,
                64,
                _fixed(outer.nodes[c].values),
                None,
                f"carried (from node {c})",
            )
        )
        for c in carried
    ]
    invariant = data.draw(st.lists(st.sampled_from(range(len(outer.nodes))), max_size=3))
    for k in invariant:
        body.add(
            Node(
                outer.nodes[k].shape,
                outer.nodes[k].scalar,
                outer.nodes[k].width,
                _fixed(outer.nodes[k].values),
                lambda p, k=k: outer.value(k),
                f"outer node {k}",
            )
        )
    for _ in range(data.draw(st.integers(1, 8))):
        draw_op(data, body)
    yields = [data.draw(st.sampled_from(body.matching(body.nodes[s].shape, body.nodes[s].scalar, 64))) for s in slots]

    with context(), ir.Location.unknown():
        loops = []

        def build():
            for i in range(len(outer.nodes)):
                outer.value(i)
            index, i64 = ir.IndexType.get(), ir.IntegerType.get_signless(64)
            bounds = [arith.ConstantOp(index, v).result for v in (lb, ub, step)]
            loop = scf.ForOp(*bounds, [outer.value(c) for c in carried])
            with ir.InsertionPoint(loop.body):
                body.built[iv] = arith.IndexCastOp(i64, loop.induction_variable).result
                body.built.update(zip(slots, loop.inner_iter_args))
                for i in range(len(slots) + 1, len(body.nodes)):
                    body.value(i)
                scf.YieldOp([body.value(y) for y in yields])
            loops.append(loop)

        module = kernel_module(outer, build)
        analysis = AxisInfoAnalysis(module)
        for i, node in enumerate(outer.nodes):
            check(analysis, outer, i, node.values, "outer ")
        state = [outer.nodes[c].values for c in carried]
        value = lb
        while value < ub:
            values = {iv: np.array([value], dtype=object), **dict(zip(slots, state))}
            try:
                for i in range(len(slots) + 1, len(body.nodes)):
                    values[i] = body.nodes[i].compute(values.__getitem__)
            except Undefined:
                return  # an op is undefined from this iteration on: nothing more to check
            for i, v in values.items():
                check(analysis, body, i, v, f"iteration {value}: ")
            state = [values[y] for y in yields]
            value += step
        for result, v in zip(loops[0].results, state):
            info = analysis.get(result)
            assert violated_claim(info, v) is None, f"loop result claims {violated_claim(info, v)}: {v.tolist()}"


# ----------------------------------------------------------------------------- the cases that broke Triton


def _range(p: Program, start: int = 0) -> int:
    n = p.shape[0]
    return p.add(
        Node(
            p.shape,
            False,
            64,
            _fixed(np.arange(start, start + n, dtype=object)),
            lambda p: T.RangeOp(start, start + n, ir.IntegerType.get_signless(64)).result,
            "range",
        )
    )


def _dense(p: Program, values) -> int:
    def build(p):
        ty = _ty(p.shape, False, 64)
        return arith.ConstantOp(ty, ir.DenseIntElementsAttr.get(np.array(values, dtype=np.int64), type=ty)).result

    return p.add(Node(p.shape, False, 64, _fixed(np.array(values, dtype=object)), build, f"dense {values}"))


def _arg_splat(p: Program, divisibility: int, value: int) -> int:
    p.scalar_args.append((divisibility, value))
    index = len(p.scalar_args) - 1
    s = p.add(Node((1,), True, 64, _fixed(np.array([value], dtype=object)), lambda p: p.args[2 + index], "arg"))
    return p.add(
        Node(
            p.shape,
            False,
            64,
            lambda get: np.full(p.shape, get(s)[0], dtype=object),
            lambda p: tensor.SplatOp(_ty(p.shape, False, 64), p.value(s), []).result,
            "splat",
        )
    )


def _check_all(p: Program) -> None:
    with context(), ir.Location.unknown():
        module = kernel_module(p, lambda: [p.value(i) for i in range(len(p.nodes))])
        analysis = AxisInfoAnalysis(module)
        for i, node in enumerate(p.nodes):
            check(analysis, p, i, node.values, "")


@pytest.mark.parametrize("divisor", [[4, 4, 4, 4, 8, 8, 8, 8], [1, 2, 3, 4, 5, 6, 7, 8], [2, 2, 4, 4, 2, 2, 4, 4]])
def test_rem_by_a_tile_claims_divisibility_only_at_run_bases(divisor):
    """triton issue 11544: `offs % d` with d constant only in parts of the
    tile claimed gcd(div(offs), div(d)) for every element."""
    p = Program((8,))
    r = _range(p)
    d = _dense(p, divisor)
    binary_node(p, "remsi", r, d)
    binary_node(p, "remui", r, d)
    binary_node(p, "remsi", binary_node(p, "addi", r, add_constant(p, 16, (8,), False, 64)), d)
    _check_all(p)


@pytest.mark.parametrize("value", [-64, -16, 16, 48, 96])
def test_rem_by_a_specialised_argument(value):
    """A divisor known only to be a multiple of 16 (any sign)."""
    p = Program((16,))
    r = _range(p)
    n = _arg_splat(p, 16, value)
    binary_node(p, "remsi", r, n)
    binary_node(p, "divsi", r, n)
    binary_node(p, "remsi", binary_node(p, "subi", r, add_constant(p, 8, (16,), False, 64)), n)
    _check_all(p)


@pytest.mark.parametrize("shift", [-16, -12, -8, -5, -4, -1])
@pytest.mark.parametrize("op", ["remsi", "divsi", "remui", "divui", "shrsi", "shrui", "andi"])
@pytest.mark.parametrize("divisor", [2, 4, 8])
def test_negative_dividends(shift, op, divisor):
    """Runs that cross zero or lie below it: truncating div/rem break their
    constancy and contiguity (-4..-1 / 4 = -1, 0, 0, 0)."""
    p = Program((8,))
    r = binary_node(p, "addi", _range(p), add_constant(p, shift, (8,), False, 64))
    amount = {"shrsi": divisor.bit_length() - 1, "shrui": divisor.bit_length() - 1, "andi": divisor - 1}.get(
        op, divisor
    )
    binary_node(p, op, r, add_constant(p, amount, (8,), False, 64))
    _check_all(p)


# ----------------------------------------------------------------------------- every rule, exhaustively

EDGE_CONSTANTS = [0, 1, -1, 2, 3, 4, -4, 6, 8, -8, 16, 48]


def _base_values(p: Program) -> list[int]:
    """Tiles of 8 that exercise the rules: runs from 0, from an odd start,
    crossing zero, below zero, strided, constant in parts, and unknowns."""
    r0 = _range(p, 0)
    bases = [r0, _range(p, 3), _range(p, 16)]
    for shift in (-4, -16, -3):
        bases.append(binary_node(p, "addi", r0, add_constant(p, shift, (8,), False, 64)))
    bases.append(binary_node(p, "muli", r0, add_constant(p, 2, (8,), False, 64)))
    for values in (
        [4, 4, 4, 4, 8, 8, 8, 8],
        [0, 0, 1, 1, 2, 2, 3, 3],
        [-4, -4, -4, -4, 4, 4, 4, 4],
        [8, 9, 10, 11, -4, -3, -2, -1],
    ):
        bases.append(_dense(p, values))
    bases += [_arg_splat(p, 16, -32), _arg_splat(p, 16, 48), _arg_splat(p, 1, -5)]
    return bases


def test_every_rule_exhaustively_on_small_inputs():
    """Every binary op, comparison, select and cast on every pair of the base
    tiles and edge constants (both sides), then a second op on the results:
    one module, checked element by element."""
    p = Program((8,))
    bases = _base_values(p)
    first = []

    def attempt(make, *args):
        try:
            return make(*args)
        except Undefined:
            return None

    consts = [add_constant(p, v, (8,), False, 64) for v in EDGE_CONSTANTS]
    operands = bases + consts
    for a in bases:
        for b in operands:
            for op in BINARY:
                for x, y in ((a, b), (b, a)):
                    node = attempt(binary_node, p, op, x, y)
                    if node is not None:
                        first.append(node)
            for pred in PREDICATES:
                for x, y in ((a, b), (b, a)):
                    cond = attempt(_cmpi_node, p, pred, x, y)
                    if cond is not None:
                        attempt(_select_node, p, cond, a, b)
        for how in ("extsi", "extui"):
            attempt(_cast_node, p, how, attempt(_cast_node, p, "trunci", a))
    # a second op on a sample of the results
    for k, node in enumerate(first[::5]):
        for op in ("divsi", "remsi", "addi", "subi", "andi"):
            c = consts[k % len(consts)]
            attempt(binary_node, p, op, node, c)
        attempt(_cmpi_node, p, PREDICATES[k % len(PREDICATES)], node, consts[(k + 3) % len(consts)])
    assert len(p.nodes) > 5000
    _check_all(p)


def _cmpi_node(p: Program, pred: str, i: int, j: int) -> int:
    x = p.nodes[i]
    return p.add(
        Node(
            x.shape,
            x.scalar,
            1,
            lambda get: elementwise(lambda a, b: compare(pred, a, b, x.width), get(i), get(j)),
            lambda p: arith.CmpIOp(getattr(arith.CmpIPredicate, pred), p.value(i), p.value(j)).result,
            f"cmpi {pred}",
        )
    )


def _select_node(p: Program, c: int, i: int, j: int) -> int:
    x = p.nodes[i]
    return p.add(
        Node(
            x.shape,
            x.scalar,
            x.width,
            lambda get: np.where(get(c).astype(bool), get(i), get(j)).astype(object),
            lambda p: arith.SelectOp(p.value(c), p.value(i), p.value(j)).result,
            "select",
        )
    )


def _cast_node(p: Program, how: str, i: int | None) -> int:
    if i is None:
        raise Undefined("no operand")
    x = p.nodes[i]
    t = lambda w: _ty(x.shape, x.scalar, w)  # noqa: E731
    if how == "trunci":
        return p.add(
            Node(
                x.shape,
                x.scalar,
                32,
                lambda get: elementwise(lambda a: _fits(a, 32), get(i)),
                lambda p: arith.TruncIOp(t(32), p.value(i)).result,
                "trunci",
            )
        )
    fn = (lambda a: a) if how == "extsi" else (lambda a: _u(a, 32))
    op = arith.ExtSIOp if how == "extsi" else arith.ExtUIOp
    return p.add(
        Node(x.shape, x.scalar, 64, lambda get: elementwise(fn, get(i)), lambda p: op(t(64), p.value(i)).result, how)
    )
