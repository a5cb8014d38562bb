"""Write-write races between CTAs: two CTAs storing to one element in one launch.

On the GPU the CTAs of a launch run in no fixed order, so when two of them
store to the same element without an atomic, which value survives is
unspecified (a `Y[0 :+ 1] += sum(...)` from every CTA loses almost all of
its additions). The interpreter runs the CTAs one after another and would
give the sequential answer; instead it records, per element of every tensor,
the CTA that stored to it and where, and a store by another CTA to an
element already stored in this launch is an InterpreterError naming both
CTAs, the tensor and element, and both source lines.

A grid barrier orders the phases of a `@persistent` kernel: stores before it
and stores after it do not race, so the records start over at every barrier.
Atomics (interpreter/atomics.py) do not record: they are the way to combine
values from several CTAs. A CTA may store to an element as often as it likes.
"""

from __future__ import annotations

import numpy as np

from phobos.interpreter.errors import InterpreterError


def _where(loc) -> str:
    return f"{loc[0]}:{loc[1]}:{loc[2]}" if loc else "an unknown place"


class Races:
    """The stores of one launch: per tensor, which CTA (1 + its index) and which site stored each element."""

    def __init__(self, names: dict[int, str]):
        self.names = names  # id(bound array) -> parameter name
        self.tables: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self.sites: list = []  # the locations of the stores, indexed by the site table
        self.site_ids: dict = {}
        self.ctas: dict[tuple, int] = {}
        self.blocks: list[tuple] = []

    def phase(self) -> None:
        """A grid barrier: what was stored before it cannot race with what comes after."""
        self.tables.clear()

    def _cta(self, block: tuple) -> int:
        if block not in self.ctas:
            self.blocks.append(block)
            self.ctas[block] = len(self.blocks)
        return self.ctas[block]

    def _site(self, loc) -> int:
        key = tuple(loc) if loc else None
        if key not in self.site_ids:
            self.site_ids[key] = len(self.sites)
            self.sites.append(loc)
        return self.site_ids[key]

    def _table(self, base: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        table = self.tables.get(id(base))
        if table is None:
            table = (np.zeros(base.shape, np.int32), np.zeros(base.shape, np.int32))
            self.tables[id(base)] = table
        return table

    def window(self, base: np.ndarray, index: tuple, block: tuple, loc) -> None:
        """A store to base[index] (a tuple of slices) by the CTA at `block`."""
        owner, site = self._table(base)
        self._record(base, owner[index], site[index], block, loc, lambda k: _window_element(base, index, k))

    def offsets(self, base: np.ndarray, flat: np.ndarray, block: tuple, loc) -> None:
        """A store to the row-major element offsets `flat` of base."""
        owner, site = self._table(base)
        flat = np.asarray(flat, dtype=np.int64).reshape(-1)
        owners, sites = owner.reshape(-1), site.reshape(-1)  # views: the tables are C-contiguous
        me, here = self._cta(block), self._site(loc)
        self._check(base, owners[flat], sites[flat], me, loc, lambda k: np.unravel_index(int(flat[k]), base.shape))
        owners[flat], sites[flat] = me, here

    def _record(self, base, owners: np.ndarray, sites: np.ndarray, block, loc, element) -> None:
        me, here = self._cta(block), self._site(loc)
        self._check(base, owners.reshape(-1), sites.reshape(-1), me, loc, element)
        owners[...] = me
        sites[...] = here

    def _check(self, base, owners: np.ndarray, sites: np.ndarray, me: int, loc, element) -> None:
        clash = np.flatnonzero((owners != 0) & (owners != me))
        if not clash.size:
            return
        k = int(clash[0])
        other = self.blocks[int(owners[k]) - 1]
        first = self.sites[int(sites[k])]
        coords = ", ".join(str(int(c)) for c in element(k))
        name = self.names.get(id(base), "a tensor")
        raise InterpreterError(
            f"a race: CTAs {other} and {self.blocks[me - 1]} both store to {name}[{coords}] in one launch "
            f"(CTA {other} at {_where(first)}, CTA {self.blocks[me - 1]} here); on the GPU the result would "
            "depend on the order the CTAs run in: give each CTA its own elements, combine with an atomic "
            "(atomic_add, ...), or order the stores with grid_barrier() in a @persistent kernel",
            loc,
        )


def _window_element(base: np.ndarray, index: tuple, k: int) -> tuple:
    """The tensor coordinates of the k-th element (row-major) of base[index]."""
    shape = [len(range(*s.indices(n))) for s, n in zip(index, base.shape)]
    inner = np.unravel_index(k, shape)
    return tuple(s.indices(n)[0] + i for s, n, i in zip(index, base.shape, inner))
