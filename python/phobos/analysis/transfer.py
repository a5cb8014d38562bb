"""Transfer rules of the axis-info lattice, one function per kind of op.

Pure functions of the operands' facts (no MLIR here): `shape` is the shape of
the result (a scalar is `(1,)`), `width` the bit width of its element type
(index: 64). Every rule returns normalized facts.

The proofs share one argument, so it is spelled out once. Along a dimension,
take an aligned group of g elements of an operand x that is contiguous over
groups of C >= g: its elements are y, y+1, ..., y+g-1, and y is divisible by
`x.base_divisibility(d, g)`. When that divisibility is >= g, g divides y, so
the group cannot straddle a multiple of g (nor 0, nor a signed or unsigned
wrap-around point, nor a multiple of any divisor that g divides). Rules that
need this pick the largest such g with `aligned_run`.

Semantics follow `arith`: divsi/remsi truncate toward zero (the remainder
takes the dividend's sign), shifts by at least the bit width are poison, and
add/sub/mul/shl are assumed not to overflow (as Triton does), and so are
narrowing casts (trunci, index_cast to a narrower type). i1 values are 0 and 1.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from .lattice import MAX_DIVISOR, AxisInfo, cap, normalize, pow2_divisor, pow2_part

Shape = tuple[int, ...]


# ----------------------------------------------------------------------------- helpers


def wrap(value: int, width: int) -> int:
    """`value` as the signed integer of `width` bits (i1: 0 or 1)."""
    if width == 1:
        return value & 1
    half = 1 << (width - 1)
    return ((value + half) % (1 << width)) - half


def unsigned(value: int, width: int) -> int:
    return value % (1 << width)


def all_ones(width: int) -> int:
    """The constant with every bit set, as this lattice stores it."""
    return 1 if width == 1 else -1


def _is_pow2(x: int) -> bool:
    return x > 0 and x & (x - 1) == 0


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _trunc_rem(a: int, b: int) -> int:
    return a - b * _trunc_div(a, b)


def aligned_run(x: AxisInfo, d: int, limit: int) -> int:
    """The largest power of two g <= min(limit, x.contiguity[d]) such that
    the elements of x at multiples of g along d are divisible by g: aligned
    groups of g are then runs y..y+g-1 with g | y."""
    g = min(limit, x.contiguity[d])
    g = 1 << (g.bit_length() - 1) if g >= 1 else 1
    while g > 1 and x.base_divisibility(d, g) < g:
        g //= 2
    return g


def _build(shape: Shape, cs, ds, ks, non_negative: bool, constant: int | None = None) -> AxisInfo:
    info = AxisInfo(tuple(cs), tuple(cap(x) for x in ds), tuple(ks), constant, non_negative)
    return normalize(info, shape)


def constant(value: int, shape: Shape) -> AxisInfo:
    return AxisInfo.of_constant(value, shape)


def elementwise(shape: Shape, a: AxisInfo, b: AxisInfo, divisibility: int, non_negative: bool) -> AxisInfo:
    """A result known only to be constant where both operands are, with every
    element divisible by `divisibility`."""
    rank = len(shape)
    ks = [min(a.constancy[d], b.constancy[d]) for d in range(rank)]
    return _build(shape, [1] * rank, [divisibility] * rank, ks, non_negative)


def _both_constant(a: AxisInfo, b: AxisInfo) -> bool:
    return a.constant is not None and b.constant is not None


def _fold(shape: Shape, width: int, value: int | None) -> AxisInfo | None:
    return None if value is None else constant(wrap(value, width), shape)


# ----------------------------------------------------------------------------- sources


def range_(start: int, end: int, shape: Shape) -> AxisInfo:
    """tile.range: [start, ..., end-1], contiguous over the whole tile."""
    if end - start == 1:
        return constant(start, shape)
    return _build(shape, [end - start], [pow2_divisor(start)], [1], start >= 0)


def dense(values: Sequence[int], shape: Shape) -> AxisInfo:
    """An arith.constant with one value per element (row-major): exact facts."""
    from .exact import facts_of_array  # numpy only where a dense constant needs it

    return facts_of_array(values, shape)


def scalar_of(divisibility: int = 1, non_negative: bool = False, value: int | None = None) -> AxisInfo:
    if value is not None:
        return constant(value, (1,))
    return AxisInfo.scalar(divisibility, non_negative)


# ----------------------------------------------------------------------------- shape ops


def splat(s: AxisInfo, shape: Shape) -> AxisInfo:
    rank = len(shape)
    return _build(
        shape, [1] * rank, [s.element_divisibility()] * rank, [pow2_part(n) for n in shape], s.non_negative, s.constant
    )


def broadcast(src: AxisInfo, src_shape: Shape, shape: Shape) -> AxisInfo:
    """tile.broadcast: dimensions of extent 1 repeat their element."""
    cs, ds, ks = [], [], []
    for d, n in enumerate(shape):
        if src_shape[d] == 1 and n != 1:
            cs.append(1)
            ds.append(src.base_divisibility(d, 1))
            ks.append(pow2_part(n))
        else:
            cs.append(src.contiguity[d])
            ds.append(src.divisibility[d])
            ks.append(src.constancy[d])
    return _build(shape, cs, ds, ks, src.non_negative, src.constant)


def transpose(src: AxisInfo, permutation: Sequence[int], shape: Shape) -> AxisInfo:
    return _build(
        shape,
        [src.contiguity[p] for p in permutation],
        [src.divisibility[p] for p in permutation],
        [src.constancy[p] for p in permutation],
        src.non_negative,
        src.constant,
    )


def expand_shape(src: AxisInfo, src_shape: Shape, shape: Shape, groups: Sequence[Sequence[int]]) -> AxisInfo:
    """tensor.expand_shape: source dim s splits row-major into result dims `groups[s]`.

    The innermost dims of a group walk the source line with stride 1 (facts
    kept, groups clamped to the new extent); an outer dim walks it with stride
    `inner` (constancy divided by it when it divides; no contiguity); dims of
    extent 1 keep only what holds for every element.
    """
    rank = len(shape)
    cs, ds, ks = [1] * rank, [1] * rank, [1] * rank
    every = src.element_divisibility()
    for s, group in enumerate(groups):
        for pos, r in enumerate(group):
            inner = 1
            for q in group[pos + 1 :]:
                inner *= shape[q]
            ext = shape[r]
            if ext == 1:
                cs[r], ds[r], ks[r] = 1, every, 1
            elif inner == 1:
                c = min(src.contiguity[s], pow2_part(ext))
                cs[r], ds[r], ks[r] = c, src.base_divisibility(s, c), min(src.constancy[s], pow2_part(ext))
            else:
                k = src.constancy[s] // inner if _is_pow2(inner) and src.constancy[s] % inner == 0 else 1
                cs[r], ds[r], ks[r] = 1, every, max(1, min(k, pow2_part(ext)))
    return _build(shape, cs, ds, ks, src.non_negative, src.constant)


def collapse_shape(src: AxisInfo, src_shape: Shape, shape: Shape, groups: Sequence[Sequence[int]]) -> AxisInfo:
    """tensor.collapse_shape: result dim r merges source dims `groups[r]` row-major.

    The merged line is the innermost non-unit source dim's lines laid end to
    end, so its contiguity groups (which divide that extent) stay aligned;
    constancy grows across dims that are constant over their whole extent.
    """
    rank = len(shape)
    cs, ds, ks = [1] * rank, [1] * rank, [1] * rank
    every = src.element_divisibility()
    for r, group in enumerate(groups):
        real = [s for s in group if src_shape[s] != 1]
        if not real:
            cs[r], ds[r], ks[r] = 1, every, 1
            continue
        last = real[-1]
        cs[r], ds[r] = src.contiguity[last], src.divisibility[last]
        k = src.constancy[last]
        for inner, outer in zip(reversed(real), reversed(real[:-1])):
            if src.constancy[inner] != src_shape[inner] or not _is_pow2(k):
                break
            k *= src.constancy[outer]
            if src.constancy[outer] != src_shape[outer]:
                break
        ks[r] = k
    return _build(shape, cs, ds, ks, src.non_negative, src.constant)


# ----------------------------------------------------------------------------- arithmetic


def add(a: AxisInfo, b: AxisInfo, shape: Shape, width: int) -> AxisInfo:
    if _both_constant(a, b):
        return _fold(shape, width, a.constant + b.constant)
    if b.constant == 0:
        return a
    if a.constant == 0:
        return b
    cs, ds, ks = [], [], []
    for d in range(len(shape)):
        # constant + contiguous (either way round) is contiguous where both hold
        c = max(min(a.constancy[d], b.contiguity[d]), min(a.contiguity[d], b.constancy[d]))
        cs.append(c)
        ds.append(min(a.base_divisibility(d, c), b.base_divisibility(d, c)))
        ks.append(min(a.constancy[d], b.constancy[d]))
    return _build(shape, cs, ds, ks, a.non_negative and b.non_negative)


def sub(a: AxisInfo, b: AxisInfo, shape: Shape, width: int) -> AxisInfo:
    if _both_constant(a, b):
        return _fold(shape, width, a.constant - b.constant)
    if b.constant == 0:
        return a
    cs, ds, ks = [], [], []
    for d in range(len(shape)):
        c = min(a.contiguity[d], b.constancy[d])  # contiguous - constant only
        cs.append(c)
        ds.append(min(a.base_divisibility(d, c), b.base_divisibility(d, c)))
        ks.append(min(a.constancy[d], b.constancy[d]))
    return _build(shape, cs, ds, ks, False)


def mul(a: AxisInfo, b: AxisInfo, shape: Shape, width: int) -> AxisInfo:
    if _both_constant(a, b):
        return _fold(shape, width, a.constant * b.constant)
    if a.constant == 0 or b.constant == 0:
        return constant(0, shape)
    if b.constant == 1:
        return a
    if a.constant == 1:
        return b
    return elementwise(
        shape, a, b, a.element_divisibility() * b.element_divisibility(), a.non_negative and b.non_negative
    )


def _quotient_constancy(a: AxisInfo, b: AxisInfo, d: int) -> int:
    """Constancy of a / b (or of a's floor by b) along d when a >= 0: an
    aligned run y..y+g-1 with g | y, over which b is a constant multiple of g,
    has one quotient."""
    g = aligned_run(a, d, min(b.constancy[d], b.base_divisibility(d, 1)))
    return max(min(a.constancy[d], b.constancy[d]), g)


def divsi(a: AxisInfo, b: AxisInfo, shape: Shape, width: int) -> AxisInfo:
    if _both_constant(a, b):
        if b.constant == 0:
            return AxisInfo.unknown(len(shape))
        return _fold(shape, width, _trunc_div(a.constant, b.constant))
    if b.constant == 1:
        return a
    if a.constant == 0:
        return constant(0, shape)
    rank = len(shape)
    if a.non_negative:
        # A negative run crosses a multiple of b without changing its
        # truncated quotient at the right place: -4..-1 / 4 = -1, 0, 0, 0.
        ks = [_quotient_constancy(a, b, d) for d in range(rank)]
    else:
        ks = [min(a.constancy[d], b.constancy[d]) for d in range(rank)]
    divisibility = 1
    if b.constant is not None and _is_pow2(abs(b.constant)):
        # an exact division by 2^k when 2^k divides a
        divisibility = max(1, a.element_divisibility() // abs(b.constant))
    return _build(shape, [1] * rank, [divisibility] * rank, ks, a.non_negative and b.non_negative)


def remsi(a: AxisInfo, b: AxisInfo, shape: Shape, width: int) -> AxisInfo:
    if _both_constant(a, b):
        if b.constant == 0:
            return AxisInfo.unknown(len(shape))
        return _fold(shape, width, _trunc_rem(a.constant, b.constant))
    if b.constant in (1, -1) or a.constant == 0:
        return constant(0, shape)
    cs, ds, ks = [], [], []
    for d in range(len(shape)):
        # A non-negative run y..y+g-1 with g | y and a divisor that is a
        # constant multiple of g stays a run: y % v .. y % v + g - 1. Not so
        # for negative runs: -4..-1 % 4 = 0, -3, -2, -1.
        c = aligned_run(a, d, min(b.constancy[d], b.base_divisibility(d, 1))) if a.non_negative else 1
        cs.append(c)
        # y % v = y - q*v: divisible by what divides both, at run bases only
        # (triton issue 11544: claiming it for every element was wrong).
        ds.append(min(a.base_divisibility(d, c), b.base_divisibility(d, 1)))
        ks.append(min(a.constancy[d], b.constancy[d]))
    return _build(shape, cs, ds, ks, a.non_negative)


def divui(a: AxisInfo, b: AxisInfo, shape: Shape, width: int) -> AxisInfo:
    if a.non_negative and b.non_negative:
        return divsi(a, b, shape, width)
    if _both_constant(a, b):
        ub = unsigned(b.constant, width)
        return AxisInfo.unknown(len(shape)) if ub == 0 else _fold(shape, width, unsigned(a.constant, width) // ub)
    if b.constant == 1:
        return a
    if b.constant is not None and _is_pow2(b.constant):
        return shrui(a, constant(b.constant.bit_length() - 1, shape), shape, width)
    non_negative = a.non_negative or (b.constant is not None and b.constant >= 2)
    return elementwise(shape, a, b, 1, non_negative)


def remui(a: AxisInfo, b: AxisInfo, shape: Shape, width: int) -> AxisInfo:
    if a.non_negative and b.non_negative:
        return remsi(a, b, shape, width)
    if _both_constant(a, b):
        ub = unsigned(b.constant, width)
        return AxisInfo.unknown(len(shape)) if ub == 0 else _fold(shape, width, unsigned(a.constant, width) % ub)
    if b.constant is not None and _is_pow2(b.constant):
        return andi(a, constant(b.constant - 1, shape), shape, width)
    limit = 1 << min(width, 62)  # u(x) = x + 2^width keeps divisors up to 2^width
    divisibility = min(a.element_divisibility(), b.element_divisibility(), limit)
    return elementwise(shape, a, b, divisibility, b.non_negative)


def _shift_amount(b: AxisInfo, width: int) -> int | None:
    if b.constant is not None and 0 <= b.constant < width:
        return b.constant
    return None


def shli(a: AxisInfo, b: AxisInfo, shape: Shape, width: int) -> AxisInfo:
    k = _shift_amount(b, width)
    if k is not None and a.constant is not None:
        return _fold(shape, width, a.constant << k)
    if k == 0:
        return a
    divisibility = a.element_divisibility() << k if k is not None else a.element_divisibility()
    return elementwise(shape, a, b, min(divisibility, MAX_DIVISOR), a.non_negative)


def _floor_shift(a: AxisInfo, b: AxisInfo, k: int | None, shape: Shape, non_negative: bool) -> AxisInfo:
    """a >> k as a floor division by 2^k (for signed values, or unsigned ones
    read without wrap-around inside a run)."""
    rank = len(shape)
    if k is None:
        return elementwise(shape, a, b, 1, non_negative)
    ks = [max(a.constancy[d], aligned_run(a, d, 1 << k)) for d in range(rank)]
    divisibility = max(1, a.element_divisibility() >> k)
    return _build(shape, [1] * rank, [divisibility] * rank, ks, non_negative)


def shrsi(a: AxisInfo, b: AxisInfo, shape: Shape, width: int) -> AxisInfo:
    k = _shift_amount(b, width)
    if k is not None and a.constant is not None:
        return _fold(shape, width, a.constant >> k)
    if k == 0:
        return a
    return _floor_shift(a, b, k, shape, a.non_negative)


def shrui(a: AxisInfo, b: AxisInfo, shape: Shape, width: int) -> AxisInfo:
    k = _shift_amount(b, width)
    if a.non_negative:
        return shrsi(a, b, shape, width)
    if k is not None and a.constant is not None:
        return _fold(shape, width, unsigned(a.constant, width) >> k)
    if k == 0:
        return a
    if k is not None and a.element_divisibility() > (1 << width):
        a = replace(a, divisibility=tuple(min(x, 1 << width) for x in a.divisibility))
    return _floor_shift(a, b, k, shape, k is not None)


def _pick(a: AxisInfo, b: AxisInfo, shape: Shape, need_aligned: bool, non_negative: bool) -> AxisInfo:
    """An elementwise choice between a and b (min, max): runs of both over
    the same groups give a run (min(x+j, y+j) = min(x, y) + j)."""
    cs, ds, ks = [], [], []
    for d in range(len(shape)):
        c = min(a.contiguity[d], b.contiguity[d])
        if need_aligned:  # unsigned order: no run may wrap around
            c = min(aligned_run(a, d, c), aligned_run(b, d, c))
        cs.append(c)
        ds.append(min(a.base_divisibility(d, c), b.base_divisibility(d, c)))
        ks.append(min(a.constancy[d], b.constancy[d]))
    return _build(shape, cs, ds, ks, non_negative)


def minmax(kind: str, a: AxisInfo, b: AxisInfo, shape: Shape, width: int) -> AxisInfo:
    """kind: minsi, maxsi, minui, maxui."""
    if _both_constant(a, b):
        x, y = a.constant, b.constant
        if kind.endswith("ui"):
            x, y = unsigned(x, width), unsigned(y, width)
        return _fold(shape, width, min(x, y) if kind.startswith("min") else max(x, y))
    signed = kind.endswith("si") or (a.non_negative and b.non_negative)
    if kind in ("minsi", "maxui"):
        non_negative = a.non_negative and b.non_negative
    else:
        non_negative = a.non_negative or b.non_negative
    if kind == "minui" and not (a.non_negative and b.non_negative):
        non_negative = a.non_negative or b.non_negative
    return _pick(a, b, shape, not signed, non_negative)


def andi(a: AxisInfo, b: AxisInfo, shape: Shape, width: int) -> AxisInfo:
    if _both_constant(a, b):
        return _fold(shape, width, a.constant & b.constant)
    ones = all_ones(width)
    if a.constant == 0 or b.constant == 0:
        return constant(0, shape)
    if b.constant == ones:
        return a
    if a.constant == ones:
        return b
    x, m = (a, b.constant) if b.constant is not None else (b, a.constant)
    rank = len(shape)
    if m is not None and width > 1 and m > 0 and _is_pow2(m + 1):
        # x & (2^p - 1) = x mod 2^p (floor): a run stays a run within 2^p
        cs = [aligned_run(x, d, m + 1) for d in range(rank)]
        ds = [min(x.base_divisibility(d, cs[d]), m + 1) for d in range(rank)]
        return _build(shape, cs, ds, list(x.constancy), True)
    if m is not None and width > 1 and m < 0 and _is_pow2(-m):
        # x & -2^p rounds down to a multiple of 2^p: constant over aligned runs
        ks = [max(x.constancy[d], aligned_run(x, d, -m)) for d in range(rank)]
        return _build(shape, [1] * rank, [max(x.element_divisibility(), -m)] * rank, ks, x.non_negative)
    # a bit that is zero in either operand is zero in the result
    return elementwise(
        shape, a, b, max(a.element_divisibility(), b.element_divisibility()), a.non_negative or b.non_negative
    )


def ori(a: AxisInfo, b: AxisInfo, shape: Shape, width: int) -> AxisInfo:
    if _both_constant(a, b):
        return _fold(shape, width, a.constant | b.constant)
    ones = all_ones(width)
    if a.constant == ones or b.constant == ones:
        return constant(ones, shape)
    if b.constant == 0:
        return a
    if a.constant == 0:
        return b
    return elementwise(
        shape, a, b, min(a.element_divisibility(), b.element_divisibility()), a.non_negative and b.non_negative
    )


def xori(a: AxisInfo, b: AxisInfo, shape: Shape, width: int) -> AxisInfo:
    if _both_constant(a, b):
        return _fold(shape, width, a.constant ^ b.constant)
    if b.constant == 0:
        return a
    if a.constant == 0:
        return b
    return elementwise(
        shape, a, b, min(a.element_divisibility(), b.element_divisibility()), a.non_negative and b.non_negative
    )


# ----------------------------------------------------------------------------- comparisons


_CMP = {
    "eq": lambda x, y: x == y,
    "ne": lambda x, y: x != y,
    "slt": lambda x, y: x < y,
    "sle": lambda x, y: x <= y,
    "sgt": lambda x, y: x > y,
    "sge": lambda x, y: x >= y,
    "ult": lambda x, y: x < y,
    "ule": lambda x, y: x <= y,
    "ugt": lambda x, y: x > y,
    "uge": lambda x, y: x >= y,
}
# A run y+j compared with a constant c (g | y, g | c) flips at j = c - y, a
# multiple of g, for these predicates (run on the left / on the right).
_FLIP_ALIGNED_RUN_LEFT = ("slt", "sge", "ult", "uge")
_FLIP_ALIGNED_RUN_RIGHT = ("sle", "sgt", "ule", "ugt")


def compare_constants(predicate: str, x: int, y: int, width: int) -> int:
    if predicate.startswith("u"):
        x, y = unsigned(x, width), unsigned(y, width)
    return int(_CMP[predicate](x, y))


def cmpi(predicate: str, a: AxisInfo, b: AxisInfo, shape: Shape, width: int) -> AxisInfo:
    """arith.cmpi on operands of `width` bits; the result is i1 (0 or 1)."""
    if _both_constant(a, b):
        return constant(compare_constants(predicate, a.constant, b.constant, width), shape)
    is_unsigned = predicate.startswith("u")
    ks = []
    for d in range(len(shape)):
        k = min(a.constancy[d], b.constancy[d])
        if predicate in _FLIP_ALIGNED_RUN_LEFT:
            k = max(k, aligned_run(a, d, min(b.constancy[d], b.base_divisibility(d, 1))))
        if predicate in _FLIP_ALIGNED_RUN_RIGHT:
            k = max(k, aligned_run(b, d, min(a.constancy[d], a.base_divisibility(d, 1))))
        # two runs over the same groups differ by a constant there
        both = min(a.contiguity[d], b.contiguity[d])
        if is_unsigned:
            both = min(aligned_run(a, d, both), aligned_run(b, d, both))
        k = max(k, both if both > 1 else 1)
        ks.append(k)
    rank = len(shape)
    return _build(shape, [1] * rank, [1] * rank, ks, True)


def select(cond: AxisInfo, a: AxisInfo, b: AxisInfo, shape: Shape, cond_is_scalar: bool) -> AxisInfo:
    if cond.constant is not None:
        return a if cond.constant else b
    if cond_is_scalar:
        # the whole of a or the whole of b
        return _pick(a, b, shape, False, a.non_negative and b.non_negative) if a != b else a
    cs, ds, ks = [], [], []
    for d in range(len(shape)):
        c = min(a.contiguity[d], b.contiguity[d], cond.constancy[d])
        cs.append(c)
        ds.append(min(a.base_divisibility(d, c), b.base_divisibility(d, c)))
        ks.append(min(a.constancy[d], b.constancy[d], cond.constancy[d]))
    same = a.constant if a.constant is not None and a.constant == b.constant else None
    return _build(shape, cs, ds, ks, a.non_negative and b.non_negative, same)


# ----------------------------------------------------------------------------- casts


def cast(a: AxisInfo, src_width: int, dst_width: int, signed: bool, shape: Shape) -> AxisInfo:
    """Integer casts: sign extension (extsi, index_cast to a wider type), zero
    extension (extui, index_castui) and truncation; narrowing casts keep
    values (they are assumed to fit), except that i1 keeps the low bit."""
    rank = len(shape)
    if dst_width == src_width:
        return a
    if dst_width < src_width:
        if dst_width == 1:
            if a.constant is not None:
                return constant(a.constant & 1, shape)
            return _build(shape, [1] * rank, [1] * rank, list(a.constancy), True)
        return a
    if src_width == 1:
        if signed:  # i1 true sign-extends to -1
            if a.constant is not None:
                return constant(-a.constant, shape)
            return _build(shape, [1] * rank, [1] * rank, list(a.constancy), False)
        return a
    if signed or a.non_negative:
        return a
    if a.constant is not None:
        return constant(unsigned(a.constant, src_width), shape)
    # Zero extension adds 2^src_width to negative elements: runs that do not
    # cross 0 stay runs, and divisors up to 2^src_width survive.
    limit = 1 << min(src_width, 62)
    cs = [aligned_run(a, d, a.contiguity[d]) for d in range(rank)]
    ds = [min(a.base_divisibility(d, cs[d]), limit) for d in range(rank)]
    return _build(shape, cs, ds, list(a.constancy), True)


# ----------------------------------------------------------------------------- promises


def check_multiple(v: AxisInfo, divisor: int) -> AxisInfo:
    """tile.check_multiple: from here on v is a multiple of `divisor`."""
    if v.constant is not None:
        return v
    return AxisInfo.scalar(max(v.element_divisibility(), pow2_part(divisor)), v.non_negative)


def hint(v: AxisInfo, shape: Shape, divisibility=None, contiguity=None, constancy=None) -> AxisInfo:
    """tile.hint: the hinted facts replace the computed ones; a contiguity
    hint without a divisibility hint keeps what the computed divisibility
    says about the new groups' first elements."""
    rank = len(shape)
    cs, ds, ks = [], [], []
    for d in range(rank):
        c = contiguity[d] if contiguity is not None else v.contiguity[d]
        cs.append(c)
        ds.append(divisibility[d] if divisibility is not None else v.base_divisibility(d, c))
        ks.append(constancy[d] if constancy is not None else v.constancy[d])
    return _build(shape, cs, ds, ks, v.non_negative)


def induction_variable(lower: AxisInfo, step: AxisInfo) -> AxisInfo:
    """scf.for's iv = lower + k * step with a positive step."""
    return AxisInfo.scalar(min(lower.element_divisibility(), step.element_divisibility()), lower.non_negative)
