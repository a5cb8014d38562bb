"""The standard library: functions written in Phobos (`.ph` files in this folder).

`std.nn` (nn.ph) holds activations, row softmax and norms, cross-entropy rows, rotary
embeddings, a Philox counter-based random number generator with `rand`/`randn`/`dropout`, and
Q8_0 (de)quantisation helpers. Every program sees it unless compiled with `--no-std`
(`std=False`); `import std.nn` brings it in either way. A program's own function of the same
name wins over the library's. Diagnostics inside the library name it `std/nn.ph`.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

from .. import ast as A

MODULES = {"std.nn": "nn.ph"}
IMPLICIT = ("std.nn",)


def display_name(module: str) -> str:
    return "std/" + MODULES[module]


def source_text(module: str) -> str:
    return (Path(__file__).parent / MODULES[module]).read_text(encoding="utf-8")


@functools.cache
def functions(module: str) -> tuple[A.Function, ...]:
    """The parsed functions of `module`, their positions naming its file (shared: never mutated)."""
    from ..errors import Diagnostics
    from ..functions import walk
    from ..parser import parse

    name, text = display_name(module), source_text(module)
    diags = Diagnostics(name, text)
    program = parse(text, diags)
    diags.raise_if_errors()  # a broken library is a bug in the package, reported as such

    def mark(n) -> None:
        if isinstance(n, A.Pos):
            n.file = name

    for fn in program.functions:
        walk(fn, mark)
    return tuple(program.functions)


def std_default() -> bool:
    """Whether programs see the library without importing it: yes, unless $PHOBOS_NO_STD is set
    (the command line's --no-std sets it)."""
    return os.environ.get("PHOBOS_NO_STD", "") in ("", "0")


def library_for(program: A.Program, diags, std: bool | None = None) -> list[A.Function]:
    """The library functions `program` sees: its imports, and the implicit modules unless `std` is
    False (None: std_default()). An unknown module is reported at its import."""
    std = std_default() if std is None else std
    wanted = list(IMPLICIT) if std else []
    for imp in program.imports:
        if imp.module not in MODULES:
            known = ", ".join(sorted(MODULES))
            diags.error(imp.pos, f"unknown module '{imp.module}' (the standard library has {known})")
        elif imp.module not in wanted:
            wanted.append(imp.module)
    out: list[A.Function] = []
    for module in wanted:
        diags.sources[display_name(module)] = source_text(module)
        out.extend(functions(module))
    return out
