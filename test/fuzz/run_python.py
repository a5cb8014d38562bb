#!/usr/bin/env python3
"""Runs a (mutated) Python file of `@phobos.kernel`s the way a user's import does, for the fuzzer.

    python test/fuzz/run_python.py FILE.py [--tile]

The file runs as a module that is not `__main__` (its demo under `if __name__ ==
"__main__":` stays out), so every decorator checks its kernel's source; with --tile each
kernel defined at the top level is compiled to the tile stage too (`tile_contract()`: the
front end, the tile passes and their verifiers; no GPU, no ptxas).

What a user would see becomes what the fuzzer classifies (classify.py):
  - a `CompileError` (the located report phobos promises) is printed as it is, exit 1;
  - an error of the user's own Python (a SyntaxError, a NameError at the top level, a
    misspelt decorator keyword that phobos refuses with a TypeError naming it) is printed
    as `FILE:LINE:COL: error: ...` at the user's line, exit 1: it is no bug of phobos;
  - any other exception raised inside phobos is printed as a traceback, exit 1: the
    fuzzer counts it as one (users would see it).
"""

from __future__ import annotations

import runpy
import sys
import traceback
from pathlib import Path

# Exceptions that phobos's API raises on purpose, with a message naming the misuse, from these
# modules (decorator keywords, a kernel called from Python, a function that is no function).
_API_ERRORS = (TypeError, ValueError)
_API_MODULES = ("phobos/decorator.py", "phobos/lang.py")


def _innermost(tb) -> traceback.FrameSummary | None:
    frames = traceback.extract_tb(tb)
    return frames[-1] if frames else None


def _users_frame(tb, path: str) -> traceback.FrameSummary | None:
    """The innermost frame of the user's file."""
    frames = [f for f in traceback.extract_tb(tb) if f.filename == path]
    return frames[-1] if frames else None


def _located(path: str, line: int | None, col: int | None, message: str) -> None:
    print(f"{path}:{line or 1}:{(col or 0) + 1}: error: {message}", file=sys.stderr)


def main(argv: list[str]) -> int:
    if not argv or argv[0].startswith("-"):
        print("usage: run_python.py FILE.py [--tile]", file=sys.stderr)
        return 2
    path = str(Path(argv[0]).resolve())
    from phobos.frontend.errors import CompileError
    from phobos.runtime.kernel import Kernel

    try:
        namespace = runpy.run_path(path, run_name="phobos_fuzz_module")
        if "--tile" in argv[1:]:
            for value in list(namespace.values()):
                if isinstance(value, Kernel):
                    value.tile_contract()
    except CompileError as e:
        print(str(e), file=sys.stderr, end="" if str(e).endswith("\n") else "\n")
        return 1
    except SyntaxError as e:
        _located(e.filename or path, e.lineno, (e.offset or 1) - 1, f"{type(e).__name__}: {e.msg}")
        return 1
    except RecursionError:
        traceback.print_exc()
        return 1
    except Exception as e:  # noqa: BLE001 (what escaped is exactly what the fuzzer classifies)
        inner, user = _innermost(e.__traceback__), _users_frame(e.__traceback__, path)
        own_code = inner is not None and inner.filename == path
        api_error = isinstance(e, _API_ERRORS) and inner is not None and inner.filename.endswith(_API_MODULES) and user
        if own_code or api_error:
            _located(path, user.lineno if user else None, getattr(user, "colno", None), f"{type(e).__name__}: {e}")
            return 1
        traceback.print_exc()
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
