"""`phobos run`: compile time and run time apart; --trace with CTA ids, a CTA filter and the
kernel's own names (issue 28, item 5)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import pytest

from phobos.cli.driver import main
from phobos.cli.run import random_arguments

ROOT = Path(__file__).resolve().parents[2]
SCALE = str(ROOT / "examples/scale.ph")
ARGS = ["--interpret", "--args", "f32[64,256] f32[64,256] 2.0"]


def _run(capsys, *args):
    code = main(["run", SCALE, *ARGS, *args])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def _seconds(text: str) -> float:
    value, unit = text.split()
    return float(value) / (1e3 if unit == "ms" else 1)


def test_run_reports_compile_time_and_run_time_apart(capsys):
    out = _run(capsys)
    m = re.search(r"ran scale in the interpreter: compiled in ([0-9.]+ m?s), ran in ([0-9.]+ m?s)", out)
    assert m, out
    # the tile stage takes hundreds of milliseconds; running 4 CTAs of 32 x 128 takes a few
    assert _seconds(m.group(2)) < _seconds(m.group(1))


def test_trace_names_the_cta_and_the_kernel_variables(capsys):
    out = _run(capsys, "--trace", "12", "--trace-limit", "50")
    traced = [line for line in out.splitlines() if ": cta (" in line]
    assert any(f"{SCALE}:12:11: cta (1,1,0): x = float32[32, 128]" in line for line in traced), traced
    assert any(": cta (0,0,0): pm * TM = int64 0" in line for line in traced)
    assert any(": cta (0,0,0): TM = int64 32" in line for line in traced)
    assert not any("arith." in line or "tile.load_slice" in line for line in traced)
    assert out.count("trace of line 12: var x = X[pm * TM :+ TM, pn * TN :+ TN]") == 1  # before its values


def test_trace_cta_keeps_one_ctas_values(capsys):
    out = _run(capsys, "--trace", "12", "--trace-cta", "1,0")
    traced = [line for line in out.splitlines() if ": cta (" in line]
    assert len(traced) == 5 and all(": cta (1,0,0):" in line for line in traced), traced


@pytest.mark.parametrize(
    "args, message",
    [
        (["--trace-cta", "1"], "--trace-cta needs --trace LINE"),
        (["--trace", "12", "--trace-cta", "x"], "--trace-cta expects up to three integers"),
        (["--trace", "12", "--trace-cta", "1,2,3,4"], "--trace-cta expects one to three block ids"),
    ],
)
def test_trace_cta_errors_are_one_line(capsys, args, message):
    code = main(["run", SCALE, *ARGS, *args])
    err = capsys.readouterr().err
    assert code == 1 and message in err and "Traceback" not in err


def test_interpret_mode_lasts_for_the_command_only(capsys, monkeypatch):
    # main() called in-process (as these tests do) must leave the process as it found it: a
    # leaked PHOBOS_INTERPRET=1 made later launches of the same process run in the interpreter.
    monkeypatch.delenv("PHOBOS_INTERPRET", raising=False)
    _run(capsys)
    assert "PHOBOS_INTERPRET" not in os.environ
    monkeypatch.setenv("PHOBOS_INTERPRET", "0")
    _run(capsys)
    assert os.environ["PHOBOS_INTERPRET"] == "0"


def test_unsigned_tensors_get_random_data_over_their_range():
    # a cast of uniform(-1, 1) to u8/u32 made every element 0
    x, y, i = random_arguments("u8[4096] u32[4096] i32[4096]", seed=0)
    assert x.dtype == np.uint8 and (x.min(), x.max()) == (0, 255)
    assert y.dtype == np.uint32 and y.min() < 2**24 and y.max() >= 2**32 - 2**24  # the top bit too
    assert i.dtype == np.int32 and (i.min(), i.max()) == (-100, 99)  # signed: as before
