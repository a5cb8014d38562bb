"""The original Phobos's programs in the interpreter: the interpreter twin of
test_original_programs_gpu.py (original_cases.py), which checks the float64 references themselves
without a GPU, on small shapes, at each program's default configuration (the first value of each
@autotune space) and one larger one.

The programs are not in this repository: $PHOBOS_ORIGINAL_SOURCES names a folder of the original's
.ph files, a checkout of it, or a git directory holding its main and inference branches
(scripts/original_programs.py takes the same). Without it the tests skip (CI has no network).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import original_cases as O
import pytest

pytest.importorskip("mlir")

SOURCES = os.environ.get("PHOBOS_ORIGINAL_SOURCES")


@pytest.fixture(scope="module")
def sources(tmp_path_factory) -> dict:
    if not SOURCES:
        pytest.skip("the original's programs are not here: set PHOBOS_ORIGINAL_SOURCES (see docs/original.md)")
    return O.stripped_sources(Path(SOURCES), tmp_path_factory.mktemp("original"))


def _cases():
    for p in O.PROGRAMS:
        for shape in p.interp_shapes:
            for override in p.interp_configs:
                tag = "".join(f"-{k}{v}" for k, v in override.items()) or "-default"
                yield pytest.param(p.name, shape, override, id=f"{p.name}-{O.shape_id(shape)}{tag}")


@pytest.mark.parametrize("name,shape,override", list(_cases()))
def test_original_program_in_the_interpreter(monkeypatch, tmp_path, sources, name, shape, override):
    import phobos

    program = O.BY_NAME[name]
    if name not in sources:
        pytest.fail(f"{SOURCES} holds no {name}{O.SOURCE_SUFFIX} ({program.branch}:{program.path} of the original)")
    path = sources[name]
    config = dict(O.default_config(path.read_text(encoding="utf-8"), str(path)), **override)
    monkeypatch.setenv("PHOBOS_INTERPRET", "1")
    monkeypatch.setenv("PHOBOS_CACHE_DIR", str(tmp_path))
    kernel = phobos.compile(path, defines=config or None)
    O.run_case(_interpreted(kernel), program, shape, config, framework="numpy")


def _interpreted(kernel):
    """kernel(*args) in the interpreter. An interpreted launch takes no numpy bf16 array yet (the
    binder accepts ml_dtypes' bfloat16, then the interpreter asks for f32 holding bf16 values):
    such arguments are described to the binder as they are and given to the interpreter as f32."""

    def launch(*args):
        if not any(_is_bf16(a) for a in args):
            return kernel(*args)
        from phobos.interpreter import run_program
        from phobos.runtime.arrays import describe

        program, signature = kernel._interpretation()
        views = [describe(a) if isinstance(a, np.ndarray) else None for a in args]
        values = [a.astype(np.float32) if _is_bf16(a) else a for a in args]
        binding = signature.bind(values, views, grid=None, check_promises=True)
        run_program(program, values, binding.grid)

    return launch


def _is_bf16(a) -> bool:
    return isinstance(a, np.ndarray) and a.dtype.name == "bfloat16"


def test_strip_cluster_keeps_line_numbers():
    text = "@cluster(BR in [1024, 4096])\n@tensorcore\n@cluster(A in [1,\n  2])\nkernel k() {}\n"
    assert O.strip_cluster(text) == "\n@tensorcore\n\n\nkernel k() {}\n"


def test_padded_keys_are_what_a_ragged_block_reads():
    """The attention references pad the keys with zero rows to the block, as the original's slices read."""
    x = np.arange(6.0).reshape(3, 2)
    assert O._pad_rows(x, 4).tolist() == [[0, 1], [2, 3], [4, 5], [0, 0]]
    assert O._pad_rows(x, 3).shape == (3, 2)


def test_sources_from_a_git_directory(tmp_path):
    """Each program is taken from its branch (a local one, or origin/<branch> of a fresh clone), and
    a folder of the files (or a checkout) is searched recursively; placeholder files stand in for
    the original's."""
    import subprocess

    repo = tmp_path / "repo"
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    for branch in ("main", "inference"):
        if branch != "main":
            subprocess.run(git + ["checkout", "-q", "-b", branch], check=True)
        for p in O.PROGRAMS:
            if p.branch == branch:
                (repo / p.path).parent.mkdir(parents=True, exist_ok=True)
                (repo / p.path).write_text(f"@cluster(X in [1, 2])\n// {p.branch} {p.name}\n")
        subprocess.run(git + ["add", "-A"], check=True)
        subprocess.run(git + ["commit", "-q", "-m", branch], check=True)
    subprocess.run(git + ["branch", "-q", "-m", "inference", "origin/inference"], check=True)
    found = O.stripped_sources(repo / ".git", tmp_path / "work")
    assert sorted(found) == sorted(O.BY_NAME)
    for name, path in found.items():
        assert path.read_text() == f"\n// {O.BY_NAME[name].branch} {name}\n"
    exported = tmp_path / "work" / "exported"
    assert sorted(O.find_sources(exported)) == sorted(O.BY_NAME)
    (exported / "more").mkdir()
    (exported / "more" / "kda_fp32.ph").write_text("")
    with pytest.raises(ValueError, match="kda_fp32.ph found 2 times"):
        O.find_sources(exported)
