"""Checked reads of builtin attributes found in user IR.

Every attribute the dialect reads out of IR that a user wrote (an op's declared
attributes, the facts passes record on ops, kernel and argument attributes) goes
through `read`: it returns the attribute as Python data when it is of the kind
expected and raises AttributeKindError, naming the attribute and the kind
expected, when it is not. Casting instead (`ir.DenseI64ArrayAttr(attr)`) fails
with a bare ValueError far from the op, `list(attr)` of a float array gives
floats where indices belong, and `.value` of an integer wider than 64 bits
aborts the process; `read` checks before it converts. tile-verify turns the
error into a located one at the op (or the kernel parameter) that carries the
attribute (verify.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mlir import ir


class AttributeKindError(ValueError):
    """An attribute of the wrong kind: `name` is the attribute, `expected` the kind it must be."""

    def __init__(self, name: str, expected: str, attr: ir.Attribute):
        super().__init__(f"'{name}' must be {expected}, got {attr}")
        self.name, self.expected, self.attr = name, expected, attr


@dataclass(frozen=True)
class Kind:
    """A kind of attribute: how it is spelled in messages, which attributes are of
    it, and how one of them (named as the second argument) becomes Python data; the
    conversion may raise AttributeKindError with a narrower kind (an integer too wide)."""

    description: str
    accepts: Callable[[ir.Attribute], bool]
    convert: Callable[[ir.Attribute, str], Any]


def _fits_64_bits(attr: ir.Attribute) -> bool:
    t = ir.IntegerAttr(attr).type
    return isinstance(t, ir.IndexType) or (isinstance(t, ir.IntegerType) and t.width <= 64)


def _integer_value(attr: ir.Attribute, name: str) -> int:
    # `.value` of an integer wider than 64 bits aborts the process (APInt::getSExtValue).
    if not _fits_64_bits(attr):
        raise AttributeKindError(name, "an integer of at most 64 bits", attr)
    return ir.IntegerAttr(attr).value


INTEGER = Kind("an integer", lambda a: isinstance(a, ir.IntegerAttr), _integer_value)
STRING = Kind("a string", lambda a: isinstance(a, ir.StringAttr), lambda a, _: ir.StringAttr(a).value)
I32_ARRAY = Kind("an array<i32>", lambda a: isinstance(a, ir.DenseI32ArrayAttr), lambda a, _: list(a))
I64_ARRAY = Kind("an array<i64>", lambda a: isinstance(a, ir.DenseI64ArrayAttr), lambda a, _: list(a))
BOOL_ARRAY = Kind("an array<i1>", lambda a: isinstance(a, ir.DenseBoolArrayAttr), lambda a, _: [bool(x) for x in a])
STRING_ARRAY = Kind(
    "an array of strings",
    lambda a: isinstance(a, ir.ArrayAttr) and all(isinstance(x, ir.StringAttr) for x in a),
    lambda a, _: [ir.StringAttr(x).value for x in a],
)
UNIT = Kind("a unit attribute", lambda a: isinstance(a, ir.UnitAttr), lambda a, _: True)
INTEGER_DICT = Kind(
    "a dictionary of integers",
    lambda a: isinstance(a, ir.DictAttr) and all(isinstance(n.attr, ir.IntegerAttr) for n in a),
    lambda a, name: {n.name: _integer_value(n.attr, f"{name}.{n.name}") for n in ir.DictAttr(a)},
)
I64_ARRAY_DICT = Kind(
    "a dictionary of array<i64>",
    lambda a: isinstance(a, ir.DictAttr) and all(isinstance(n.attr, ir.DenseI64ArrayAttr) for n in a),
    lambda a, _: {n.name: list(ir.DenseI64ArrayAttr(n.attr)) for n in ir.DictAttr(a)},
)


def _of_block(a: ir.Attribute) -> bool:
    """{of = "K", block = 32}: a symbol and a block size."""
    if not isinstance(a, ir.DictAttr):
        return False
    d = ir.DictAttr(a)
    return (
        len(d) == 2
        and "of" in d
        and "block" in d
        and isinstance(d["of"], ir.StringAttr)
        and isinstance(d["block"], ir.IntegerAttr)
    )


BLOCKS_DICT = Kind(
    'a dictionary of {of = "K", block = 32 : i64}',
    lambda a: isinstance(a, ir.DictAttr) and all(_of_block(n.attr) for n in a),
    lambda a, name: {
        n.name: (ir.StringAttr(ir.DictAttr(n.attr)["of"]).value, _integer_value(ir.DictAttr(n.attr)["block"], name))
        for n in ir.DictAttr(a)
    },
)


def read(attr: ir.Attribute, name: str, kind: Kind) -> Any:
    """`attr` (the attribute `name`) as Python data of `kind`; AttributeKindError when it is not of that kind."""
    if not kind.accepts(attr):
        raise AttributeKindError(name, kind.description, attr)
    return kind.convert(attr, name)


def read_op(op: ir.Operation | ir.OpView, name: str, kind: Kind, default: Any = None) -> Any:
    """The attribute `name` of `op` read as `kind` (see read), or `default` where `op` has none."""
    attrs = op.attributes
    return read(attrs[name], name, kind) if name in attrs else default
