"""`@phobos.kernel` and `@phobos.fn`: kernels written as Python functions.

    import phobos
    from phobos.lang import tensor, f32, ctx, span

    @phobos.kernel(autotune={"BLOCK": [256, 1024]}, launch=256)
    def saxpy(X: tensor[f32, "N"], Y: tensor[f32, "N"], a: f32):
        s = ctx.block.x * BLOCK
        Y[span(s, BLOCK)] += a * X[span(s, BLOCK)]

    saxpy(x, y, a=2.0)          # a phobos.Kernel: compiled lazily, per argument layout

The body is never run: the decorator takes the function's lines from its file (`inspect`),
and the front end reads them with `ast` (phobos.frontend.python_source) into the syntax tree
the `.ph` parser builds, so the kernel means exactly what its `.ph` twin means. The source is
checked when the function is decorated: a broken kernel fails at import, with every error at
its file, line and column. docs/python.md describes the spellings.
"""

from __future__ import annotations

import ast as py
import builtins
import inspect
import linecache
import os

from phobos.frontend import ast as A
from phobos.frontend.errors import CompileError, Diagnostics
from phobos.frontend.python_attrs import RUNTIME_KEYWORDS, decorator_kind
from phobos.runtime import source_check as _source_check
from phobos.runtime.kernel import Kernel

KERNEL_KEYWORDS = ("autotune", "launch", "aligned", "pipeline", "tensorcore", "persistent", "fastmath")
KERNEL_KEYWORDS += ("assert_coalesced", "checked") + RUNTIME_KEYWORDS + ("autotune_mode",)
# Names a kernel body may use without declaring them (the language's own).
_LANGUAGE_NAMES = frozenset(
    "ctx inf range span dot dot_t exp log sqrt tanh abs tmax tmin where sum max min rowsum rowmax rowmin "
    "transpose cumsum tril arange barrier grid_barrier program_id padded f16 bf16 f32 f64 i8 i32 i64 bool "
    "tensor tile True False".split()
)


class PhobosFn:
    """A function for kernels (`@phobos.fn`): inlined at every call in a kernel of its file."""

    def __init__(self, func):
        self.__wrapped__ = func
        self.__name__ = func.__name__
        self.__doc__ = func.__doc__
        self.file, self.first, self.last, self.lines = _lines_of(func)

    def __call__(self, *args, **kwargs):
        raise TypeError(
            f"'{self.__name__}' is a @phobos.fn: it is inlined into the kernels that call it and cannot be "
            "called from Python"
        )

    def __repr__(self):
        return f"<phobos.fn {self.__name__} at {self.file}:{self.first}>"


def fn(func):
    """Marks a function for kernels: inlined at every call (docs/python.md)."""
    if not inspect.isfunction(func):
        raise TypeError(f"@phobos.fn decorates a function, not {type(func).__name__}")
    return PhobosFn(func)


def kernel(func=None, **options):
    """`@phobos.kernel` or `@phobos.kernel(autotune=..., launch=..., aligned=..., pipeline=True, ...,
    chip=..., defines=..., autotune_key=..., check=...)`: a phobos.Kernel read from the function's
    source. checked=True is `@checked` (static checks are errors, and check mode); check=True
    compiles in check mode only (docs/check-mode.md)."""
    unknown = [k for k in options if k not in KERNEL_KEYWORDS]
    if unknown:
        raise TypeError(
            f"@phobos.kernel got an unknown keyword '{unknown[0]}' (expected one of {', '.join(KERNEL_KEYWORDS)})"
        )
    if func is None:
        return lambda f: _make(f, options)
    return _make(func, options)


def _make(func, options: dict) -> PythonKernel:
    if isinstance(func, PhobosFn) or not inspect.isfunction(func):
        raise TypeError(f"@phobos.kernel decorates a function, not {type(func).__name__}")
    try:
        return PythonKernel(func, options)
    except CompileError as e:
        raise e.with_traceback(None) from None  # the located report is the message


