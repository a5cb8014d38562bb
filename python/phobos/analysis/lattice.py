"""The axis-info lattice: what is known about an integer scalar or tile.

Per dimension d of a value (a scalar counts as one dimension of extent 1),
with Triton's meanings (include/triton/Analysis/AxisInfo.h):

  contiguity[d]   C: the largest power of two such that every aligned group
                  of C elements along d (positions 0..C-1, C..2C-1, ...)
                  holds consecutive increasing integers;
  divisibility[d] D: a power of two dividing the first element of every such
                  group of C elements (with C = 1: every element);
  constancy[d]    K: a power of two such that every aligned group of K
                  elements along d holds one value;
  constant        the value of every element, when known.

Phobos adds one fact Triton lacks, because the signed div/rem rules and the
mask elision need it:

  non_negative    every element is >= 0.

Groups are whole: C and K divide the extent of their dimension (`normalize`
clamps them to the power-of-two part of the extent). Facts are claims about
values under the assumption that integer arithmetic does not overflow its
type (as in Triton); casts are modelled exactly.

Join (a value that is one of two things, e.g. a loop-carried value): gcd of
each fact, with the divisibility of the side whose contiguity shrank
restricted to the new, smaller groups (`base_divisibility`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

# The divisibility of 0 (Triton's highestPowOf2Divisor(0) for int64).
MAX_DIVISOR = 1 << 62


def pow2_divisor(value: int) -> int:
    """The largest power of two dividing `value` (MAX_DIVISOR for 0)."""
    if value == 0:
        return MAX_DIVISOR
    return min(abs(value) & -abs(value), MAX_DIVISOR)


def pow2_part(n: int) -> int:
    """The largest power of two dividing the positive extent `n`."""
    return n & -n if n > 0 else 1


def floor_pow2(n: int) -> int:
    """The largest power of two <= n (1 for n < 1)."""
    return 1 << (n.bit_length() - 1) if n >= 1 else 1


def cap(x: int) -> int:
    return max(1, min(x, MAX_DIVISOR))


@dataclass(frozen=True)
class AxisInfo:
    contiguity: tuple[int, ...]
    divisibility: tuple[int, ...]
    constancy: tuple[int, ...]
    constant: int | None = None
    non_negative: bool = False

    @property
    def rank(self) -> int:
        return len(self.contiguity)

    # ------------------------------------------------------------- builders

    @staticmethod
    def unknown(rank: int, non_negative: bool = False) -> AxisInfo:
        """Nothing known (the pessimistic state)."""
        ones = (1,) * rank
        return AxisInfo(ones, ones, ones, None, non_negative)

    @staticmethod
    def of_constant(value: int, shape: Sequence[int]) -> AxisInfo:
        """Every element equals `value`."""
        return AxisInfo(
            (1,) * len(shape),
            (pow2_divisor(value),) * len(shape),
            tuple(pow2_part(n) for n in shape),
            value,
            value >= 0,
        )

    @staticmethod
    def scalar(divisibility: int = 1, non_negative: bool = False) -> AxisInfo:
        return AxisInfo((1,), (cap(divisibility),), (1,), None, non_negative)

    # ------------------------------------------------------------- derived facts

    def base_divisibility(self, d: int, group: int) -> int:
        """A power of two dividing every element at a position that is a
        multiple of `group` along d.

        Such a position starts a contiguity group when group >= C (then D
        holds); otherwise it lies inside one, at an offset that is a multiple
        of `group`, so only min(D, group) is known. What holds for every
        element holds there too.
        """
        if group >= self.contiguity[d]:
            own = self.divisibility[d]
        else:
            own = min(self.divisibility[d], group)
        return max(own, self.element_divisibility())

    def element_divisibility(self) -> int:
        """A power of two dividing every element.

        Each dimension with contiguity 1 makes its divisibility a claim about
        every element, so the largest of those holds.
        """
        if self.constant is not None:
            return pow2_divisor(self.constant)
        best = 1
        for d in range(self.rank):
            if self.contiguity[d] == 1:
                best = max(best, self.divisibility[d])
        return best

    def is_true(self) -> bool:
        """An i1 value known to be true everywhere."""
        return self.constant == 1

    # ------------------------------------------------------------- text

    def to_text(self) -> str:
        def arr(xs):
            return "[" + ", ".join(str(x) for x in xs) + "]"

        constant = "none" if self.constant is None else str(self.constant)
        return (
            f"contiguity = {arr(self.contiguity)}, divisibility = {arr(self.divisibility)}, "
            f"constancy = {arr(self.constancy)}, constant = {constant}, "
            f"non_negative = {'true' if self.non_negative else 'false'}"
        )


def with_contiguity(info: AxisInfo, d: int, contiguity: int) -> tuple[int, int]:
    """(C, D) of dimension d when its contiguity claim becomes `contiguity`."""
    return contiguity, info.base_divisibility(d, contiguity)


def normalize(info: AxisInfo, shape: Sequence[int]) -> AxisInfo:
    """Makes every group whole and the facts canonical for `shape`.

    Contiguity and constancy are clamped to the power-of-two part of their
    extent (restricting divisibility where contiguity shrinks); a known
    constant fixes all facts.
    """
    if info.constant is not None:
        return AxisInfo.of_constant(info.constant, shape)
    cs, ds, ks = [], [], []
    for d, n in enumerate(shape):
        limit = pow2_part(n)
        c = min(info.contiguity[d], limit)
        cs.append(c)
        ds.append(cap(info.base_divisibility(d, c)))
        ks.append(max(1, min(info.constancy[d], limit)))
    return AxisInfo(tuple(cs), tuple(ds), tuple(ks), None, info.non_negative)


def join(a: AxisInfo | None, b: AxisInfo | None) -> AxisInfo | None:
    """The facts of a value that is either `a` or `b` (None: no value yet)."""
    if a is None:
        return b
    if b is None:
        return a
    if a == b:
        return a
    cs, ds, ks = [], [], []
    for d in range(a.rank):
        c = min(a.contiguity[d], b.contiguity[d])
        cs.append(c)
        ds.append(min(a.base_divisibility(d, c), b.base_divisibility(d, c)))
        ks.append(min(a.constancy[d], b.constancy[d]))
    constant = a.constant if a.constant is not None and a.constant == b.constant else None
    result = AxisInfo(tuple(cs), tuple(ds), tuple(ks), None, a.non_negative and b.non_negative)
    if constant is not None:
        return replace(result, constant=constant)
    return result
