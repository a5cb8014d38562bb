"""Compiling candidates in parallel: the compile job of one candidate (its variants into the kernel
cache or an ahead-of-time folder), run by persistent worker processes (pool.py)."""

from __future__ import annotations

import math
import os
import time

from phobos.contract.specialization import SpecKey

from .pool import WorkerPool
from .progress import Progress
from .space import config_name

ENV_JOBS = "PHOBOS_AUTOTUNE_JOBS"  # compile processes (default: one per CPU, at most one per candidate)


# ----------------------------------------------------------------------------- compiling in parallel


def compile_job(job: tuple) -> tuple:
    """In a pool worker: compile variants of one candidate into the kernel cache (or an
    ahead-of-time folder): one per key text, then one per example argument list.
    Returns (index, error or None, seconds, keys stored, examples skipped and why).

    The variants compile one after another in one contained child (compiler/containment.py),
    which shares what they have in common (compiler/memo.py: the front end and the tile passes
    before tile-specialize; PTX and cubin of a variant whose LLVM module prints the same as
    another's). Each variant is stored as it is compiled, so one that crashes the child leaves
    those before it in the cache; the candidate's error is the crash."""
    try:
        from phobos.compiler import containment
    except ImportError:  # no MLIR here: each variant's compile says what to do instead
        return _compile_variants(job)
    t0 = time.perf_counter()
    try:
        return containment.run(_compile_variants, job)
    except containment.Aborted as e:  # named as a contained compile names its input (a path, or text)
        name = job[1] if isinstance(job[1], str) and "\n" not in job[1] else "<text>"
        return job[0], f"compile error: {name}: MLIR aborted: {e.message}", time.perf_counter() - t0, [], []


def _compile_variants(job: tuple) -> tuple:
    """compile_job's work, in the contained child."""
    index, source, kernel, chip, defines, options, cache_root, keys, examples, check = job
    from ..kernel import Kernel

    t0 = time.perf_counter()
    stored, skipped = [], []
    try:
        k = Kernel(source, kernel=kernel, chip=chip, defines=defines, options=options, cache_dir=cache_root)
        for key in keys:
            k.variant(SpecKey.from_text(key) if key else SpecKey())
            stored.append(key)
        for args in examples:
            sig = k.signature
            try:  # the grid does not change the variant (kernels without a grid rule need none here)
                binding = sig.bind(args, sig.describe(args), grid=(0, 0, 0), check_promises=check)
            except ValueError as e:  # a broken @aligned promise of this candidate: not its arguments
                skipped.append(str(e))
                continue
            k.variant(binding.key)
            stored.append(binding.key.to_text())
    except Exception as e:  # a CompileError, a missing compiler: the candidate's reason
        return index, first_error(e), time.perf_counter() - t0, stored, skipped
    return index, None, time.perf_counter() - t0, list(dict.fromkeys(stored)), skipped


def first_error(e: BaseException) -> str:
    """A one-line reason from an exception (the first error of a CompileError)."""
    records = getattr(e, "records", None)
    if records:
        errors = [r for r in records if getattr(r, "severity", "") == "error"] or records
        r = errors[0]
        where = f"{r.filename}:{r.line}:{r.col}: " if getattr(r, "filename", None) else ""
        return f"compile error: {where}{r.message}"
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0] if text else ''}"


def default_jobs(n: int) -> int:
    env = os.environ.get(ENV_JOBS)
    if env:
        try:
            return max(1, int(env))
        except ValueError:
            raise ValueError(f"{ENV_JOBS} must be a positive integer, got {env!r}") from None
    return max(1, min(n, os.cpu_count() or 1))


def largest_first(jobs: list[tuple]) -> list[tuple]:
    """The jobs, those with the largest constants first (the product of their values, ties in
    declaration order). A candidate's compile time grows with its tiles, 25-50 times from a 64 x 64
    to a 256 x 256 f32 GEMM tile (ptxas spilling the accumulator), so starting the largest first
    keeps one of them from running alone at the end while the other workers idle."""
    return sorted(jobs, key=lambda job: -math.prod(v for v in job[4].values() if isinstance(v, int) and v > 0))


def compile_all(jobs: list[tuple], *, workers: int | None = None, progress: Progress | None = None) -> dict:
    """Run compile_job for each job, in persistent worker processes (pool.py) when there is more
    than one job; returns {index: (error or None, seconds, keys stored, examples skipped)}."""
    out: dict[int, tuple] = {}

    def record(job: tuple, result: tuple) -> None:
        index, *rest = result
        out[index] = tuple(rest)
        if progress is not None:
            progress.step(config_name(job[4]))

    if len(jobs) <= 1:  # one compile: a worker would cost what it saves
        for job in jobs:
            record(job, compile_job(job))
        return out
    size = default_jobs(len(jobs)) if workers is None else max(1, workers)
    pool = WorkerPool("phobos.runtime.autotune.parallel:compile_job", size, warm="phobos.compiler.warm:warm_up")
    pool.run(largest_first(jobs), record, lambda job, why: (job[0], f"the compile worker died ({why})", 0.0, [], []))
    return out
