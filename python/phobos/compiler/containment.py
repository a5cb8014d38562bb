"""Crash containment: MLIR work runs in a child process, so that an abort in native code is an error.

An assertion in the MLIR bindings (an assertions build), LLVM's fatal errors and
a stack overflow in the parser end the process they happen in. `run(fn, ...)`
therefore calls `fn` in a child and gives back its result or exception; when
the child dies instead, it raises `Aborted` with the first line of what LLVM
printed (`Assertion ... failed.`, `LLVM ERROR: ...`, `UNREACHABLE executed ...`)
or the signal's name. The child's stderr (fd 2, where LLVM writes) goes to a
file: the parent relays it afterwards, cut where the crash report begins.

How the child starts (`PHOBOS_CONTAINMENT`):
  fork   os.fork(): the imports and the parent's memory are shared, cost ~ms.
  spawn  a fresh interpreter (`python -c ...`) that imports MLIR again (~0.3 s): for
         processes with threads (a CUDA context, torch), where a forked child may
         inherit a lock some other thread held and hang.
  off    in-process, uncontained.
  auto   (default) fork when the process has one thread, else spawn.

Cheap checks that refuse input known to crash MLIR before it is parsed live here
too: `nesting_error` (bracket and region depth of MLIR text) and
`pass_option_error` (pass options that reach an upstream assertion).

`PHOBOS_TEST_CRASH` (tests only) makes the child crash on purpose: `abort`,
`segv`, or `unreachable` (a real upstream abort: loading an IRDL dialect MLIR 22
cannot load).
"""

from __future__ import annotations

import faulthandler
import io
import os
import pickle
import re
import signal
import subprocess
import sys
import tempfile

ENV_MODE = "PHOBOS_CONTAINMENT"
ENV_CRASH = "PHOBOS_TEST_CRASH"

# MLIR's parser recurses per bracket and per region: its 8 MiB stack overflowed at
# ~3500 nested regions and ~9000 nested arrays here, so refuse far below that.
MAX_NESTING = 1000

_CRASH_MARKERS = re.compile(r"Assertion .* failed|LLVM ERROR:|UNREACHABLE executed|Fatal Python error:")
_in_child = False
_real_stderr: int | None = None  # in a child: the stderr fd the parent gave it


