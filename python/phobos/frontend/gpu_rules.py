"""Rules every GPU kernel obeys, checked by the front end where a tile is made.

The GPU lowering (lowering/checks.py, `check_tiles`) refuses tiles of rank
above 3, extents that are not powers of two, and tiles that need more than
1024 elements per thread. Found there, the error came only at --emit=gpu or
later and named the kernel, not the construct (a non-power-of-two tile even
surfaced as a layout error). The checker applies the same rules to every tile
it types, at the slice, builtin or operator that makes it, with a note at the
@autotune value behind an extent; `check_autotune_values` also tries the
other values of each @autotune space, so that `phobos check` and
`phobos.compile` report a value no candidate can compile with.

A mixin of the Checker (it uses `error` and `info`).
"""

from __future__ import annotations

from . import ast as A
from . import types as T

# The GPU lowering's limits (lowering/checks.py: MAX_TILE_RANK, MAX_REGISTERS).
MAX_TILE_RANK = 3
MAX_ELEMENTS_PER_THREAD = 1024
DEFAULT_THREADS = 256  # a kernel without @launch (dialect/kernel.py's DEFAULT_THREADS)


def is_pow2(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


def tile_problem(shape, threads: int) -> tuple[str, str] | None:
    """(rule, message) of what makes a tile of `shape` impossible on the GPU, or None; the rule
    is "rank", "pow2" or "threads" (the one that depends on the thread count too)."""
    shown = T.fmt_shape(shape)
    if len(shape) > MAX_TILE_RANK:
        return "rank", f"a tile of {shown} has rank {len(shape)}; GPU tiles have rank 1 to {MAX_TILE_RANK}"
    odd = [d for d in shape if not is_pow2(d)]
    if odd:
        return "pow2", f"a tile of {shown}: GPU tile extents must be powers of two, and {odd[0]} is not"
    count = 1
    for d in shape:
        count *= d
    per_thread = -(-count // threads)
    if per_thread > MAX_ELEMENTS_PER_THREAD:
        return "threads", (
            f"a tile of {shown} needs at least {per_thread} elements per thread with {threads} threads; "
            f"a GPU tile holds at most {MAX_ELEMENTS_PER_THREAD} per thread (use smaller tiles or more "
            f"threads with @launch)"
        )
    return None


def constants_in(e: A.Expr | None) -> list[A.Name]:
    """The @autotune constants an extent expression uses (names with a const symbol)."""
    found: list[A.Name] = []
    stack = [e] if e is not None else []
    while stack:
        node = stack.pop()
        if isinstance(node, A.Name):
            if node.symbol is not None and node.symbol.kind == "const":
                found.append(node)
        elif isinstance(node, A.Binary):
            stack += [node.rhs, node.lhs]
        elif isinstance(node, A.Unary):
            stack.append(node.operand)
    return found


class GpuRules:
    """Checker methods: the GPU rules on each tile type."""

    def threads(self) -> int:
        launch = self.info.launch if self.info is not None else None
        return int((launch or {}).get("threads", DEFAULT_THREADS))

    def gpu_tile_error(self, shape, pos: A.Pos, extents=()) -> bool:
        """Reports a tile of `shape` made at `pos` that the GPU cannot hold; `extents` are the
        expressions of its extents (for notes at the @autotune values behind them)."""
        problem = tile_problem(shape, self.threads()) if self.gpu_rules else None
        if problem is None:
            return False
        rule, message = problem
        notes = []
        for name in {n.name: n for e in extents for n in constants_in(e)}.values():
            where = self.autotune_value_pos.get(name.name, name.symbol.pos)
            notes.append((where, f"'{name.name}' is {name.symbol.const}, the @autotune value given here"))
        diag = self.diags.error(pos, message, tuple(notes))
        self.gpu_rule_errors.append((self.kernel_name, rule, diag))
        return True

    def slice_pos(self, e: A.Index, shape) -> tuple[A.Pos, list]:
        """Where a slice's bad extent is written, and the expressions of its extents."""
        extents = []
        for sub in e.subscripts:
            if sub.kind == "span":
                extents.append(sub.end)
            elif sub.kind == "range":
                extents += [sub.end, sub.start]
        for sub in e.subscripts:
            if sub.kind in ("span", "range") and not is_pow2(getattr(sub, "length", 1) or 1):
                return A.start_pos(sub.end), extents
        return e.pos, extents


def check_for_gpu(source: str, filename: str, defines: dict | None = None, all_values: bool = False) -> A.Program:
    """check_source with the GPU rules: the annotated tree, or a CompileError with every error.
    all_values: also each other value of the @autotune constants `defines` leaves free."""
    from . import check_source
    from .checker import check_program
    from .errors import Diagnostics
    from .parser import parse

    check_source(source, filename, defines)  # the language's errors first, as the interpreter sees them
    diags = Diagnostics(filename, source)
    program = parse(source, diags)
    check_program(program, diags, defines, gpu_rules=True)
    diags.raise_if_errors()
    program.warnings = diags.render_warnings()
    if all_values:
        check_autotune_values(source, filename, defines, program)
    return program


def check_autotune_values(source: str, filename: str, defines: dict | None, program: A.Program) -> None:
    """Checks each kernel again with each other value of its @autotune constants (one at a time;
    constants fixed by `defines` stay fixed) and raises CompileError for a value under which a
    tile has a rank or an extent the GPU cannot have, at the value, with a note at the tile.
    `program` is the checked tree."""
    from .checker import Checker
    from .errors import Diagnostics
    from .parser import parse

    diags = Diagnostics(filename, source)
    defines = dict(defines or {})
    for kernel in program.kernels:
        info = kernel.info
        for name, values in info.space.items():
            if name in defines:
                continue
            for value in values:
                if value == info.bindings.get(name):
                    continue
                trial = Diagnostics(filename, source)
                checker = Checker(trial, {**defines, name: value}, gpu_rules=True)
                checker.check_program(parse(source, trial))
                # the thread rule is left out: another constant (@launch(W)) may lift it
                broken = [d for k, rule, d in checker.gpu_rule_errors if k == kernel.name and rule != "threads"]
                if broken:
                    first = broken[0]
                    where = checker.autotune_value_pos_of.get(kernel.name, {}).get(name)
                    diags.error(
                        where,
                        f"with {name} = {value}, kernel '{kernel.name}' cannot run on the GPU: {first.message}",
                        ((A.Pos(first.line, first.col, first.length), "the tile is made here"),),
                    )
    diags.raise_if_errors()
