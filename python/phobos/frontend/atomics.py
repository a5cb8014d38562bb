"""Atomics: `atomic_add(target, value)`, `atomic_max`, `atomic_min`, `atomic_xchg` and
`atomic_cas(target, expected, desired)`, with keyword arguments `sem = "relaxed" |
"acquire" | "release" | "acq_rel"` (default relaxed) and `scope = "cta" | "gpu" | "sys"`
(default gpu).

The target is anything that can be assigned to: a single element `X[i, j]`, a slice
`X[r :+ 32, 0 :+ 64]`, a gather `X[idx]` or a masked access `masked(X[idx], m)`; the
value (and `expected`) is a scalar or a tile that broadcasts to the target's shape,
converted to the tensor's element type as a store converts. The call returns the old
values (a scalar for a single element, else a tile of the target's shape; zero where
masked off or out of bounds) and may stand alone as a statement, where it compiles to
a reduction (`red`). Elements of one call apply in row-major order; within a launch
the interpreter applies CTAs in order (phobos.interpreter.atomics).

Checking is `AtomicChecks` (a mixin of the Checker); lowering (atomics_ir.py) turns the target into
offsets and a mask as a gather does (frontend/gathers.py) and emits
`tile.atomic_rmw`/`tile.atomic_cas`, which work on tiles: a single element is a tile
of one element, extracted when the old value is used.
"""

from __future__ import annotations

from phobos.atomic_types import SCOPES, SEMS, unsupported

from . import ast as A
from . import gathers
from . import types as T
from .ast import start_pos
from .local_atomics import LocalAtomicChecks

ATOMICS = ("atomic_add", "atomic_max", "atomic_min", "atomic_xchg", "atomic_cas")
_KEYWORDS = {"sem": SEMS, "scope": SCOPES}


def is_atomic(e: A.Expr) -> bool:
    return isinstance(e, A.Call) and e.builtin in ATOMICS


class AtomicChecks(LocalAtomicChecks):
    """Checks the atomic builtins (uses the Checker's `error`, `arity`, `storable`, `fits`)."""

    def call_atomic_add(self, e: A.Call, ts: list[T.Type]) -> T.Type:
        name = e.builtin
        kind = name[len("atomic_") :]
        n = 3 if kind == "cas" else 2
        if not self.arity(e, name, ts, n):
            return T.ERROR
        target, values = e.args[0], e.args[1:]
        access, _ = gathers.unwrap_masked(target)
        local = getattr(access, "local", False)
        if local and not self.check_local_atomic(e, access, kind):
            return T.ERROR
        if (
            not isinstance(access, A.Index)
            or not (local or isinstance(access.base.ty, T.Tensor))
            or (isinstance(target, A.Call) and target.builtin != "masked")
        ):
            return self.error(
                start_pos(target),
                f"the target of '{name}' must be an element, slice or gather of a tensor parameter, "
                f"such as 'X[i]', 'X[r :+ 32]' or 'X[idx]', got {ts[0]}",
            )
        target_ty = ts[0]
        elem = target_ty.element
        why = None if local else unsupported(kind, elem)
        if why is not None:
            return self.error(e.callee.pos, f"'{name}' on '{access.base.name}', a tensor of {elem}: {why}")
        for value, ty in zip(values, ts[1:]):
            self.storable(ty, value, target_ty, access)
        e.atomic = {"kind": kind, "sem": "relaxed", "scope": "gpu"}
        for key, pos, value in e.keywords:
            if key not in _KEYWORDS:
                return self.error(pos, f"'{name}' has no keyword '{key}' (expected sem or scope)")
            if not isinstance(value, A.StrLit) or value.value not in _KEYWORDS[key]:
                allowed = " | ".join(f'"{a}"' for a in _KEYWORDS[key])
                return self.error(start_pos(value), f"'{key}' of '{name}' must be one of {allowed}")
            value.ty = T.VOID
            e.atomic[key] = value.value
        return target_ty

    call_atomic_max = call_atomic_min = call_atomic_xchg = call_atomic_cas = call_atomic_add

    def check_keywords_allowed(self, e: A.Call) -> bool:
        """Keyword arguments are the atomics' only; an error elsewhere."""
        if e.keywords and e.builtin not in ATOMICS:
            self.error(e.keywords[0][1], f"'{e.builtin}' takes no keyword arguments")
            return False
        return True
