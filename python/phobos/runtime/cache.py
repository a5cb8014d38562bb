"""The on-disk kernel cache (also the layout of ahead-of-time folders).

A compiled variant is found by two hashes, both computed without MLIR:

  family = sha256(source text, kernel name, defines, chip, options, compiler fingerprint)
  entry  = the specialisation key's text ("" for the generic variant)

and lives in `<root>/<family>/<sha256(key)[:16] or "generic">/`:

  kernel.cubin     the cubin
  contract.json    the launch contract (phobos.contract.artifact)
  entry.json       what was compiled: kernel, key, source, chip, defines, options, fingerprint
  asm/<stage>      the stage texts that came with the artifact (tile, gpu, ptx, ...)
  program.json     the tile program the interpreter runs (phobos.compiler.tile_program)

Writes are atomic: an entry is built in a temporary folder under the root and
renamed into place, so a reader sees a whole entry or none, and two processes
compiling the same variant both succeed (the second rename loses and its copy
is dropped). The root is $PHOBOS_CACHE_DIR, else $XDG_CACHE_HOME/phobos, else
~/.cache/phobos. An ahead-of-time folder is a root of its own: launch from it
with phobos.load(folder), or point PHOBOS_CACHE_DIR at it.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

FORMAT = 1
GENERIC = "generic"


def default_root() -> Path:
    env = os.environ.get("PHOBOS_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "phobos"


def _canonical(value) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def family_digest(
    source_text: str, kernel: str | None, defines: dict | None, chip: str, options: dict | None, fingerprint: str
) -> str:
    h = hashlib.sha256()
    for part in (source_text, kernel or "", _canonical(defines or {}), chip, _canonical(options or {}), fingerprint):
        data = part.encode()
        h.update(len(data).to_bytes(8, "little"))  # length-prefixed: no two tuples hash alike
        h.update(data)
    return h.hexdigest()[:32]


def entry_name(key_text: str) -> str:
    return hashlib.sha256(key_text.encode()).hexdigest()[:16] if key_text else GENERIC


def _artifact_class():
    from phobos.contract.artifact import Artifact  # no MLIR in phobos.contract.artifact

    return Artifact


class Entry:
    """One cached variant, read lazily."""

    def __init__(self, path: Path, meta: dict):
        self.path = path
        self.meta = meta

    @property
    def key(self) -> str:
        return self.meta.get("key", "")

    @property
    def kernel(self) -> str:
        return self.meta.get("kernel", "")

    def contract(self) -> dict:
        return json.loads((self.path / "contract.json").read_text())

    def cubin(self) -> bytes:
        return (self.path / "kernel.cubin").read_bytes()

    def asm(self) -> dict[str, str]:
        folder = self.path / "asm"
        if not folder.is_dir():
            return {}
        return {p.name: p.read_text() for p in sorted(folder.iterdir()) if p.is_file()}

    def program(self) -> dict | None:
        """The tile program for the interpreter (None for entries written without one)."""
        path = self.path / "program.json"
        return json.loads(path.read_text()) if path.is_file() else None

    def artifact(self):
        return _artifact_class()(cubin=self.cubin(), contract=self.contract(), asm=self.asm(), program=self.program())


class Cache:
    def __init__(self, root: os.PathLike | None = None):
        self.root = Path(root).expanduser() if root is not None else default_root()

    def __repr__(self):
        return f"Cache({str(self.root)!r})"

    def path(self, family: str, key_text: str) -> Path:
        return self.root / family / entry_name(key_text)

    def get(self, family: str, key_text: str) -> Entry | None:
        path = self.path(family, key_text)
        try:
            meta = json.loads((path / "entry.json").read_text())
        except (OSError, ValueError):
            return None
        if meta.get("format") != FORMAT or meta.get("key", "") != key_text:
            return None
        return Entry(path, meta)

    def put(self, family: str, key_text: str, artifact, meta: dict) -> Entry:
        """Store `artifact` (cubin, contract, asm) atomically; returns the entry now in place."""
        final = self.path(family, key_text)
        final.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".tmp-", dir=self.root))
        try:
            (tmp / "kernel.cubin").write_bytes(bytes(artifact.cubin))
            (tmp / "contract.json").write_text(json.dumps(artifact.contract, indent=1, sort_keys=True))
            program = getattr(artifact, "program", None)
            if program is not None:
                (tmp / "program.json").write_text(json.dumps(program, separators=(",", ":")))
            asm = getattr(artifact, "asm", None) or {}
            if asm:
                (tmp / "asm").mkdir()
                for stage, text in asm.items():
                    if isinstance(text, bytes):
                        (tmp / "asm" / stage).write_bytes(text)
                    else:
                        (tmp / "asm" / stage).write_text(str(text))
            full = dict(meta, format=FORMAT, family=family, key=key_text, created=time.time())
            full.setdefault("kernel", artifact.contract.get("name", ""))
            (tmp / "entry.json").write_text(json.dumps(full, indent=1, sort_keys=True))
            try:
                os.rename(tmp, final)
            except OSError:
                if not final.is_dir():
                    raise
                # another process stored the same variant first: keep theirs
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)
        entry = self.get(family, key_text)
        if entry is None:
            raise OSError(f"the cache entry {final} could not be read back after writing it")
        return entry

    def variants(self, family: str) -> list[Entry]:
        """Every cached variant of one family."""
        folder = self.root / family
        if not folder.is_dir():
            return []
        out = []
        for path in sorted(folder.iterdir()):
            entry = self._read(path)
            if entry is not None:
                out.append(entry)
        return out

    def entries(self) -> Iterator[Entry]:
        """Every entry under the root (all families)."""
        if not self.root.is_dir():
            return
        for family in sorted(self.root.iterdir()):
            if family.is_dir() and not family.name.startswith("."):
                for path in sorted(family.iterdir()):
                    entry = self._read(path)
                    if entry is not None:
                        yield entry

    @staticmethod
    def _read(path: Path) -> Entry | None:
        try:
            meta = json.loads((path / "entry.json").read_text())
        except (OSError, ValueError):
            return None
        return Entry(path, meta) if meta.get("format") == FORMAT else None

    def clear(self) -> None:
        if self.root.is_dir():
            shutil.rmtree(self.root)
