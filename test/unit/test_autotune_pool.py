"""The compile worker pool (runtime/autotune/pool.py) without a GPU: workers that fork their
contained compiles, recover from a worker's death, stop at once on Ctrl-C, and a tuning that
resumes from what an interrupted one stored."""

from __future__ import annotations

import os
import time

import numpy as np
import pytest
from test_autotune import SAXPY3  # the three-candidate space that compiles quickly

import phobos
from phobos.runtime import autotune as at
from phobos.runtime.autotune import pool as P

JOBS = "pool_jobs:run"


def collect(pool: P.WorkerPool, jobs: list) -> dict:
    out: dict = {}
    pool.run(jobs, lambda job, result: out.__setitem__(job[0], result), lambda job, why: (job[0], f"died: {why}"))
    return out


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="counts threads in /proc")
def test_a_worker_has_one_thread_so_its_compiles_fork():
    # numpy's BLAS thread pool would make every contained compile spawn a fresh interpreter
    out = collect(P.WorkerPool(JOBS, 1), [(0, "threads"), (1, "threads")])
    assert out[0][1] == (1, "fork") and out[1][1] == (1, "fork")


def test_a_worker_that_dies_fails_its_job_and_the_pool_goes_on(monkeypatch):
    monkeypatch.setenv(P.ENV_TEST_DIE, "2")
    out = collect(P.WorkerPool(JOBS, 2), [(i, "square") for i in range(6)])
    assert out.pop(2) == (2, "died: signal 9 (SIGKILL)")
    assert out == {i: (i, i * i) for i in (0, 1, 3, 4, 5)}


def test_an_interrupt_stops_every_worker_at_once():
    pool = P.WorkerPool(JOBS, 2)
    started = []

    def on_result(job, result):
        started.append(job[0])
        raise KeyboardInterrupt  # as Ctrl-C while the other worker sleeps in its job

    t0 = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        pool.run([(0, "sleep"), (1, "square"), (2, "square")], on_result, lambda job, why: None)
    assert time.monotonic() - t0 < 30 and started == [1]  # not the 60 s of the sleeping job
    assert not pool._procs  # every worker ended and was reaped


class StopAfter:
    """A progress that interrupts the compile after `n` candidates, as Ctrl-C would."""

    def __init__(self, n: int):
        self.n, self.done, self.enabled, self.total = n, 0, True, 0

    def step(self, note: str = "") -> None:
        self.done += 1
        if self.done >= self.n:
            raise KeyboardInterrupt

    def close(self) -> None:
        pass


def at_4096(k) -> tuple:
    x = np.ones(4096, np.float32)
    sig = k.signature
    views = sig.describe((x, x, 2.0))
    return sig, (x, x, 2.0), views, sig.bind((x, x, 2.0), views, grid=(0, 0, 0), check_promises=False).key.to_text()


def screen(k):
    """The compile step of tuning `k` at 4096 elements (phobos tune --compile-only), 2 workers."""
    return k._get_tuner(explicit=True).screen(*at_4096(k), jobs=2, progress=False)


def test_an_interrupted_tuning_resumes_where_it_stopped(tmp_path, monkeypatch):
    src = tmp_path / "saxpy3.ph"
    src.write_text(SAXPY3)
    k = phobos.compile(src, cache_dir=tmp_path / "cache")
    monkeypatch.setattr(at.tuner, "Progress", lambda *a, **kw: StopAfter(1))
    with pytest.raises(KeyboardInterrupt):
        screen(k)
    monkeypatch.undo()
    tuner, key = k._get_tuner(explicit=True), at_4096(k)[-1]
    stored = [i for i in range(3) if tuner.candidate_kernel(i).cache.get(tuner.candidate_kernel(i).family, key)]
    entries = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("entry.json"))
    assert 1 <= len(stored) < 3, entries  # the first to finish, perhaps the other worker's too; not the third
    again = screen(phobos.compile(src, cache_dir=tmp_path / "cache"))
    assert [c.status for c in again.candidates] == ["pending"] * 3
    assert again.compiled == 3 - len(stored)  # only what the interrupted run had not stored


def test_a_compile_worker_that_dies_fails_only_its_candidate(tmp_path, monkeypatch):
    monkeypatch.setenv(P.ENV_TEST_DIE, "1")  # the candidate of index 1: BLOCK=512
    src = tmp_path / "saxpy3.ph"
    src.write_text(SAXPY3)
    result = screen(phobos.compile(src, cache_dir=tmp_path / "cache"))
    by_name = {c.name: c for c in result.candidates}
    assert by_name["BLOCK=512"].status == "failed"
    assert by_name["BLOCK=512"].reason.startswith("the compile worker died (signal 9")
    assert by_name["BLOCK=256"].status == by_name["BLOCK=1024"].status == "pending"


def test_the_pool_compiles_the_same_bytes_as_a_compile_in_this_process(tmp_path, monkeypatch):
    # the workers' state (one thread, warmed, forked compiles) must not change what is compiled
    src = tmp_path / "saxpy3.ph"
    src.write_text(SAXPY3)
    pool = tmp_path / "pool"
    jobs = [(i, str(src), None, "sm_90", {"BLOCK": b}, {}, str(pool), [""], [], True) for i, b in enumerate((256, 512))]
    assert [error for error, *_ in at.compile_all(jobs, workers=2).values()] == [None, None]
    monkeypatch.setenv("PHOBOS_CONTAINMENT", "spawn")  # as before the pool: a fresh interpreter per compile
    for block in (256, 512):
        pooled = phobos.compile(src, defines={"BLOCK": block}, cache_dir=pool)
        assert pooled.cache.get(pooled.family, "") is not None  # read from the pool's cache, not compiled here
        here = phobos.compile(src, defines={"BLOCK": block}, cache_dir=tmp_path / "here").artifact()
        assert pooled.artifact().cubin == here.cubin and pooled.artifact().asm["ptx"] == here.asm["ptx"]


def test_the_largest_candidates_compile_first():
    jobs = [
        (i, "k.ph", None, "sm_90", config, {}, "", [""], [], True)
        for i, config in enumerate(
            [{"M": 32, "N": 32}, {"M": 256, "N": 256}, {"M": 64, "N": 32}, {"M": 32, "N": 64}, {"M": 256, "N": 128}]
        )
    ]
    assert [job[0] for job in at.parallel.largest_first(jobs)] == [1, 4, 2, 3, 0]  # ties: declaration order
