"""Where a kernel's shared-memory accesses need a CTA barrier.

The lowering describes its shared-memory traffic as a small program of
events (`Access`, `Barrier`, `Loop`, `Branch`) in the order it emits them,
and this module decides before which accesses a `gpu.barrier` must go. A
barrier is needed before an access when, since the last barrier, another
event touched overlapping bytes and one of the two writes (read after write,
write after read, write after write): the threads that wrote or read may not
be the ones that read or write now. Reads after reads need none.

Loops are solved to a fixed point (what is pending at the end of the body is
pending at its start, joined with what was pending before the loop); the two
arms of a branch start from the same state and join after it. All control
flow here is CTA-uniform (loop bounds and conditions are scalars), so a
barrier inside it is legal.

A pipelined loop (ops/pipelined_for.py) synchronises its own ring of stages: it opens
every iteration with a barrier, and accesses of the same ring never conflict
with each other (they touch different stages); ring accesses do stay pending
after the loop, for the accesses that follow it.

Every access that touches a buffer touched before (earlier, or in the
previous iteration) is a place a conservative lowering would put a barrier:
those without a hazard are recorded as elided, with the reason.

No MLIR import: plain data.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field


@dataclass
class Access:
    id: Hashable
    buffers: tuple[int, ...]  # indices into the planner's buffer list
    kind: str  # "read" | "write"
    what: str = ""  # for reports: "the copy of A's tile (gemm.ph:17:13)"
    ring: int | None = None  # the pipelined loop whose ring this access belongs to


@dataclass
class Barrier:
    id: Hashable
    what: str = "barrier()"


@dataclass
class Loop:
    body: list
    pipelined: int | None = None  # ring id: the loop opens each iteration with its own barrier
    what: str = ""


@dataclass
class Branch:
    arms: list[list]


@dataclass
class Decision:
    id: Hashable
    what: str
    kept: bool
    reason: str

    def to_json(self) -> dict:
        return {"at": self.what, "kept": self.kept, "reason": self.reason}


# Pending accesses since the last barrier: (buffer, kind, what, ring).
_State = frozenset


@dataclass
class SyncPlan:
    decisions: list[Decision] = field(default_factory=list)

    def barrier_before(self, event_id: Hashable) -> bool:
        return any(d.id == event_id and d.kept for d in self.decisions)

    def kept(self) -> list[Decision]:
        return [d for d in self.decisions if d.kept]

    def elided(self) -> list[Decision]:
        return [d for d in self.decisions if not d.kept]

    def to_json(self) -> dict:
        return {"barriers": [d.to_json() for d in self.decisions]}


def plan_barriers(program: list, overlap: Callable[[int, int], bool]) -> SyncPlan:
    """Decides the barriers of `program`; `overlap(i, j)` says whether buffers i and j share bytes."""
    solver = _Solver(overlap)
    solver.run(program, frozenset(), frozenset(), record=True)
    return SyncPlan(solver.decisions)


class _Solver:
    def __init__(self, overlap):
        self.overlap = overlap
        self.decisions: list[Decision] = []

    def run(self, events: list, pending: _State, seen: _State, record: bool) -> tuple[_State, _State]:
        """Walks `events` from `pending` (accesses since the last barrier) and `seen`
        (buffers touched so far); returns both after them."""
        for e in events:
            if isinstance(e, Barrier):
                pending = frozenset()
            elif isinstance(e, Access):
                pending, seen = self._access(e, pending, seen, record)
            elif isinstance(e, Branch):
                outs = [self.run(arm, pending, seen, record) for arm in e.arms]
                if len(e.arms) == 1:
                    outs.append((pending, seen))
                pending = frozenset().union(*(p for p, _ in outs))
                seen = frozenset().union(*(s for _, s in outs))
            elif isinstance(e, Loop):
                pending, seen = self._loop(e, pending, seen, record)
            else:
                raise TypeError(f"not a shared-memory event: {e!r}")
        return pending, seen

    def _loop(self, loop: Loop, pending: _State, seen: _State, record: bool) -> tuple[_State, _State]:
        start_p, start_s = pending, seen
        for _ in range(8):  # the lattice is finite and small: a few rounds reach the fixed point
            end_p, end_s = self.run(loop.body, start_p, start_s, record=False)
            next_p, next_s = pending | end_p, seen | end_s
            if loop.pipelined is not None:
                next_p = frozenset()  # the loop's own barrier opens every iteration
            if (next_p, next_s) == (start_p, start_s):
                break
            start_p, start_s = next_p, next_s
        if loop.pipelined is not None:
            start_p = frozenset()
        end_p, end_s = self.run(loop.body, start_p, start_s, record)
        # Zero iterations leave the state before the loop.
        return pending | end_p, seen | end_s

    def _access(self, e: Access, pending: _State, seen: _State, record: bool) -> tuple[_State, _State]:
        hazard = None
        # In a fixed order (pending is a set), so the hazard named is the same on every run.
        for buf, kind, what, ring in sorted(pending, key=_order):
            if e.ring is not None and ring == e.ring:
                continue  # the ring's stages are ordered by its own barrier and waits
            if not any(self.overlap(buf, b) for b in e.buffers):
                continue
            if kind == "write" or e.kind == "write":
                hazard = _hazard_name(kind, e.kind), what
                break
        touched_before = any(self.overlap(buf, b) for buf in seen for b in e.buffers)
        if record:
            if hazard is not None:
                name, what = hazard
                self.decisions.append(Decision(e.id, e.what, True, f"{name}: after {what}"))
            elif touched_before:
                reason = (
                    "reads after reads need no barrier"
                    if e.kind == "read" and not any(k == "write" for _, k, _, _ in pending)
                    else "an earlier barrier already orders it"
                )
                if e.ring is not None:
                    reason = "the pipeline's own barrier and waits order the ring"
                self.decisions.append(Decision(e.id, e.what, False, reason))
        if hazard is not None:
            pending = frozenset()
        pending = pending | {(b, e.kind, e.what, e.ring) for b in e.buffers}
        return pending, seen | set(e.buffers)


def _order(access: tuple) -> tuple:
    buf, kind, what, ring = access
    return buf, kind, what, -1 if ring is None else ring


def _hazard_name(earlier: str, later: str) -> str:
    return {
        ("write", "read"): "read after write",
        ("read", "write"): "write after read",
        ("write", "write"): "write after write",
    }[(earlier, later)]
