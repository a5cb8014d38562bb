"""The progress of compiling and of checking and timing candidates, with elapsed time and an ETA.

On a terminal: a one-line bar, redrawn at each step. Elsewhere (a CI log, a
pipe) a bar's carriage returns show nothing until the end, so where progress
is asked for explicitly (`enabled=True`: `phobos aot --all-candidates`,
`phobos tune`) it prints plain lines instead, at most one every LINE_EVERY
seconds and always the last; a library call that asks nothing stays silent
off a terminal.
"""

from __future__ import annotations

import sys
import time

LINE_EVERY = 5.0  # seconds between two progress lines off a terminal


def clock(seconds: float) -> str:
    """'0:07', '2:41', '1:02:03'."""
    seconds = int(round(seconds))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


class Progress:
    """Progress of `total` steps on `stream` (stderr): a bar on a terminal; plain lines elsewhere
    when `enabled` is True; nothing elsewhere by default (enabled=None) or ever (enabled=False)."""

    def __init__(self, label: str, total: int, stream=None, enabled: bool | None = None, now=time.monotonic):
        self.stream = stream or sys.stderr
        tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.lines = bool(enabled) and not tty  # asked for, where a bar would not show
        if enabled is None:
            enabled = tty
        self.enabled = bool(enabled) and total > 0
        self.label, self.total, self.done = label, total, 0
        self._now = now
        self._start = now()
        self._last_line: float | None = None

    def status(self) -> str:
        """'3/12, 0:41 elapsed, about 2:03 left' (no estimate before the first step)."""
        done = min(self.done, self.total)
        elapsed = self._now() - self._start
        text = f"{done}/{self.total}, {clock(elapsed)} elapsed"
        if 0 < done < self.total:
            text += f", about {clock(elapsed / done * (self.total - done))} left"
        return text

    def step(self, note: str = "") -> None:
        self.done += 1
        if not self.enabled:
            return
        if self.lines:
            now = self._now()
            last = self.done >= self.total
            if last or self._last_line is None or now - self._last_line >= LINE_EVERY:
                self._last_line = now
                self.stream.write(f"{self.label}: {self.status()}{' (' + note + ')' if note else ''}\n")
                self.stream.flush()
            return
        width = 24
        filled = int(width * min(self.done, self.total) / self.total)
        bar = "#" * filled + "." * (width - filled)
        self.stream.write(f"\r{self.label} [{bar}] {self.status()} {note[:32]:<32}")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled and not self.lines:
            self.stream.write("\n")
            self.stream.flush()
