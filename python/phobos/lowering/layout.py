"""Blocked layouts: how a tile is spread over the threads of a CTA.

A `Blocked` layout (Triton's #blocked, spelled `#tile.blocked<size_per_thread,
threads_per_warp, warps_per_cta, order>` in the IR) gives, per dimension d,
the elements one thread holds contiguously (spt[d]), the lanes of a warp
(tpw[d]) and the warps of the CTA (wpc[d]); `order` lists the dimensions from
the fastest-varying to the slowest. One layout covers a box of
C[d] = spt[d] * tpw[d] * wpc[d] elements. A tile of extent S along d:

  * S >= C: wraps; a thread holds S / C runs of spt[d] elements, C apart;
  * S <  C: is replicated; threads whose runs start at the same point modulo S
    hold the same elements (a tile of extent 1 is held whole by every thread).

All extents are powers of two, so in both cases the k-th element a thread
holds along d sits at

  coordinate(k) = base[d] + offset(k),
  base[d]       = (thread's index along d * spt[d]) mod S          (run-time)
  offset(k)     = (k div e) * C[d] + (k mod e),  e = min(spt[d], S)  (constant)

and a thread holds n[d] = e * max(1, S / C[d]) elements along d. Its registers
are the row-major product over the dimensions, so the contiguous run along the
last dimension is a run of consecutive registers. Tiles of lower rank than the
kernel's layout are placed in it with unit extents in the missing dimensions
(Triton's slice layouts), which makes broadcasting a static register shuffle.

No MLIR import: plain data and arithmetic.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from phobos.lowering.linear_layout import LinearLayout

WARP_SIZE = 32


def is_pow2(x: int) -> bool:
    return x > 0 and (x & (x - 1)) == 0


@dataclass(frozen=True)
class Blocked:
    size_per_thread: tuple[int, ...]
    threads_per_warp: tuple[int, ...]
    warps_per_cta: tuple[int, ...]
    order: tuple[int, ...]

    @property
    def rank(self) -> int:
        return len(self.order)

    @property
    def threads(self) -> int:
        return WARP_SIZE * math.prod(self.warps_per_cta)

    def coverage(self, d: int) -> int:
        return self.size_per_thread[d] * self.threads_per_warp[d] * self.warps_per_cta[d]

    # ------------------------------------------------------------------ text

    def to_text(self) -> str:
        def arr(xs):
            return "array<i64: " + ", ".join(str(x) for x in xs) + ">"

        return (
            f"#tile.blocked<{arr(self.size_per_thread)}, {arr(self.threads_per_warp)}, "
            f"{arr(self.warps_per_cta)}, {arr(self.order)}>"
        )

    def in_words(self) -> str:
        """The layout as a reader says it: '1x4 per thread, 8x4 lanes per warp, 8x1 warps'
        (dimensions in the tile's order; lanes and warps count along each)."""

        def dims(xs) -> str:
            return "x".join(str(x) for x in xs)

        words = (
            f"{dims(self.size_per_thread)} per thread, {dims(self.threads_per_warp)} lanes per warp, "
            f"{dims(self.warps_per_cta)} warps"
        )
        if self.rank > 1:
            fastest = "the last" if self.order[0] == self.rank - 1 else f"dimension {self.order[0]}"
            words += f", neighbouring threads along {fastest} dimension"
        return words

    @staticmethod
    def from_text(text: str) -> Blocked:
        arrays = re.findall(r"array<i64(?::\s*([-0-9,\s]*))?>", text)
        if not text.strip().startswith("#tile.blocked<") or len(arrays) != 4:
            raise ValueError(f"not a #tile.blocked layout: {text}")
        parts = [tuple(int(x) for x in a.split(",")) if a.strip() else () for a in arrays]
        layout = Blocked(*parts)
        layout.check()
        return layout

    def check(self) -> None:
        """Raises ValueError unless the four arrays describe a valid layout."""
        r = len(self.order)
        if any(len(a) != r for a in (self.size_per_thread, self.threads_per_warp, self.warps_per_cta)):
            raise ValueError(f"layout arrays differ in length: {self}")
        if sorted(self.order) != list(range(r)):
            raise ValueError(f"layout order {list(self.order)} is not a permutation of 0..{r - 1}")
        if math.prod(self.threads_per_warp) != WARP_SIZE:
            raise ValueError(f"threads_per_warp {list(self.threads_per_warp)} must multiply to {WARP_SIZE}")
        for a in (self.size_per_thread, self.threads_per_warp, self.warps_per_cta):
            if not all(is_pow2(x) for x in a):
                raise ValueError(f"layout entries must be powers of two: {self}")

    # ------------------------------------------------------------------ geometry

    def inner_strides(self, d: int) -> tuple[int, int]:
        """(lanes, warps) of the dimensions faster than d in `order`: how far
        the lane index and the warp index move for one step along d."""
        if d not in self.order:
            raise ValueError(f"dimension {d} is not in the layout's order")
        lanes = warps = 1
        for dd in self.order[: self.order.index(d)]:
            lanes *= self.threads_per_warp[dd]
            warps *= self.warps_per_cta[dd]
        return lanes, warps

    def thread_index(self, d: int, tid: int) -> int:
        """The index along d of thread `tid` among the tpw[d] * wpc[d] threads
        that split d (lanes and warps each peeled fastest dimension first, in
        `order`); the lowering computes the same from gpu.thread_id."""
        lanes, warps = self.inner_strides(d)
        lane = (tid % WARP_SIZE) // lanes % self.threads_per_warp[d]
        warp = (tid // WARP_SIZE) // warps % self.warps_per_cta[d]
        return warp * self.threads_per_warp[d] + lane

    def coordinates(self, d: int, extent: int, tid: int) -> list[int]:
        """The coordinates along d of the elements thread `tid` holds (register order)."""
        base = (self.thread_index(d, tid) * self.size_per_thread[d]) % extent
        return [base + off for off in self.offsets(d, extent)]

    def run(self, d: int, extent: int) -> int:
        """e: the contiguous elements a thread holds per run along d."""
        return min(self.size_per_thread[d], extent)

    def count(self, d: int, extent: int) -> int:
        """n[d]: the elements a thread holds along d for a tile extent."""
        return self.run(d, extent) * max(1, extent // self.coverage(d))

    def offsets(self, d: int, extent: int) -> list[int]:
        """offset(k) for k < n[d] (the constant part of each coordinate)."""
        e = self.run(d, extent)
        return [(k // e) * self.coverage(d) + k % e for k in range(self.count(d, extent))]

    def counts(self, shape: Sequence[int]) -> list[int]:
        return [self.count(d, s) for d, s in enumerate(shape)]

    def registers(self, shape: Sequence[int]) -> int:
        return math.prod(self.counts(shape))

    def replicated(self, d: int, extent: int) -> bool:
        """Whether several threads hold the same elements along d."""
        return extent < self.coverage(d)

    def register_indices(self, shape: Sequence[int]):
        """All per-dimension register indices, in register order (row-major)."""
        return itertools.product(*(range(n) for n in self.counts(shape)))

    def linear(self, shape: Sequence[int]) -> LinearLayout:
        """This layout on a tile of `shape` as a LinearLayout: registers in
        register order (row-major over the dimensions, so the last dimension's
        register bits are the lowest), lanes and warps peeled in `order`. The
        bases are those of `coordinates`: a run's registers step by 1, its
        wraps by the coverage C[d]; a lane or warp steps the thread's base,
        modulo the extent (a step of the extent or more is a zero basis:
        replication)."""
        registers: list[tuple[int, ...]] = []
        lanes: list[tuple[int, ...]] = []
        warps: list[tuple[int, ...]] = []

        def unit(d: int, x: int) -> tuple[int, ...]:
            return tuple(x % shape[d] if i == d else 0 for i in range(self.rank))

        for d in reversed(range(self.rank)):
            e = self.run(d, shape[d])
            registers += [unit(d, 1 << j) for j in range(e.bit_length() - 1)]
            wraps = self.count(d, shape[d]) // e
            registers += [unit(d, self.coverage(d) << j) for j in range(wraps.bit_length() - 1)]
        for d in self.order:
            tpw, wpc = self.threads_per_warp[d], self.warps_per_cta[d]
            lanes += [unit(d, self.size_per_thread[d] << j) for j in range(tpw.bit_length() - 1)]
            step = self.size_per_thread[d] * tpw
            warps += [unit(d, step << j) for j in range(wpc.bit_length() - 1)]
        return LinearLayout.build(shape, register=registers, lane=lanes, warp=warps)

    def broadcast_map(self, src_shape: Sequence[int], dst_shape: Sequence[int]) -> list[int]:
        """For each register of a dst-shaped tile, the src register with the
        same element (src extents equal dst's or are 1)."""
        src_counts = self.counts(src_shape)
        result = []
        for k in self.register_indices(dst_shape):
            flat = 0
            for d, kd in enumerate(k):
                flat = flat * src_counts[d] + (kd if src_shape[d] == dst_shape[d] else 0)
            result.append(flat)
        return result


def choose_blocked(shape: Sequence[int], threads: int, vector_width: int = 1) -> Blocked:
    """The layout for a tile of `shape` over `threads` threads: lanes along the
    last (contiguous) dimension, `vector_width` elements per thread along it
    where the tile allows, then lanes and warps filled from the fastest
    dimension to the slowest (what is left over replicates along dimension 0).
    """
    rank = len(shape)
    order = tuple(range(rank - 1, -1, -1))
    spt = [1] * rank
    spt[-1] = max(1, min(vector_width, shape[-1]))
    tpw = [1] * rank
    lanes = WARP_SIZE
    for d in order:
        take = max(1, min(lanes, shape[d] // spt[d]))
        tpw[d] = take
        lanes //= take
    tpw[0] *= lanes
    wpc = [1] * rank
    warps = max(1, threads // WARP_SIZE)
    for d in order:
        take = max(1, min(warps, shape[d] // (spt[d] * tpw[d])))
        wpc[d] = take
        warps //= take
    wpc[0] *= warps
    layout = Blocked(tuple(spt), tuple(tpw), tuple(wpc), order)
    layout.check()
    return layout
