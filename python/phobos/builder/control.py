"""Structured control flow: `for_range`, `if_` (with `else_`) and `while_`, as `scf` ops.

Values a loop or branch changes are *carried*, as a `.ph` `var` assigned in a
loop or branch is: they enter as `carry=[...]`, the body gives their new
values with `yield_(...)`, and `results` holds them afterwards.

    with tb.for_range(0, n, 1, carry=[total]) as loop:
        (t,) = loop.carried
        loop.yield_(t + x)
    (total,) = loop.results

    with tb.if_(x > 0, carry=[y]) as branch:     # then
        branch.yield_(y * 2)
    with branch.else_():                         # optional: else
        branch.yield_(y - 1)
    (y,) = branch.results                        # a branch without yield_ keeps y

    with tb.while_(lambda i, acc: i < n, carry=[i0, acc0]) as loop:
        i, acc = loop.carried
        loop.yield_(i + 1, acc + i)
    i, acc = loop.results
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from mlir import ir
from mlir.dialects import scf

from .locations import loc_or_caller
from .tile_ops import as_index
from .types import element_name
from .values import Operand, Value, unwrap


def _carried_values(carry: Sequence[Operand], what: str) -> list[ir.Value]:
    out = []
    for i, c in enumerate(carry):
        if not isinstance(c, (Value, ir.Value)):
            raise TypeError(f"{what}: carried value {i} must be an IR value, got {c!r} (make it with tb.constant)")
        out.append(unwrap(c))
    return out


def _yield(values: Sequence[Operand], types: Sequence[ir.Type], what: str, loc) -> None:
    if len(values) != len(types):
        raise TypeError(f"{what}: yield_ gives {len(values)} values for {len(types)} carried")
    out = []
    for i, (v, t) in enumerate(zip(values, types)):
        if not isinstance(v, (Value, ir.Value)):
            raise TypeError(f"{what}: yielded value {i} must be an IR value, got {v!r}")
        if unwrap(v).type != t:
            raise TypeError(f"{what}: yielded value {i} is {unwrap(v).type}, the carried value is {t}")
        out.append(unwrap(v))
    scf.YieldOp(out, loc=loc)


class _Body:
    """A block being filled: entered as a context, ended by yield_ or by default."""

    def __init__(self, loc: ir.Location, what: str):
        self._loc = loc
        self._what = what
        self._ip: ir.InsertionPoint | None = None
        self._yielded = False

    def _enter(self, block: ir.Block) -> None:
        self._ip = ir.InsertionPoint(block)
        self._ip.__enter__()
        self._yielded = False

    def _exit(self, exc_type, exc, tb, default: Sequence[ir.Value] | None) -> None:
        ip, self._ip = self._ip, None
        if exc_type is None and not self._yielded:
            if default is None:
                ip.__exit__(None, None, None)
                raise ValueError(f"{self._what} with carried values must end with yield_(...)")
            scf.YieldOp(list(default), loc=self._loc)
        ip.__exit__(exc_type, exc, tb)

    def _yield_checked(self, values, types) -> None:
        if self._ip is None:
            raise ValueError(f"{self._what}: yield_ belongs inside its with-block")
        if self._yielded:
            raise ValueError(f"{self._what}: yield_ given twice")
        _yield(values, types, self._what, self._loc)
        self._yielded = True


class ForLoop(_Body):
    """`with for_range(lb, ub, step, carry=[...]) as loop:` builds an `scf.for`.

    Inside, `loop.iv` is the induction variable and `loop.carried` the
    loop-carried values; end the body with `loop.yield_(...)` when values are
    carried. After the block, `loop.results` holds the final values.
    """

    def __init__(self, lb: Operand, ub: Operand, step: Operand, carry: Sequence[Operand] = (), loc=None):
        super().__init__(loc_or_caller(loc), "a for_range loop")
        bounds = [as_index(x, self._loc) for x in (lb, ub, step)]
        self._op = scf.ForOp(*bounds, _carried_values(carry, self._what), loc=self._loc)

    @property
    def iv(self) -> Value:
        return Value(self._op.induction_variable)

    @property
    def carried(self) -> list[Value]:
        return [Value(a) for a in self._op.inner_iter_args]

    @property
    def results(self) -> list[Value]:
        return [Value(r) for r in self._op.results]

    def yield_(self, *values: Operand) -> None:
        self._yield_checked(values, [r.type for r in self._op.results])

    def __enter__(self) -> ForLoop:
        self._enter(self._op.body)
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self._exit(exc_type, exc, tb, [] if not len(self._op.results) else None)


def for_range(lb: Operand, ub: Operand, step: Operand = 1, carry: Sequence[Operand] = (), *, loc=None) -> ForLoop:
    return ForLoop(lb, ub, step, carry, loc=loc_or_caller(loc))


def _bool_scalar(cond: Operand, what: str) -> ir.Value:
    if not isinstance(cond, (Value, ir.Value)):
        raise TypeError(f"{what} needs a bool IR value as its condition, got {cond!r}")
    c = unwrap(cond)
    if isinstance(c.type, ir.ShapedType) or element_name(c.type) != "bool":
        raise TypeError(f"{what} needs a bool scalar condition, got {c.type} (compare, or reduce a tile first)")
    return c


class IfElse(_Body):
    """`with if_(cond, carry=[...]) as branch:` builds an `scf.if`; its block is
    the then branch, `with branch.else_():` after it the else branch. A branch
    that does not `yield_` keeps the carried values; `branch.results` holds
    the values after the `if`."""

    def __init__(self, cond: Operand, carry: Sequence[Operand] = (), loc=None):
        super().__init__(loc_or_caller(loc), "an if_ branch")
        self._carry = _carried_values(carry, self._what)
        c = _bool_scalar(cond, "if_")
        self._op = scf.IfOp(c, [v.type for v in self._carry], has_else=bool(self._carry), loc=self._loc)
        if self._carry:  # the else branch keeps the carried values until else_ gives others
            with ir.InsertionPoint(self._op.else_block):
                scf.YieldOp(self._carry, loc=self._loc)
        self._then_done = False

    @property
    def results(self) -> list[Value]:
        return [Value(r) for r in self._op.results]

    def yield_(self, *values: Operand) -> None:
        self._yield_checked(values, [v.type for v in self._carry])

    def __enter__(self) -> IfElse:
        self._enter(self._op.then_block)
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self._exit(exc_type, exc, tb, self._carry)
        self._then_done = True

    def else_(self) -> _ElseBranch:
        if not self._then_done:
            raise ValueError("else_() follows the if_ block: `with tb.if_(c) as b: ...` then `with b.else_(): ...`")
        return _ElseBranch(self)


class _ElseBranch:
    def __init__(self, branch: IfElse):
        self._branch = branch

    def __enter__(self) -> IfElse:
        b = self._branch
        region = b._op.operation.regions[1]
        if len(region.blocks):
            block = region.blocks[0]
            if len(block.operations) > 1 or not b._carry:
                raise ValueError("an if_ has one else_ branch")
            block.operations[0].erase()  # the default yield of the carried values
        else:
            block = region.blocks.append()
        b._enter(block)
        return b

    def __exit__(self, exc_type, exc, tb) -> None:
        self._branch._exit(exc_type, exc, tb, self._branch._carry)


def if_(cond: Operand, carry: Sequence[Operand] = (), *, loc=None) -> IfElse:
    return IfElse(cond, carry, loc=loc_or_caller(loc))


class WhileLoop(_Body):
    """`with while_(cond, carry=[...]) as loop:` builds an `scf.while`. `cond`
    is called with the carried values (as `Value`s) and returns the bool
    scalar that keeps the loop going; the block is the body, where
    `loop.carried` are the values of this iteration and `loop.yield_(...)`
    gives the next ones. `loop.results` holds the values when `cond` fails."""

    def __init__(self, cond: Callable[..., Operand], carry: Sequence[Operand] = (), loc=None):
        super().__init__(loc_or_caller(loc), "a while_ loop")
        init = _carried_values(carry, self._what)
        self._types = [v.type for v in init]
        self._op = scf.WhileOp(self._types, init, loc=self._loc)
        before = self._op.before.blocks.append(*self._types, arg_locs=[self._loc] * len(init))
        with ir.InsertionPoint(before):
            c = _bool_scalar(cond(*[Value(a) for a in before.arguments]), "while_")
            scf.ConditionOp(c, list(before.arguments), loc=self._loc)
        self._after = self._op.after.blocks.append(*self._types, arg_locs=[self._loc] * len(init))

    @property
    def carried(self) -> list[Value]:
        return [Value(a) for a in self._after.arguments]

    @property
    def results(self) -> list[Value]:
        return [Value(r) for r in self._op.results]

    def yield_(self, *values: Operand) -> None:
        self._yield_checked(values, self._types)

    def __enter__(self) -> WhileLoop:
        self._enter(self._after)
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self._exit(exc_type, exc, tb, [] if not self._types else None)


def while_(cond: Callable[..., Operand], carry: Sequence[Operand] = (), *, loc=None) -> WhileLoop:
    return WhileLoop(cond, carry, loc=loc_or_caller(loc))
