"""An independent check of the recorded barrier plan (tile-verify-barriers).

tile-insert-barriers records, on each op with a shared-memory event, whether a
barrier goes before the event (`tile.sync`, shared_plan/shared_sync.py). This
module re-derives from the IR alone which accesses need one and checks the
record, sharing no code with the planner's hazard analysis:

  * the buffers are the kernel's `tile.shared` entries, each a byte range
    [offset, offset + bytes); two buffers conflict where their ranges meet;
  * each buffer's owner is the op its name names (`lhs of the dot at F:L:C`,
    `the reduction at F:L:C`, ...), several ops at one place taken in walk order;
  * the accesses are what the lowering emits for those ops: a staged operand's
    copy at its `tile.load_slice` (or, for a computed operand, the registers
    stored at the dot), the dot's reads, an exchange's writes then reads, and a
    `@pipeline` ring's prologue and per-iteration refill;
  * the kernel becomes a control-flow graph of those accesses (an `scf.for`
    body may run zero times and loops back, an `scf.while` runs its `before`
    region, then `after` and `before` again any number of times, `scf.if` arms
    join), with a barrier node for each `tile.barrier`, each pipelined loop's
    own barrier at the start of every iteration, and each access whose
    `tile.sync` entry says `barrier = true` entered through a barrier;
  * an access A conflicts with an access B reachable from it along a path
    with no barrier when their buffers overlap and one of them writes (the
    threads of a CTA touch different elements, so nothing else orders them),
    except that accesses of one ring do not conflict (its stages are ordered
    by the loop's barrier and its copies' waits).

Each such pair is a hazard: a barrier the plan is missing. Kept barriers that
no conflict needs are listed too (`Result.unneeded`): not wrong, but a
disagreement with the planner worth a look.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mlir import ir
from mlir.dialects import scf, tensor

from phobos.dialect import tile as T
from phobos.dialect.kernel import kernels
from phobos.dialect.tile import defining_op, is_op, ops_of
from phobos.lowering.ir_helpers import where
from phobos.lowering.plan_records import DOT_PATH, PIPELINE_STAGES, SHARED, SYNC, SYNC_PLANNED
from phobos.lowering.widened_fragments import widens

# The prefixes of the buffer names tile-allocate-shared records, and what owns such a buffer.
OWNERS: dict[str, tuple[type, str]] = {
    "lhs of the dot": (T.DotOp, "lhs"),
    "rhs of the dot": (T.DotOp, "rhs"),
    "the reduction": (T.ReduceOp, "scratch"),
    "the scan": (T.ScanOp, "scratch"),
    "the transpose": (T.TransposeOp, "scratch"),
    "the layout conversion": (T.ConvertLayoutOp, "scratch"),
    "the local tile": (T.LocalRMWOp, "scratch"),
}


class PlanRecordError(ValueError):
    """A record the check cannot read; `op` is where to report it."""

    def __init__(self, op: ir.Operation, message: str):
        super().__init__(message)
        self.op = op


@dataclass(frozen=True)
class SharedBuffer:
    name: str
    start: int
    end: int  # one past the last byte

    def meets(self, other: SharedBuffer) -> bool:
        return self.start < other.end and other.start < self.end


@dataclass
class Node:
    """One step of the kernel's shared-memory program."""

    kind: str  # "read" | "write" | "barrier" | "join"
    op: ir.Operation | None = None
    event: str = ""  # the tile.sync key of an access
    buffers: tuple[int, ...] = ()
    ring: ir.Operation | None = None  # the pipelined loop whose ring this access belongs to
    fenced: bool = False  # the record puts a barrier right before it
    succ: list[int] = field(default_factory=list)

    def describe(self) -> str:
        assert self.op is not None
        words = _EVENT_WORDS.get(self.event, self.event)
        if self.event in ("read", "write") and not is_op(self.op, T.DotOp):
            kind = next((p for p, (cls, _) in OWNERS.items() if is_op(self.op, cls)), "the op")
            words = f"the {self.event}s of {kind}"
        return f"{words} at {where(self.op)}"


