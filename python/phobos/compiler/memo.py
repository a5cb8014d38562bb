"""What one process reuses between compiles of the same kernel: the tile IR before specialisation,
and the PTX and cubin of an LLVM module it has seen.

A tuning compiles each candidate's variants (the generic one, one per launch key) one after
another in one process (runtime/autotune/parallel.py). Up to tile-specialize they are the same
compile: the front end (the GPU rules check, parsing, type checking, the tile IR) and the tile
passes that take no key give the same module each time. The first compile keeps that module's
text, with its locations; the next ones parse it, which costs a few milliseconds of the 30-50 ms
the front end takes. Variants whose LLVM modules print the same (a key that changes nothing the
code depends on, such as extents divisible by 16 where 4 already give the widest vectors) get the
first one's PTX and cubin without LLVM's back end and ptxas.

Both memos hold the latest kernel's entries only, so a long-lived process keeps little, and a
process that compiles each kernel once (every contained compile forks a child of its own) never
finds anything in them. Nothing is kept when the reused work reported a diagnostic, or when the
PTX carries debug directives (`.loc`, `.file`), which name locations the LLVM text as printed
may not show.
"""

from __future__ import annotations

import re
from collections.abc import Hashable

_DEBUG_DIRECTIVES = re.compile(r"^\s*\.(loc|file)\b", re.M)
MAX_BINARIES = 4  # a candidate's variants: the generic one and a few launch keys


class _Memo:
    """Values for the keys of one group (a kernel); putting a key of another group forgets the rest."""

    def __init__(self, size: int):
        self.size = size
        self.group: Hashable = None
        self.values: dict[Hashable, object] = {}

    def get(self, group: Hashable, key: Hashable):
        return self.values.get(key) if group == self.group else None

    def put(self, group: Hashable, key: Hashable, value) -> None:
        if group != self.group:
            self.group, self.values = group, {}
        if len(self.values) >= self.size:
            self.values.pop(next(iter(self.values)))
        self.values[key] = value


_TILE = _Memo(1)
_BINARIES = _Memo(MAX_BINARIES)


def tile_ir(key: Hashable) -> str | None:
    """The tile IR text kept for `key` (the source, defines, kernel and shared tile passes)."""
    found = _TILE.get(key, key)
    return found if isinstance(found, str) else None


def keep_tile_ir(key: Hashable, text: str) -> None:
    _TILE.put(key, key, text)


def binaries(group: Hashable, llvm_text: str, toolkit: str) -> tuple[str, bytes] | None:
    """(PTX, cubin) of an LLVM module that printed as `llvm_text`, compiled for `group` before."""
    found = _BINARIES.get(group, (llvm_text, toolkit))
    return found if isinstance(found, tuple) else None


def keep_binaries(group: Hashable, llvm_text: str, toolkit: str, ptx: str, cubin: bytes) -> None:
    if not _DEBUG_DIRECTIVES.search(ptx):
        _BINARIES.put(group, (llvm_text, toolkit), (ptx, cubin))


def forget() -> None:
    """Drop everything kept (tests)."""
    _TILE.group, _TILE.values = None, {}
    _BINARIES.group, _BINARIES.values = None, {}
