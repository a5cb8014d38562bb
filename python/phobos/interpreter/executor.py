"""Runs a portable program (compiler/tile_program.py) CTA by CTA over the grid.

The program is prepared once: each op gets its handler from the op table (or
is a control-flow op the executor runs itself), its result and operand types,
and its blocks with the terminator split off. Each CTA then runs the body with
its own value table (a list indexed by value id). Running a block is a
generator that yields at every `tile.grid_barrier`, also from inside loops and
branches: a `@persistent` kernel advances all its CTAs phase by phase (every
CTA up to the barrier, then all on), any other kernel runs each CTA to the end.
"""

from __future__ import annotations

import numpy as np

from phobos.interpreter import dtypes as D
from phobos.interpreter.errors import InterpreterError
from phobos.interpreter.ops import HANDLERS
from phobos.interpreter.races import Races
from phobos.interpreter.table import PREPARERS

FORMAT = 1
_ML_FP8 = {"f8e4m3": "float8_e4m3fn", "f8e5m2": "float8_e5m2"}  # ml_dtypes' names of the fp8 types
TERMINATORS = ("scf.yield", "scf.condition")


class Op:
    __slots__ = (
        "name",
        "operands",
        "results",
        "types",
        "out",
        "in_types",
        "attrs",
        "regions",
        "loc",
        "handler",
        "control",
        "const",
    )

    def __repr__(self) -> str:
        return f"<{self.name} at {self.loc}>"


class Block:
    __slots__ = ("args", "ops", "yields")


class CTA:
    """What a handler may ask about the running CTA."""

    __slots__ = ("block", "grid", "coverage", "races")

    def __init__(self, block: tuple, grid: tuple, coverage=None, races=None):
        self.block, self.grid = block, grid
        self.coverage = coverage  # a coverage.Coverage the loads and stores mark, or None
        self.races = races  # a races.Races the stores report to (two CTAs storing one element), or None


# ----------------------------------------------------------------------------- preparation


class _Preparer:
    def __init__(self):
        self.types: dict[int, D.ValueType] = {}

    def block(self, data: dict) -> Block:
        block = Block()
        block.args = tuple(data["args"])
        for i, t in zip(data["args"], data["types"]):
            self.types[i] = D.value_type(t)
        ops = [self.op(op) for op in data["ops"]]
        block.yields = ()
        if ops and ops[-1].name in TERMINATORS:
            block.yields = ops.pop().operands
        block.ops = tuple(ops)
        return block

    def op(self, data: dict) -> Op:
        op = Op()
        op.name, op.loc, op.attrs = data["name"], data.get("loc"), data.get("attrs", {})
        op.operands, op.results = tuple(data["operands"]), tuple(data["results"])
        op.in_types = tuple(self.types.get(i) for i in op.operands)
        op.regions = tuple(tuple(self.block(b) for b in region) for region in data.get("regions", []))
        op.types = tuple(D.value_type(t) for t in data["types"])
        op.out = op.types[0] if op.types else None
        for i, t in zip(op.results, op.types):
            self.types[i] = t
        op.control = CONTROL.get(op.name)
        op.handler = HANDLERS.get(op.name)
        if op.control is None and op.handler is None and op.name not in TERMINATORS:
            raise InterpreterError(f"the interpreter does not support '{op.name}'", op.loc)
        if op.name in PREPARERS:
            PREPARERS[op.name](op)
        return op


class Kernel:
    """A prepared program: its arguments, body and whether its CTAs run in lockstep."""

    def __init__(self, program: dict):
        if program.get("format") != FORMAT:
            raise InterpreterError(f"program format {program.get('format')!r} is not {FORMAT}")
        self.name = program["kernel"]
        self.loc = program.get("loc")
        preparer = _Preparer()
        self.args = []
        self.unsigned = {arg["id"] for arg in program["args"] if arg.get("unsigned")}  # u8/u32 parameters
        for arg in program["args"]:
            t = D.value_type(arg["type"])
            preparer.types[arg["id"]] = t
            self.args.append((arg["id"], arg["name"], t))
        self.body = preparer.block({"args": [], "types": [], "ops": program["body"]})
        self.size = max(preparer.types, default=-1) + 1
        self.persistent = "tile.persistent" in program.get("attrs", {}).get("flags", [])


