"""Persistent compile workers: fresh interpreters that import the compiler once and then compile
job after job, driven from threads of the calling process.

Why each worker is set up the way it is:
  - fresh interpreters (`python -c`), not a multiprocessing pool: they never re-import the caller's
    __main__ (a script without an `if __name__ == "__main__"` guard) and start safely from a process
    with threads (a CUDA context, torch);
  - one thread: numpy's BLAS starts a thread pool when MLIR's bindings import it, and a process with
    threads contains each compile by spawning a fresh interpreter (containment.py: 0.3-0.8 s, about
    as much as the compile); workers start with the BLAS pools at one thread, so they fork (ms);
  - warm (compiler/warm.py): the modules a compile imports on first use are imported before the
    first fork, so the forked compiles do not import them again each time.

A worker that dies (a crash outside the contained compile, the OOM killer) fails the job it held,
with the signal, and the next job gets a new worker. Ctrl-C stops everything at once: workers run
in sessions of their own, so only the caller sees it; it kills each worker's process group (the
worker, its compile child, ptxas), drops the pending jobs and raises KeyboardInterrupt. What
finished is already stored (the kernel cache, a candidate's folder), so the next run resumes.
"""

from __future__ import annotations

import concurrent.futures
import os
import pickle
import queue
import signal
import subprocess
import sys
import threading
from collections.abc import Callable

ENV_TEST_DIE = "PHOBOS_TEST_WORKER_DIES"  # tests only: a worker kills itself on the job of this index
SINGLE_THREADED = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def worker_env() -> dict:
    """The environment of a worker: the caller's, with its import path and single-threaded BLAS."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    env.update(SINGLE_THREADED)
    return env


def _function(name: str) -> Callable:
    import importlib

    module, attr = name.split(":")
    return getattr(importlib.import_module(module), attr)


def worker_main(target: str, warm: str | None = None) -> None:
    """A worker: runs `warm()` once, then reads pickled jobs on stdin and writes `target(job)`
    pickled on the original stdout (fd 1 then points at stderr, so nothing a job prints can
    corrupt the results); ends at EOF. Both are "module:function" names."""
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    run = _function(target)
    if warm:
        try:
            _function(warm)()
        except ImportError:
            pass  # no compiler here: each job reports that itself
    dies_on = os.environ.get(ENV_TEST_DIE)
    stdin = sys.stdin.buffer
    while True:
        try:
            job = pickle.load(stdin)
        except EOFError:
            break
        if dies_on is not None and str(job[0]) == dies_on:
            os.kill(os.getpid(), signal.SIGKILL)
        pickle.dump(run(job), out)
        out.flush()


def _ask(proc: subprocess.Popen, job: tuple) -> object:
    """Send `job` to a worker and wait for its result."""
    if proc.stdin is None or proc.stdout is None:
        raise OSError("the worker was started without pipes")
    pickle.dump(job, proc.stdin)
    proc.stdin.flush()
    return pickle.load(proc.stdout)


def _kill(proc: subprocess.Popen) -> None:
    """End a worker and what it started (its compile child, ptxas): its own process group."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _death(proc: subprocess.Popen) -> str:
    """Why a worker stopped answering: the signal or status it ended with."""
    _kill(proc)
    code = proc.wait()
    if code < 0:
        try:
            return f"signal {-code} ({signal.Signals(-code).name})"
        except ValueError:
            return f"signal {-code}"
    return f"exit status {code}"


class WorkerPool:
    """`size` workers running `target` on jobs after `warm` once ("module:function" names,
    importable in a fresh interpreter; a job is a tuple whose first item names it)."""

    def __init__(self, target: str, size: int, warm: str | None = None):
        self.target, self.size, self.warm = target, max(1, size), warm
        self._procs: set[subprocess.Popen] = set()
        self._lock = threading.Lock()
        self._stopping = threading.Event()

    def run(self, jobs: list, on_result: Callable, on_death: Callable) -> None:
        """Each job in a worker; `on_result(job, result)` as results come (one at a time), and
        `on_death(job, why)` gives the result of a job whose worker died."""
        pending: queue.Queue = queue.Queue()
        for job in jobs:
            pending.put(job)
        n = min(self.size, len(jobs))
        with concurrent.futures.ThreadPoolExecutor(max_workers=n) as threads:
            futures = [threads.submit(self._drive, pending, on_result, on_death) for _ in range(n)]
            try:  # the first failure, as soon as it happens (the others may wait on slow jobs)
                done, _ = concurrent.futures.wait(futures, return_when=concurrent.futures.FIRST_EXCEPTION)
                for f in [*done, *futures]:
                    f.result()
            except BaseException:  # Ctrl-C, or a job that cannot be sent: stop every worker now
                self._stopping.set()
                with self._lock:
                    for proc in self._procs:
                        _kill(proc)
                raise

    def _start(self) -> subprocess.Popen:
        code = f"from phobos.runtime.autotune.pool import worker_main; worker_main({self.target!r}, {self.warm!r})"
        # A session of its own: the terminal's Ctrl-C reaches only the caller, which then ends each
        # worker's group at once (a compile child holding the results pipe would delay its EOF).
        proc = subprocess.Popen(
            [sys.executable, "-c", code],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=worker_env(),
            start_new_session=True,
        )
        with self._lock:  # a worker started while stopping is killed here, not missed by run()
            self._procs.add(proc)
            if self._stopping.is_set():
                _kill(proc)
        return proc

    def _stop(self, proc: subprocess.Popen) -> None:
        with self._lock:
            self._procs.discard(proc)
        try:
            if proc.stdin is not None:
                proc.stdin.close()
        except OSError:
            pass
        proc.wait()

    def _drive(self, pending: queue.Queue, on_result: Callable, on_death: Callable) -> None:
        """One worker's loop: take a job, send it, wait for its result (or the worker's death)."""
        proc = None
        try:
            while not self._stopping.is_set():
                try:
                    job = pending.get_nowait()
                except queue.Empty:
                    return
                proc = proc or self._start()
                try:
                    result = _ask(proc, job)
                except (EOFError, OSError, pickle.UnpicklingError):
                    if self._stopping.is_set():
                        return
                    why = _death(proc)
                    self._stop(proc)
                    proc = None
                    result = on_death(job, why)
                with self._lock:
                    on_result(job, result)
        finally:
            if proc is not None:
                self._stop(proc)
