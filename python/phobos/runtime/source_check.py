"""phobos.compile checks `.ph` source when it is called, not at the first launch.

A kernel object compiles lazily (per argument layout, on first use), so a
broken file used to return a kernel normally and fail at its first call, far
from the mistake. The front end (pure Python: no MLIR, so this runs on GPU
machines that launch from a cache too) parses and checks the source here, with
the GPU rules on tiles and every @autotune value the kernel may tune over,
and chooses the kernel: all errors are located `CompileError`s. Tile IR
(`.mlir` or MLIR text) goes through the tile stage's verifiers where MLIR is
installed; a module object is verified when it is compiled. `read_source` turns
what phobos.compile was given (a path, text or a module) into the text it checks.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

_MLIR_TEXT = re.compile(r"^\s*(module\b|func\.func\b|\"?builtin\.module)", re.M)


def check(text: str, origin: str, kernel: str | None, defines: dict | None, interpreting: bool = False) -> None:
    """Raises phobos.frontend.CompileError for a .ph source the compiler would refuse (with
    `interpreting`, the language's rules only: the interpreter runs tiles the GPU cannot hold)."""
    if origin == "<module>":
        return
    if origin.endswith(".mlir") or _MLIR_TEXT.search(text):
        _check_tile_ir(text, origin, kernel)
        return
    from phobos.frontend import check_source
    from phobos.frontend.gpu_rules import check_autotune_values, check_for_gpu

    defines = dict(defines or {})
    program = check_source(text, origin, defines) if interpreting else check_for_gpu(text, origin, defines)
    _choose(program, text, origin, kernel)
    chosen = [k for k in program.kernels if kernel is None or k.name == kernel]
    program.kernels = chosen  # only the kernel this object compiles tunes over its space
    if not interpreting:
        check_autotune_values(text, origin, defines, program)


def _check_tile_ir(text: str, origin: str, kernel: str | None) -> None:
    """Tile IR through the tile stage's verifiers (and the choice of kernel), where this machine
    has the compiler; a machine without MLIR launches from its cache and checks nothing here."""
    try:
        from phobos import compiler
    except ImportError:
        return
    compiler.compile_program(text, kernel=kernel, source_name=origin)


def _choose(program, text: str, origin: str, kernel: str | None) -> None:
    from phobos.frontend import ast as A
    from phobos.frontend.errors import Diagnostics

    diags = Diagnostics(origin, text)
    names = [k.name for k in program.kernels]
    if not names:
        diags.error(A.Pos(1, 1), f"{origin} has no kernel")
    elif kernel is None and len(names) > 1:
        diags.error(
            program.kernels[1].pos,
            f"{origin} has several kernels ({', '.join(names)}); choose one with kernel=NAME",
            ((program.kernels[0].pos, f"kernel '{names[0]}' is here"),),
        )
    elif kernel is not None and kernel not in names:
        diags.error(program.kernels[0].pos, f"{origin} has no kernel '{kernel}' (it has {', '.join(names)})")
    diags.raise_if_errors()


def read_source(source) -> tuple:
    """(text to hash, where it came from, what to hand the compiler)."""
    if hasattr(source, "operation"):  # an mlir Module (MLIR is loaded if the caller built one)
        return str(source), "<module>", source
    if isinstance(source, bytes):
        source = source.decode()
    if isinstance(source, os.PathLike) or (
        isinstance(source, str)
        and "\n" not in source
        and len(source) < 4096
        and (source.endswith((".ph", ".mlir")) or os.path.exists(source))
    ):
        path = Path(source)
        if not path.is_file():
            raise FileNotFoundError(f"kernel source {str(path)!r} does not exist")
        return path.read_text(), str(path), str(path)
    if isinstance(source, str):
        return source, "<text>", source
    raise TypeError(f"a kernel source is a .ph/.mlir path, its text, or an MLIR module; got {type(source).__name__}")
