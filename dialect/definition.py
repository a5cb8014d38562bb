"""The tile ops as `tile.irdl.mlir` declares them, read into plain data.

The IRDL file is the single source of truth of the dialect. This module parses
it once with the MLIR bindings and walks its `irdl.operation` ops, so that the
Python op classes (tile.py) derive their accessors from the declaration
instead of restating it:

  irdl.operands(base: %memref, starts: variadic %index)
      -> OpDefinition.operands = (Group("base", "single"), Group("starts", "variadic"))
  irdl.attributes {"dim" = %int}     (%int = irdl.base "#builtin.integer")
      -> OpDefinition.attributes = ("dim",),
         OpDefinition.attribute_bases = ("#builtin.integer",)
  irdl.results(id: %index)
      -> OpDefinition.results = (Group("id", "single"),)

`segment_layout` says where each declared group sits among an op's actual
operands or results, the way MLIR's IRDL verifier slices them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from mlir import ir

IRDL_FILE = Path(__file__).with_name("tile.irdl.mlir")

SINGLE, OPTIONAL, VARIADIC = "single", "optional", "variadic"

# With more than one optional or variadic group, the sizes come from these attributes.
OPERAND_SEGMENT_SIZES = "operandSegmentSizes"
RESULT_SEGMENT_SIZES = "resultSegmentSizes"


@dataclass(frozen=True)
class Group:
    """One declared operand or result: its name and variadicity (single, optional or variadic)."""

    name: str
    variadicity: str


@dataclass(frozen=True)
class OpDefinition:
    """What IRDL declares about one op: operand groups, attribute names, result groups, and
    the base each attribute is constrained to (`"#builtin.integer"`; None where the constraint
    is not an `irdl.base` by name), in the order of `attributes`."""

    name: str
    operands: tuple[Group, ...]
    attributes: tuple[str, ...]
    results: tuple[Group, ...]
    attribute_bases: tuple[str | None, ...] = ()


def segment_layout(groups: Sequence[Group], count: int, segment_sizes: Sequence[int] | None) -> list[range]:
    """The positions of each group among `count` operands (or results).

    A single group holds one value. One optional or variadic group takes what the
    single groups leave; several need `segment_sizes`, one entry per group (the
    op's operandSegmentSizes or resultSegmentSizes). Raises ValueError when the
    values do not fit the groups.
    """
    flexible = [g for g in groups if g.variadicity != SINGLE]
    if len(flexible) > 1:
        if segment_sizes is None or len(segment_sizes) != len(groups):
            raise ValueError(f"expects segment sizes for the {len(groups)} groups {[g.name for g in groups]}")
        sizes = list(segment_sizes)
    else:
        spare = count - (len(groups) - len(flexible))
        sizes = [1 if g.variadicity == SINGLE else spare for g in groups]
    if sum(sizes) != count or any(s < 0 or (g.variadicity != VARIADIC and s > 1) for g, s in zip(groups, sizes)):
        raise ValueError(f"{count} values do not fit the groups {[(g.name, g.variadicity) for g in groups]}")
    layout, start = [], 0
    for size in sizes:
        layout.append(range(start, start + size))
        start += size
    return layout


def _variadicities(attr: ir.Attribute) -> list[str]:
    # The bindings have no class for #irdl<variadicity_array[...]>: read its text.
    return re.findall(r"\b(?:single|optional|variadic)\b", str(attr))


def _groups(op: ir.Operation) -> tuple[Group, ...]:
    names = [ir.StringAttr(n).value for n in ir.ArrayAttr(op.attributes["names"])]
    return tuple(Group(n, v) for n, v in zip(names, _variadicities(op.attributes["variadicity"]), strict=True))


def _base_name(constraint: ir.Value) -> str | None:
    """The base attribute that constraint value `constraint` names (`irdl.base "#builtin.integer"`), or None."""
    owner = constraint.owner
    if isinstance(owner, ir.Block) or owner.name != "irdl.base" or "base_name" not in owner.attributes:
        return None
    return ir.StringAttr(owner.attributes["base_name"]).value


def _definition(dialect: str, op: ir.Operation) -> OpDefinition:
    parts: dict[str, tuple] = {"irdl.operands": (), "irdl.attributes": (), "irdl.results": ()}
    bases: tuple[str | None, ...] = ()
    for inner in op.regions[0].blocks[0].operations:
        inner = inner.operation
        if inner.name == "irdl.attributes":
            names = ir.ArrayAttr(inner.attributes["attributeValueNames"])
            parts[inner.name] = tuple(ir.StringAttr(n).value for n in names)
            bases = tuple(_base_name(v) for v in inner.operands)
        elif inner.name in parts:
            parts[inner.name] = _groups(inner)
    name = f"{dialect}.{ir.StringAttr(op.attributes['sym_name']).value}"
    return OpDefinition(name, parts["irdl.operands"], parts["irdl.attributes"], parts["irdl.results"], bases)


def read_definitions(text: str) -> dict[str, OpDefinition]:
    """The ops of the IRDL dialects in `text`, by full name ("tile.load"), in file order."""
    definitions = {}
    with ir.Context() as context:
        module = ir.Module.parse(text, context)
        for dialect in module.body.operations:
            namespace = ir.StringAttr(dialect.attributes["sym_name"]).value
            for op in dialect.regions[0].blocks[0].operations:
                if op.operation.name == "irdl.operation":
                    definition = _definition(namespace, op.operation)
                    definitions[definition.name] = definition
    return definitions


TILE_OPS: dict[str, OpDefinition] = read_definitions(IRDL_FILE.read_text())