_EVENT_WORDS = {
    "copy": "the copy into shared memory",
    "atomic": "the shared atomics on the local tile",
    "stage-lhs": "the dot's store of its lhs registers",
    "stage-rhs": "the dot's store of its rhs registers",
    "read": "the dot's reads",
    "read-ring": "the dot's reads of the ring",
    "prologue": "the pipeline prologue",
    "refill": "the ring's refill",
}


@dataclass
class Hazard:
    earlier: Node
    later: Node
    buffer: str  # the later access's buffer the earlier one overlaps
    round_loop: bool = False  # the path between them takes a loop's back edge

    @property
    def kind(self) -> str:
        return {
            ("write", "read"): "read after write",
            ("read", "write"): "write after read",
            ("write", "write"): "write after write",
        }[(self.earlier.kind, self.later.kind)]

    def message(self) -> str:
        earlier, later, b = self.earlier.describe(), self.later, self.buffer
        action = {
            "read after write": f"read bytes of the shared buffer '{b}' that other threads write in {earlier}, "
            "before they have written them",
            "write after read": f"overwrite bytes of the shared buffer '{b}' that other threads read in {earlier}, "
            "before they have read them",
            "write after write": f"write bytes of the shared buffer '{b}' that other threads write in {earlier}, "
            "in no set order",
        }[self.kind]
        path = "a path round the loop" if self.round_loop else "some path"
        return (
            f"missing barrier ({self.kind}) before {later.describe()}: it may {action} (no barrier separates them "
            f"on {path}); {SYNC} '{later.event}' here should say barrier = true"
        )


@dataclass
class Result:
    kernel: ir.Operation
    accesses: int = 0
    hazards: list[Hazard] = field(default_factory=list)
    unneeded: list[Node] = field(default_factory=list)  # kept barriers no conflict needs


# ----------------------------------------------------------------------------- records


def _int_field(fn: ir.Operation, entry: ir.DictAttr, key: str) -> int:
    if key not in entry or not isinstance(entry[key], ir.IntegerAttr):
        raise PlanRecordError(fn, f"expects every buffer of {SHARED} to have an integer '{key}'")
    return ir.IntegerAttr(entry[key]).value


def shared_buffers(fn: ir.Operation) -> list[SharedBuffer]:
    """The kernel's buffers as `tile.shared` records them (empty when it has none)."""
    if SHARED not in fn.attributes:
        return []
    record = fn.attributes[SHARED]
    if (
        not isinstance(record, ir.DictAttr)
        or "buffers" not in record
        or not isinstance(record["buffers"], ir.ArrayAttr)
    ):
        raise PlanRecordError(fn, f"expects {SHARED} to be a dictionary with a 'buffers' array")
    out = []
    for entry in ir.ArrayAttr(record["buffers"]):
        if not isinstance(entry, ir.DictAttr) or "name" not in entry or not isinstance(entry["name"], ir.StringAttr):
            raise PlanRecordError(fn, f"expects every buffer of {SHARED} to be a dictionary with a 'name'")
        start = _int_field(fn, entry, "offset")
        out.append(SharedBuffer(ir.StringAttr(entry["name"]).value, start, start + _int_field(fn, entry, "bytes")))
    return out


def recorded_barriers(op: ir.Operation) -> dict[str, bool]:
    """event -> whether `tile.sync` on `op` keeps a barrier before it."""
    if SYNC not in op.attributes:
        return {}
    record = op.attributes[SYNC]
    if not isinstance(record, ir.DictAttr):
        raise PlanRecordError(op, f"expects {SYNC} to be a dictionary of events")
    out = {}
    for i in range(len(record)):
        entry = record[i].attr
        if (
            not isinstance(entry, ir.DictAttr)
            or "barrier" not in entry
            or not isinstance(entry["barrier"], ir.BoolAttr)
        ):
            raise PlanRecordError(op, f"expects {SYNC} '{record[i].name}' to have a boolean 'barrier'")
        out[record[i].name] = ir.BoolAttr(entry["barrier"]).value
    return out


