"""The registry of Phobos passes.

A Phobos pass is a module-level Python function `fn(module, pass_, **options)`
in its own file under passes/, registered with `@tile_pass("tile-...")`. Its
docstring's first paragraph is its description; the first sentence is the
one-line summary that `phobos-opt --help` lists. Options are declared with
`Option` and given in pipeline text as `tile-x{name=value other=value}`.

Passes report user errors as located diagnostics (`emit_error`) and then call
`pass_.signal_pass_failure()`; an exception in a pass is a compiler bug.

Every pass but tile-verify first runs the structural part of tile-verify's
checks (`verify_tile_ir(promises=False)`: attribute types, shapes, parameter
types) and fails with their diagnostics when they do not hold, so a pass run
on its own (`phobos-opt --tile-elide-masks`) reads only well-typed attributes
and shapes the verifier accepts, and needs no checks of its own.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mlir import ir

from phobos.dialect.verify import verify_tile_ir


@dataclass(frozen=True)
class Option:
    """A pass option: its Python type (str, int, bool), default and help line."""

    type: type
    default: Any
    help: str


@dataclass(frozen=True)
class PassInfo:
    argument: str
    run: Callable
    options: dict[str, Option] = field(default_factory=dict)
    verify_first: bool = True

    @property
    def description(self) -> str:
        doc = inspect.getdoc(self.run) or ""
        return doc.split("\n\n")[0].replace("\n", " ").strip()

    @property
    def summary(self) -> str:
        text = self.description
        end = text.find(". ")
        return text if end < 0 else text[: end + 1]

    @property
    def name(self) -> str:
        """The pass name shown in IR dumps, e.g. TileVerify."""
        return "".join(part.capitalize() for part in self.argument.split("-"))

    def parse_options(self, text: str) -> dict[str, Any]:
        """Parses `a=1 b=x` into typed option values; raises ValueError naming the bad option."""
        values = {name: opt.default for name, opt in self.options.items()}
        for item in text.split():
            name, eq, raw = item.partition("=")
            if name not in self.options:
                known = ", ".join(self.options) or "none"
                raise ValueError(f"'{self.argument}' has no option '{name}' (options: {known})")
            opt = self.options[name]
            if opt.type is bool:
                if eq and raw not in ("true", "false", "1", "0"):
                    raise ValueError(f"option '{name}' of '{self.argument}' expects true or false, got '{raw}'")
                values[name] = (raw in ("true", "1")) if eq else True
            elif opt.type is int:
                try:
                    values[name] = int(raw)
                except ValueError:
                    raise ValueError(f"option '{name}' of '{self.argument}' expects an integer, got '{raw}'") from None
            else:
                if not eq:
                    raise ValueError(f"option '{name}' of '{self.argument}' needs a value")
                values[name] = raw
        return values

    def bind(self, options_text: str = "") -> Callable[[ir.Operation, Any], None]:
        """A callable for `PassManager.add` with the options applied."""
        values = self.parse_options(options_text)
        run, verify_first = self.run, self.verify_first

        def bound(op, pass_):
            # Types and attributes built in a pass need an active context and
            # a default location; ops a pass creates should carry their own.
            with op.context, ir.Location.unknown(op.context):
                if verify_first and not verify_tile_ir(op, promises=False):
                    pass_.signal_pass_failure()
                    return
                run(op, pass_, **values)

        bound.__name__ = self.name
        return bound


_PASSES: dict[str, PassInfo] = {}


def tile_pass(argument: str, options: dict[str, Option] | None = None, verify_first: bool = True):
    """Registers the decorated function as the pass `argument` (kebab-case, `tile-` prefix).
    `verify_first=False` skips the verifier before it (for tile-verify itself)."""
    if not argument.startswith("tile-") or argument != argument.lower():
        raise ValueError(f"pass argument '{argument}' must be kebab-case and start with 'tile-'")

    def register(fn: Callable) -> Callable:
        if argument in _PASSES:
            raise ValueError(f"pass '{argument}' registered twice")
        _PASSES[argument] = PassInfo(argument, fn, dict(options or {}), verify_first)
        fn.pass_info = _PASSES[argument]  # type: ignore[attr-defined]  # mypy types no function attributes
        return fn

    return register


_loaded = False


def _load_all() -> None:
    """Imports every pass module under passes/ (each registers itself)."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    package = importlib.import_module("phobos.passes")
    for info in pkgutil.iter_modules(package.__path__):
        if info.name not in ("registry", "pipelines") and not info.name.startswith("_"):
            importlib.import_module(f"phobos.passes.{info.name}")


def all_passes() -> dict[str, PassInfo]:
    _load_all()
    return dict(sorted(_PASSES.items()))


def lookup(argument: str) -> PassInfo | None:
    _load_all()
    return _PASSES.get(argument)


def fail(pass_, location: ir.Location, message: str) -> None:
    """Emits a located error and marks the pass as failed."""
    location.emit_error(message)
    pass_.signal_pass_failure()
