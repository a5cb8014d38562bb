"""The Phobos language front end: `.ph` source to verified tile IR.

    from phobos.frontend import compile_to_tile_ir, CompileError
    try:
        module = compile_to_tile_ir(text, "scale.ph", defines={"TM": 64})
    except CompileError as e:
        print(e)            # file:line:col: error: ... with the source line and a caret

Stages: `lexer` (tokens), `parser` (syntax tree, `ast`), `checker` (names,
types, shapes, attributes), `lowering` (tile IR through the builder API),
then the MLIR verifier and `tile-verify`. Importing this package imports no
MLIR; only `compile_to_tile_ir` needs it.
"""

from __future__ import annotations

from typing import Dict, Optional

from . import ast
from .checker import check_program
from .errors import CompileError, Diagnostics
from .parser import parse

__all__ = ["CompileError", "check_source", "compile_to_tile_ir", "parse_source"]


def parse_source(source: str, filename: str = "<string>") -> ast.Program:
    """The syntax tree of `source`; raises CompileError on syntax errors."""
    diags = Diagnostics(filename, source)
    program = parse(source, diags)
    diags.raise_if_errors()
    return program


def check_source(source: str, filename: str = "<string>", defines: Optional[Dict[str, int]] = None) -> ast.Program:
    """Parses and checks `source` (no MLIR needed); returns the annotated
    syntax tree or raises CompileError with every error found.

    `defines` fixes @autotune constants (name -> value, which must be in the
    constant's space); the others are bound to the first value of their space.
    """
    diags = Diagnostics(filename, source)
    program = parse(source, diags)
    if not diags.has_errors:
        _check_defines(defines, diags)
    if not diags.has_errors:
        check_program(program, diags, defines)
    diags.raise_if_errors()
    return program


def _check_defines(defines, diags: Diagnostics) -> None:
    for name, value in (defines or {}).items():
        if not isinstance(name, str) or isinstance(value, bool) or not isinstance(value, int):
            diags.error(None, f"-D {name}={value!r}: an @autotune constant must be bound to an integer")


def compile_to_tile_ir(source: str, filename: str = "<string>", defines: Optional[Dict[str, int]] = None,
                       context=None):
    """Compiles `source` to a verified tile IR `mlir.ir.Module` (in `context`,
    or a new context with the tile dialect loaded). Raises CompileError."""
    from .verify import lower_and_verify

    program = check_source(source, filename, defines)
    return lower_and_verify(program, filename, source, context)
