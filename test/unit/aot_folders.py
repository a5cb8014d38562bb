"""The ahead-of-time folders the GPU tests launch from (built here by bench/aot_build.py).

The GPU machine has no MLIR: each test loads its kernel from
`$PHOBOS_GPU_ARTIFACTS/aot/<source>[-<NAME><value>...][-<chip>]` (default
.cache/gpu) and skips, saying which folder, when it was not built.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import phobos

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(os.environ.get("PHOBOS_GPU_ARTIFACTS", ROOT / ".cache" / "gpu"))


def folder_name(name: str, defines: dict | None = None, chip: str | None = None) -> str:
    """`<source>[-<NAME><value>...][-<chip>]`: the chip only where it is not the default."""
    suffix = "".join(f"-{k}{v}" for k, v in sorted((defines or {}).items()))
    return f"{name}{suffix}" + (f"-{chip}" if chip else "")


def folder(name: str, defines: dict | None = None, chip: str | None = None) -> Path:
    return ARTIFACTS / "aot" / folder_name(name, defines, chip)


def aot(name: str, defines: dict | None = None, chip: str | None = None):
    """The kernel of bench/kernels/ or examples/ source `name` built with `defines` (for `chip`)."""
    path = folder(name, defines, chip)
    if not path.is_dir():
        pytest.skip(f"no ahead-of-time folder {path}; run bench/aot_build.py")
    return phobos.load(path)
