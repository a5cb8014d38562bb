"""A candidate's compile job (runtime/autotune/parallel.py): its variants compile one after another
in one contained child that shares their front end and tile IR (compiler/memo.py). The variants
must be the bytes each is when compiled alone, and a child that crashes is the candidate's error."""

from __future__ import annotations

import pytest
from test_autotune import SAXPY3  # the three-candidate space that compiles quickly

import phobos
from phobos.runtime import autotune as at

KEYS = ["", "X=a16.e4.s;Y=a16.e4.s", "X=a16.e16.s;Y=a16.e16.s", "X=a16.e1.s;Y=a16.e1.s"]


def job(index: int, source, block: int, cache, keys=KEYS) -> tuple:
    return (index, str(source), None, "sm_90", {"BLOCK": block}, {}, str(cache), list(keys), [], True)


def test_the_variants_of_a_candidate_are_the_bytes_each_is_alone(tmp_path, monkeypatch):
    src = tmp_path / "saxpy3.ph"
    src.write_text(SAXPY3)
    done = at.compile_all([job(0, src, 256, tmp_path / "pool"), job(1, src, 1024, tmp_path / "pool")], workers=1)
    assert {i: (error, stored) for i, (error, _, stored, _) in done.items()} == {0: (None, KEYS), 1: (None, KEYS)}
    monkeypatch.setenv("PHOBOS_CONTAINMENT", "spawn")  # each variant alone, in a fresh interpreter
    for block in (256, 1024):
        pooled = phobos.compile(src, defines={"BLOCK": block}, cache_dir=tmp_path / "pool")
        here = phobos.compile(src, defines={"BLOCK": block}, cache_dir=tmp_path / f"here{block}")
        for key in KEYS:
            assert pooled.cache.get(pooled.family, key) is not None  # compiled by the job, not here
            a, b = pooled.artifact(key), here.artifact(key)
            assert (a.cubin, a.asm, a.contract["params"], a.program) == (
                b.cubin,
                b.asm,
                b.contract["params"],
                b.program,
            )


@pytest.mark.parametrize("crash, signal", [("abort", "signal 6 (SIGABRT)"), ("segv", "signal 11 (SIGSEGV)")])
def test_a_candidate_whose_child_crashes_fails_with_the_crash(tmp_path, monkeypatch, crash, signal):
    src = tmp_path / "saxpy3.ph"
    src.write_text(SAXPY3)
    monkeypatch.setenv("PHOBOS_TEST_CRASH", crash)
    index, error, _, stored, skipped = at.parallel.compile_job(job(4, src, 512, tmp_path / "cache"))
    assert (index, stored, skipped) == (4, [], [])
    assert error == f"compile error: {src}: MLIR aborted: {signal}"
