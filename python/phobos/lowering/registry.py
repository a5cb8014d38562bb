"""Which emitter lowers which op: handlers keyed by OpView class (and plan role).

An ops module registers its handlers with `@lowers(SomeOp, ...)`; the context
looks an op up by the class its `opview` has (walking the class's bases, so a
dialect's extended class finds the generated one's handler). A handler may
also be registered for a *role* the plan gave an op (a load staged into
shared memory, a transpose folded into a buffer, a pipelined loop): the role
decides before the class, as the plan was made before emission.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from mlir import ir

if TYPE_CHECKING:
    from phobos.lowering.context import LoweringContext

Handler = Callable[["LoweringContext", ir.Operation], None]

_BY_CLASS: dict[type, Handler] = {}
_BY_ROLE: dict[str, Handler] = {}


def lowers(*classes: type, role: str | None = None) -> Callable[[Handler], Handler]:
    """Registers the decorated function as the emitter of ops of `classes` (or of `role`)."""

    def register(handler: Handler) -> Handler:
        for cls in classes:
            _BY_CLASS[cls] = handler
        if role is not None:
            _BY_ROLE[role] = handler
        return handler

    return register


def register_classes(classes, handler: Handler) -> None:
    """Registers `handler` for every class in `classes` that has none yet."""
    for cls in classes:
        _BY_CLASS.setdefault(cls, handler)


def handler_for(op: ir.Operation, role: str | None) -> Handler | None:
    """The emitter of `op`: its role's when the plan gave it one, else its class's."""
    if role is not None:
        return _BY_ROLE[role]
    for cls in type(op.opview).__mro__:
        handler = _BY_CLASS.get(cls)
        if handler is not None:
            return handler
        if cls is ir.OpView:
            break
    return None
