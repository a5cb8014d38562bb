"""The names a Python kernel imports: `from phobos.lang import tensor, tile, f32, ctx, span, exp`.

A `@phobos.kernel` body is read from its source and compiled, never run, so these objects only
have to exist (for the import, for annotations that Python evaluates, and for editors and
linters); calling one from Python raises an error that says so. What each means is the
language's (docs/language.md); how it is spelled in Python is docs/python.md.
"""

from __future__ import annotations

import math


class LangObject:
    """A name of the kernel language; meaningful only inside a kernel's source."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"phobos.lang.{self.name}"

    def __call__(self, *args, **kwargs):
        raise TypeError(
            f"phobos.lang.{self.name} is part of the kernel language: it means something inside a "
            "@phobos.kernel or @phobos.fn body, which Phobos compiles; it cannot be called from Python"
        )

    def __getitem__(self, item):
        return self  # tensor[f32, "M", "N"] as an annotation: Python evaluates it, Phobos reads its text

    def __getattr__(self, attr: str):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return LangObject(f"{self.name}.{attr}")  # ctx.block.x


ELEMENT_TYPES = ("f16", "bf16", "f32", "f64", "f8e4m3", "f8e5m2", "i8", "u8", "i32", "u32", "i64", "bool")
BUILTINS = (
    "dot dot_t exp log sqrt tanh abs tmax tmin where sum max min rowsum rowmax rowmin transpose cumsum tril "
    "arange barrier grid_barrier program_id padded span masked "
    "atomic_add atomic_max atomic_min atomic_xchg atomic_cas"
).split()

tensor = LangObject("tensor")
tile = LangObject("tile")
ctx = LangObject("ctx")
inf = math.inf

f16 = LangObject("f16")
bf16 = LangObject("bf16")
f32 = LangObject("f32")
f64 = LangObject("f64")
f8e4m3 = LangObject("f8e4m3")
f8e5m2 = LangObject("f8e5m2")
i8 = LangObject("i8")
u8 = LangObject("u8")
u32 = LangObject("u32")
i32 = LangObject("i32")
i64 = LangObject("i64")
bool = LangObject("bool")  # noqa: A001 - the language's element type

dot = LangObject("dot")
dot_t = LangObject("dot_t")
exp = LangObject("exp")
log = LangObject("log")
sqrt = LangObject("sqrt")
tanh = LangObject("tanh")
abs = LangObject("abs")  # noqa: A001
tmax = LangObject("tmax")
tmin = LangObject("tmin")
where = LangObject("where")
sum = LangObject("sum")  # noqa: A001
max = LangObject("max")  # noqa: A001
min = LangObject("min")  # noqa: A001
rowsum = LangObject("rowsum")
rowmax = LangObject("rowmax")
rowmin = LangObject("rowmin")
transpose = LangObject("transpose")
cumsum = LangObject("cumsum")
tril = LangObject("tril")
arange = LangObject("arange")
barrier = LangObject("barrier")
grid_barrier = LangObject("grid_barrier")
program_id = LangObject("program_id")
padded = LangObject("padded")
span = LangObject("span")
masked = LangObject("masked")
atomic_add = LangObject("atomic_add")
atomic_max = LangObject("atomic_max")
atomic_min = LangObject("atomic_min")
atomic_xchg = LangObject("atomic_xchg")
atomic_cas = LangObject("atomic_cas")

__all__ = ["ctx", "inf", "tensor", "tile", *ELEMENT_TYPES, *BUILTINS]
