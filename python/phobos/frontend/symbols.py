"""What the checker records for to_tile_ir: declarations and kernel facts."""

from __future__ import annotations

from dataclasses import dataclass, field

from . import ast as A
from . import types as T


class Symbol:
    """A declaration: a parameter, a dimension symbol, an @autotune constant,
    a `let`/`var` or a loop variable. Identity matters: to_tile_ir maps
    symbols to SSA values."""

    __slots__ = ("kind", "name", "ty", "pos", "const", "index")

    def __init__(self, kind: str, name: str, ty: T.Type, pos: A.Pos, const=None, index: int = -1):
        self.kind = kind  # "param", "dim", "const", "let", "var", "loop"
        self.name = name
        self.ty = ty
        self.pos = pos
        self.const = const
        self.index = index

    def describe(self) -> str:
        return {
            "param": "parameter",
            "dim": "dimension",
            "const": "@autotune constant",
            "let": "'let' binding",
            "var": "variable",
            "loop": "loop variable",
        }[self.kind]

    def __repr__(self) -> str:
        return f"Symbol({self.kind} {self.name}: {self.ty})"


@dataclass
class KernelInfo:
    space: dict[str, list[int]] = field(default_factory=dict)
    bindings: dict[str, int] = field(default_factory=dict)
    launch: dict[str, int] | None = None
    aligned: dict[str, int] = field(default_factory=dict)
    aligned_at: dict[str, A.Pos] = field(default_factory=dict)  # where each promise is written (its check's place)
    flags: set[str] = field(default_factory=set)
    pipeline_depth: int | None = None  # @pipeline(S): the stages of each ring
    # symbol -> (symbol, block): this extent must be ceil(that one / block) (Q8_0 scales, quantized.py)
    extent_blocks: dict[str, tuple[str, int]] = field(default_factory=dict)
    params: list[Symbol] = field(default_factory=list)
    dims: dict[str, Symbol] = field(default_factory=dict)
