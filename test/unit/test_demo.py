"""`make demo` installs only what the demo needs and ends with a checked result on any machine;
`make test` keeps the test extra (issue 28, item 8)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _make_n(target: str, venv: Path) -> str:
    r = subprocess.run(
        ["make", "-n", "-C", str(ROOT), target, f"VENV={venv}"], capture_output=True, text=True, timeout=60
    )
    assert r.returncode == 0, r.stderr
    return r.stdout


@pytest.mark.skipif(shutil.which("make") is None, reason="no make")
def test_make_demo_installs_the_base_and_make_test_the_test_extra(tmp_path):
    demo = _make_n("demo", tmp_path / "venv")
    assert "install -e ." in demo and "[test]" not in demo and "scripts/demo.sh" in demo
    assert "--quiet" in demo and "--disable-pip-version-check" in demo
    test = _make_n("test", tmp_path / "venv")
    assert "install -e '.[test]'" in test and "scripts/run-tests.sh" in test
    # after make test, make demo installs nothing more (the test install holds the base)
    (tmp_path / "venv" / "bin").mkdir(parents=True)
    (tmp_path / "venv" / "bin" / "python").touch()
    (tmp_path / "venv" / ".phobos-installed").touch()
    (tmp_path / "venv" / ".phobos-installed-base").touch()
    assert "pip" not in _make_n("demo", tmp_path / "venv")


def test_demo_checks_its_kernels_in_the_interpreter_and_says_cached(tmp_path):
    def demo():
        args = [sys.executable, str(ROOT / "bench/demo_run.py"), "--interpret", "-n", "4099", "--out", str(tmp_path)]
        r = subprocess.run(args, capture_output=True, text=True, timeout=600, cwd=ROOT)
        assert r.returncode == 0, r.stdout + r.stderr
        return r.stdout

    first = demo()
    assert "ran in the interpreter: y = 2 x + y over 4099 elements, checked against numpy (float64)" in first
    assert "ran in the interpreter: C = 1.5 A B + 0.5 C at 512x384x256, checked against numpy" in first
    assert first.count(": OK") == 2 and "WRONG" not in first
    assert first.count("compiled in ") == 2 and "examples/saxpy.ph -> 'saxpy'" in first
    second = demo()
    assert second.count("found in the cache") == 2 and "compiled in " not in second and " 0.00s" not in second
    assert second.count(": OK") == 2
