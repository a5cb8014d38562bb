"""Checks of `break`, `continue` and `return`, and of where `grid_barrier()` may stand.

A mixin of the Checker. `break` and `continue` belong to the innermost `for`
or `while`; `return` in a kernel takes no value (the CTA stops). Conditions
are bool scalars, the same in every thread of a CTA, so every exit is uniform
within a CTA and `barrier()` is never reached by part of one. Across CTAs a
condition may differ: one that depends on `ctx.block` (or `program_id`, or a
variable computed from them) lets some CTAs skip what others run. A
`grid_barrier()` that some CTAs may skip (inside such an `if` or loop, after
such a `return`, `break` or `continue`) would wait forever on the GPU, so it is
an error here, with a note at the construct that makes the CTAs differ.
"""

from __future__ import annotations

from . import ast as A


class ExitChecks:
    loop_depth = 0

    def check_loop_body(self, body: A.Block, bindings=()) -> None:
        """A `for` or `while` body: `break` and `continue` may stand in it."""
        self.loop_depth += 1
        try:
            self.check_block(body, bindings)
        finally:
            self.loop_depth -= 1

    def check_exit(self, s: A.Stmt) -> None:
        if isinstance(s, A.Return):
            if s.value is not None:
                self.value(s.value)
                self.error(
                    A.start_pos(s.value),
                    "a kernel returns no value: 'return' ends the CTA (store results into a tensor parameter)",
                )
            return
        word = "break" if isinstance(s, A.Break) else "continue"
        if self.loop_depth == 0:
            self.error(s.pos, f"'{word}' outside a loop (it belongs to the innermost 'for' or 'while')")

    def check_grid_uniform(self, kernel: A.Kernel) -> None:
        """Reports each `grid_barrier()` that some CTAs of the grid may not reach."""
        if "persistent" in kernel.info.flags:
            _Uniformity(self).block(kernel.body.stmts, None)


def _is_grid_barrier(s: A.Stmt) -> bool:
    e = s.expr if isinstance(s, A.ExprStmt) else None
    return isinstance(e, A.Call) and e.builtin == "grid_barrier"


class _Uniformity:
    """Walks a kernel in order, tracking the variables whose value may differ
    between CTAs and the first construct that makes CTAs take different paths."""

    def __init__(self, checker):
        self.checker = checker
        self.varying: set[int] = set()  # ids of symbols whose value depends on the CTA
        self.exited: tuple[A.Pos, str] | None = None  # a 'return' that only some CTAs may take
        self.quiet = False  # a first pass over a loop body: only the variables are tracked

    def depends(self, e) -> bool:
        """Whether the expression `e` may differ between CTAs."""
        if e is None:
            return False
        if isinstance(e, A.Member):
            return e.grid_query is not None and e.grid_query[0] == "block"
        if isinstance(e, A.Call) and e.builtin == "program_id":
            return True
        if isinstance(e, A.Name):
            return e.symbol is not None and id(e.symbol) in self.varying
        children = []
        if isinstance(e, A.Unary):
            children = [e.operand]
        elif isinstance(e, A.Binary):
            children = [e.lhs, e.rhs]
        elif isinstance(e, A.Call):
            children = list(e.args)
        elif isinstance(e, A.Index):
            children = [part for sub in e.subscripts for part in (sub.start, sub.end)]
        return any(self.depends(c) for c in children)

    def barrier(self, s: A.ExprStmt, why: tuple[A.Pos, str] | None) -> None:
        reason = why or self.exited
        if reason is None or self.quiet:
            return
        pos, what = reason
        self.checker.error(
            s.expr.callee.pos,
            "grid_barrier() that some CTAs may not reach: every CTA of the grid must arrive, or the GPU hangs "
            "(make the condition the same for every CTA, e.g. a loop over a count that does not use ctx.block)",
            ((pos, what),),
        )

    def block(self, stmts, why) -> None:
        """`why`: the (position, note) of the enclosing construct that some CTAs may skip, or None."""
        for s in stmts:
            self.stmt(s, why)

    def stmt(self, s: A.Stmt, why) -> None:
        if isinstance(s, A.Decl):
            if self.depends(s.value) or why is not None:
                self.varying.add(id(s.symbol))
        elif isinstance(s, A.Assign) and isinstance(s.target, A.Name):
            if s.target.symbol is not None and (self.depends(s.value) or why is not None):
                self.varying.add(id(s.target.symbol))
        elif isinstance(s, A.ExprStmt) and _is_grid_barrier(s):
            self.barrier(s, why)
        elif isinstance(s, A.Return) and why is not None and self.exited is None:
            self.exited = (s.pos, "this 'return' is taken by some CTAs only")
        elif isinstance(s, A.If):
            self.branch(s, why)
        elif isinstance(s, (A.For, A.While)):
            self.loop(s, why)

    def branch(self, s: A.If, why) -> None:
        inner = why
        if inner is None and self.depends(s.cond):
            inner = (A.start_pos(s.cond), "this condition differs between CTAs")
        self.block(s.then.stmts, inner)
        if isinstance(s.orelse, A.If):
            self.branch(s.orelse, inner)
        elif s.orelse is not None:
            self.block(s.orelse.stmts, inner)

    def loop(self, s, why) -> None:
        inner = why
        if isinstance(s, A.For):
            bounds = [b for b in (s.start, s.stop, s.step) if b is not None]
            if any(self.depends(b) for b in bounds):
                self.varying.add(id(s.symbol))
                inner = inner or (A.start_pos(s.start), "the trip count of this loop differs between CTAs")
        elif self.depends(s.cond):
            inner = inner or (A.start_pos(s.cond), "the trip count of this loop differs between CTAs")
        if inner is None:
            exit_pos = self.varying_exit(s.body.stmts, False)
            if exit_pos is not None:
                inner = (exit_pos, "some CTAs may leave this iteration here and others not")
        # Twice: a variable made CTA-dependent late in the body reaches its start; report the second time.
        quiet, exited, self.quiet = self.quiet, self.exited, True
        self.block(s.body.stmts, inner)
        self.quiet, self.exited = quiet, exited
        self.block(s.body.stmts, inner)
        if isinstance(s, A.While) and inner is None and self.depends(s.cond):
            self.block(s.body.stmts, (A.start_pos(s.cond), "the trip count of this loop differs between CTAs"))

    def varying_exit(self, stmts, under: bool) -> A.Pos | None:
        """A `break`/`continue`/`return` of this loop body taken under a CTA-dependent condition."""
        for s in stmts:
            if isinstance(s, (A.Break, A.Continue, A.Return)) and under:
                return s.pos
            if isinstance(s, A.If):
                here = under or self.depends(s.cond)
                blocks = [s.then.stmts]
                orelse = s.orelse
                while isinstance(orelse, A.If):
                    blocks.append(orelse.then.stmts)
                    here = here or self.depends(orelse.cond)
                    orelse = orelse.orelse
                if orelse is not None:
                    blocks.append(orelse.stmts)
                for b in blocks:
                    found = self.varying_exit(b, here)
                    if found is not None:
                        return found
        return None
