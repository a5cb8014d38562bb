"""The interpreter's coverage report: output elements no CTA wrote (k.interpret(..., coverage=True))
and input elements no CTA read (a warning of phobos run --interpret) (issue 28, item 10)."""

from __future__ import annotations

import numpy as np
import pytest

import phobos
from phobos.cli.driver import main

# An RMSNorm-like row kernel whose tile (BN) may be shorter than the row (N).
ROWS = """@autotune(BN in [128])
kernel rows(X: tensor<f32>[M, N], Y: tensor<f32>[M, N]) {
  let row = ctx.block.x
  let x = X[row :+ 1, 0 :+ BN]
  Y[row :+ 1, 0 :+ BN] = x * x
}
"""


@pytest.fixture
def rows(tmp_path, monkeypatch):
    monkeypatch.setenv("PHOBOS_INTERPRET", "1")
    path = tmp_path / "rows.ph"
    path.write_text(ROWS)
    return path


def test_coverage_names_the_output_elements_no_cta_wrote(rows, tmp_path):
    k = phobos.compile(rows, cache_dir=tmp_path / "cache")
    x = np.ones((4, 200), np.float32)
    report = k.interpret(x, np.zeros_like(x), grid=(4,), coverage=True)
    assert report.unwritten == {"Y": 4 * 72} and report.unread == {"X": 4 * 72}
    assert not report.complete
    assert "Y: 288 of 800 elements (36%) written by no CTA (the first at [0, 128])" in str(report)
    # a grid of two CTAs for four rows leaves two rows alone too
    assert k.interpret(x, np.zeros_like(x), grid=(2,), coverage=True).unwritten == {"Y": 800 - 2 * 128}


def test_coverage_of_a_launch_that_covers_everything(rows, tmp_path):
    k = phobos.compile(rows, cache_dir=tmp_path / "cache")
    x = np.ones((4, 128), np.float32)
    report = k.interpret(x, np.zeros_like(x), coverage=True)
    assert report.complete and report.unwritten == {} and report.unread == {}
    assert k.interpret(x, np.zeros_like(x)) is None  # no report unless asked


def test_phobos_run_interpret_warns_about_elements_no_cta_touched(rows, capsys):
    assert main(["run", str(rows), "--interpret", "--args", "f32[4,200] f32[4,200]"]) == 0
    err = capsys.readouterr().err
    assert "phobos: warning: X: 288 of 800 elements (36%) read by no CTA (the first at [0, 128])" in err
    assert "phobos: warning: Y: 288 of 800 elements (36%) written by no CTA" in err
    assert main(["run", str(rows), "--interpret", "--args", "f32[4,128] f32[4,128]"]) == 0
    assert "warning" not in capsys.readouterr().err
