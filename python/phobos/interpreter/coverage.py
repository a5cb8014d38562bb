"""Which elements of each tensor a launch read and wrote, for the interpreter's coverage report.

A kernel whose CTAs leave part of an output unwritten (a grid too small for the
tensor, a tile that stops short of a row) gives no error: the elements keep
whatever they held. With coverage on, the loads and stores mark what they
touch (the part of a slice inside the tensor, the offsets a mask lets through),
and the report names each tensor the kernel stores to but left partly
unwritten, and each tensor it reads but left partly unread.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


class Coverage:
    """The read and written masks of the tensors of one launch, keyed by their arrays."""

    def __init__(self):
        self._masks: dict[int, tuple[str, np.ndarray, np.ndarray]] = {}

    def watch(self, name: str, array: np.ndarray) -> None:
        shape = np.shape(array)
        self._masks[id(array)] = (name, np.zeros(shape, bool), np.zeros(shape, bool))

    def window(self, base, window: tuple, written: bool) -> None:
        entry = self._masks.get(id(base))
        if entry is not None:
            entry[2 if written else 1][window] = True

    def offsets(self, base, flat_offsets, written: bool) -> None:
        entry = self._masks.get(id(base))
        if entry is not None:
            entry[2 if written else 1].reshape(-1)[np.asarray(flat_offsets, dtype=np.int64)] = True

    def report(self) -> CoverageReport:
        tensors = [TensorCoverage(name, read, written) for name, read, written in self._masks.values()]
        return CoverageReport(tensors)


@dataclass
class TensorCoverage:
    name: str
    read: np.ndarray  # bool, the tensor's shape: elements some CTA loaded
    written: np.ndarray  # bool: elements some CTA stored

    @property
    def unwritten(self) -> int:
        """Elements no CTA wrote, in a tensor the kernel stores to (0 for one it only reads)."""
        return int(self.written.size - self.written.sum()) if self.written.any() else 0

    @property
    def unread(self) -> int:
        """Elements no CTA read, in a tensor the kernel loads from (0 for one it never reads)."""
        return int(self.read.size - self.read.sum()) if self.read.any() else 0

    def first(self, mask: np.ndarray) -> list[int]:
        return [int(i) for i in np.argwhere(~mask)[0]]


class CoverageReport:
    """What k.interpret(..., coverage=True) returns: per tensor, what no CTA wrote or read."""

    def __init__(self, tensors: list[TensorCoverage]):
        self.tensors = {t.name: t for t in tensors}

    @property
    def unwritten(self) -> dict[str, int]:
        """Tensor -> elements no CTA wrote, for the tensors the kernel stores to."""
        return {n: t.unwritten for n, t in self.tensors.items() if t.unwritten}

    @property
    def unread(self) -> dict[str, int]:
        """Tensor -> elements no CTA read, for the tensors the kernel loads from."""
        return {n: t.unread for n, t in self.tensors.items() if t.unread}

    @property
    def complete(self) -> bool:
        return not self.unwritten and not self.unread

    def messages(self) -> list[str]:
        out = []
        for name, t in self.tensors.items():
            if t.unwritten:
                out.append(
                    f"{name}: {_part(t.unwritten, t.written.size)} written by no CTA "
                    f"(the first at {t.first(t.written)}); the grid or the tiles do not cover it"
                )
            if t.unread:
                out.append(
                    f"{name}: {_part(t.unread, t.read.size)} read by no CTA "
                    f"(the first at {t.first(t.read)}); the grid or the tiles do not cover it"
                )
        return out

    def __str__(self) -> str:
        return "\n".join(self.messages()) or "every element of every tensor the kernel accesses was covered"

    def __repr__(self) -> str:
        return f"<CoverageReport unwritten={self.unwritten} unread={self.unread}>"


def _part(count: int, size: int) -> str:
    return f"{count} of {size} elements ({100 * count / size:.3g}%)"
