"""`phobos explain`'s untuned-default section (runtime/autotune/default.py's source_default, worded
by report/default_config.py): which @autotune configuration a launch that does not tune runs for
the --args extents, and why."""

from __future__ import annotations

import json

import pytest

from phobos.cli.driver import main as phobos_main
from phobos.report.default_config import render_default
from phobos.runtime.autotune import ENV_DEFAULT
from phobos.runtime.autotune.default import REPRESENTATIVE_EXTENT
from phobos.runtime.autotune.default import source_default as untuned_default

ROWS = """\
@autotune(BN in [1024], W in [1024, 256, 128])
@launch(W)
kernel rows(X: tensor<f16>[M, N], Y: tensor<f16>[M, N]) {
  let r = ctx.block.x
  Y[r :+ 1, 0 :+ BN] = X[r :+ 1, 0 :+ BN] * 2.0
}
"""

FIXED = """\
kernel copy(X: tensor<f32>[N], Y: tensor<f32>[N]) {
  Y[ctx.block.x * 256 :+ 256] = X[ctx.block.x * 256 :+ 256]
}
"""


@pytest.fixture(autouse=True)
def _model_policy(monkeypatch):
    monkeypatch.delenv(ENV_DEFAULT, raising=False)


def test_representative_shape_when_no_extents():
    choice, count = untuned_default(ROWS, "rows.ph")
    assert count == 3 and choice.how == "model"
    assert choice.extents == {"M": REPRESENTATIVE_EXTENT, "N": REPRESENTATIVE_EXTENT}
    assert choice.config["W"] != 1024  # 1024 threads on a 1024-element f16 row: 2 bytes a thread
    text = render_default(choice, count, "rows", representative=REPRESENTATIVE_EXTENT)
    assert text.startswith(
        f"untuned default of rows for M={REPRESENTATIVE_EXTENT}, N={REPRESENTATIVE_EXTENT} (no --args"
    )
    assert "candidate 0 BN=1024 W=1024: estimated" in text


def test_given_extents_and_defines():
    choice, count = untuned_default(ROWS, "rows.ph", extents={"M": 8, "N": 1024}, defines={"BN": 1024})
    assert choice.extents == {"M": 8, "N": 1024} and count == 3
    assert untuned_default(ROWS, "rows.ph", defines={"BN": 1024, "W": 128}) is None  # one candidate left
    assert untuned_default(FIXED, "copy.ph") is None
    assert untuned_default("module {}", "x.mlir") is None


def test_cli_text_and_json(tmp_path, capsys):
    src = tmp_path / "rows.ph"
    src.write_text(ROWS)
    assert phobos_main(["explain", str(src), "--args", "f16[32768,1024] f16[32768,1024]"]) == 0
    out = capsys.readouterr().out
    section = out[out.index("untuned default of rows") :]
    assert section.startswith("untuned default of rows for M=32768, N=1024 (cost model, 3 candidates):")
    assert "\n  why: BN=1024 W=" in section and "runner-up" in section
    assert phobos_main(["explain", str(src), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    default = data[0]["untuned_default"]
    assert default["how"] == "model" and len(default["ranking"]) == 3 and default["reasons"]


def test_cli_first_policy_says_so(tmp_path, capsys, monkeypatch):
    src = tmp_path / "rows.ph"
    src.write_text(ROWS)
    monkeypatch.setenv(ENV_DEFAULT, "first")
    assert phobos_main(["explain", str(src)]) == 0
    out = capsys.readouterr().out
    assert "(candidate 0, as asked, 3 candidates):\n  BN=1024 W=1024\n" in out
    assert "PHOBOS_AUTOTUNE_DEFAULT=first asks for candidate 0" in out


def test_no_section_without_a_space(tmp_path, capsys):
    src = tmp_path / "copy.ph"
    src.write_text(FIXED)
    assert phobos_main(["explain", str(src)]) == 0
    assert "untuned default" not in capsys.readouterr().out
