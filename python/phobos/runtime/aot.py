"""Ahead-of-time compilation into a folder (for shipping, and for GPU machines without MLIR).

    phobos aot examples/scale.ph -o aot/scale \\
        --args 'f32[4096,4096] f32[4096,4096] 2.0' --args 'f32[4097,129] f32[4097,129] 2.0'

compiles the generic variant of the kernel plus one variant per `--args`
(example arguments: `dtype[extents]` tensors, optionally `@a1` for a base
address that is not 16-byte aligned, and numbers for scalars) or `--key`
(a specialisation key's text). The folder uses the cache layout
(phobos.runtime.cache), so either

    k = phobos.load("aot/scale")             # picks the best variant per launch
    PHOBOS_CACHE_DIR=aot/scale python ...    # phobos.compile(...) finds its variants

launches from it, on a machine without MLIR. From Python:

    phobos.compile_ahead("examples/scale.ph", "aot/scale",
                         examples=[(phobos.like("f32", (4097, 129)),) * 2 + (2.0,)])
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from phobos.contract.specialization import SpecKey
from phobos.elements import language_name
from phobos.target import DEFAULT_CHIP

from .arrays import ITEMSIZE, contiguous_strides

_BASE = 1 << 32  # a made-up, 16-byte aligned device address


class like:
    """A placeholder device array: shape, element type, strides and alignment, no memory.

    Stands in for real arguments where only their layout matters (ahead-of-time
    compilation, `Kernel.key`, `Kernel.warmup`); never launch with it."""

    def __init__(self, dtype: str, shape: Sequence[int], strides: Sequence[int] | None = None, align: int = 16):
        dtype = "i1" if dtype == "bool" else dtype  # the language's bool is the contract's i1
        if dtype not in ITEMSIZE:
            names = ", ".join(map(language_name, ITEMSIZE))
            raise ValueError(f"unknown element type {dtype!r} (one of {names})")
        self.dtype = dtype
        self.shape = tuple(int(s) for s in shape)
        self.strides = tuple(strides) if strides is not None else contiguous_strides(self.shape)
        self.align = align
        size = ITEMSIZE[dtype]
        typestr = {
            "f16": "<f2",
            "bf16": "<V2",
            "f32": "<f4",
            "f64": "<f8",
            "i1": "|b1",
            "i8": "|i1",
            "u8": "|u1",
            "u32": "<u4",
            "i32": "<i4",
            "i64": "<i8",
            "f8e4m3": "<V1",
            "f8e5m2": "<V1",
        }[dtype]
        self.__cuda_array_interface__ = {
            "shape": self.shape,
            "typestr": typestr,
            "strides": tuple(s * size for s in self.strides),
            "data": (_BASE if align >= 16 else _BASE + size, False),
            "version": 3,
        }
        if dtype in ("bf16", "f8e4m3", "f8e5m2"):  # no typestr for these: the binder reads the dtype from here
            self.__cuda_array_interface__["typestr"] = dtype

    def __repr__(self):
        return f"like({self.dtype!r}, {self.shape}{'' if self.align >= 16 else ', align=1'})"


_TENSOR = re.compile(r"^(?P<dtype>[a-z0-9]+)\[(?P<dims>[0-9, ]*)\](?:@a(?P<align>\d+))?$")


def parse_args_text(text: str) -> list[object]:
    """Example arguments from text: 'f32[4097,129] f32[4097,129]@a1 2.0 7'."""
    out: list[object] = []
    for token in text.split():
        m = _TENSOR.match(token)
        if m:
            dims = [int(d) for d in m.group("dims").replace(" ", "").split(",") if d]
            out.append(like(m.group("dtype"), dims, align=int(m.group("align") or 16)))
        elif token in ("true", "false"):
            out.append(token == "true")
        else:
            try:
                out.append(int(token))
            except ValueError:
                try:
                    out.append(float(token))
                except ValueError:
                    raise ValueError(
                        f"example argument {token!r} is neither a tensor (f32[M,N]) nor a number"
                    ) from None
    return out


def compile_ahead(
    source,
    out_dir,
    *,
    kernel: str | None = None,
    chip: str = DEFAULT_CHIP,
    defines: dict | None = None,
    options: dict | None = None,
    keys: Iterable = (),
    examples: Iterable[Sequence[object]] = (),
    check: bool = True,
    features: str | None = None,
) -> list[str]:
    """Compile the generic variant and one per key / example argument list into `out_dir`.

    Returns the keys stored. Example arguments may be real arrays or `like(...)`
    placeholders; `check=False` also accepts examples that break an @aligned
    promise (to ship the variant a raw launch would use). `features`: PTX ISA
    features (`+ptx84` for fp8 on mma.sync), the `features` compile option."""
    from .kernel import Kernel

    if features:
        options = {**(options or {}), "features": features}

    k = Kernel(source, kernel=kernel, chip=chip, defines=defines, options=options, cache_dir=out_dir)
    stored = [""]
    k.artifact(None)
    for key in keys:
        text = key.to_text() if isinstance(key, SpecKey) else SpecKey.from_text(str(key)).to_text()
        k.artifact(text)
        stored.append(text)
    # A kernel without a grid rule for some axis is launched with the caller's grid; its
    # variants do not depend on it, so an example binds with a grid of ones.
    grid = (1, 1, 1) if None in k.contract.get("grid", ()) else None
    for args in examples:
        stored.append(k.key(*args).to_text())
        k.warmup(*args, grid=grid, check=check)
    return list(dict.fromkeys(stored))


def compile_all_candidates(
    source,
    out_dir,
    *,
    kernel: str | None = None,
    chip: str = DEFAULT_CHIP,
    defines: dict | None = None,
    options: dict | None = None,
    keys: Iterable = (),
    examples: Iterable[Sequence[object]] = (),
    check: bool = True,
    jobs: int | None = None,
    progress: bool | None = None,
) -> dict:
    """Compile every @autotune candidate of a .ph kernel into `out_dir` (in a process pool), each as an
    ahead-of-time folder with the generic variant and one per key / example, plus the manifest
    autotune.json; phobos.load(out_dir) then tunes on a machine without MLIR. `defines` fix
    constants (their space shrinks to the one value). Returns the manifest (see
    phobos.runtime.autotune.compile_candidates)."""
    from .autotune import compile_candidates

    return compile_candidates(
        source,
        out_dir,
        kernel=kernel,
        chip=chip,
        defines=defines,
        options=options,
        keys=keys,
        examples=examples,
        check=check,
        jobs=jobs,
        progress=progress,
    )
