"""tile-inline: inlines every call of a tile function into the kernels (the functions of .ph)."""

from __future__ import annotations

from mlir import ir
from mlir.dialects import func

from phobos.dialect.kernel import is_kernel
from phobos.dialect.tile import is_op
from phobos.passes.registry import fail, tile_pass

# Calls are inlined outermost first; a chain longer than this is a cycle (recursion).
MAX_ROUNDS = 64


@tile_pass("tile-inline")
def tile_inline(module: ir.Operation, pass_) -> None:
    """Inlines every `func.call` of a function of the module, then erases the functions. The
    front end emits each instance of a `.ph` function (`fn`) as a private `func.func` and each
    call as a `func.call`; this pass, first in the tile stage, replaces each call by a copy of
    the callee's body (its arguments for the parameters, the returned values for the call's
    results), repeating for calls the copies bring in, so the kernels the later passes see
    contain no calls. Inlined ops keep the callee's locations (the line inside the function).
    A call of an unknown function, a recursive call or a function of more than one block is an
    error at the call.

    Before: `%y = func.call @gelu.16x32xf32(%x)` and `func.func private @gelu.16x32xf32`.
    After: the body of `@gelu.16x32xf32` in place of the call; the function is gone.
    """
    body = module.regions[0].blocks[0]
    functions = {
        ir.StringAttr(op.attributes["sym_name"]).value: op
        for op in body.operations
        if is_op(op, func.FuncOp) and not is_kernel(op.operation)
    }
    cycle = _cycle(functions)
    if cycle:
        names = " -> ".join("@" + n for n in cycle)
        fail(pass_, functions[cycle[0]].location, f"func.func: recursive calls ({names}) cannot be inlined")
        return
    for _ in range(MAX_ROUNDS):
        calls = _calls(module)
        if not calls:
            break
        for call in calls:
            if not _inline(call, functions, module, pass_):
                return
    else:
        fail(pass_, _calls(module)[0].location, "func.call: the calls do not end (a function calls itself)")
        return
    for op in functions.values():
        op.operation.erase()


def _callees(op: ir.Operation) -> list[str]:
    names: list[str] = []

    def visit(inner):
        if is_op(inner, func.CallOp):
            names.append(ir.FlatSymbolRefAttr(inner.attributes["callee"]).value)
        return ir.WalkResult.ADVANCE

    op.walk(visit)
    return names


def _cycle(functions: dict) -> list[str]:
    """A cycle of calls among `functions` (names, first repeated at the end), or []."""
    graph = {name: _callees(op.operation) for name, op in functions.items()}
    state: dict[str, int] = {}  # 1: on the path, 2: done

    def visit(name: str, path: list[str]) -> list[str]:
        state[name] = 1
        for callee in graph.get(name, ()):
            if state.get(callee) == 1:
                return path[path.index(callee) :] + [callee] if callee in path else [name, callee]
            if callee in graph and callee not in state:
                found = visit(callee, path + [callee])
                if found:
                    return found
        state[name] = 2
        return []

    for name in graph:
        if name not in state:
            found = visit(name, [name])
            if found:
                return found
    return []


def _calls(module: ir.Operation) -> list[ir.Operation]:
    """The func.call ops inside kernels (not inside the functions themselves)."""
    found: list[ir.Operation] = []

    def visit(op):
        if is_op(op, func.CallOp):
            found.append(op.operation)
        return ir.WalkResult.ADVANCE

    for op in module.regions[0].blocks[0].operations:
        if is_kernel(op.operation):
            op.operation.walk(visit)
    return found


def _inline(call: ir.Operation, functions: dict, module: ir.Operation, pass_) -> bool:
    callee_name = ir.FlatSymbolRefAttr(call.attributes["callee"]).value
    callee = functions.get(callee_name)
    if callee is None:
        fail(pass_, call.location, f"func.call: '@{callee_name}' is not a function of this module")
        return False
    blocks = list(callee.regions[0].blocks)
    if len(blocks) != 1:
        fail(pass_, call.location, f"func.call: '@{callee_name}' has {len(blocks)} blocks; tile functions have one")
        return False
    # A copy of the function, its parameters replaced by the call's operands, its ops moved
    # before the call; the copy (a module-level op for a moment) is then erased.
    copy = callee.operation.clone(ip=ir.InsertionPoint(module.regions[0].blocks[0]))
    entry = copy.regions[0].blocks[0]
    for arg, operand in zip(entry.arguments, call.operands):
        arg.replace_all_uses_with(operand)
    ops = list(entry.operations)
    for op in ops[:-1]:
        op.operation.move_before(call)
    for result, value in zip(call.results, ops[-1].operands):
        result.replace_all_uses_with(value)
    call.erase()
    copy.erase()
    return True
