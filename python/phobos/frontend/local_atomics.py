"""Atomics on a CTA-local tile: `atomic_add(masked(h[v], v < NB), 1)` with `var h: tile<i32>[NB]`.

A local tile is private to its CTA, so an atomic on it combines the updates of the CTA's
threads, not of the grid: the privatised histogram (each CTA counts into its own bins, then
adds them to the global ones once). The only access of a local tile the language allows is
this one: the target of `atomic_add`, `atomic_max` or `atomic_min`, standing alone as a
statement, is a 1-D `var` tile subscripted by one integer tile of indices (any shape), bare
or in `masked(...)`. Indices outside [0, NB) are dropped, as a scatter's are; the elements
apply in row-major order. The statement assigns the variable (a loop carries it).

The GPU keeps the tile in a shared-memory buffer for the op: it stores the tile there,
applies `red.shared` per element and reads the tile back (lowering/ops/local_atomics.py).
Reads of `h[v]`, old values, `sem`/`scope`, `atomic_xchg`/`atomic_cas` are refused here:
each would need the tile to stay in shared memory across other statements.

Checking only (no MLIR); the tile IR is atomics_ir.lower_local_atomic.
"""

from __future__ import annotations

from . import ast as A
from . import types as T
from .ast import start_pos
from .gathers import index_subscript, unwrap_masked

# The element types each kind has a shared-memory atomic for (PTX atom/red .shared).
LOCAL_TYPES = {"add": ("i32", "i64", "f32"), "max": ("i32", "i64"), "min": ("i32", "i64")}


def local_access(e: A.Expr) -> A.Index | None:
    """The access of an atomic call's target where it is a local tile (marked by `mark_local_target`)."""
    if not isinstance(e, A.Call) or not e.args:
        return None
    access, _ = unwrap_masked(e.args[0])
    return access if isinstance(access, A.Index) and getattr(access, "local", False) else None


class LocalAtomicChecks:
    """Checks atomics on local tiles (uses the Checker's `error`, `lookup`, `tile_type`)."""

    def mark_local_target(self, e: A.Call) -> None:
        """Before the arguments are checked: marks a target subscripting a local tile."""
        if not e.args:
            return
        access, _ = unwrap_masked(e.args[0])
        if isinstance(access, A.Index) and isinstance(access.base, A.Name):
            sym = self.lookup(access.base.name)
            if sym is not None and isinstance(sym.ty, T.Tile):
                access.local = True

    def check_local_gather(self, e: A.Index, tile: T.Tile) -> T.Type:
        """`h[v]` as an atomic's target: a 1-D `var` tile and one index tile."""
        name = e.base.name
        sym = e.base.symbol
        if sym.kind != "var":
            return self.error(e.pos, f"an atomic updates '{name}', which must be declared with 'var'")
        if any(sub.start is not None and sub.start.ty == T.ERROR for sub in e.subscripts):
            return T.ERROR  # the index tile's own error is reported
        if len(tile.shape) != 1 or len(e.subscripts) != 1 or not index_subscript(e.subscripts[0]):
            return self.error(
                e.bracket or e.pos,
                f"an atomic on the local tile '{name}' ({tile}) needs a 1-D tile and one tile of indices, "
                f"such as '{name}[v]'",
            )
        idx = e.subscripts[0].start
        if not T.is_int(idx.ty.element):
            return self.error(start_pos(idx), f"an index tile must hold integers, got {idx.ty}")
        e.subscripts[0].length = None
        e.index_shape = tuple(idx.ty.shape)
        return self.tile_type(tile.element, list(idx.ty.shape), e.pos)

    def check_local_atomic(self, e: A.Call, access: A.Index, kind: str) -> bool:
        """The rules of an atomic on a local tile beyond its target's; False after an error."""
        name = e.builtin
        elem = access.ty.element
        if kind not in LOCAL_TYPES:
            self.error(e.callee.pos, f"'{name}' on the local tile '{access.base.name}': only atomic_add, max and min")
            return False
        if elem not in LOCAL_TYPES[kind]:
            allowed = ", ".join(LOCAL_TYPES[kind])
            self.error(e.callee.pos, f"'{name}' on a local tile of {elem}: shared-memory atomics take {allowed}")
            return False
        if e.keywords:
            self.error(e.keywords[0][1], f"'{name}' on a local tile takes no sem or scope: the tile is the CTA's own")
            return False
        if not getattr(e, "statement", False):
            self.error(
                e.pos,
                f"'{name}' on the local tile '{access.base.name}' must stand alone as a statement "
                "(its old values are not available)",
            )
            return False
        return True
