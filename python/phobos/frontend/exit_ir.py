"""`break`, `continue` and `return` as structured control flow, before to_tile_ir.

The tile IR has no jumps: scf.for, scf.while and scf.if only. A checked kernel
whose body has exits is rewritten here into one without them, with bool
flags that to_tile_ir carries like any `var` (Triton lowers `break` the same
way):

- `return` clears a kernel flag `alive` (declared `true` at the top of the
  kernel only when there is a `return`);
- `break` sets the loop's flag, declared `false` before the loop;
- `continue` sets the iteration's flag, declared `false` at the top of the body;
- after a statement that may set a flag, the rest of its block runs under
  `if` the flags say so (`if !brk && !cont && alive { ... }`);
- a `for` with a `break` or a `return` becomes a `while` over its counter
  (`while !brk && alive && i < stop`), so it stops iterating; its bounds and
  step are evaluated once, before the loop, as `range` does. A `while` ends
  when its condition fails or a flag says so.

Conditions are scalars, uniform over the CTA, so the flags are too: the GPU
never sees threads of one CTA take different exits. The new nodes carry the
checker's annotations (types, symbols), so to_tile_ir lowers them as
written, and kernels without exits are returned unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import ast as A
from . import types as T
from .symbols import Symbol


def _has(stmts, kinds, into_loops: bool) -> bool:
    """Whether `stmts` contain a statement of `kinds` (looking into nested loops when `into_loops`)."""
    for s in stmts:
        if isinstance(s, kinds):
            return True
        if isinstance(s, A.If):
            orelse = s.orelse.stmts if isinstance(s.orelse, A.Block) else ([s.orelse] if s.orelse else [])
            if _has(s.then.stmts, kinds, into_loops) or _has(orelse, kinds, into_loops):
                return True
        elif isinstance(s, (A.For, A.While)) and into_loops and _has(s.body.stmts, kinds, into_loops):
            return True
    return False


def _name(sym: Symbol, pos: A.Pos) -> A.Name:
    n = A.Name(pos, sym.name)
    n.symbol, n.ty = sym, sym.ty
    return n


def _bool(value: bool, pos: A.Pos) -> A.BoolLit:
    b = A.BoolLit(pos, value)
    b.ty, b.const = T.BOOL, value
    return b


def _not(e: A.Expr) -> A.Expr:
    u = A.Unary(e.pos, "!", e)
    u.ty = T.BOOL
    return u


def _and(a: A.Expr | None, b: A.Expr) -> A.Expr:
    if a is None:
        return b
    e = A.Binary(b.pos, "&&", a, b)
    e.ty, e.operand_element = T.BOOL, "bool"
    return e


def _assign(sym: Symbol, value: A.Expr, pos: A.Pos) -> A.Assign:
    return A.Assign(pos, _name(sym, pos), "=", value, pos)


def _decl(sym: Symbol, value: A.Expr, pos: A.Pos) -> A.Decl:
    d = A.Decl(pos, sym.kind == "var", sym.name, None, value)
    d.symbol = sym
    return d


@dataclass
class _Loop:
    brk: Symbol | None
    cont: Symbol | None


class _Rewriter:
    def __init__(self, alive: Symbol | None):
        self.alive = alive

    def flag(self, name: str, pos: A.Pos) -> Symbol:
        return Symbol("var", f"__{name}_{pos.line}_{pos.col}", T.BOOL, pos)

    def guard(self, sets: set, loop: _Loop | None, pos: A.Pos) -> A.Expr:
        """The condition under which the statements after an exit still run."""
        cond = None
        if loop is not None:
            for sym in (loop.brk, loop.cont):
                if sym is not None and id(sym) in sets:
                    cond = _and(cond, _not(_name(sym, pos)))
        if self.alive is not None and id(self.alive) in sets:
            cond = _and(cond, _name(self.alive, pos))
        return cond

    def block(self, stmts, loop: _Loop | None) -> tuple[list, set]:
        """The rewritten statements and the ids of the flags they may set."""
        out: list[A.Stmt] = []
        for i, s in enumerate(stmts):
            new, sets = self.stmt(s, loop)
            out.extend(new)
            if sets:
                rest, rest_sets = self.block(stmts[i + 1 :], loop)
                if rest:
                    out.append(A.If(s.pos, self.guard(sets, loop, s.pos), A.Block(s.pos, rest)))
                return out, sets | rest_sets
        return out, set()

    def stmt(self, s: A.Stmt, loop: _Loop | None) -> tuple[list, set]:
        if isinstance(s, A.Return):
            return [_assign(self.alive, _bool(False, s.pos), s.pos)], {id(self.alive)}
        if isinstance(s, (A.Break, A.Continue)):
            sym = loop.brk if isinstance(s, A.Break) else loop.cont
            return [_assign(sym, _bool(True, s.pos), s.pos)], {id(sym)}
        if isinstance(s, A.If):
            return self.branch(s, loop)
        if isinstance(s, A.While):
            return self.while_(s)
        if isinstance(s, A.For):
            return self.for_(s)
        return [s], set()

    def branch(self, s: A.If, loop) -> tuple[list, set]:
        then, sets = self.block(s.then.stmts, loop)
        orelse = s.orelse
        if isinstance(orelse, A.If):
            new, more = self.branch(orelse, loop)
            orelse, sets = A.Block(orelse.pos, new), sets | more
        elif orelse is not None:
            new, more = self.block(orelse.stmts, loop)
            orelse, sets = A.Block(orelse.pos, new), sets | more
        return [A.If(s.pos, s.cond, A.Block(s.then.pos, then), orelse)], sets

    def loop_flags(self, s) -> tuple[_Loop, list]:
        stmts = s.body.stmts
        brk = self.flag("break", s.pos) if _has(stmts, A.Break, False) else None
        cont = self.flag("continue", s.pos) if _has(stmts, A.Continue, False) else None
        before = [_decl(brk, _bool(False, s.pos), s.pos)] if brk is not None else []
        return _Loop(brk, cont), before

    def body(self, s, loop: _Loop, head: list) -> tuple[A.Block, set]:
        start = list(head)
        if loop.cont is not None:
            start.append(_decl(loop.cont, _bool(False, s.pos), s.pos))
        stmts, sets = self.block(s.body.stmts, loop)
        return A.Block(s.body.pos, start + stmts), sets

    def stop(self, loop: _Loop, returns: bool, pos: A.Pos) -> A.Expr | None:
        """The part of a loop's condition that the exits add."""
        cond = _not(_name(loop.brk, pos)) if loop.brk is not None else None
        if returns:
            cond = _and(cond, _name(self.alive, pos))
        return cond

    def while_(self, s: A.While) -> tuple[list, set]:
        loop, before = self.loop_flags(s)
        body, sets = self.body(s, loop, [])
        returns = id(self.alive) in sets if self.alive is not None else False
        stop = self.stop(loop, returns, s.pos)
        cond = s.cond if stop is None else _and(stop, s.cond)
        return before + [A.While(s.pos, cond, body)], ({id(self.alive)} if returns else set())

    def for_(self, s: A.For) -> tuple[list, set]:
        loop, before = self.loop_flags(s)
        returns = self.alive is not None and _has(s.body.stmts, A.Return, True)
        if loop.brk is None and not returns:
            body, _ = self.body(s, loop, [])
            new = A.For(s.pos, s.var, s.var_pos, s.start, s.stop, s.step, body)
            new.symbol = s.symbol
            return [new], set()
        # A counted loop that may stop early: a while over its counter.
        pos = s.pos
        counter = Symbol("var", f"__next_{pos.line}_{pos.col}", T.INDEX, pos)
        stop = Symbol("let", f"__stop_{pos.line}_{pos.col}", T.INDEX, pos)
        step = Symbol("let", f"__step_{pos.line}_{pos.col}", T.INDEX, pos)
        one = A.IntLit(pos, 1)
        one.ty, one.const = T.Scalar(T.INT_LITERAL), 1
        before += [
            _decl(counter, s.start, pos),
            _decl(stop, s.stop, pos),
            _decl(step, s.step if s.step is not None else one, pos),
        ]
        advance = A.Binary(pos, "+", _name(counter, pos), _name(step, pos))
        advance.ty, advance.operand_element = T.INDEX, "index"
        head = [_decl(s.symbol, _name(counter, pos), pos), _assign(counter, advance, pos)]
        body, _ = self.body(s, loop, head)
        less = A.Binary(pos, "<", _name(counter, pos), _name(stop, pos))
        less.ty, less.operand_element = T.BOOL, "index"
        cond = _and(self.stop(loop, returns, pos), less)
        return before + [A.While(pos, cond, body)], ({id(self.alive)} if returns else set())


def rewrite_exits(kernel: A.Kernel) -> A.Block:
    """The kernel's body without `break`, `continue` and `return` (unchanged when it has none)."""
    stmts = kernel.body.stmts
    if not _has(stmts, (A.Break, A.Continue, A.Return), True):
        return kernel.body
    alive = None
    if _has(stmts, A.Return, True):
        alive = Symbol("var", "__alive", T.BOOL, kernel.body.pos)
    rewriter = _Rewriter(alive)
    out, _ = rewriter.block(stmts, None)
    head = [_decl(alive, _bool(True, kernel.body.pos), kernel.body.pos)] if alive is not None else []
    return A.Block(kernel.body.pos, head + out)
