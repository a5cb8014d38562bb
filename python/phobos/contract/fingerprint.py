"""The compiler fingerprint: a hash of everything that decides generated code.

It covers the compiler's own sources (dialect/, passes/, and python/phobos/
except the runtime and its contract/ modules, the interpreter and the
command-line drivers) and the
pinned toolchain versions in pyproject.toml, and is computed without importing
MLIR, so a machine that only runs kernels (no MLIR wheels) computes the same
value as the machine that compiled them and finds their cache entries.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent.parent
# Parts of python/phobos that load, launch, drive or interpret; editing them changes no compiled code.
# contract/ (artifact, fingerprint, specialisation keys) was part of runtime/ and is still left out.
_NOT_CODEGEN = {"__init__.py", "runtime", "contract", "cli", "opt", "interpreter"}


def _runtime_only(root: Path, path: Path) -> bool:
    return root == _PACKAGE and path.relative_to(root).parts[0] in _NOT_CODEGEN


def _roots():
    repo = _PACKAGE.parent.parent
    if (repo / "pyproject.toml").exists():  # a source checkout (editable or PYTHONPATH)
        return [_PACKAGE, repo / "dialect", repo / "passes"]
    roots = [_PACKAGE]  # an installed wheel: subpackages live inside the package
    return roots + [_PACKAGE / "dialect", _PACKAGE / "passes"]


def _sources():
    for root in _roots():
        for path in sorted(root.rglob("*")):
            if path.suffix in (".py", ".mlir") and not _runtime_only(root, path) and "__pycache__" not in path.parts:
                yield root.name, path


@functools.lru_cache(maxsize=1)
def compiler_fingerprint() -> str:
    h = hashlib.sha256()
    for root_name, path in _sources():
        h.update(f"{root_name}/{path.name}".encode())
        h.update(path.read_bytes())
    pyproject = _PACKAGE.parent.parent / "pyproject.toml"
    if pyproject.exists():
        h.update(pyproject.read_bytes())
    return h.hexdigest()[:16]