def _lines_of(func) -> tuple[str, int, int, list[str]]:
    """(file, first line, last line, the file's lines) of a function and its decorators."""
    try:
        file = inspect.getsourcefile(func) or inspect.getfile(func)
        own, first = inspect.getsourcelines(func)
    except (OSError, TypeError):
        raise TypeError(
            f"the source of '{func.__name__}' is not available (a @phobos.kernel is read from its file: "
            "define it in a .py file, not in an interactive session or with exec)"
        ) from None
    lines = linecache.getlines(file)
    return os.path.abspath(file), first, first + len(own) - 1, [line.rstrip("\n") for line in lines]


def excerpt(regions: list[tuple[int, int]], lines: list[str]) -> str:
    """The file's text with every line outside `regions` blank: the lines keep their numbers and
    columns (diagnostics point at the file), and the kernel parses alone. An indented region
    (a kernel defined in a function) gets an `if True:` on the blank line above it."""
    out = [""] * len(lines)
    for first, last in sorted(regions):
        out[first - 1 : last] = lines[first - 1 : last]
        if lines[first - 1][:1].isspace() and first >= 2 and not out[first - 2]:
            out[first - 2] = "if True:"
    return "\n".join(out) + "\n"


class PythonKernel(Kernel):
    """A Kernel read from a decorated Python function."""

    def __init__(self, func, options: dict):
        self.__wrapped__ = func
        self.__name__ = func.__name__
        self.__doc__ = func.__doc__
        self._options = dict(options)
        file, first, last, lines = _lines_of(func)
        text = excerpt([(first, last)] + _fn_regions(func, file, lines, first, last), lines)
        if not file.endswith(".py"):
            file += ".py"
        tree = _function_node(text, file, func.__name__, first)
        foreign = _foreign_names(func, tree, text, file)
        params = tree.args.posonlyargs + tree.args.args + tree.args.kwonlyargs
        self.param_names = [a.arg for a in params]
        super().__init__(
            text,
            origin=file,
            kernel=func.__name__,
            chip=options.get("chip"),
            defines=options.get("defines"),
            options=options.get("options"),
            cache_dir=options.get("cache_dir"),
            autotune=options.get("autotune_mode"),
            autotune_key=options.get("autotune_key"),
            check=options.get("check"),
        )
        try:
            _source_check.check(self._text, self.origin, self.kernel_name, self.defines, self._interpreting)
        except CompileError as e:
            raise _merged(e.records, foreign, file, text) from None
        if foreign:
            raise _merged([], foreign, file, text)

    def __repr__(self):
        return f"<phobos.kernel {self.kernel_name} from {self.origin} for {self.chip}>"

    def _param_names(self) -> list[str]:
        return self.param_names

    def with_defines(self, **defines) -> PythonKernel:
        """The same kernel with @autotune constants fixed (Triton's constexpr keywords):
        `k.with_defines(BLOCK=1024)(x, y)`. Checked now; compiled on first use."""
        options = dict(self._options)
        options["defines"] = {**(self._options.get("defines") or {}), **defines}
        try:
            return PythonKernel(self.__wrapped__, options)
        except CompileError as e:
            raise e.with_traceback(None) from None


def _function_node(text: str, file: str, name: str, first: int):
    tree = py.parse(text, filename=file)
    for node in py.walk(tree):
        if (
            isinstance(node, py.FunctionDef)
            and node.name == name
            and "kernel" in map(decorator_kind, node.decorator_list)
        ):
            return node
    diags = Diagnostics(file, text)
    diags.error(A.Pos(first, 1), f"'{name}' is not decorated with @phobos.kernel where its source was found")
    diags.raise_if_errors()


def _called_names(node) -> set[str]:
    return {c.func.id for c in py.walk(node) if isinstance(c, py.Call) and isinstance(c.func, py.Name)}


