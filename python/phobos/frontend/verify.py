"""Tile IR emission plus verification: the last stage of `compile_to_tile_ir`.

The emitted module must pass the MLIR verifier and `tile-verify`. A correct
front end never fails here; if it does, the MLIR diagnostics are turned into
front-end diagnostics (same `file:line:col` format, pointing at the source
construct whose op failed) and raised as a CompileError marked as a compiler
bug, rather than handing invalid IR to the next stage.
"""

from __future__ import annotations

from mlir import ir

from phobos.diagnostics import Collector, Diagnostic, from_mlir
from phobos.dialect import make_context
from phobos.dialect.verify import verify_tile_ir

from . import ast as A
from .errors import CompileError
from .to_tile_ir import emit_program


def verification_errors(module: ir.Module) -> list[Diagnostic]:
    """The diagnostics of the MLIR verifier, then of tile-verify (empty: valid)."""
    context = module.context
    try:
        module.operation.verify()
    except ir.MLIRError as e:
        return [from_mlir(d) for d in e.error_diagnostics] or [Diagnostic("error", str(e))]
    previous = context.emit_error_diagnostics
    collector = Collector(context)
    try:
        # tile-verify builds types (e.g. a reduction's result), which needs a location.
        with context, ir.Location.unknown(context):
            ok = verify_tile_ir(module.operation)
        records = [from_mlir(d) for d in collector.take()]
    finally:
        collector.detach()
        context.emit_error_diagnostics = previous
    if not ok and not records:
        records = [Diagnostic("error", "tile-verify rejected the module")]
    return records


def lower_and_verify(program: A.Program, filename: str, source: str, context=None) -> ir.Module:
    context = context if context is not None else make_context()
    module = emit_program(program, filename, context)
    records = verification_errors(module)
    if records:
        for d in records:
            d.message = f"internal compiler error: the front end built invalid tile IR: {d.message}"
        raise CompileError(records, {filename: source})
    return module