class Aborted(Exception):
    """The child died in native code; `message` is LLVM's first line or the signal."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


# ----------------------------------------------------------------------------- running


def mode() -> str:
    chosen = os.environ.get(ENV_MODE, "auto")
    if chosen not in ("auto", "fork", "spawn", "off"):
        raise ValueError(f"{ENV_MODE} must be auto, fork, spawn or off, got {chosen!r}")
    if chosen == "auto":
        return "fork" if _thread_count() == 1 else "spawn"
    return chosen


def _thread_count() -> int:
    try:
        return len(os.listdir("/proc/self/task"))  # native threads too (CUDA's, OpenMP's)
    except OSError:
        import threading

        return threading.active_count()


def run(fn, *args, **kwargs):
    """fn(*args, **kwargs), in a child process; raises Aborted when the child dies."""
    how = "off" if _in_child else mode()
    if how == "off":
        return fn(*args, **kwargs)
    sys.stdout.flush()
    sys.stderr.flush()
    # Streams replaced in Python (pytest's capsys, an IDE) do not reach the child's fds:
    # then the child's stdout is captured too and everything is relayed afterwards.
    plain = _fd_of(sys.stdout) == 1 and _fd_of(sys.stderr) == 2
    with tempfile.TemporaryFile() as capture, tempfile.TemporaryFile() as out:
        _set_append(capture.fileno())
        streams = (capture.fileno(), None if plain else out.fileno(), plain)
        if how == "fork":
            data = _run_forked(fn, args, kwargs, streams)
        else:
            data = _run_spawned(fn, args, kwargs, streams)
        capture.seek(0)
        out.seek(0)
        return _outcome(data, capture.read(), out.read())


def _fd_of(stream) -> int | None:
    try:
        return stream.fileno()
    except (AttributeError, OSError, ValueError):
        return None


def _set_append(fd: int) -> None:
    # Appending writes survive the child's truncation in drain_stderr.
    import fcntl

    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_APPEND)


def _run_forked(fn, args, kwargs, streams) -> tuple[bytes, int]:
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(read_end)
        _child(lambda: fn(*args, **kwargs), streams, write_end, relay_fd=os.dup(2) if streams[2] else None)
    os.close(write_end)
    try:
        with os.fdopen(read_end, "rb") as pipe:
            data = pipe.read()  # before waiting: a cubin does not fit in the pipe's buffer
        _, status = os.waitpid(pid, 0)
    except KeyboardInterrupt:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        raise
    return data, status


def _child(call, streams, result_fd: int, relay_fd: int | None) -> None:
    global _in_child, _real_stderr
    _in_child = True
    _real_stderr = relay_fd
    faulthandler.disable()  # our report replaces its Python stack dump
    capture_fd, out_fd, plain = streams
    os.dup2(capture_fd, 2)
    if not plain:
        os.dup2(out_fd, 1)
        sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), line_buffering=True)
        sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), line_buffering=True)
    try:
        _crash_for_tests()
        outcome = ("ok", call())
    except BaseException as e:  # noqa: BLE001 - every exception goes back to the parent
        outcome = ("raise", _debuggable(e))
    try:
        sys.stdout.flush()
        sys.stderr.flush()
        _write_all(result_fd, _pickled(outcome))
    finally:  # never return into the parent's code
        os._exit(0)


def _debuggable(e: BaseException) -> BaseException:
    # The traceback stays in the child; with PHOBOS_DEBUG show it there (stderr is relayed).
    if os.environ.get("PHOBOS_DEBUG") and not type(e).__name__ == "CompileError":
        import traceback

        traceback.print_exception(type(e), e, e.__traceback__)
    return e


class _Pickler(pickle.Pickler):
    def reducer_override(self, obj):
        # Exceptions by their state: default pickling calls cls(*args), and
        # CompileError(records, sources) keeps only its report in args.
        if isinstance(obj, BaseException):
            return _rebuilt_exception, (type(obj), obj.args, obj.__dict__)
        return NotImplemented


def _rebuilt_exception(cls, args, state):
    e = cls.__new__(cls, *args)
    e.args = args
    e.__dict__.update(state)
    return e


def _pickled(outcome) -> bytes:
    out = io.BytesIO()
    try:
        _Pickler(out).dump(outcome)
    except Exception:  # an exception holding MLIR objects: keep its type's name and message
        kind, value = outcome
        return pickle.dumps(("raise", RuntimeError(f"{type(value).__name__}: {value}")))
    return out.getvalue()


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _run_spawned(fn, args, kwargs, streams) -> tuple[bytes, int]:
    # Request and outcome travel through pipes of their own: stdin and stdout stay the caller's.
    request_r, request_w = os.pipe()
    result_r, result_w = os.pipe()
    relay = os.dup(2)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    code = f"from phobos.compiler.containment import _worker; _worker({request_r}, {result_w}, {relay}, {streams[2]})"
    fds = (request_r, result_w, relay)
    try:
        child = subprocess.Popen(
            [sys.executable, "-c", code], stdout=streams[1], stderr=streams[0], pass_fds=fds, env=env
        )
    finally:
        for fd in fds:
            os.close(fd)
    try:
        with os.fdopen(request_w, "wb") as pipe:
            pipe.write(pickle.dumps((fn, args, kwargs)))
        with os.fdopen(result_r, "rb") as pipe:
            data = pipe.read()
        returncode = child.wait()
    except KeyboardInterrupt:
        child.kill()
        child.wait()
        raise
    return data, (-returncode if returncode < 0 else returncode << 8)  # in os.waitpid's form


def _worker(request_fd: int, result_fd: int, relay_fd: int, plain: bool) -> None:
    """The spawned child: the request from one pipe, the outcome to another."""
    with os.fdopen(request_fd, "rb") as pipe:
        fn, args, kwargs = pickle.loads(pipe.read())
    _child(lambda: fn(*args, **kwargs), (2, 1, True), result_fd, relay_fd if plain else None)


def _outcome(data: tuple[bytes, int], captured: bytes, output: bytes):
    payload, status = data
    if payload:
        kind, value = pickle.loads(payload)
        _relay(captured)
    else:
        captured, message = _crash_report(captured, status)
        _relay(captured)
        kind, value = "raise", Aborted(message)
    if output:
        sys.stdout.write(output.decode(errors="replace"))
        sys.stdout.flush()
    if kind == "raise":
        raise value
    return value


def _relay(text: bytes) -> None:
    if text:
        sys.stderr.write(text.decode(errors="replace"))
        sys.stderr.flush()


def _crash_report(captured: bytes, status: int) -> tuple[bytes, str]:
    """(what the child printed before its crash report, the report's first line or the signal)."""
    lines = captured.splitlines(keepends=True)
    for i, raw in enumerate(lines):
        line = raw.decode(errors="replace").strip()
        if _CRASH_MARKERS.search(line) and not line.startswith("Fatal Python error:"):
            if line.startswith("UNREACHABLE") and i > 0:  # llvm_unreachable prints its message first
                return b"".join(lines[: i - 1]), f"{lines[i - 1].decode(errors='replace').strip()} ({line})"
            return b"".join(lines[:i]), re.sub(r"^[\w.-]+: (?=/)", "", line)  # drop the program name
        if _CRASH_MARKERS.search(line):
            return b"".join(lines[:i]), _signal_text(status)
    return captured, _signal_text(status)


def _signal_text(status: int) -> str:
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            return f"signal {sig} ({signal.Signals(sig).name})"
        except ValueError:
            return f"signal {sig}"
    return f"the compiler process exited with status {os.WEXITSTATUS(status)} without a result"


def drain_stderr() -> None:
    """In a child: pass what went to stderr so far on to the real stderr, so that it
    keeps its place before the stdout that follows. Elsewhere: nothing to do."""
    if _real_stderr is None:
        return
    sys.stderr.flush()
    size = os.fstat(2).st_size
    if size:
        _write_all(_real_stderr, os.pread(2, size, 0))
        os.ftruncate(2, 0)


def _crash_for_tests() -> None:
    what = os.environ.get(ENV_CRASH)
    if what == "abort":
        os.abort()
    if what == "segv":
        os.kill(os.getpid(), signal.SIGSEGV)
    if what == "unreachable":
        _load_aborting_dialect()


_ABORTING_IRDL = """
irdl.dialect @aborts {
  irdl.type @t {
    %0 = irdl.base "!builtin.integer"
    %1 = irdl.base "!builtin.f32"
    %2 = irdl.any_of(%0, %1)
    irdl.parameters(p: %2)
  }
}
"""


def _load_aborting_dialect() -> None:
    # irdl.any_of over irdl.base constraints: UNREACHABLE in MLIR 22's IRDLLoading.cpp.
    from mlir import ir
    from mlir.dialects import irdl

    with ir.Context():
        irdl.load_dialects(ir.Module.parse(_ABORTING_IRDL))


# ----------------------------------------------------------------------------- refusing input


_BRACKETS = re.compile(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*|[\[({]|[\])}]')


def nesting_error(text: str, limit: int = MAX_NESTING) -> tuple[int, int, str] | None:
    """(line, col, message) where MLIR text nests brackets and regions deeper than
    `limit` (strings and comments skipped), or None."""
    depth = 0
    for m in _BRACKETS.finditer(text):
        token = m.group(0)
        if token in "[({":
            depth += 1
            if depth > limit:
                pos = m.start()
                line = text.count("\n", 0, pos) + 1
                col = pos - text.rfind("\n", 0, pos)
                return (
                    line,
                    col,
                    (
                        f"the input nests brackets and regions more than {limit} levels deep; "
                        "MLIR's parser would overflow its stack"
                    ),
                )
        elif token in "])}":
            depth = max(0, depth - 1)
    return None


# (pass, option) -> (the values that reach an upstream assertion, what to write instead)
_ABORTING_OPTIONS = {
    ("affine-loop-unroll-jam", "unroll-jam-factor"): (lambda v: _ints(v) == [0], "a positive factor"),
    ("affine-loop-tile", "tile-sizes"): (lambda v: 0 in _ints(v), "positive sizes"),
    ("gpu-module-to-binary", "format"): (
        lambda v: v not in ("offloading", "llvm", "assembly", "isa", "binary", "bin", "fatbinary", "fatbin"),
        "one of offloading, llvm, assembly, isa, binary, bin, fatbinary, fatbin",
    ),
}
_PASS_WITH_OPTIONS = re.compile(r"([A-Za-z][\w.-]*)\{([^{}]*)\}")
_OPTION = re.compile(r"([A-Za-z][\w-]*)=(\"[^\"]*\"|'[^']*'|[^\s}]+)")


def _ints(value: str) -> list[int]:
    return [int(x) for x in re.findall(r"-?\d+", value)]


def pass_option_error(pipeline: str) -> str | None:
    """Why a pipeline's pass options would abort MLIR, or None."""
    for m in _PASS_WITH_OPTIONS.finditer(pipeline):
        for option, value in _OPTION.findall(m.group(2)):
            rule = _ABORTING_OPTIONS.get((m.group(1), option))
            if rule is not None and rule[0](value.strip("\"'")):
                return f"'{m.group(1)}{{{option}={value}}}' would abort MLIR (an upstream assertion); use {rule[1]}"
    return None
