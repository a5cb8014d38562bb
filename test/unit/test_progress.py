"""Progress of phobos aot --all-candidates and phobos tune: elapsed time and an ETA, and plain
progress lines where the output is not a terminal (issue 28, item 7)."""

from __future__ import annotations

import io

from phobos.cli.driver import main
from phobos.runtime.autotune.progress import Progress, clock


class Clock:
    def __init__(self):
        self.t = 100.0

    def __call__(self):
        return self.t


class Tty(io.StringIO):
    def isatty(self):
        return True


def test_progress_lines_off_a_terminal_carry_elapsed_time_and_an_eta():
    log, now = io.StringIO(), Clock()
    p = Progress("aot: compile candidates", 4, stream=log, enabled=True, now=now)
    now.t += 10
    p.step("B=64")
    now.t += 1  # within LINE_EVERY of the last line: no new line
    p.step("B=128")
    now.t += 9
    p.step("B=256")
    now.t += 1
    p.step("B=512")  # the last step always prints
    p.close()
    assert log.getvalue().splitlines() == [
        "aot: compile candidates: 1/4, 0:10 elapsed, about 0:30 left (B=64)",
        "aot: compile candidates: 3/4, 0:20 elapsed, about 0:07 left (B=256)",
        "aot: compile candidates: 4/4, 0:21 elapsed (B=512)",
    ]


def test_the_terminal_bar_carries_elapsed_time_and_an_eta():
    tty, now = Tty(), Clock()
    p = Progress("scale: compile", 2, stream=tty, enabled=True, now=now)
    now.t += 65
    p.step("TM=32")
    assert "scale: compile [############............] 1/2, 1:05 elapsed, about 1:05 left TM=32" in tty.getvalue()
    assert "\n" not in tty.getvalue()  # one line, redrawn


def test_a_library_call_stays_silent_off_a_terminal():
    log = io.StringIO()
    p = Progress("compile", 3, stream=log)
    p.step()
    p.close()
    assert log.getvalue() == ""
    assert clock(3725) == "1:02:05" and clock(7) == "0:07"


def test_aot_all_candidates_prints_progress_lines_in_a_log(tmp_path, capsys):
    src = tmp_path / "copy.ph"
    src.write_text(
        "@autotune(B in [128, 256])\n"
        "kernel copy(X: tensor<f32>[N], Y: tensor<f32>[N]) {\n"
        "  let i = ctx.block.x * B\n"
        "  Y[i :+ B] = X[i :+ B]\n"
        "}\n"
    )
    code = main(["aot", str(src), "-o", str(tmp_path / "aot"), "--all-candidates", "--args", "f32[4096] f32[4096]"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    lines = [line for line in captured.err.splitlines() if line.startswith("aot: compile candidates: ")]
    assert lines and lines[-1].startswith("aot: compile candidates: 2/2, ") and " elapsed" in lines[-1]
