"""Modules that verify before they print.

MLIR prints an op that fails verification in its generic form, silently.
`Module.create()` here gives an `ir.Module` (it is one: every API that takes
a module takes it) whose `str()` (and so `print(module)`) first runs the MLIR verifier and
the tile dialect's own checks, and raise `VerificationError` with each error
at the user's `file:line:col`, the line and a caret, instead.
"""

from __future__ import annotations

from mlir import ir

from phobos.diagnostics import Collector, Diagnostic, Sources, from_mlir, render
from phobos.dialect.verify import verify_tile_ir


class VerificationError(ValueError):
    """The module does not verify; the message lists each error with its source line."""

    def __init__(self, message: str, diagnostics: list):
        super().__init__(message)
        self.diagnostics = diagnostics


def _raise(diagnostics: list) -> None:
    sources = Sources()
    text = "".join(render(d, sources) for d in diagnostics)
    raise VerificationError("the module does not verify:\n" + text.rstrip("\n"), diagnostics)


def verify(module: ir.Module | ir.Operation) -> None:
    """Runs the MLIR verifier, then tile-verify's structural checks (shapes,
    types, attributes); raises `VerificationError` on the first that fails."""
    op = module.operation
    try:
        op.verify()
    except ir.MLIRError as e:
        _raise([from_mlir(d) for d in e.error_diagnostics] or [Diagnostic("error", str(e))])
    context = op.context
    emitting = context.emit_error_diagnostics
    collector = Collector(context)
    try:
        ok = verify_tile_ir(op, promises=False)
        infos = collector.take()
    finally:
        collector.detach()
        context.emit_error_diagnostics = emitting
    if not ok:
        _raise([from_mlir(d) for d in infos])


class Module(ir.Module):
    """An `ir.Module` that verifies before printing (see the module docstring)."""

    __slots__ = ()

    @classmethod
    def _adopt(cls, module: ir.Module) -> Module:
        module.__class__ = cls  # same layout: only the printing methods differ
        return module

    @classmethod
    def create(cls, loc: ir.Location | None = None) -> Module:
        return cls._adopt(ir.Module.create(loc))

    @classmethod
    def parse(cls, asm: str, context: ir.Context | None = None) -> Module:
        return cls._adopt(ir.Module.parse(asm, context))

    def __str__(self) -> str:
        verify(self)
        return super().__str__()
