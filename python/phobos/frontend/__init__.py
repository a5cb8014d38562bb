"""The Phobos language front end: `.ph` source to verified tile IR.

    from phobos.frontend import compile_to_tile_ir, CompileError
    try:
        module = compile_to_tile_ir(text, "scale.ph", defines={"TM": 64})
    except CompileError as e:
        print(e)            # file:line:col: error: ... with the source line and a caret

Stages: `lexer` (tokens), `parser` (syntax tree, `ast`), `checker` (names,
types, shapes, attributes), `to_tile_ir` (tile IR through the builder API),
then the MLIR verifier and `tile-verify`. Importing this package imports no
MLIR; only `compile_to_tile_ir` needs it.

Where the language reference (docs/language.md) leaves a choice open, the front end decides:

- Integers: extents, block ids, loop variables and unannotated integer
  literals are `index` (64 bits; `i32 + index` is `index`, `i64 + index` is
  `i64`). Slice starts and range bounds accept any integer scalar.
- Mixed types: f16 and bf16 meet at f32, a float with an integer at the
  float, a narrower integer at the wider; a scalar constant meets a tile at
  the tile's element type where its value converts exactly. Assigning to a
  declared variable and storing into a tensor convert to its element type
  (floats round to nearest even, float to int truncates toward zero, int to
  a narrower int wraps); bool never mixes with numbers. `dot` of different
  operand types converts both to the type they meet at before tile.dot.
  Literals take the other operand's type and must fit it;
  arithmetic on literals alone is integer arithmetic (`7 / 2` is 3; `/` and
  `%` truncate toward zero, as in C). `&&`/`||` evaluate both sides.
- Slices: `A[i]` reads one element (a 1x..x1 slice, then tensor.extract);
  point subscripts drop their dimension (`A[i, 0 :+ 64]` is 1-D), and a store
  through them expands the value back. `:` needs a compile-time extent,
  `a : b` an end minus start that folds to a number, `s :+ n` a constant n;
  no slice may be longer than a static extent.
- Builtins: `sum(x)` reduces every dimension, `sum(x, axis)` one (`max`
  and `min` alike); `rowsum`/`rowmax`/`rowmin` reduce the last dimension to extent 1; `cumsum` scans
  the last dimension; `transpose`/`tril` take 2-D tiles. `dot` accumulates
  f16/bf16/f32 in f32, i8 in i32; `acc += dot(a, b)` accumulates in the
  tile.dot itself, in the accumulator's declared type. Conversions: f16 bf16 f32 f64 i8 i32 i64 (float to int
  truncates; bool converts to 0/1). `grid_barrier()` needs `@persistent`.
- Attributes: a two-value space `[lo, hi]` with lo < hi means the powers of
  two from lo to hi (both must be powers of two); other lists are taken as
  written. `@launch(threads[, minBlocks[, maxRegs]])` (also by keyword)
  accepts literals or @autotune constants; threads is at most 1024.
- Limits (so no input can exhaust the stack): expressions 64 nodes deep, 32
  nested brackets, 24 nested blocks, 128 levels of blocks and `else if`s
  together (each `else if` nests inside the previous `else`); tiles of at
  most 2**24 elements. Integer literals must fit i64, float literals a
  finite f64.
"""

from __future__ import annotations

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


def check_source(
    source: str, filename: str = "<string>", defines: dict[str, int] | None = None, std: bool | None = None
) -> ast.Program:
    """Parses and checks `source` (no MLIR needed); returns the annotated
    syntax tree (its `warnings`: the rendered warnings, or "") or raises
    CompileError with every error found.

    `defines` fixes @autotune constants (name -> value, which must be in the
    constant's space); the others are bound to the first value of their space.
    `std=False` leaves the standard library out unless the source imports it (`--no-std`;
    None: as $PHOBOS_NO_STD says).
    """
    diags = Diagnostics(filename, source)
    program = parse(source, diags)
    if not diags.has_errors:
        _check_defines(defines, program, diags)
    if not diags.has_errors:
        check_program(program, diags, defines, std=std)
    diags.raise_if_errors()
    program.warnings = diags.render_warnings()  # printed by `phobos check`
    return program


def _check_defines(defines, program: ast.Program, diags: Diagnostics) -> None:
    # A -D flag has no place in the file: its errors point at the first kernel, as the checker's do.
    pos = program.kernels[0].pos if program.kernels else ast.Pos(1, 1)
    for name, value in (defines or {}).items():
        if not isinstance(name, str) or isinstance(value, bool) or not isinstance(value, int):
            diags.error(pos, f"-D {name}={value!r}: an @autotune constant must be bound to an integer")


def compile_to_tile_ir(
    source: str,
    filename: str = "<string>",
    defines: dict[str, int] | None = None,
    context=None,
    std: bool | None = None,
):
    """Compiles `source` to a verified tile IR `mlir.ir.Module` (in `context`,
    or a new context with the tile dialect loaded). Raises CompileError.
    Functions stay `func.call`s of private functions here; tile-inline inlines them."""
    from .verify import lower_and_verify

    program = check_source(source, filename, defines, std)
    return lower_and_verify(program, filename, source, context)