# ----------------------------------------------------------------------------- running


class _Run:
    """One launch: the kernel, the bound arguments and the trace hook."""

    def __init__(self, kernel: Kernel, bound: list, trace, coverage=None):
        self.kernel, self.bound, self.trace, self.coverage = kernel, bound, trace, coverage
        self.trace_cta = getattr(trace, "with_cta", False)  # the trace also takes the CTA's block id
        names = {id(value): name for (_, name, t), value in zip(kernel.args, bound) if t.memref is not None}
        self.races = Races(names)

    def cta(self, block: tuple, grid: tuple):
        """The generator of one CTA; it yields the location of each grid barrier it reaches."""
        vals = [None] * self.kernel.size
        for (i, _, _), value in zip(self.kernel.args, self.bound):
            vals[i] = value
        yield from self.block(self.kernel.body, CTA(block, grid, self.coverage, self.races), vals, ())

    def block(self, block: Block, cta: CTA, vals: list, inputs):
        for i, value in zip(block.args, inputs):
            vals[i] = value
        trace = self.trace
        for op in block.ops:
            try:
                args = [vals[i] for i in op.operands]
                if op.control is not None:
                    out = yield from op.control(self, op, cta, vals, args)
                    for i, value in zip(op.results, out):
                        vals[i] = value
                else:
                    out = op.handler(op, cta, args)
                    if len(op.results) == 1:
                        vals[op.results[0]] = out
                    elif op.results:
                        for i, value in zip(op.results, out):
                            vals[i] = value
            except InterpreterError as e:
                if e.loc is None:
                    e.loc = op.loc
                raise
            except (ArithmeticError, ValueError, IndexError, TypeError) as e:
                raise InterpreterError(f"{op.name} failed: {e}", op.loc) from e
            if trace is not None:
                for i in op.results:
                    if self.trace_cta:
                        trace(op.loc, op.name, vals[i], cta.block)
                    else:
                        trace(op.loc, op.name, vals[i])
        return [vals[i] for i in block.yields]


def _scf_for(run, op, cta, vals, args):
    lower, upper, step, *carried = args
    if step <= 0:
        raise InterpreterError(f"scf.for needs a positive step, got {int(step)}")
    body = op.regions[0][0]
    make_iv = op.in_types[0].storage.type
    for i in range(int(lower), int(upper), int(step)):
        carried = yield from run.block(body, cta, vals, [make_iv(i), *carried])
    return carried


def _scf_if(run, op, cta, vals, args):
    region = op.regions[0] if args[0] else op.regions[1]
    if not region:
        return []
    return (yield from run.block(region[0], cta, vals, ()))


def _scf_while(run, op, cta, vals, args):
    before, after = op.regions[0][0], op.regions[1][0]
    values = args
    while True:
        condition, *values = yield from run.block(before, cta, vals, values)
        if not condition:
            return values
        values = yield from run.block(after, cta, vals, values)


def _grid_barrier(run, op, cta, vals, args):
    yield op.loc
    return []


CONTROL = {"scf.for": _scf_for, "scf.if": _scf_if, "scf.while": _scf_while, "tile.grid_barrier": _grid_barrier}


def _grid(grid) -> tuple:
    grid = tuple(int(n) for n in grid)
    if not 1 <= len(grid) <= 3 or any(n < 0 for n in grid):
        raise InterpreterError(f"the grid must be one to three non-negative CTA counts, got {grid}")
    return grid + (1,) * (3 - len(grid))


def _block_ids(grid: tuple):
    """The CTAs' positions, x fastest."""
    return [(x, y, z) for z in range(grid[2]) for y in range(grid[1]) for x in range(grid[0])]


def run_to_completion(run: _Run, grid: tuple) -> None:
    for block in _block_ids(grid):
        for loc in run.cta(block, grid):
            raise InterpreterError("tile.grid_barrier needs a @persistent kernel (all CTAs resident at once)", loc)


