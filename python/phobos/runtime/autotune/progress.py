"""The progress bar of compiling and of checking and timing candidates."""

from __future__ import annotations

import sys


class Progress:
    """A one-line progress bar on stderr when it is a terminal; silent otherwise."""

    def __init__(self, label: str, total: int, stream=None, enabled: bool | None = None):
        self.stream = stream or sys.stderr
        if enabled is None:
            enabled = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.enabled = bool(enabled) and total > 0
        self.label, self.total, self.done = label, total, 0

    def step(self, note: str = "") -> None:
        self.done += 1
        if self.enabled:
            width = 24
            filled = int(width * min(self.done, self.total) / self.total)
            bar = "#" * filled + "." * (width - filled)
            self.stream.write(f"\r{self.label} [{bar}] {min(self.done, self.total)}/{self.total} {note[:40]:<40}")
            self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()
