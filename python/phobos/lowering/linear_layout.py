"""Linear layouts: one type for every way a tile is spread over registers, lanes, warps or bytes.

A `LinearLayout` maps hardware indices (the *in* dimensions: `register`,
`lane` and `warp` for values in registers, `offset` for shared memory) to tile
coordinates (the *out* dimensions, one extent per tile dimension). Every
extent is a power of two and the map is linear over GF(2): each bit of an
in index has a *basis*, the coordinates it contributes, and an index's
coordinates are the XOR of the bases of its set bits. This is the model of
Triton's LinearLayout. It covers everything the lowering places:

  * the blocked layouts (layout.Blocked.linear): register runs, lanes and
    warps along each dimension, and replication (a zero basis: that bit
    does not move the element, so two threads hold the same one);
  * the tensor-core fragments (fragments.py): mma.sync's A, B and C
    registers, wgmma's accumulator and the row order TMA gives its A tiles;
  * shared-memory layouts: the 128-byte swizzle TMA writes (an XOR of row
    bits into column bits, which is why GF(2) and not integer arithmetic).

Two layouts are compared with `==`, applied with `apply`, and a bijective one
(a shared-memory layout) is inverted with `invert`, which is how a layout
conversion finds where an element lives. No MLIR import: plain data.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

Coord = tuple[int, ...]


def _log2(x: int, what: str) -> int:
    if x <= 0 or x & (x - 1):
        raise ValueError(f"{what} must be a power of two, got {x}")
    return x.bit_length() - 1


def _xor(a: Coord, b: Coord) -> Coord:
    return tuple(x ^ y for x, y in zip(a, b))


@dataclass(frozen=True)
class LinearLayout:
    """`ins`: (name, bases) per in dimension, one basis (a coordinate tuple) per
    bit, lowest bit first; `shape`: the out extents (powers of two)."""

    ins: tuple[tuple[str, tuple[Coord, ...]], ...]
    shape: Coord

    def __post_init__(self) -> None:
        for d, s in enumerate(self.shape):
            _log2(s, f"extent {d}")
        for name, bases in self.ins:
            for b in bases:
                if len(b) != len(self.shape) or any(not 0 <= x < s for x, s in zip(b, self.shape)):
                    raise ValueError(f"basis {b} of '{name}' is not a coordinate of a {list(self.shape)} tile")

    @staticmethod
    def build(shape: Sequence[int], **ins: Iterable[Sequence[int]]) -> LinearLayout:
        """`LinearLayout.build((16, 8), register=[(0, 1), (8, 0)], lane=[...])`."""
        return LinearLayout(tuple((name, tuple(tuple(b) for b in bases)) for name, bases in ins.items()), tuple(shape))

    # ------------------------------------------------------------------ queries

    @property
    def in_names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.ins)

    def bases(self, name: str) -> tuple[Coord, ...]:
        for n, b in self.ins:
            if n == name:
                return b
        return ()

    def in_size(self, name: str) -> int:
        return 1 << len(self.bases(name))

    @property
    def rank(self) -> int:
        return len(self.shape)

    def apply(self, **indices: int) -> Coord:
        """The coordinates of the element at these in indices (an omitted in dimension is 0)."""
        unknown = set(indices) - set(self.in_names)
        if unknown:
            raise ValueError(f"no in dimension {sorted(unknown)} in {self.in_names}")
        out = (0,) * self.rank
        for name, bases in self.ins:
            i = indices.get(name, 0)
            if not 0 <= i < 1 << len(bases):
                raise ValueError(f"{name} {i} is out of range (size {1 << len(bases)})")
            for bit, b in enumerate(bases):
                if i >> bit & 1:
                    out = _xor(out, b)
        return out

    def free_bits(self, name: str) -> list[int]:
        """The bits of `name` with a zero basis: indices that differ only there hold the same element."""
        return [bit for bit, b in enumerate(self.bases(name)) if not any(b)]

    def replicated(self) -> bool:
        """Whether some element is held by more than one (register, lane, warp) index."""
        return not self.injective()

    # ------------------------------------------------------------------ GF(2) algebra

    def _out_bits(self) -> list[int]:
        return [_log2(s, "extent") for s in self.shape]

    def _flatten(self, c: Coord) -> int:
        """Coordinates as one bit vector, the last dimension in the lowest bits."""
        v = 0
        for x, bits in zip(c, self._out_bits()):
            v = v << bits | x
        return v

    def _columns(self) -> list[int]:
        return [self._flatten(b) for _, bases in self.ins for b in bases]

    def rank_gf2(self) -> int:
        """The number of independent bases: log2 of the number of distinct elements reached."""
        return len(_echelon(self._columns()))

    def injective(self) -> bool:
        return self.rank_gf2() == len(self._columns())

    def surjective(self) -> bool:
        return self.rank_gf2() == sum(self._out_bits())

    def invert(self) -> LinearLayout:
        """The inverse of a bijective layout with one in dimension: its in
        dimensions are the tile's (`dim0`, `dim1`, ...), its one out dimension
        the original's in index (a 1-D shape of the layout's size)."""
        if len(self.ins) != 1 or not (self.injective() and self.surjective()):
            raise ValueError("only a bijective layout with one in dimension has an inverse")
        columns = self._columns()
        total = len(columns)
        # Solve, for each out bit, which in bits XOR to it (Gaussian elimination over GF(2)).
        solved = dict(_solve_basis(columns))
        ins = []
        shift = total
        for d, bits in enumerate(self._out_bits()):
            shift -= bits
            ins.append((f"dim{d}", tuple((solved[1 << (shift + j)],) for j in range(bits))))
        return LinearLayout(tuple(ins), (1 << total,))

    def index_of(self, coords: Coord) -> int:
        """For a bijective one-in-dimension layout: the index that holds `coords`."""
        inverse = self.invert()
        return inverse.apply(**{f"dim{d}": x for d, x in enumerate(coords)})[0]

    # ------------------------------------------------------------------ text

    def to_text(self) -> str:
        """`#tile.linear<register = [[0, 1], [8, 0]], lane = [...], shape = [16, 8]>`."""

        def bases(bs: tuple[Coord, ...]) -> str:
            return "[" + ", ".join("[" + ", ".join(str(x) for x in b) + "]" for b in bs) + "]"

        parts = [f"{name} = {bases(bs)}" for name, bs in self.ins]
        return "#tile.linear<" + ", ".join(parts + [f"shape = {list(self.shape)}"]) + ">"

    def table(self, **fixed: int) -> dict[Coord, list[dict[str, int]]]:
        """Every element and the in indices that hold it (the other in dimensions fixed), for views and tests."""
        free = [(n, 1 << len(b)) for n, b in self.ins if n not in fixed]
        out: dict[Coord, list[dict[str, int]]] = {}
        for flat in range(math.prod(size for _, size in free)):
            idx = dict(fixed)
            for name, size in reversed(free):
                idx[name], flat = flat % size, flat // size
            out.setdefault(self.apply(**idx), []).append({n: idx[n] for n, _ in free})
        return out


def _echelon(columns: Sequence[int]) -> list[int]:
    """A row-echelon basis (by highest bit) of the span of `columns` over GF(2)."""
    basis: list[int] = []
    for c in columns:
        for b in basis:
            c = min(c, c ^ b)
        if c:
            basis.append(c)
            basis.sort(reverse=True)
    return basis


def _solve_basis(columns: Sequence[int]) -> list[tuple[int, int]]:
    """For an invertible set of columns (Gauss-Jordan over GF(2)): (the unit
    vector of each bit, the mask of the columns whose XOR it is)."""
    rows = [(c, 1 << i) for i, c in enumerate(columns)]  # (value, which columns make it)
    pivots: list[int] = []
    for bit in range(len(columns)):
        unit = 1 << bit
        p = next(i for i, (v, _) in enumerate(rows) if v & unit and i not in pivots)
        pivots.append(p)
        pv, pm = rows[p]
        rows = [(v ^ pv, m ^ pm) if i != p and v & unit else (v, m) for i, (v, m) in enumerate(rows)]
    return [rows[p] for p in pivots]


def layouts_equal_on(a: LinearLayout, b: LinearLayout, names: Mapping[str, str] | None = None) -> bool:
    """Whether two layouts send the same in indices to the same coordinates,
    matching in dimension `n` of `a` with `names.get(n, n)` of `b`."""
    names = dict(names or {})
    if a.shape != b.shape:
        return False
    return all(bs == b.bases(names.get(n, n)) for n, bs in a.ins) and len(a.ins) == len(b.ins)