def _line_col(place: str) -> str:
    """`L:C` of a `F:L:C` place (IR printed and parsed again keeps lines, not the file name)."""
    return ":".join(place.rsplit(":", 2)[1:])


def buffer_owners(fn: ir.Operation, buffers: list[SharedBuffer]) -> dict[tuple[ir.Operation, str], int]:
    """(op, "lhs" | "rhs" | "scratch") -> the index of its buffer, from the buffers' names: the op of
    the right kind at the place the name gives, else at its line and column (IR printed and read
    again), else, in walk order, the ops of that kind with a `tile.sync` record or all of them,
    whichever are as many as the buffers."""
    wanted: dict[str, list[tuple[str, int]]] = {prefix: [] for prefix in OWNERS}
    for i, b in enumerate(buffers):
        prefix, at, place = b.name.partition(" at ")
        if not at or prefix not in OWNERS:
            raise PlanRecordError(fn, f"{SHARED}: cannot tell which op owns the buffer '{b.name}'")
        wanted[prefix].append((place, i))
    owners: dict[tuple[ir.Operation, str], int] = {}
    for prefix, (cls, role) in OWNERS.items():
        ops, named = ops_of(fn, (cls,)), wanted[prefix]
        if not named:
            continue
        for key in (where, lambda op: _line_col(where(op))):
            places = [place if key is where else _line_col(place) for place, _ in named]
            found = _match(ops, [key(op) for op in ops], places)
            if found is not None:
                break
        else:
            recorded = [op for op in ops if SYNC in op.attributes]
            found = next((c for c in (recorded, ops) if len(c) == len(named)), None)
        if found is None:
            place, i = named[0]
            raise PlanRecordError(
                fn, f"{SHARED}: no op at {place} owns the buffer '{buffers[i].name}': run tile-allocate-shared again"
            )
        owners.update({(op, role): i for op, (_, i) in zip(found, named)})
    return owners


def _match(ops: list[ir.Operation], keys: list[str], places: list[str]) -> list[ir.Operation] | None:
    """The op for each place; None if one is missing. Where fewer buffers than ops name one
    place (argmax is a max and a min at the same place, a reduction of one element needs no
    buffer), the ops with a `tile.sync` record are taken first, then the rest in walk order."""
    found: list[ir.Operation] = []
    for place in dict.fromkeys(places):
        count = places.count(place)
        here = [op for key, op in zip(keys, ops) if key == place]
        if len(here) < count:
            return None
        recorded = [op for op in here if SYNC in op.attributes]
        chosen = recorded if len(recorded) == count else here[:count]
        found += chosen
    # back in the order of `places` (buffers of one place are in walk order)
    by_place = {place: [op for op in found if keys[ops.index(op)] == place] for place in dict.fromkeys(places)}
    return [by_place[place].pop(0) for place in places]


# ----------------------------------------------------------------------------- staged operands


def _only_use(v: ir.Value, user: ir.Operation) -> bool:
    uses = list(v.uses)
    return len(uses) == 1 and uses[0].owner == user


def staged_load(dot: ir.Operation, role: str, value: ir.Value, taken: set) -> ir.Operation | None:
    """The tile.load_slice the lowering copies straight into the buffer of the dot operand
    `value` (seen through a transpose, a collapse of unit dimensions and, on the tensor cores, an
    8-bit to f16 conversion along k), or None when the dot stores the operand's registers itself."""
    src, held, user = defining_op(value), value, dot
    transposed = False
    if src is not None and is_op(src, T.TransposeOp) and _only_use(value, dot):
        held, user, transposed = src.operands[0], src, True
        src = defining_op(held)
    if src is not None and _widened(dot, role, transposed, src) and _only_use(held, user):
        held, user = src.operands[0], src
        src = defining_op(held)
    checked = held
    if src is not None and is_op(src, tensor.CollapseShapeOp) and _only_use(held, user):
        inner = src.operands[0]
        loaded = defining_op(inner)
        shape = ir.RankedTensorType(inner.type).shape
        if loaded is not None and is_op(loaded, T.LoadSliceOp) and all(x == 1 for x in shape[:-2]):
            checked, user, src = inner, src, loaded
    if (
        src is None
        or not is_op(src, T.LoadSliceOp)
        or src.opview.padding
        or not _only_use(checked, user)
        or src.parent != dot.parent
        or src in taken
    ):
        return None
    taken.add(src)
    return src


