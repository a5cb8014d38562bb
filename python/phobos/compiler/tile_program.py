"""Tile IR as plain data: the portable program the interpreter runs.

The interpreter (phobos.interpreter) executes a kernel's tile IR with NumPy on
machines without MLIR, so the compile driver writes the kernel after the tile
stage as JSON-ready data, stored with each artifact (`asm["program"]`):

    {"format": 1, "kernel": "scale",
     "args": [{"id": 0, "name": "X", "type": T}, ...],
     "attrs": {"aligned": {"M": 32}, "bindings": {...}, "launch": {"threads": 256}, "flags": [...]},
     "body": [OP, ...]}

    OP = {"name": "arith.addf", "operands": [ids], "results": [ids], "types": [T per result],
          "attrs": {name: VALUE}, "regions": [[BLOCK, ...], ...], "loc": ["file.ph", line, col] | None}
    BLOCK = {"args": [ids], "types": [T per argument], "ops": [OP, ...]}
    T = {"dtype": D} (a scalar) | {"dtype": D, "shape": [..]} (a tile) | {"dtype": D, "memref": [.., -1 dynamic]}
    D = "i1" | "i8" | "i16" | "i32" | "i64" | "index" | "f16" | "bf16" | "f32" | "f64" | "f8e4m3" | "f8e5m2"
    VALUE = int | float | bool | str | list | dict | {"type": T}
          | {"dense": {"dtype": D, "shape": [..], "splat": v}} | {"dense": {"dtype": D, "shape": [..], "values": [..]}}

Every SSA value has one integer id (kernel arguments first). Terminators
(`scf.yield`, `scf.condition`) are ops like any other; `func.return` is left
out. Non-finite float constants are written as the strings "inf", "-inf", "nan".
"""

from __future__ import annotations

import math

import numpy as np
from mlir import ir
from mlir.dialects import func

from phobos.dialect import kernel as K
from phobos.dialect.tile import is_op

FORMAT = 1

_FLOATS = (
    (ir.F16Type, "f16"),
    (ir.BF16Type, "bf16"),
    (ir.F32Type, "f32"),
    (ir.F64Type, "f64"),
    (ir.Float8E4M3FNType, "f8e4m3"),
    (ir.Float8E5M2Type, "f8e5m2"),
)


class ProgramError(ValueError):
    """IR the portable form cannot express (a type or attribute it does not know)."""


def dtype_name(t: ir.Type) -> str:
    if isinstance(t, ir.IndexType):
        return "index"
    if isinstance(t, ir.IntegerType):
        return f"i{t.width}"
    for cls, name in _FLOATS:
        if isinstance(t, cls):
            return name
    raise ProgramError(f"element type {t} has no portable form")


def type_data(t: ir.Type) -> dict:
    if isinstance(t, ir.RankedTensorType):
        return {"dtype": dtype_name(t.element_type), "shape": list(t.shape)}
    if isinstance(t, ir.MemRefType):
        shape = [-1 if ir.ShapedType.is_dynamic_size(s) else s for s in t.shape]
        return {"dtype": dtype_name(t.element_type), "memref": shape}
    return {"dtype": dtype_name(t)}


def _number(x):
    if isinstance(x, float) and not math.isfinite(x):
        return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")
    return x


def _dense(attr: ir.DenseElementsAttr) -> dict:
    t = ir.RankedTensorType(attr.type)
    out = {"dtype": dtype_name(t.element_type), "shape": list(t.shape)}
    if attr.is_splat:
        out["splat"] = _number(attr_data(attr.get_splat_value()))
        return out
    values = np.array(attr).reshape(-1).tolist()
    out["values"] = [_number(v) for v in values]
    return out


def attr_data(attr: ir.Attribute):
    """A JSON-ready value for `attr`."""
    if isinstance(attr, ir.BoolAttr):
        return bool(attr.value)
    if isinstance(attr, ir.IntegerAttr):
        return int(attr.value)
    if isinstance(attr, ir.FloatAttr):
        return _number(float(attr.value))
    if isinstance(attr, ir.StringAttr):
        return attr.value
    if isinstance(attr, ir.UnitAttr):
        return True
    if isinstance(attr, ir.DenseI64ArrayAttr):
        return [int(v) for v in attr]
    if isinstance(attr, ir.DenseBoolArrayAttr):
        return [bool(v) for v in attr]
    if isinstance(attr, ir.DenseElementsAttr):
        return {"dense": _dense(attr)}
    if isinstance(attr, ir.ArrayAttr):
        return [attr_data(a) for a in attr]
    if isinstance(attr, ir.DictAttr):
        return {n.name: attr_data(n.attr) for n in attr}
    if isinstance(attr, ir.TypeAttr):
        return {"type": type_data(attr.value)}
    return str(attr)  # layouts and other encodings: kept for messages, never read


def file_location(loc: ir.Location) -> list | None:
    """[file, line, col] of the first file position inside `loc`, or None."""
    pending = [loc]
    while pending:
        current = pending.pop(0)
        if current.is_a_file():
            return [current.filename, current.start_line, current.start_col]
        if current.is_a_name():
            pending.append(current.child_loc)
        elif current.is_a_callsite():
            pending.append(current.callee)
        elif current.is_a_fused():
            pending.extend(current.locations)
    return None


class _Writer:
    def __init__(self):
        self.ids: dict = {}

    def define(self, value: ir.Value) -> int:
        self.ids[value] = len(self.ids)
        return self.ids[value]

    def use(self, value: ir.Value) -> int:
        if value not in self.ids:
            raise ProgramError("an operand is defined outside the kernel")
        return self.ids[value]

    def block(self, block: ir.Block) -> dict:
        args = [self.define(a) for a in block.arguments]
        types = [type_data(a.type) for a in block.arguments]
        return {"args": args, "types": types, "ops": [self.op(op.operation) for op in block.operations]}

    def op(self, op: ir.Operation) -> dict:
        data = {
            "name": op.name,
            "operands": [self.use(v) for v in op.operands],
            "results": [self.define(r) for r in op.results],
            "types": [type_data(r.type) for r in op.results],
            "attrs": {name: attr_data(op.attributes[name]) for name in op.attributes},
            "regions": [[self.block(b) for b in region.blocks] for region in op.regions],
            "loc": file_location(op.location),
        }
        return data


def to_program(fn: ir.Operation) -> dict:
    """The portable program of the tile kernel `fn` (a func.func after the tile stage)."""
    writer = _Writer()
    entry = fn.regions[0].blocks[0]
    args = []
    for i, a in enumerate(entry.arguments):
        args.append({"id": writer.define(a), "name": K.arg_name(fn, i), "type": type_data(a.type)})
        if K.arg_unsigned(fn, i):  # u8/u32: the caller's arrays are unsigned (the IR's i8/i32 bits)
            args[-1]["unsigned"] = True
    body = [writer.op(op.operation) for op in entry.operations if not is_op(op, func.ReturnOp)]
    attrs = {
        "aligned": K.aligned(fn),
        "bindings": K.bindings(fn),
        "launch": K.launch(fn),
        "flags": K.flags(fn),
    }
    return {
        "format": FORMAT,
        "kernel": K.kernel_name(fn),
        "args": args,
        "attrs": attrs,
        "body": body,
        "loc": file_location(fn.location),
    }
