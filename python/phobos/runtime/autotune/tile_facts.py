"""What one @autotune candidate does per CTA, read from the checked syntax tree (no MLIR, no GPU):
its threads, the grid axes it tiles, every tensor slice it loads or stores (tile, element size,
inside which loop) and every dot. The cost model (cost_model.py) ranks candidates from these.

The facts are plain data with a JSON form, so an ahead-of-time folder can carry them in its
manifest and a machine without the source still ranks its candidates."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

_ELEMENT_BYTES = {"f64": 8, "i64": 8, "index": 8, "f32": 4, "i32": 4, "u32": 4, "f16": 2, "bf16": 2, "bool": 1}


def element_bytes(element: str) -> int:
    """Bytes of one element of a tile or tensor type named `element` (fp8 and 8-bit integers: 1)."""
    return _ELEMENT_BYTES.get(element, 1)


@dataclass(frozen=True)
class Loop:
    """A `for v in range(start, stop, step)` around an access: stop is a dimension symbol (its trip
    count depends on the launch's extents) or a number."""

    stop: str | int
    step: int = 1
    start: int = 0

    def trips(self, extents: dict[str, int]) -> int:
        stop = extents.get(self.stop, 1) if isinstance(self.stop, str) else int(self.stop)
        return max(0, -(-(stop - self.start) // max(self.step, 1)))


@dataclass(frozen=True)
class Access:
    """One slice of a tensor parameter, loaded or stored once per CTA (or once per trip of `loop`)."""

    tensor: str
    element_bytes: int
    tile: tuple[int, ...]
    dims: tuple[str | None, ...]  # the tensor's dimension symbols (None: a static extent)
    write: bool
    loop: Loop | None = None

    @property
    def bytes(self) -> int:
        n = self.element_bytes
        for extent in self.tile:
            n *= extent
        return n


@dataclass(frozen=True)
class Dot:
    """One `dot` (or `dot_t`) of an [m, k] and a [k, n] tile, per CTA (or per trip of `loop`).

    `acc` names the variable that carries the dot's sum across the innermost loop around it
    (`acc += dot(a, b)`, `acc = acc + dot(a, b)` with acc declared outside that loop), of element
    type `acc_element`; both are "" where the sum is not carried (or in facts recorded before)."""

    m: int
    n: int
    k: int
    element_bytes: int
    loop: Loop | None = None
    acc: str = ""
    acc_element: str = ""
    line: int = 0  # the dot's source line (0: unknown)


@dataclass(frozen=True)
class GridAxis:
    """A grid axis that walks dimension `symbol` in steps of `tile` (ctx.block.x * TILE)."""

    symbol: str
    tile: int


@dataclass
class TileFacts:
    """The static facts of one candidate (one binding of the @autotune constants)."""

    config: dict[str, int]
    threads: int
    min_blocks: int = 1
    grid: list[GridAxis | None] = field(default_factory=lambda: [None, None, None])
    accesses: list[Access] = field(default_factory=list)
    dots: list[Dot] = field(default_factory=list)
    tensorcore: bool = False
    pipelined: bool = False  # @pipeline: a cp.async ring over the loop where rows are 16-byte aligned
    stages: int = 3  # the ring's stages (@pipeline(S), else the planner's 3)

    def to_json(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> TileFacts:
        def loop(d):
            return Loop(**d) if d else None

        return cls(
            config=dict(data["config"]),
            threads=int(data["threads"]),
            min_blocks=int(data.get("min_blocks", 1)),
            grid=[GridAxis(**a) if a else None for a in data.get("grid", [None, None, None])],
            accesses=[
                Access(**{**a, "tile": tuple(a["tile"]), "dims": tuple(a["dims"]), "loop": loop(a.get("loop"))})
                for a in data.get("accesses", [])
            ],
            dots=[Dot(**{**d, "loop": loop(d.get("loop"))}) for d in data.get("dots", [])],
            tensorcore=bool(data.get("tensorcore", False)),
            pipelined=bool(data.get("pipelined", False)),
            stages=int(data.get("stages", 3)),
        )


# ----------------------------------------------------------------------------- from the syntax tree


def kernel_facts(kernel, config: dict[str, int]) -> TileFacts:
    """The facts of a checked kernel (frontend.ast.Kernel, checked with `config` bound)."""
    info = kernel.info
    launch = info.launch or {}
    facts = TileFacts(
        config=dict(config),
        threads=int(launch.get("threads", 256)),
        min_blocks=int(launch.get("min_blocks", 1) or 1),
        tensorcore="tensorcore" in info.flags,
        pipelined="pipeline" in info.flags,
        stages=info.pipeline_depth or 3,
    )
    _Walker(facts).block(kernel.body, None)
    return facts


def source_facts(text: str, origin: str, kernel: str | None, configs: list[dict[str, int]]) -> list[TileFacts | None]:
    """The facts of every candidate of a .ph source (None where the front end rejects one)."""
    from phobos.frontend import CompileError, check_source

    out: list[TileFacts | None] = []
    for config in configs:
        try:
            program = check_source(text, origin, config)
        except CompileError:
            out.append(None)
            continue
        chosen = [k for k in program.kernels if kernel is None or k.name == kernel]
        out.append(kernel_facts(chosen[0], config) if len(chosen) == 1 else None)
    return out


class _Walker:
    """Collects accesses, dots and grid axes; `lets` resolves `let pm = ctx.block.x`."""

    def __init__(self, facts: TileFacts):
        self.facts = facts
        self.lets: dict[int, object] = {}
        self.loop_locals: list[set[int]] = []  # per enclosing loop: the symbols declared in its body
        self.carried: dict[int, tuple[str, str]] = {}  # id(dot call) -> (variable, element) carrying its sum

    def block(self, block, loop: Loop | None) -> None:
        from phobos.frontend import ast as A

        for stmt in block.stmts:
            if isinstance(stmt, A.Decl):
                if stmt.symbol is not None and not stmt.mutable:
                    self.lets[id(stmt.symbol)] = stmt.value
                if stmt.symbol is not None and self.loop_locals:
                    self.loop_locals[-1].add(id(stmt.symbol))
                self.expr(stmt.value, loop)
            elif isinstance(stmt, A.Assign):
                if isinstance(stmt.target, A.Index):
                    self.index(stmt.target, loop, write=True)
                    if stmt.op != "=":
                        self.index(stmt.target, loop, write=False)
                else:
                    self._carry(stmt)
                self.expr(stmt.value, loop)
            elif isinstance(stmt, (A.For, A.While)):
                self.loop_locals.append(set())
                self.block(stmt.body, (_loop_of(stmt) or loop) if isinstance(stmt, A.For) else loop)
                self.loop_locals.pop()
            elif isinstance(stmt, A.If):
                self.block(stmt.then, loop)
                orelse = stmt.orelse
                if isinstance(orelse, A.If):
                    self.block(A.Block([orelse]), loop)
                elif orelse is not None:
                    self.block(orelse, loop)
            elif isinstance(stmt, A.ExprStmt):
                self.expr(stmt.expr, loop)

    def expr(self, e, loop: Loop | None) -> None:
        from phobos.frontend import ast as A

        if isinstance(e, A.Index):
            self.index(e, loop, write=False)
            return
        if isinstance(e, A.Call) and e.builtin in ("dot", "dot_t") and len(e.args) >= 2:
            self._dot(e, loop)
        for child in _children(e):
            self.expr(child, loop)

    def _dot(self, call, loop: Loop | None) -> None:
        a, result = call.args[0].ty, call.ty
        shape_a, shape_c = getattr(a, "shape", None), getattr(result, "shape", None)
        if shape_a and shape_c and len(shape_a) >= 2 and len(shape_c) >= 2:
            m, n, k = shape_c[-2], shape_c[-1], shape_a[-1]
            acc, acc_element = self.carried.get(id(call), ("", ""))
            line = int(getattr(call.pos, "line", 0) or 0)
            self.facts.dots.append(Dot(int(m), int(n), int(k), element_bytes(a.element), loop, acc, acc_element, line))

    def _carry(self, stmt) -> None:
        """Notes the dot whose whole sum `stmt` carries across the innermost loop around it: `acc +=
        dot(a, b)`, or `acc = acc + dot(a, b)` (acc scaled elementwise too, as attention does), with
        acc declared outside that loop and of the dot's shape, so every element is live at its top."""
        symbol = getattr(stmt.target, "symbol", None)
        if not self.loop_locals or symbol is None or id(symbol) in self.loop_locals[-1]:
            return
        dot = _carried_dot(stmt, symbol)
        shape = getattr(symbol.ty, "shape", None)
        if dot is not None and shape and getattr(dot.ty, "shape", None) == shape:
            self.carried[id(dot)] = (symbol.name, symbol.ty.element)

    def index(self, e, loop: Loop | None, *, write: bool) -> None:
        symbol = getattr(e.base, "symbol", None)
        ty = getattr(symbol, "ty", None)
        if symbol is None or symbol.kind != "param" or not hasattr(ty, "dims"):
            return
        tile = tuple(int(s.length or 1) for s in e.subscripts)
        self.facts.accesses.append(
            Access(symbol.name, element_bytes(ty.element), tile, tuple(ty.dims), write, loop if _uses_loop(e) else None)
        )
        for position, sub in enumerate(e.subscripts):
            axis = self._block_axis(sub.start) if sub.kind == "span" else None
            if axis is not None and self.facts.grid[axis] is None and ty.dims[position] is not None:
                self.facts.grid[axis] = GridAxis(ty.dims[position], int(sub.length or 1))
        for sub in e.subscripts:
            for part in (sub.start, sub.end):
                if part is not None:
                    self.expr(part, loop)

    def _block_axis(self, start) -> int | None:
        """The grid axis d of a slice start `ctx.block.d` or `ctx.block.d * TILE` (through lets)."""
        from phobos.frontend import ast as A

        for _ in range(4):  # through `let` bindings and one constant factor
            if isinstance(start, A.Name) and start.symbol is not None and id(start.symbol) in self.lets:
                start = self.lets[id(start.symbol)]
            elif isinstance(start, A.Binary) and start.op == "*":
                start = start.lhs if start.rhs.const is not None else start.rhs if start.lhs.const is not None else None
        if isinstance(start, A.Member) and start.grid_query and start.grid_query[0] == "block":
            return int(start.grid_query[1])
        return None


def _carried_dot(stmt, symbol):
    """The dot call of `acc += dot(..)` / `acc -= dot(..)` / `acc = <acc, elementwise> +- dot(..)`."""
    from phobos.frontend import ast as A

    def is_dot(e) -> bool:
        return isinstance(e, A.Call) and getattr(e, "builtin", None) in ("dot", "dot_t")

    def reads_whole(e) -> bool:  # every element of the variable is read (elementwise operations only)
        if isinstance(e, A.Name):
            return e.symbol is symbol
        if isinstance(e, A.Unary):
            return e.op == "-" and reads_whole(e.operand)
        return isinstance(e, A.Binary) and e.op in ("+", "-", "*", "/") and (reads_whole(e.lhs) or reads_whole(e.rhs))

    value = stmt.value
    if stmt.op in ("+=", "-="):
        return value if is_dot(value) else None
    if stmt.op == "=" and isinstance(value, A.Binary) and value.op in ("+", "-"):
        for dot, other in ((value.rhs, value.lhs), (value.lhs, value.rhs)):
            if is_dot(dot) and reads_whole(other):
                return dot
    return None


def _loop_of(stmt) -> Loop | None:
    from phobos.frontend import ast as A

    step = stmt.step.const if stmt.step is not None else 1
    start = stmt.start.const if stmt.start.const is not None else 0
    stop = stmt.stop
    if isinstance(stop, A.Name) and stop.symbol is not None and stop.symbol.kind == "dim":
        return Loop(stop.name, int(step or 1), int(start))
    if stop.const is not None:
        return Loop(int(stop.const), int(step or 1), int(start))
    return None


def _uses_loop(index) -> bool:
    """Whether a slice's start depends on a loop variable (else it is loop-invariant: loaded once)."""
    from phobos.frontend import ast as A

    stack = [s.start for s in index.subscripts if s.start is not None]
    while stack:
        e = stack.pop()
        if isinstance(e, A.Name) and e.symbol is not None and e.symbol.kind == "loop":
            return True
        stack.extend(_children(e))
    return False


def _children(e) -> list:
    from phobos.frontend import ast as A

    if isinstance(e, A.Unary):
        return [e.operand]
    if isinstance(e, A.Binary):
        return [e.lhs, e.rhs]
    if isinstance(e, A.Call):
        return list(e.args) + [v for _, _, v in e.keywords]
    if isinstance(e, A.Member):
        return [e.base]
    if isinstance(e, A.Index):
        return [p for s in e.subscripts for p in (s.start, s.end) if p is not None]
    return []
