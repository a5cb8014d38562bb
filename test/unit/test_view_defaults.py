"""What `phobos view` draws by default and how it says it (issue 28, item 6): the variant a
launch at the drawn sizes uses, --args instead of --key (also for explain and compile), layouts
in words, a note where the drawn sizes leave part of a tensor untouched, paths as typed here."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from phobos.cli.driver import main
from phobos.view import build_model
from phobos.view.model import layout_words

ROOT = Path(__file__).resolve().parents[2]
SCALE = ROOT / "examples" / "scale.ph"
KEY = "X=a16.e16x16.s16;Y=a16.e16x16.s16"
ROWS = """kernel rows(X: tensor<f32>[M, N], Y: tensor<f32>[M, N]) {
  let row = ctx.block.x
  let x = X[row :+ 1, 0 :+ 128]
  Y[row :+ 1, 0 :+ 128] = x * x
}
"""


def test_view_draws_the_variant_a_launch_at_the_drawn_sizes_uses():
    model = build_model(SCALE.read_text(), str(SCALE))
    assert model["key"] == KEY  # not the generic variant: numpy/torch arrays are 16-byte aligned
    assert all(v["key"] == KEY for v in model["variants"])
    assert any(n.startswith("drawn: the variant a launch at these sizes") for n in model["notes"])
    assert {a["vector_width"] for a in model["variants"][0]["accesses"]} == {4}
    explicit = build_model(SCALE.read_text(), str(SCALE), key="")  # asked for: the generic one
    assert explicit["key"] == "" and not any(n.startswith("drawn:") for n in explicit["notes"])


def test_layouts_are_described_in_words():
    text = "#tile.blocked<array<i64: 1, 4>, array<i64: 4, 8>, array<i64: 4, 2>, array<i64: 1, 0>>"
    assert layout_words(text) == (
        "1x4 per thread, 4x8 lanes per warp, 4x2 warps, neighbouring threads along the last dimension"
    )
    model = build_model(SCALE.read_text(), str(SCALE))
    assert model["variants"][0]["layout_words"].startswith("1x4 per thread, ")


def test_a_note_where_the_drawn_sizes_leave_part_of_a_tensor_untouched():
    notes = build_model(ROWS, "rows.ph", sizes={"M": 4, "N": 200})["variants"][0]["notes"]
    assert "at M = 4, N = 200, X: 288 of 800 elements (36%) read by no CTA (the first at [0, 128])" in notes[0]
    assert "Y: 288 of 800 elements (36%) written by no CTA" in notes[1]
    assert build_model(ROWS, "rows.ph", sizes={"M": 4, "N": 128})["variants"][0]["notes"] == []


def test_view_shows_the_path_relative_to_the_current_directory(monkeypatch):
    monkeypatch.chdir(ROOT)
    assert build_model(SCALE.read_text(), str(SCALE))["file"] == os.path.join("examples", "scale.ph")


def _out(capsys, *argv) -> str:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def test_args_stand_for_the_key_in_explain_compile_and_view(capsys, tmp_path):
    args = ("--args", "f32[4096,4096] f32[4096,4096] 2.0")
    assert _out(capsys, "explain", str(SCALE), *args) == _out(capsys, "explain", str(SCALE), "--key", KEY)
    assert "vector<4xf32>" in _out(capsys, "compile", str(SCALE), "--emit=gpu", *args)
    page = tmp_path / "scale.html"
    _out(capsys, "view", str(SCALE), "-o", str(page), "--args", "f32[96,256] f32[96,256] 2.0", "--no-compare")
    data = json.loads(re.search(r'<script type="application/json"[^>]*>(.*?)</script>', page.read_text(), re.S)[1])
    assert data["sizes"] == {"M": 96, "N": 256} and data["key"] == KEY


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--key", KEY, "--args", "f32[64,128] f32[64,128] 2.0"], "give --key or --args, not both"),
        (["--args", "f32[64,128] 2.0"], "--args: scale() takes 3 arguments"),
        (["--args", "q32[64]"], "--args:"),
        (["--args", "f32[64,128] f32[32,128] 2.0"], "--args: scale: dimension M is 64 in X.shape[0] but 32"),
        (["--args", "f32[48,128] f32[48,128] 2.0"], "--args: scale: @aligned(M = 32) is broken"),
    ],
)
def test_args_errors_are_one_line(capsys, argv, message):
    code = main(["explain", str(SCALE), *argv])
    err = capsys.readouterr().err
    assert code == 1 and message in err and "Traceback" not in err, err