def _widened(dot: ir.Operation, role: str, transposed: bool, op: ir.Operation) -> bool:
    """Whether the mma.sync lowering folds `op` into the dot's fragment reads: an 8-bit to f16
    conversion of an operand whose buffer runs along k (B as [n][k], A as [m][k]) in a dot the
    tensor cores run (its recorded path)."""
    path = dot.attributes[DOT_PATH] if DOT_PATH in dot.attributes else None
    on_tensor_cores = isinstance(path, ir.StringAttr) and path.value != "fma"
    return on_tensor_cores and (role == "lhs") != transposed and widens(op)


# ----------------------------------------------------------------------------- the graph


class _Program:
    """The kernel's shared-memory accesses as a control-flow graph."""

    def __init__(self, fn: ir.Operation, owners: dict[tuple[ir.Operation, str], int]):
        self.nodes: list[Node] = []
        self.owners = owners
        self.copies: dict[ir.Operation, int] = {}  # staged load -> buffer
        self.stored: dict[tuple[ir.Operation, str], int] = {}  # (dot, role) the dot stores -> buffer
        taken: set = set()
        for dot in ops_of(fn, (T.DotOp,)):
            for role, value in (("lhs", dot.operands[0]), ("rhs", dot.operands[1])):
                if (dot, role) not in owners:
                    continue  # mma's A fragments in registers: no buffer
                load = staged_load(dot, role, value, taken)
                if load is None:
                    self.stored[(dot, role)] = owners[(dot, role)]
                else:
                    self.copies[load] = owners[(dot, role)]
        self.rings: dict[ir.Operation, tuple[int, ...]] = {}  # pipelined loop -> its ring's buffers
        self.ring_of: dict[int, ir.Operation] = {}  # buffer -> its ring's loop
        for loop in ops_of(fn, (scf.ForOp,)):
            stages = loop.attributes[PIPELINE_STAGES] if PIPELINE_STAGES in loop.attributes else None
            loads = [o.operation for o in loop.regions[0].blocks[0].operations if o.operation in self.copies]
            if isinstance(stages, ir.IntegerAttr) and stages.value >= 2 and loads:
                self.rings[loop] = tuple(self.copies[ld] for ld in loads)
                self.ring_of.update({self.copies[ld]: loop for ld in loads})

    def add(self, node: Node, frontier: list[int]) -> list[int]:
        index = len(self.nodes)
        self.nodes.append(node)
        for f in frontier:
            self.nodes[f].succ.append(index)
        return [index]

    def access(self, op, event, kind, buffers, frontier, ring=None) -> list[int]:
        fenced = recorded_barriers(op).get(event, False)
        return self.add(Node(kind, op, event, tuple(buffers), ring, fenced), frontier)

    def block(self, block: ir.Block, frontier: list[int]) -> list[int]:
        for op in block.operations:
            frontier = self.op(op.operation, frontier)
        return frontier

    def op(self, op: ir.Operation, frontier: list[int]) -> list[int]:
        if is_op(op, T.BarrierOp):
            return self.add(Node("barrier", op), frontier)
        if op in self.copies:
            if self.copies[op] in self.ring_of:
                return frontier  # copied by its ring's prologue and refills
            return self.access(op, "copy", "write", [self.copies[op]], frontier)
        if is_op(op, T.DotOp):
            return self._dot(op, frontier)
        if (op, "scratch") in self.owners:
            b = self.owners[(op, "scratch")]
            frontier = self.access(op, "write", "write", [b], frontier)
            if is_op(op, *T.LOCAL_OPS):  # a local tile's atomics, between its stores and its reads
                frontier = self.access(op, "atomic", "write", [b], frontier)
            return self.access(op, "read", "read", [b], frontier)
        if is_op(op, scf.ForOp):
            return self._for(op, frontier)
        if is_op(op, scf.WhileOp):
            head = self.add(Node("join"), frontier)
            after_before = self.block(op.regions[0].blocks[0], head)
            after_after = self.block(op.regions[1].blocks[0], after_before)
            for f in after_after:
                self.nodes[f].succ.append(head[0])  # the back edge
            return after_before
        if is_op(op, scf.IfOp):
            out: list[int] = []
            arms = [r for r in op.regions if len(r.blocks)]
            for region in arms:
                out += self.block(region.blocks[0], frontier)
            return out if len(arms) == 2 else out + frontier
        return frontier

    def _dot(self, op: ir.Operation, frontier: list[int]) -> list[int]:
        plain: list[int] = []
        ringed: list[int] = []
        for role in ("lhs", "rhs"):
            if (op, role) in self.stored:
                frontier = self.access(op, "stage-" + role, "write", [self.stored[(op, role)]], frontier)
            if (op, role) in self.owners:
                b = self.owners[(op, role)]
                (ringed if b in self.ring_of else plain).append(b)
        if plain:
            frontier = self.access(op, "read", "read", plain, frontier)
        if ringed:
            frontier = self.access(op, "read-ring", "read", ringed, frontier, ring=self.ring_of[ringed[0]])
        return frontier

    def _for(self, op: ir.Operation, frontier: list[int]) -> list[int]:
        ring = self.rings.get(op)
        if ring is not None:
            frontier = self.access(op, "prologue", "write", ring, frontier, ring=op)
        head = self.add(Node("join"), frontier)
        inner = head
        if ring is not None:
            # ops/pipelined_for.py opens every iteration with a barrier, then refills the next stage
            inner = self.add(Node("barrier", op), inner)
            inner = self.access(op, "refill", "write", ring, inner, ring=op)
        for f in self.block(op.regions[0].blocks[0], inner):
            self.nodes[f].succ.append(head[0])  # the back edge
        return head  # the loop exits from its head: after zero or more iterations


