"""The shared-memory planner: buffers, their padding and their offsets.

A kernel's shared memory is one region (the extern dynamic `__phobos_smem`,
placed after any static shared data: NVGPU22 hazard H1). Each operand tile a
`dot` reads from shared memory gets a `Buffer`: `rows x ld` elements, `ld`
the row length padded so that the warp's reads hit distinct banks, times the
number of pipeline stages. The planner

  * pads: for each candidate `ld` (the row rounded up to 16 bytes, then up to
    32 more words), counts the wavefronts of the warp-0 accesses the caller
    describes (`Buffer.accesses(ld)`) with the bank model below, and keeps the
    cheapest, the smallest on ties;
  * places: every buffer at an offset aligned to its `align` (16 bytes, or
    1024 for the 128-byte swizzled tiles TMA writes and wgmma reads),
    largest first at the lowest offset free over its live range, so buffers whose live ranges do
    not overlap share bytes (the barrier planner then treats them as the same
    storage).

Bank model (the one the CUDA guide describes): 32 banks of 4 bytes; a warp's
request takes as many wavefronts as the largest number of distinct 4-byte
words any bank must deliver, and at least one per 128 bytes of distinct data.

No MLIR import: plain data and arithmetic.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

BANKS = 32
BANK_BYTES = 4
ALIGN = 16


def wavefronts(accesses: Iterable[tuple[int, int]]) -> int:
    """Wavefronts of one warp request: `accesses` are (byte address, bytes) per lane."""
    words_by_bank: dict[int, set[int]] = {}
    distinct: set[int] = set()
    for address, size in accesses:
        for word in range(address // BANK_BYTES, (address + size + BANK_BYTES - 1) // BANK_BYTES):
            words_by_bank.setdefault(word % BANKS, set()).add(word)
            distinct.add(word)
    if not distinct:
        return 0
    by_bank = max(len(w) for w in words_by_bank.values())
    by_bytes = -(-len(distinct) * BANK_BYTES // (BANKS * BANK_BYTES))
    return max(by_bank, by_bytes)


def round_up(x: int, to: int) -> int:
    return -(-x // to) * to


# The warp-0 requests of one pass over a buffer, for a row length `ld` (in
# elements): a list of requests, each a list of (byte address, bytes) per lane.
AccessModel = Callable[[int], list[list[tuple[int, int]]]]


@dataclass
class Buffer:
    """One shared-memory buffer: `stages` copies of a rows x ld tile."""

    name: str
    rows: int
    cols: int
    element_bytes: int
    stages: int = 1
    where: str = ""  # file:line:col of the op that fills it
    reads: AccessModel | None = None
    writes: AccessModel | None = None
    live: tuple[int, int] = (0, 0)  # program points, inclusive
    ld: int = 0
    offset: int = -1
    read_wavefronts: int = 0  # per pass of reads, at the chosen ld
    ideal_read_wavefronts: int = 0
    write_wavefronts: int = 0
    align: int = ALIGN  # bytes; also the granule of each stage
    swizzle: int = 0  # bytes of the TMA swizzle pattern the buffer is written with (0: none)

    @property
    def stage_bytes(self) -> int:
        return round_up(self.rows * self.ld * self.element_bytes, self.align)

    @property
    def bytes(self) -> int:
        return self.stage_bytes * self.stages

    @property
    def stage_elements(self) -> int:
        return self.stage_bytes // self.element_bytes

    def overlaps(self, other: Buffer) -> bool:
        return self.offset < other.offset + other.bytes and other.offset < self.offset + self.bytes

    def to_json(self) -> dict:
        return {
            "name": self.name,
            "where": self.where,
            "shape": [self.rows, self.cols],
            "ld": self.ld,
            "padding": self.ld - self.cols,
            "element_bytes": self.element_bytes,
            "stages": self.stages,
            "offset": self.offset,
            "bytes": self.bytes,
            "read_wavefronts": self.read_wavefronts,
            "ideal_read_wavefronts": self.ideal_read_wavefronts,
            "bank_conflicts": self.read_wavefronts > self.ideal_read_wavefronts,
            "write_wavefronts": self.write_wavefronts,
            **({"align": self.align, "swizzle": self.swizzle} if self.swizzle else {}),
        }


def _cost(model: AccessModel | None, ld: int) -> int:
    return 0 if model is None else sum(wavefronts(request) for request in model(ld))


def choose_padding(buffer: Buffer, max_extra_words: int = 32) -> None:
    """Sets buffer.ld (and its wavefront counts) to the cheapest row length."""
    eb = buffer.element_bytes
    step = max(1, ALIGN // eb)  # rows stay 16-byte aligned for vector accesses and cp.async
    first = round_up(buffer.cols, step)
    best = None
    for ld in range(first, first + max_extra_words * BANK_BYTES // eb + 1, step):
        cost = (_cost(buffer.reads, ld) + _cost(buffer.writes, ld), ld)
        if best is None or cost < best:
            best = cost
    assert best is not None  # the range holds `first` at least
    set_row_length(buffer, best[1])


def set_row_length(buffer: Buffer, ld: int) -> None:
    """Sets buffer.ld and the wavefront counts its accesses take at that row length."""
    buffer.ld = ld
    buffer.read_wavefronts, buffer.write_wavefronts = _cost(buffer.reads, ld), _cost(buffer.writes, ld)
    if buffer.reads is not None:
        # The ideal: each request at its distinct-bytes minimum.
        ideal = 0
        for request in buffer.reads(buffer.ld):
            distinct = {(a // BANK_BYTES) + w for a, s in request for w in range(-(-s // BANK_BYTES))}
            ideal += max(1, -(-len(distinct) * BANK_BYTES // (BANKS * BANK_BYTES)))
        buffer.ideal_read_wavefronts = ideal


@dataclass
class Plan:
    buffers: list[Buffer] = field(default_factory=list)

    @property
    def total_bytes(self) -> int:
        return max((b.offset + b.bytes for b in self.buffers), default=0)

    def to_json(self) -> dict:
        return {"bytes": self.total_bytes, "buffers": [b.to_json() for b in self.buffers]}


def place(buffers: list[Buffer]) -> Plan:
    """Gives every buffer an offset: largest first, at the lowest offset aligned
    to its `align` that no buffer with an overlapping live range occupies."""
    placed: list[Buffer] = []
    for b in sorted(buffers, key=lambda b: (-b.bytes, b.live)):
        busy = sorted(
            (o.offset, o.offset + o.bytes) for o in placed if o.live[0] <= b.live[1] and b.live[0] <= o.live[1]
        )
        offset = 0
        for start, end in busy:
            if offset + b.bytes <= start:
                break
            offset = max(offset, round_up(end, b.align))
        b.offset = offset
        placed.append(b)
    return Plan(buffers)
