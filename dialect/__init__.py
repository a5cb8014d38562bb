"""The `tile` dialect: its IRDL definition, Python op classes, verifier and context helpers."""

from __future__ import annotations

from mlir import ir
from mlir._mlir_libs import _mlir as _cext
from mlir.dialects import irdl

from .definition import IRDL_FILE

# MLIR looks up op classes of namespace `tile` in `phobos.dialect.tile`.
_cext.globals.append_dialect_search_prefix(__name__)
_cext.globals.register_traceback_file_exclusion(__file__)

_IRDL_TEXT = IRDL_FILE.read_text()


def load_tile_dialect(context: ir.Context) -> None:
    """Loads the tile dialect into `context` (once; later calls do nothing)."""
    if context.is_registered_operation("tile.load"):
        return
    definition = ir.Module.parse(_IRDL_TEXT, context)
    irdl.load_dialects(definition)


def make_context() -> ir.Context:
    """A new context with the upstream dialects and the tile dialect loaded."""
    context = ir.Context()
    load_tile_dialect(context)
    return context


# Importing these registers the op classes; kept after the search prefix is set up above, as before.
from . import kernel, tile  # noqa: E402, F401  (registers the op classes)