def run_lockstep(run: _Run, grid: tuple) -> None:
    """Every CTA runs up to its next grid barrier, then all continue; until all have finished."""
    ctas = [run.cta(block, grid) for block in _block_ids(grid)]
    while ctas:
        waiting, finished, barrier = [], 0, None
        for cta in ctas:
            try:
                barrier = next(cta)
                waiting.append(cta)
            except StopIteration:
                finished += 1
        if waiting and finished:
            raise InterpreterError(
                f"{finished} CTAs finished while {len(waiting)} wait at a grid barrier (the GPU would hang)", barrier
            )
        run.races.phase()  # every CTA is at the barrier: stores before it and after it do not race
        ctas = waiting


# ----------------------------------------------------------------------------- the launch


def _bind_tensor(name: str, t: D.ValueType, value, unsigned: bool = False):
    if not isinstance(value, np.ndarray):
        raise InterpreterError(f"argument '{name}' must be a numpy array, got {type(value).__name__}")
    if unsigned:  # u8/u32: the IR computes on the signless bits; the view writes through to `value`
        wanted = np.dtype(f"uint{t.storage.itemsize * 8}")
        if value.dtype != wanted:
            raise InterpreterError(f"argument '{name}' must have dtype {wanted}, got {value.dtype}")
        value = value.view(t.storage)
    expected = "float32 (holding bf16 values)" if t.dtype == "bf16" else str(t.storage)
    if t.dtype in _ML_FP8:  # fp8 runs on its codes: an ml_dtypes array is read (and written) through a view
        if value.dtype.name == _ML_FP8[t.dtype]:
            value = value.view(np.uint8)
        expected = f"uint8 (the {t.dtype} codes) or ml_dtypes.{_ML_FP8[t.dtype]}"
    if value.dtype != t.storage:
        raise InterpreterError(f"argument '{name}' must have dtype {expected}, got {value.dtype}")
    if value.ndim != len(t.memref):
        raise InterpreterError(f"argument '{name}' must have {len(t.memref)} dimensions, got shape {list(value.shape)}")
    for axis, (extent, static) in enumerate(zip(value.shape, t.memref)):
        if static >= 0 and extent != static:
            raise InterpreterError(f"argument '{name}' must have extent {static} in dimension {axis}, got {extent}")
    return value


def _bind(kernel: Kernel, args) -> list:
    if len(args) != len(kernel.args):
        names = ", ".join(name for _, name, _ in kernel.args)
        raise InterpreterError(f"kernel '{kernel.name}' takes {len(kernel.args)} arguments ({names}), got {len(args)}")
    bound = []
    for (i, name, t), value in zip(kernel.args, args):
        if t.memref is not None:
            bound.append(_bind_tensor(name, t, value, i in kernel.unsigned))
            continue
        try:
            if i in kernel.unsigned and isinstance(value, (int, np.integer)) and 0 <= int(value) < 2**t.width:
                value = int(value) - (2**t.width if int(value) >> (t.width - 1) else 0)  # u32's bits as i32
            bound.append(D.scalar(value, t))
        except (TypeError, ValueError) as e:
            raise InterpreterError(f"argument '{name}' must be a {t.dtype} number: {e}") from None
    return bound


def run_program(program: dict, args: list, grid: tuple, trace=None, coverage=None) -> None:
    """Runs `program` on `args` (in the order of program["args"]: numpy arrays for tensors,
    written in place; numbers for scalars) over `grid` CTAs per axis. `trace(loc, op_name,
    value)`, when given, sees every value an op defines (a trace with a true `with_cta`
    attribute is called with the CTA's block id (x, y, z) too). `coverage`, a
    coverage.Coverage, records the elements of each tensor the loads and stores touch.
    Raises InterpreterError."""
    kernel = Kernel(program)
    try:
        bound = _bind(kernel, args)
        if coverage is not None:
            for (_, name, t), value in zip(kernel.args, bound):
                if t.memref is not None:
                    coverage.watch(name, value)
        run = _Run(kernel, bound, trace, coverage)
        grid = _grid(grid)
    except InterpreterError as e:
        e.loc = e.loc or kernel.loc
        raise
    with np.errstate(all="ignore"):  # wrap-around, inf and NaN are the GPU's answers, not warnings
        if kernel.persistent:
            run_lockstep(run, grid)
        else:
            run_to_completion(run, grid)
