"""What each CTA does, step by step: the interpreter runs the kernel and this module listens.

The view draws the boxes a CTA reads and writes at each step. Those come from
executing the kernel, not from a model of it: `record` runs the tile program
in the interpreter (phobos.interpreter, through the launch's own argument
checks in phobos.runtime.interpret) on zero-filled tensors of the chosen
sizes and notes, for the CTAs asked for, every global load and store (its
slice starts, or its offsets and mask), every `tile.dot` and the iteration of
each enclosing `scf.for`, in execution order.

It listens by wrapping, for the length of the run, the interpreter's handlers
of those ops in its op table (and its `scf.for`), and tags the ops of a copy
of the program with their index among the kernel's accesses, so a step names
the access of the compiler's report it belongs to. The interpreter computes
every value; the wrappers only read their operands.
"""

from __future__ import annotations

import copy
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np

MEMORY_OPS = ("tile.load_slice", "tile.store_slice", "tile.load", "tile.store")
ACCESS = "phobos.view.access"  # tags on the program's ops (the handlers pass unknown attributes by)
DOT = "phobos.view.dot"
LOOP = "phobos.view.loop"


@dataclass
class Iteration:
    loop: int  # the loop's index among the kernel's scf.for ops (program order)
    index: int  # 0-based iteration number
    count: int  # the loop's trip count
    value: int  # the induction variable


@dataclass
class Event:
    kind: str  # "load" | "store" | "dot" | "iteration"
    loc: tuple  # (file, line, col) of the op
    loops: list[Iteration] = field(default_factory=list)  # the enclosing loops, outermost first
    access: int | None = None  # index among the kernel's global accesses
    dot: int | None = None  # index among its tile.dot ops
    tensor: int | None = None  # the argument index of the tensor accessed
    starts: list[int] | None = None  # slice form
    tile: list[int] | None = None
    offsets: np.ndarray | None = None  # offset form: flat element offsets, tile-shaped
    mask: np.ndarray | None = None  # offset form: the mask, tile-shaped (None: no mask)


@dataclass
class Loop:
    index: int
    loc: tuple
    lower: int
    step: int
    count: int


@dataclass
class Trace:
    grid: tuple[int, int, int]
    events: dict[tuple, list[Event]]  # CTA position -> its events
    loops: list[Loop]
    truncated: dict[tuple, int] = field(default_factory=dict)  # CTA -> events left out
    uncovered: list[str] = field(default_factory=list)  # tensor parts no CTA read or wrote (coverage)


def tag_program(program: dict) -> tuple[dict, list[dict], list[dict], list[dict]]:
    """A copy of `program` whose memory ops, dots and loops carry their index; and those ops
    (the program's data) in program order."""
    program = copy.deepcopy(program)
    accesses, dots, loops = [], [], []

    def walk(ops):
        for op in ops:
            attrs = op.setdefault("attrs", {})
            if op["name"] in MEMORY_OPS:
                attrs[ACCESS] = len(accesses)
                accesses.append(op)
            elif op["name"] == "tile.dot":
                attrs[DOT] = len(dots)
                dots.append(op)
            elif op["name"] == "scf.for":
                attrs[LOOP] = len(loops)
                loops.append(op)
            for region in op.get("regions", []):
                for block in region:
                    walk(block["ops"])

    walk(program["body"])
    return program, accesses, dots, loops


