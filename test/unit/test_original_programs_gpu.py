"""GPU test of the original Phobos's programs (issue 29, item 5; pytest -m gpu): the eight examples
of joa/phobos-lang's main branch and three of its inference branch, `@cluster` removed, run on the
GPU against a float64 reference of what each means (original_cases.py).

The programs are not in this repository, and the GPU machine has no MLIR: scripts/original_programs.py
builds, from the user's checkout of the original, one ahead-of-time folder per program (every
@autotune candidate, and autotune.json, where the program has a space) plus programs.json, which
says what compiled and each program's default configuration. $PHOBOS_ORIGINAL_ARTIFACTS names
that folder (default .cache/original); without it the tests skip. A program that did not compile
fails here with the compiler's error.

Each program runs every compiled candidate (the tuner may pick any of them) on each shape: ragged
extents (multiples of 4, the original's assumption, but not of the tiles), a whole-tile one, and
one beyond the original's contract (odd extents); then the kernel tunes on its first launch, as
phobos.load tunes from a folder of candidates, and the winner is checked. Fresh random data each
time, outputs poisoned inside guard zones that must come back untouched.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import original_cases as O
import pytest

pytestmark = pytest.mark.gpu

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(os.environ.get("PHOBOS_ORIGINAL_ARTIFACTS", ROOT / ".cache" / "original"))
BUILD = "scripts/original_programs.py (docs/original.md)"


def _record(name: str) -> dict:
    """The program's entry of programs.json; skips without the folders, fails where it did not compile."""
    index = ARTIFACTS / "programs.json"
    if not index.is_file():
        pytest.skip(f"no {index}: build the original's programs with {BUILD}, or set PHOBOS_ORIGINAL_ARTIFACTS")
    programs = json.loads(index.read_text())["programs"]
    if name not in programs:
        pytest.fail(f"{index} has no entry for {name}: the build did not find its source")
    record = programs[name]
    if record["status"] != "ok":
        pytest.fail(f"{name} did not compile: {record['error']}")
    return record


def _candidates(name: str) -> list:
    """[(config, kernel)]: every compiled candidate of the folder, or its one kernel."""
    import phobos
    from phobos.runtime.kernel import TunedLoadedKernel

    record = _record(name)
    k = phobos.load(ARTIFACTS / name, autotune=False)
    if isinstance(k, TunedLoadedKernel):
        return [(k.manifest["candidates"][i]["config"], c) for i, c in sorted(k.candidates.items())]
    return [(record["default"], k)]


def _run(kernel, name, shape, config, ran=None):
    """None, or what went wrong: a wrong answer, or a launch that raised (reported with the others,
    so that one candidate does not hide the rest)."""
    try:
        O.run_case(kernel, O.BY_NAME[name], shape, config, ran=ran)
    except AssertionError as e:
        return f"{config}: {str(e).splitlines()[0]}"
    except Exception as e:  # noqa: BLE001 -- a launch error is this candidate's result
        return f"{config}: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
    return None


def _params(shapes=None):
    for p in O.PROGRAMS:
        for shape in p.gpu_shapes if shapes is None else p.gpu_shapes[:shapes]:
            yield pytest.param(p.name, shape, id=f"{p.name}-{O.shape_id(shape)}")


@pytest.mark.parametrize("name", [p.name for p in O.PROGRAMS])
def test_default_configuration_compiled(name):
    """The first value of each @autotune space compiled (what an untuned launch runs)."""
    record = _record(name)
    manifest = ARTIFACTS / name / "autotune.json"
    if manifest.is_file():
        first = json.loads(manifest.read_text())["candidates"][0]
        assert first["config"] == record["default"], (first["config"], record["default"])
        assert first["status"] == "ok", f"{name} {first['config']}: {first.get('reason')}"


@pytest.mark.parametrize("name,shape", list(_params()))
def test_every_candidate(name, shape):
    failures = [f for config, k in _candidates(name) if (f := _run(k, name, shape, config))]
    assert not failures, f"{len(failures)} candidates wrong:\n" + "\n".join(failures)


@pytest.mark.parametrize("name,shape", list(_params(shapes=2)))
def test_after_tuning(name, shape):
    """The first launch tunes (every candidate checked against the most conservative one, then
    timed); the winner's output is checked against the reference of the constants it ran with."""
    import phobos

    default = _record(name)["default"]
    k = phobos.load(ARTIFACTS / name, autotune=True)
    failure = _run(k, name, shape, default, ran=lambda: k.best_config)
    tuning = getattr(k, "tuning", None)
    if tuning is not None:
        print(f"\n{name} {O.shape_id(shape)}: tuned to {k.best_config}\n{tuning.table()}")
    assert failure is None, failure