# ----------------------------------------------------------------------------- the check


def _conflict(a: Node, b: Node, buffers: list[SharedBuffer]) -> str | None:
    """The name of b's buffer that a's overlaps, when one of them writes; None otherwise."""
    if "write" not in (a.kind, b.kind):
        return None
    if a.ring is not None and b.ring is not None and a.ring == b.ring:
        return None
    for j in b.buffers:
        if any(buffers[i].meets(buffers[j]) for i in a.buffers):
            return buffers[j].name
    return None


def _reach(program: _Program, start: int, buffers: list[SharedBuffer], result: Result, needed: set) -> None:
    """Walks forward from access `start` to the barriers, recording the conflicts on the way."""
    first = program.nodes[start]
    seen: set[int] = set()
    stack = list(first.succ)
    while stack:
        i = stack.pop()
        if i in seen:
            continue
        seen.add(i)
        node = program.nodes[i]
        if node.kind == "barrier":
            continue
        if node.kind in ("read", "write"):
            name = _conflict(first, node, buffers)
            if node.fenced:
                if name is not None:
                    needed.add(i)
                continue
            if name is not None and not any(h.later is node for h in result.hazards):
                result.hazards.append(Hazard(first, node, name, i <= start))
        stack.extend(node.succ)


def check_kernel(fn: ir.Operation) -> Result:
    """Checks the barrier plan recorded on `fn`. Raises PlanRecordError for records it cannot read."""
    result = Result(fn)
    if SYNC_PLANNED not in fn.attributes:
        return result
    buffers = shared_buffers(fn)
    if not buffers:
        return result
    program = _Program(fn, buffer_owners(fn, buffers))
    program.block(fn.regions[0].blocks[0], [])
    needed: set[int] = set()
    for i, node in enumerate(program.nodes):
        if node.kind in ("read", "write"):
            result.accesses += 1
            _reach(program, i, buffers, result, needed)
    result.unneeded = [n for i, n in enumerate(program.nodes) if n.fenced and i not in needed]
    return result


def check_module(module: ir.Operation) -> list[Result]:
    return [check_kernel(fn) for fn in kernels(module)]