class _Listener:
    def __init__(self, record_ctas, limit: int, tensors: dict[int, int]):
        self.record_ctas = record_ctas  # None: every CTA
        self.limit = limit
        self.tensors = tensors  # id(array) -> argument index
        self.events: dict[tuple, list[Event]] = {}
        self.truncated: dict[tuple, int] = {}
        self.loops: dict[int, Loop] = {}
        self.stack: list[list] = []  # per enclosing running loop: [loop, vals, iv id, last index seen]

    def _wanted(self, cta) -> tuple | None:
        block = tuple(int(b) for b in cta.block)
        if self.record_ctas is not None and block not in self.record_ctas:
            return None
        return block

    def _add(self, cta, event: Event) -> None:
        block = self._wanted(cta)
        if block is None:
            return
        events = self.events.setdefault(block, [])
        # a new iteration of an enclosing loop shows as its own step, before the first event in it
        for frame in self.stack:
            loop, vals, iv_id, seen = frame
            value = int(vals[iv_id])
            index = (value - loop.lower) // loop.step
            if seen != index:
                frame[3] = index
                self._append(block, events, Event("iteration", loop.loc, self._loops(), None))
        event.loops = self._loops()
        self._append(block, events, event)

    def _append(self, block, events, event) -> None:
        if len(events) < self.limit:
            events.append(event)
        else:
            self.truncated[block] = self.truncated.get(block, 0) + 1

    def _loops(self) -> list[Iteration]:
        out = []
        for loop, vals, iv_id, _ in self.stack:
            value = int(vals[iv_id])
            out.append(Iteration(loop.index, (value - loop.lower) // loop.step, loop.count, value))
        return out

    # ------------------------------------------------------------------ the wrappers

    def memory(self, original):
        def handler(op, cta, args):
            index = op.attrs.get(ACCESS)
            if index is not None and self._wanted(cta) is not None:
                self._add(cta, self._event(op, args, index))
            return original(op, cta, args)

        return handler

    def _event(self, op, args, index) -> Event:
        name = op.name
        kind = "load" if name in ("tile.load_slice", "tile.load") else "store"
        base = args[0] if kind == "load" else args[1]
        e = Event(kind, tuple(op.loc or ("", 0, 0)), access=index, tensor=self.tensors.get(id(base)))
        if name == "tile.load_slice":
            e.starts, e.tile = [int(s) for s in args[1:]], list(op.out.shape)
        elif name == "tile.store_slice":
            e.starts, e.tile = [int(s) for s in args[2:]], list(np.shape(args[0]))
        else:
            offsets = args[1] if kind == "load" else args[2]
            mask_at = 2 if kind == "load" else 3
            e.offsets = np.asarray(offsets).astype(np.int64)
            e.mask = np.asarray(args[mask_at]).astype(bool) if len(args) > mask_at else None
            e.tile = list(e.offsets.shape)
        return e

    def dot(self, original):
        def handler(op, cta, args):
            if op.attrs.get(DOT) is not None and self._wanted(cta) is not None:
                self._add(cta, Event("dot", tuple(op.loc or ("", 0, 0)), dot=op.attrs[DOT]))
            return original(op, cta, args)

        return handler

    def loop(self, original):
        def control(run, op, cta, vals, args):
            lower, upper, step = (int(a) for a in args[:3])
            count = max(0, -(-(upper - lower) // step)) if step > 0 else 0
            index = op.attrs.get(LOOP, -1)
            loop = self.loops.setdefault(index, Loop(index, tuple(op.loc or ("", 0, 0)), lower, step, count))
            loop.lower, loop.step, loop.count = lower, step, count
            self.stack.append([loop, vals, op.regions[0][0].args[0], None])
            try:
                return (yield from original(run, op, cta, vals, args))
            finally:
                self.stack.pop()

        return control


@contextmanager
def _listening(listener: _Listener):
    from phobos.interpreter import executor
    from phobos.interpreter.ops import HANDLERS

    saved = {name: HANDLERS[name] for name in (*MEMORY_OPS, "tile.dot") if name in HANDLERS}
    saved_loop = executor.CONTROL["scf.for"]
    try:
        for name, handler in saved.items():
            HANDLERS[name] = listener.dot(handler) if name == "tile.dot" else listener.memory(handler)
        executor.CONTROL["scf.for"] = listener.loop(saved_loop)
        yield
    finally:
        HANDLERS.update(saved)
        executor.CONTROL["scf.for"] = saved_loop


def zero_arguments(contract: dict, sizes: dict[str, int]) -> list:
    """Zero-filled host tensors of the given extents and unit scalars, in parameter order."""
    from phobos.runtime.interpret import HOST_DTYPES

    args = []
    for p in contract["params"]:
        if p["kind"] == "tensor":
            shape = [s if s is not None else sizes[d] for s, d in zip(p["shape"], p["dims"])]
            args.append(np.zeros(shape, dtype=HOST_DTYPES[p["dtype"]]))
        elif p["dtype"] == "i1":
            args.append(True)
        elif p["dtype"].startswith("i"):
            args.append(1)
        else:
            args.append(1.0)
    return args


def record(program: dict, contract: dict, args: list, ctas=None, limit: int = 400, grid=None) -> Trace:
    """Runs `program` (tagged by `tag_program`) on `args` over `grid` (None: the contract's
    grid rule) and returns the events of the CTAs in `ctas` (None: every CTA), at most
    `limit` each. The launch's checks come first: a broken @aligned promise raises its ValueError."""
    from phobos.runtime.binding import Signature
    from phobos.runtime.interpret import run

    sig = Signature(contract)
    tensors = {id(a): i for i, a in enumerate(args) if isinstance(a, np.ndarray)}
    listener = _Listener(None if ctas is None else {tuple(c) for c in ctas}, limit, tensors)
    with _listening(listener):
        coverage = run(sig, program, args, grid=grid, coverage=True)
    symbols = {}
    for p, a in zip(contract["params"], args):
        if p["kind"] == "tensor":
            symbols.update(zip(p["dims"], a.shape))
    grid = sig.grid(symbols, grid)
    loops = [listener.loops[i] for i in sorted(listener.loops) if i >= 0]
    return Trace(grid, listener.events, loops, listener.truncated, coverage.messages())
