"""Jobs for test_autotune_pool.py's worker pools (importable in a fresh interpreter): a job is
(index, what), `what` one of "square", "sleep" or "threads"."""

from __future__ import annotations

import os
import time


def run(job: tuple) -> tuple:
    index, what = job
    if what == "sleep":
        time.sleep(60)
    if what == "threads":  # the threads of a worker after importing the compiler, and its containment
        import phobos.compiler.driver  # noqa: F401 - imports MLIR (and numpy, with its BLAS threads)
        from phobos.compiler import containment

        return index, (len(os.listdir("/proc/self/task")), containment.mode())
    return index, index * index
