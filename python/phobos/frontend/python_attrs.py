"""Kernels written in Python: decorator arguments and annotations as the `.ph` syntax tree.

`@phobos.kernel(autotune={"BN": [256, 1024]}, launch=256, aligned={"N": "BN"}, pipeline=True)`
becomes the attributes `@autotune(BN in [256, 1024]) @launch(256) @aligned(N = BN) @pipeline`
(`pipeline=4` or `pipeline="S"`: `@pipeline(4)`, `@pipeline(S)`);
the annotations `tensor[f32, "M", "N"]`, `tile[f32, TM, TN]` and `f32` become the types
`tensor<f32>[M, N]`, `tile<f32>[TM, TN]` and `f32`. Only the syntax is read here; the checker
gives it meaning, exactly as for `.ph` source. docs/python.md lists the spellings.
"""

from __future__ import annotations

import ast as py

from . import ast as A
from .parser import SCALAR_TYPES

# Decorator keywords that become attributes, and the ones the runtime takes (not attributes).
ATTRIBUTE_KEYWORDS = ("autotune", "launch", "aligned", "pipeline", "tensorcore", "persistent", "fastmath")
FLAG_KEYWORDS = ("pipeline", "tensorcore", "persistent", "fastmath", "assert_coalesced", "checked")
RUNTIME_KEYWORDS = ("chip", "defines", "autotune_key", "options", "cache_dir", "check")
LAUNCH_NAMES = ("threads", "minBlocks", "maxRegs")
DECORATOR_NAMES = ("kernel", "fn")


class Unsupported(Exception):
    """A construct outside the language; `node` is where, `message` says what to write."""

    def __init__(self, node, message: str):
        super().__init__(message)
        self.node = node
        self.message = message


