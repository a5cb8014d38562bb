"""What one run of a tool tells: ok, a located error, or one of the failures.

    ok               exit 0
    located error    exit 1 with an `error:` diagnostic that says where: `file:line:col:`,
                     `<stdin>:line:col:`, `<unknown>:0:` (mlir-opt's own), `phobos: error:` or
                     `phobos-opt: error:` for the command line; also the command-line messages
                     of LLVM's option parser, which phobos-opt prints exactly as mlir-opt does
    unlocated error  exit 1, but no diagnostic says where (the user cannot find the problem)
    traceback        a Python traceback, or the drivers' `internal error` report
    crash            killed by a signal, an exit status other than 0 and 1, or no stderr at all
    hang             still running at the timeout

Everything but the first two is a failure.
"""

from __future__ import annotations

import re
import signal

OK = "ok"
LOCATED = "located error"
UNLOCATED = "unlocated error"
TRACEBACK = "traceback"
CRASH = "crash"
HANG = "hang"

CLASSES = (OK, LOCATED, UNLOCATED, TRACEBACK, CRASH, HANG)
FAILURES = (UNLOCATED, TRACEBACK, CRASH, HANG)

_LOCATED = re.compile(
    r"^(?:"
    r"[^\s:][^:\n]*:\d+:\d+: error:"  # file:line:col: error: (also <stdin>:line:col:)
    r"|<unknown>:0: error:"  # a diagnostic without a file location, as mlir-opt prints it
    r"|(?:phobos|phobos-opt|mlir-opt): error:"  # the command line
    # LLVM's command-line parser (mlir-opt's own words; phobos-opt reproduces them):
    r"|(?:phobos-opt|mlir-opt): (?:Unknown command line argument|for the -+\S+ option:)"
    r"|(?:phobos-opt|mlir-opt): (?:Not enough|Too many) positional arguments"
    r"|(?:phobos-opt|mlir-opt): \S+: (?:may only occur|must be specified)"
    r"|cannot open input file '"
    r")",
    re.MULTILINE,
)
_TRACEBACK = re.compile(r"Traceback \(most recent call last\)|internal (?:compiler )?error")


def classify(returncode: int | None, stderr: str) -> str:
    """The class of a run; `returncode` None means it was killed at the timeout."""
    if returncode is None:
        return HANG
    if returncode < 0:
        return CRASH
    if _TRACEBACK.search(stderr):
        return TRACEBACK
    if returncode == 0:
        return OK
    if returncode != 1 or not stderr.strip():
        return CRASH
    return LOCATED if _LOCATED.search(stderr) else UNLOCATED


def describe_exit(returncode: int | None) -> str:
    if returncode is None:
        return "timed out"
    if returncode < 0:
        try:
            return f"killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"killed by signal {-returncode}"
    return f"exit {returncode}"


def signature(cls: str, tool: str, returncode: int | None, stderr: str) -> str:
    """A short text that groups failures of one cause: the class, the tool and the telling line."""
    line = _telling_line(cls, stderr)
    line = re.sub(r"\S*/input\.(ph|mlir)", r"INPUT.\1", line)
    line = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", line)
    line = re.sub(r"\d+", "N", line)
    return f"{cls}: {tool}: {describe_exit(returncode)}: {line[:160]}"


def _telling_line(cls: str, stderr: str) -> str:
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    if not lines:
        return ""
    if cls == TRACEBACK:
        for line in lines:
            if "internal" in line and "error" in line:
                return line.split("error:", 1)[-1].strip()
        # the exception of a traceback: its last line that does not start with a space
        for line in reversed(lines):
            if re.match(r"^[A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt)\b", line):
                return line
    if cls == UNLOCATED:  # the error, not the IR that --mlir-print-ir-* printed before it
        return next((line for line in lines if "error" in line), lines[0])
    return lines[-1]
