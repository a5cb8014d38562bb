"""Specialisation keys: what the launcher learns from the actual arguments.

A kernel is compiled once per key, so data that happens to be aligned gets the
fast path without a promise. The key is deliberately coarse (few variants):

  * per tensor parameter: the byte alignment of its base pointer (16 or 1),
    the divisibility class of each extent and of each leading stride (in
    elements): 16, 4 or 1 (the largest of these that divides it);
  * per integer scalar parameter: the divisibility class of its value.

Text form (used in pipeline options, cache keys and file names; no spaces):
    X=a16.e16x16.s16;Y=a16.e16x1.s1;n=4
i.e. `name=a<align>.e<extents joined by x>.s<leading strides joined by x>`
for tensors (the `.s` part is empty for rank 1: `X=a16.e16.s`) and
`name=<class>` for integer scalars. Parameters not listed get no facts.

This module does not import MLIR: the runtime uses it on machines without it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

CLASSES = (16, 4, 1)
POINTER_ALIGN = 16


def divisibility_class(value: int) -> int:
    """The largest of 16, 4, 1 that divides `value` (0 counts as divisible by 16)."""
    for c in CLASSES:
        if value % c == 0:
            return c
    return 1


@dataclass(frozen=True)
class TensorFacts:
    align: int  # byte alignment of the base pointer: 16 or 1
    extents: tuple[int, ...]  # divisibility class per dimension
    strides: tuple[int, ...]  # divisibility class per leading dimension (rank - 1 entries)

    def to_text(self) -> str:
        return f"a{self.align}.e{'x'.join(map(str, self.extents))}.s{'x'.join(map(str, self.strides))}"

    @staticmethod
    def from_text(text: str) -> TensorFacts:
        try:
            a, e, s = text.split(".")
            if not (a.startswith("a") and e.startswith("e") and s.startswith("s")):
                raise ValueError
            align = int(a[1:])
            extents = tuple(int(x) for x in e[1:].split("x")) if e[1:] else ()
            strides = tuple(int(x) for x in s[1:].split("x")) if s[1:] else ()
        except ValueError:
            raise ValueError(f"malformed tensor facts '{text}' (expected a<align>.e<d>x<d>.s<d>)") from None
        if align not in (POINTER_ALIGN, 1) or any(c not in CLASSES for c in extents + strides):
            raise ValueError(f"tensor facts '{text}' use a class outside {CLASSES} or an alignment other than 16/1")
        if len(strides) != max(0, len(extents) - 1):
            raise ValueError(f"tensor facts '{text}' need one stride class per leading dimension")
        return TensorFacts(align, extents, strides)


Facts = TensorFacts | int


@dataclass(frozen=True)
class SpecKey:
    """Facts per parameter name; an empty key means "nothing known"."""

    params: dict[str, Facts] = field(default_factory=dict)

    def to_text(self) -> str:
        parts = []
        for name, facts in self.params.items():
            parts.append(f"{name}={facts.to_text() if isinstance(facts, TensorFacts) else facts}")
        return ";".join(parts)

    @staticmethod
    def from_text(text: str) -> SpecKey:
        params: dict[str, Facts] = {}
        for part in filter(None, text.split(";")):
            name, eq, value = part.partition("=")
            if not eq or not name:
                raise ValueError(f"malformed specialisation entry '{part}' (expected name=facts)")
            if value.startswith("a"):
                params[name] = TensorFacts.from_text(value)
            else:
                try:
                    c = int(value)
                except ValueError:
                    raise ValueError(f"malformed scalar class '{value}' for '{name}'") from None
                if c not in CLASSES:
                    raise ValueError(f"scalar class {c} for '{name}' is not one of {CLASSES}")
                params[name] = c
        return SpecKey(params)

    def __hash__(self) -> int:
        return hash(self.to_text())


# ----------------------------------------------------------------------------- from arguments


def tensor_facts(ptr: int, extents: tuple[int, ...], strides: tuple[int, ...]) -> TensorFacts:
    """The facts of one device tensor: base address in bytes, extents and strides in elements.

    Only the leading strides count (the last dimension is contiguous by contract).
    """
    return TensorFacts(
        POINTER_ALIGN if ptr % POINTER_ALIGN == 0 else 1,
        tuple(divisibility_class(e) for e in extents),
        tuple(divisibility_class(s) for s in strides[: max(0, len(extents) - 1)]),
    )


def _divides(need: int, have: int) -> bool:
    return have % need == 0


def implies(have: SpecKey, need: SpecKey) -> bool:
    """Whether arguments with facts `have` may run a variant compiled for `need`.

    A variant is correct for any arguments that satisfy at least its facts: a
    class-4 extent runs a class-1 variant, a 16-byte aligned pointer runs an a1
    variant. A parameter `need` does not mention asks for nothing.
    """
    for name, want in need.params.items():
        got = have.params.get(name)
        if got is None:
            return False
        if isinstance(want, TensorFacts):
            if not isinstance(got, TensorFacts) or len(got.extents) != len(want.extents):
                return False
            pairs = (
                [(want.align, got.align)] + list(zip(want.extents, got.extents)) + list(zip(want.strides, got.strides))
            )
            if not all(_divides(w, g) for w, g in pairs):
                return False
        elif isinstance(got, TensorFacts) or not _divides(want, got):
            return False
    return True


def strength(key: SpecKey) -> int:
    """How much a key promises (for picking the most specialised of several variants)."""
    total = 0
    for facts in key.params.values():
        if isinstance(facts, TensorFacts):
            total += facts.align + sum(facts.extents) + sum(facts.strides)
        else:
            total += facts
    return total
