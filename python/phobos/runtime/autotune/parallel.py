"""Compiling candidates in parallel: worker processes (fresh interpreters) that compile jobs into
the kernel cache or an ahead-of-time folder."""

from __future__ import annotations

import concurrent.futures
import os
import sys
import time

from phobos.contract.specialization import SpecKey

from .progress import Progress
from .space import config_name

ENV_JOBS = "PHOBOS_AUTOTUNE_JOBS"  # compile processes (default: one per CPU, at most one per candidate)


# ----------------------------------------------------------------------------- compiling in parallel


def _compile_job(job: tuple) -> tuple:
    """In a pool worker: compile variants of one candidate into the kernel cache (or an
    ahead-of-time folder): one per key text, then one per example argument list.
    Returns (index, error or None, seconds, keys stored, examples skipped and why)."""
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


_WORKER = "from phobos.runtime.autotune.parallel import _worker_main; _worker_main()"


def _worker_main() -> None:
    """A compile worker: pickled jobs in on stdin, pickled results out on the original stdout (fd 1
    then points at stderr, so nothing a compile prints can corrupt the results); ends at EOF."""
    import pickle

    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    stdin = sys.stdin.buffer
    while True:
        try:
            job = pickle.load(stdin)
        except EOFError:
            break
        pickle.dump(_compile_job(job), out)
        out.flush()


def _worker_env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    return env


def default_jobs(n: int) -> int:
    env = os.environ.get(ENV_JOBS)
    if env:
        try:
            return max(1, int(env))
        except ValueError:
            raise ValueError(f"{ENV_JOBS} must be a positive integer, got {env!r}") from None
    return max(1, min(n, os.cpu_count() or 1))


def compile_all(jobs: list[tuple], *, workers: int | None = None, progress: Progress | None = None) -> dict:
    """Run _compile_job for each job, in worker processes when there are several workers;
    returns {index: (error or None, seconds, keys stored, examples skipped)}."""
    out: dict[int, tuple] = {}
    workers = default_jobs(len(jobs)) if workers is None else max(1, workers)
    if workers == 1 or len(jobs) <= 1:
        for job in jobs:
            index, *rest = _compile_job(job)
            out[index] = tuple(rest)
            if progress is not None:
                progress.step(config_name(job[4]))
        return out
    # Worker processes are fresh interpreters (python -c), each compiling job after job: unlike a
    # multiprocessing pool they never re-import the caller's __main__ (a script without an
    # `if __name__ == "__main__"` guard) and they are safe to start from a process with threads
    # (CUDA, torch); inside a worker each compile is contained in a forked child as usual.
    import pickle
    import queue
    import subprocess
    import threading

    pending: queue.Queue = queue.Queue()
    for job in jobs:
        pending.put(job)
    lock = threading.Lock()

    def drive() -> None:
        proc = None
        try:
            while True:
                try:
                    job = pending.get_nowait()
                except queue.Empty:
                    return
                if proc is None:
                    proc = subprocess.Popen(
                        [sys.executable, "-c", _WORKER],
                        stdin=subprocess.PIPE,
                        stdout=subprocess.PIPE,
                        env=_worker_env(),
                    )
                try:
                    pickle.dump(job, proc.stdin)
                    proc.stdin.flush()
                    index, *rest = pickle.load(proc.stdout)
                except (EOFError, OSError, pickle.UnpicklingError) as e:  # the worker died: this job fails
                    index, rest = job[0], [f"the compile worker died ({type(e).__name__})", 0.0, [], []]
                    proc.kill()
                    proc.wait()
                    proc = None
                with lock:
                    out[index] = tuple(rest)
                    if progress is not None:
                        progress.step(config_name(job[4]))
        finally:
            if proc is not None:
                proc.stdin.close()
                proc.wait()

    n = min(workers, len(jobs))
    with concurrent.futures.ThreadPoolExecutor(max_workers=n) as pool:
        for f in [pool.submit(drive) for _ in range(n)]:
            f.result()
    return out
