"""The nesting limit of kernels: how deep regions (loops, ifs) may be nested.

The Python walkers of the analyses and the lowering recurse once per region
level, so a kernel nested thousands deep would exhaust the Python stack. The
front end refuses `.ph` code nested more deeply than MAX_NESTING (blocks plus
`else if`s, each of which is an `if` inside the previous `else`); the lowering
refuses `.mlir` input whose ops lie deeper than that, with a located error.
MLIR is imported only by `too_deep`, so the front end can read the constant.
"""

from __future__ import annotations

# Region levels accepted below a function: a kernel body is level 1.
MAX_NESTING = 128


def too_deep(fn, limit: int = MAX_NESTING):
    """The first op of `fn` nested in more than `limit` regions, or None.
    One walk (iterative, in C++) with the depth of each op's parent."""
    from mlir import ir

    fn = fn.operation
    depth = {fn: 0}
    found = []

    def visit(op):
        if op == fn:
            return ir.WalkResult.ADVANCE
        level = depth.get(op.parent.operation, 0) + 1
        if level > limit:
            found.append(op)
            return ir.WalkResult.INTERRUPT
        if len(op.regions):
            depth[op] = level
        return ir.WalkResult.ADVANCE

    # Pre-order: a parent's depth is known before its children are visited.
    fn.walk(visit, ir.WalkOrder.PRE_ORDER)
    return found[0] if found else None


def nesting_message(limit: int = MAX_NESTING) -> str:
    return f"operation is nested more deeply than {limit} levels of loops and ifs"
