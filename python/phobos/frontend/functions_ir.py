"""Function instances and calls in tile IR: a private `func.func` per instance, `func.call` per call.

Each instance the checker made (functions.Instance) becomes `func.func private @name.<types>`
whose body is lowered by the kernel emitter's own statement and expression code; a call
converts its arguments to the parameters' types (as a declaration does) and becomes a
`func.call`. The IR keeps the call structure until the tile stage's tile-inline pass
inlines every call (passes/tile_inline.py), so `phobos-opt` shows both forms.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import func

from phobos import builder as tb

from . import ast as A
from .to_tile_ir import KernelEmitter, mlir_type


class FunctionEmitter(KernelEmitter):
    """Builds the `func.func` of one function instance."""

    def __init__(self, inst, filename: str):
        self.inst = inst
        self.kernel = None
        self.info = None
        self.filename = filename
        self.env = {}

    def lower(self) -> None:
        inst = self.inst
        inputs = [mlir_type(p.ty) for p in inst.params]
        fn = func.FuncOp(inst.name, (inputs, [mlir_type(inst.result)]), visibility="private", loc=self.loc(inst.fn.pos))
        block = fn.add_entry_block(arg_locs=[self.loc(p.pos) for p in inst.params])
        with ir.InsertionPoint(block):
            for sym, arg in zip(inst.params, block.arguments):
                self.env[sym] = tb.Value(arg)
            self.lower_block(_without_exits(inst))
            value = self.coerce(self.lower_as(inst.value, inst.result), inst.result, inst.value.pos)
            func.ReturnOp([value.value], loc=self.loc(A.start_pos(inst.value)))


def _without_exits(inst) -> A.Block:
    """The body with `break`/`continue` rewritten as the kernel's are (frontend/exit_ir.py)."""
    body = A.Block(inst.fn.body.pos, list(inst.body))
    try:
        from .exit_ir import rewrite_exits
    except ImportError:  # a checkout without break/continue
        return body
    return rewrite_exits(A.Kernel(inst.fn.pos, inst.fn.name, [], [], body))


def lower_function_call(emitter: KernelEmitter, e: A.Call, loc) -> tb.Value:
    inst = e.function
    args = [emitter.coerce(emitter.lower_as(a, p.ty), p.ty, a.pos).value for a, p in zip(e.args, inst.params)]
    call = func.CallOp([mlir_type(inst.result)], ir.FlatSymbolRefAttr.get(inst.name), args, loc=loc)
    return tb.Value(call.results[0])


def emit_instances(program: A.Program, filename: str) -> None:
    """The func.func of every function instance of `program` (at the current insertion point)."""
    for inst in getattr(program, "instances", ()):
        FunctionEmitter(inst, filename).lower()
