"""Warming a process that forks compiles: import, once, what a compile imports on first use.

A compile worker (runtime/autotune/pool.py) contains each compile in a forked child
(containment.py). What a child imports dies with it, so a worker that forks cold pays for the
imports of the front end, the passes, the lowering and their MLIR dialects in every compile
(about 0.1 s of a 0.3-0.7 s candidate). Importing them in the worker before it forks makes
every child start warm; nothing is compiled here, so nothing here can crash the worker.
"""

from __future__ import annotations

import importlib
import pkgutil

# The packages a compile imports lazily (the compile driver imports the rest at its top).
PACKAGES = (
    "phobos.dialect",
    "phobos.frontend",
    "phobos.builder",
    "phobos.analysis",
    "phobos.passes",
    "phobos.lowering",
)


def warm_up() -> list[str]:
    """Import every module of PACKAGES and locate ptxas; returns the modules that failed to
    import, with why (a compile that needs one reports its own error later)."""
    from phobos import target

    failed = []
    for package in PACKAGES:
        root = importlib.import_module(package)
        for info in pkgutil.walk_packages(root.__path__, package + "."):
            try:
                importlib.import_module(info.name)
            except Exception as e:  # noqa: BLE001 - warming is best effort
                failed.append(f"{info.name}: {type(e).__name__}: {e}")
    target.toolkit_dir()
    return failed