def _fn_regions(func, file: str, lines: list[str], first: int, last: int) -> list[tuple[int, int]]:
    """The line ranges of the @phobos.fn functions of `file` that the kernel calls (transitively)."""
    scope = {**func.__globals__, **(inspect.getclosurevars(func).nonlocals if func.__closure__ else {})}
    own = py.parse("\n".join(line[_indent(lines, first) :] for line in lines[first - 1 : last]))
    todo, seen, out = list(_called_names(own)), set(), []
    while todo:
        name = todo.pop()
        value = scope.get(name)
        if name in seen or not isinstance(value, PhobosFn):
            continue
        seen.add(name)
        if value.file != file:
            raise TypeError(
                f"kernel '{func.__name__}' calls '{name}', a @phobos.fn of another file ({value.file}); "
                "a kernel can call the @phobos.fn functions of its own file"
            )
        out.append((value.first, value.last))
        inner = py.parse("\n".join(line[_indent(lines, value.first) :] for line in lines[value.first - 1 : value.last]))
        todo.extend(_called_names(inner))
    return out


def _indent(lines: list[str], first: int) -> int:
    line = lines[first - 1]
    return len(line) - len(line.lstrip())


def _foreign_names(func, tree, text: str, file: str) -> list:
    """Errors for the names the kernel reads but never defines that Python binds to something
    other than the language's (a variable, a Python function): located, saying what to write."""
    declared = {a.arg for a in tree.args.posonlyargs + tree.args.args + tree.args.kwonlyargs}
    called = set()
    for node in py.walk(tree):
        if isinstance(node, py.Name) and isinstance(node.ctx, py.Store):
            declared.add(node.id)
        elif isinstance(node, py.Constant) and isinstance(node.value, str) and node.value.isidentifier():
            declared.add(node.value)  # dimension symbols and constant names in quotes
        elif isinstance(node, py.Call) and isinstance(node.func, py.Name):
            called.add(node.func)
    closure = inspect.getclosurevars(func) if func.__closure__ else None
    scope = {**func.__globals__, **(closure.nonlocals if closure else {})}
    diags = Diagnostics(file, text)
    lines = text.splitlines()
    for node in py.walk(py.Module(body=tree.body, type_ignores=[])):
        if not isinstance(node, py.Name) or not isinstance(node.ctx, py.Load) or node.id in declared:
            continue
        message = _foreign(node.id, scope, node in called)
        if message is not None:
            col = len(lines[node.lineno - 1].encode()[: node.col_offset].decode(errors="ignore"))
            diags.error(A.Pos(node.lineno, col + 1, len(node.id)), message)
    return diags.records


def _merged(records: list, foreign: list, file: str, text: str) -> CompileError:
    """One report: the foreign-name errors in place of the checker's 'unknown identifier' at the same
    places, every error in the order of the source."""
    places = {(d.line, d.col) for d in foreign}
    kept = [d for d in records if (d.line, d.col) not in places]
    ordered = sorted(kept + foreign, key=lambda d: (d.filename != file, d.line, d.col))
    return CompileError(ordered, {file: text})


def _foreign(name: str, scope: dict, called: bool) -> str | None:
    from types import ModuleType

    from phobos.lang import LangObject

    if name in _LANGUAGE_NAMES:
        return None  # the language's meaning wins (numpy's exp imported as exp is still the builtin)
    if name in scope:
        value = scope[name]
        if isinstance(value, (LangObject, ModuleType, PhobosFn)):
            return None
        if callable(value):
            return (
                f"'{name}' is a Python function: a kernel is compiled, not run, so it can call only the "
                f"language's builtins and @phobos.fn functions (decorate '{name}' with @phobos.fn, or inline it)"
            )
        return (
            f"'{name}' is a Python variable captured from outside the kernel ({type(value).__name__}): a kernel "
            f"reads only its parameters, @autotune constants and dimension symbols; pass '{name}' as a parameter, "
            f"or make it a constant with autotune={{'{name}': [value]}} or k.with_defines({name}=value)"
        )
    if not called or not hasattr(builtins, name):
        return None
    return (
        f"'{name}' is Python's builtin function, which is not in the kernel language "
        "(the language's builtins are listed in docs/language.md)"
    )
