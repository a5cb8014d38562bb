#!/usr/bin/env python3
"""The type checker: mypy over the folders `files` of [tool.mypy] in pyproject.toml lists, each
file under its real module name.

    .venv/bin/python scripts/typecheck.py                      # what the test command runs
    .venv/bin/python scripts/typecheck.py python/phobos/analysis   # other folders or files instead

Why not plain `mypy`: setuptools maps `dialect/` to `phobos.dialect`, `passes/` to `phobos.passes`
and `tools/` to `phobos.tools` ([tool.setuptools.package-dir]), and the editable install finds them
through an import hook that mypy cannot see, so `mypy dialect` would call the package `dialect` and
then fail to find `phobos.dialect` where passes/ imports it. This script names each file's module
itself from that mapping (mypy's build API, BuildSource(path, module)) and reports at the real
paths; everything else (the settings, the per-module strictness) is mypy's, read from pyproject.
Exit status: 0 clean, 1 type errors, 2 a usage or configuration error.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from mypy import build
from mypy.config_parser import parse_config_file
from mypy.errors import CompileError
from mypy.modulefinder import BuildSource
from mypy.options import Options

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: mypy depends on tomli there
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = ROOT / "pyproject.toml"


def package_dirs() -> dict[Path, str]:
    """{folder: package} from [tool.setuptools.package-dir], deepest folders first."""
    mapping = tomllib.loads(PYPROJECT.read_text())["tool"]["setuptools"]["package-dir"]
    dirs = {(ROOT / folder).resolve(): package for package, folder in mapping.items()}
    return dict(sorted(dirs.items(), key=lambda item: len(item[0].parts), reverse=True))


def module_name(path: Path, dirs: dict[Path, str]) -> str:
    """The module a file is imported as: its package's name, then the folders below it."""
    for folder, package in dirs.items():
        if path.is_relative_to(folder):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            return ".".join([package, *parts])
    raise ValueError(f"{path} is in no package of [tool.setuptools.package-dir]")


def python_files(path: Path) -> list[Path]:
    if not path.exists():
        raise ValueError(f"{path} does not exist")
    return sorted(path.rglob("*.py")) if path.is_dir() else [path]


def sources(targets: list[str], dirs: dict[Path, str]) -> tuple[list[BuildSource], set[str], set[str]]:
    """The files to build, the targets' files and the others (whose errors are not reported). The
    packages mapped to folders of their own (dialect/, passes/, tools/) are always built: mypy finds
    the rest of phobos through mypy_path, but could not find these where the targets import them."""
    checked = {f for target in targets for f in python_files((ROOT / target).resolve())}
    support = {f for folder, package in dirs.items() if package != "phobos" for f in python_files(folder)}
    out = [BuildSource(str(f.relative_to(ROOT)), module_name(f, dirs)) for f in sorted(checked | support)]
    return out, {str(f.relative_to(ROOT)) for f in checked}, {str(f.relative_to(ROOT)) for f in support - checked}


def refuse_strict() -> None:
    sys.exit("typecheck: `strict = true` in [tool.mypy] is not read here: list the flags it stands for")


def main(argv: list[str]) -> int:
    options = Options()  # python_executable: this interpreter, whose site-packages hold numpy and mlir
    parse_config_file(options, refuse_strict, str(PYPROJECT), sys.stdout, sys.stderr)
    targets = argv or list(options.files or [])
    if not targets:
        print("typecheck: nothing to check (no arguments, and [tool.mypy] lists no files)", file=sys.stderr)
        return 2
    try:
        srcs, checked, hidden = sources(targets, package_dirs())
    except ValueError as e:
        print(f"typecheck: {e}", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    messages: list[str] = []
    try:
        build.build(srcs, options, flush_errors=lambda _file, new, _serious: messages.extend(new))
    except CompileError as e:  # a blocking error (a syntax error, a bad setting), wherever it is
        print("\n".join(messages + e.messages))
        print("typecheck: stopped by a blocking error")
        return 1
    messages = [m for m in messages if m.split(":", 1)[0] not in hidden]
    errors = [m for m in messages if ": error:" in m]
    for m in messages:
        print(m)
    seconds = time.perf_counter() - t0
    if errors:
        print(f"typecheck: {len(errors)} errors in {len(checked)} files ({seconds:.1f} s)")
        return 1
    print(f"typecheck: no issues in {len(checked)} files ({seconds:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