def dotted(node) -> str | None:
    """`a.b.c` as text for a chain of names, else None."""
    parts = []
    while isinstance(node, py.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, py.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def decorator_kind(dec) -> str | None:
    """ "kernel" or "fn" for `@phobos.kernel`, `@ph.kernel(...)`, `@kernel`, `@phobos.fn`; else None."""
    target = dec.func if isinstance(dec, py.Call) else dec
    name = dotted(target)
    if name is None:
        return None
    last = name.rsplit(".", 1)[-1]
    return last if last in DECORATOR_NAMES else None


def last_name(node) -> str | None:
    """The name a (possibly module-qualified) reference ends in: `ph.f32` -> "f32"."""
    text = dotted(node)
    return text.rsplit(".", 1)[-1] if text is not None else None


class AttributeReader:
    """Reads a kernel decorator's keywords into `.ph` attributes."""

    def __init__(self, pos):
        self.pos = pos  # node -> A.Pos

    def attributes(self, dec) -> list[A.Attribute]:
        if not isinstance(dec, py.Call):
            return []
        if dec.args:
            raise Unsupported(
                dec.args[0],
                "@phobos.kernel takes keyword arguments only (autotune=, launch=, aligned=, pipeline=, "
                "tensorcore=, persistent=, fastmath=, assert_coalesced=, checked=, chip=, defines=, autotune_key=, "
                "check=)",
            )
        out = []
        for kw in dec.keywords:
            if kw.arg is None:
                raise Unsupported(kw.value, "'**' in the decorator: write each keyword out")
            if kw.arg in RUNTIME_KEYWORDS:
                continue
            attr = self.attribute(kw)
            if attr is not None:
                out.append(attr)
        return out

    def attribute(self, kw) -> A.Attribute | None:
        pos = self.pos(kw)
        name = kw.arg
        if name == "pipeline" and not (isinstance(kw.value, py.Constant) and isinstance(kw.value.value, bool)):
            try:  # pipeline=4 or pipeline="STAGES": @pipeline(S), S stages per ring
                return A.Attribute(pos, name, [A.AttrArg(pos, "positional", value=self.value(kw.value))], True)
            except Unsupported:
                why = "pipeline= takes True, False, a number of stages (4) or a constant's name ('STAGES')"
                raise Unsupported(kw.value, why) from None
        if name in FLAG_KEYWORDS:
            if not isinstance(kw.value, py.Constant) or not isinstance(kw.value.value, bool):
                raise Unsupported(kw.value, f"{name}= takes True or False")
            return A.Attribute(pos, name, [], False) if kw.value.value else None
        if name == "autotune":
            return A.Attribute(pos, name, self.spaces(kw.value), True)
        if name == "launch":
            return A.Attribute(pos, name, self.launch(kw.value), True)
        if name == "aligned":
            return A.Attribute(pos, name, self.keywords(kw.value, "aligned", "{'N': 'BLOCK'}"), True)
        known = ", ".join(ATTRIBUTE_KEYWORDS + ("assert_coalesced", "checked") + RUNTIME_KEYWORDS)
        raise Unsupported(kw, f"unknown keyword '{name}=' of @phobos.kernel (expected one of {known})")

    def spaces(self, node) -> list[A.AttrArg]:
        if not isinstance(node, py.Dict):
            raise Unsupported(
                node, "autotune= takes a dict of constant names to lists of values: {'BLOCK': [256, 1024]}"
            )
        out = []
        for key, value in zip(node.keys, node.values):
            name = self.key(key, "autotune")
            if not isinstance(value, (py.List, py.Tuple)) or not value.elts:
                raise Unsupported(
                    value, f"the values of autotune constant '{name}' are a list of integers: [256, 1024]"
                )
            values = [self.integer(v) for v in value.elts]
            out.append(A.AttrArg(self.pos(key), "space", name=name, values=values))
        return out

    def launch(self, node) -> list[A.AttrArg]:
        if isinstance(node, py.Dict):
            return self.keywords(node, "launch", "{'threads': 128, 'minBlocks': 2}")
        items = node.elts if isinstance(node, (py.Tuple, py.List)) else [node]
        return [A.AttrArg(self.pos(v), "positional", value=self.value(v)) for v in items]

    def keywords(self, node, what: str, example: str) -> list[A.AttrArg]:
        if not isinstance(node, py.Dict):
            raise Unsupported(node, f"{what}= takes a dict: {example}")
        return [
            A.AttrArg(self.pos(k), "keyword", name=self.key(k, what), value=self.value(v))
            for k, v in zip(node.keys, node.values)
        ]

    def key(self, node, what: str) -> str:
        if not isinstance(node, py.Constant) or not isinstance(node.value, str) or not node.value.isidentifier():
            raise Unsupported(node if node is not None else None, f"the keys of {what}= are names in quotes: 'BLOCK'")
        return node.value

    def integer(self, node) -> A.IntLit:
        value = self.value(node)
        if not isinstance(value, A.IntLit):
            raise Unsupported(node, "expected an integer")
        return value

    def value(self, node) -> A.Expr:
        """An attribute value: an integer or float literal (optionally negative) or a constant's name in quotes."""
        sign, inner = 1, node
        if isinstance(node, py.UnaryOp) and isinstance(node.op, py.USub):
            sign, inner = -1, node.operand
        if isinstance(inner, py.Constant) and not isinstance(inner.value, bool):
            if isinstance(inner.value, int):
                return A.IntLit(self.pos(node), sign * inner.value)
            if isinstance(inner.value, float):
                return A.FloatLit(self.pos(node), sign * inner.value)
            if isinstance(inner.value, str) and sign == 1 and inner.value.isidentifier():
                return A.Name(self.pos(node), inner.value)
        raise Unsupported(node, "expected a literal or an @autotune constant's name in quotes ('BLOCK')")


class TypeReader:
    """Reads annotations into `.ph` types."""

    def __init__(self, pos):
        self.pos = pos

    def type_ref(self, node, what: str) -> A.TypeRef:
        if isinstance(node, py.Constant) and isinstance(node.value, str):
            raise Unsupported(node, f"{what}: write the type itself, not a string (tensor[f32, 'M', 'N'])")
        if isinstance(node, py.Subscript):
            kind = last_name(node.value)
            if kind not in ("tensor", "tile"):
                raise Unsupported(
                    node, f"{what}: unknown type (expected tensor[T, dims...], tile[T, dims...] or a scalar type)"
                )
            items = node.slice.elts if isinstance(node.slice, py.Tuple) else [node.slice]
            if len(items) < 2:
                raise Unsupported(node, f"{what}: {kind}[...] takes an element type and at least one dimension")
            element = self.scalar(items[0], what)
            return A.TypeRef(self.pos(node), kind, element, [self.dim(d) for d in items[1:]])
        return A.TypeRef(self.pos(node), "scalar", self.scalar(node, what))

    def scalar(self, node, what: str) -> str:
        name = last_name(node)
        if name in SCALAR_TYPES:
            return name
        hint = {"float": " (write f32 or f64)", "int": " (write i32 or i64)"}.get(name or "", "")
        raise Unsupported(node, f"{what}: unknown type (expected one of {', '.join(SCALAR_TYPES)}){hint}")

    def dim(self, node) -> A.DimRef:
        if isinstance(node, py.Constant) and isinstance(node.value, str) and node.value.isidentifier():
            return A.DimRef(self.pos(node), name=node.value)
        if isinstance(node, py.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
            return A.DimRef(self.pos(node), value=node.value)
        if isinstance(node, py.Name):
            return A.DimRef(self.pos(node), name=node.id)
        raise Unsupported(node, "expected a dimension: a name in quotes ('N') or an integer")
