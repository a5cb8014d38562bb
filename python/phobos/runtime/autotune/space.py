"""The search space of @autotune: the candidates (the Cartesian product of the spaces), tuning
keys, the @aligned pruning, and the space of a .ph source (from the front end; no MLIR)."""

from __future__ import annotations

import itertools
import math
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass

ENV = "PHOBOS_AUTOTUNE"  # 0: never tune, launch candidate 0 (the first value of every space)


def enabled() -> bool:
    """Whether launches tune (PHOBOS_AUTOTUNE unset or not 0/off/false/no)."""
    return os.environ.get(ENV, "1").strip().lower() not in ("0", "off", "false", "no")


# ----------------------------------------------------------------------------- the search space


def config_name(config: dict[str, int]) -> str:
    """'TM=8 TN=128' (the table's spelling)."""
    return " ".join(f"{k}={v}" for k, v in config.items()) or "(no constants)"


def config_folder(config: dict[str, int]) -> str:
    """'TM8-TN128' (a folder name, as bench/aot_build.py spells defines)."""
    return "-".join(f"{k}{v}" for k, v in config.items()) or "default"


def candidates(space: dict[str, list[int]], fixed: dict[str, int] | None = None) -> list[dict[str, int]]:
    """The Cartesian product of the spaces in declaration order, first values first; a constant in
    `fixed` (a -D define) takes only its fixed value."""
    fixed = fixed or {}
    names = list(space)
    axes = [[fixed[n]] if n in fixed else list(space[n]) for n in names]
    return [dict(zip(names, combo)) for combo in itertools.product(*axes)]


def conservative_order(configs: Sequence[dict[str, int]]) -> list[int]:
    """Candidate indices, most conservative first: the smallest constants (the product of the
    values, then the values in order), so the reference is the candidate with the smallest tiles
    and CTAs, the one least likely to hit a limit or an unusual code path."""
    return sorted(range(len(configs)), key=lambda i: (math.prod(configs[i].values()), tuple(configs[i].values()), i))


def bucket(n: int) -> int:
    """The power of two at or above n (1 for n <= 1): the default tuning key's extents."""
    return 1 if n <= 1 else 1 << (int(n) - 1).bit_length()


def tuning_key(signature, args, views, key=None) -> str:
    """What picks a config for these arguments, as text.

    key=None: every tensor's extents bucketed to powers of two ('X=4096;Y=4096');
    a list of names (like Triton's key=): the exact value of each named scalar parameter,
    the exact shape of each named tensor parameter, the exact extent of each named
    dimension symbol; a callable: repr(key(*args))."""
    if callable(key):
        return "call:" + repr(key(*args))
    tensors = {signature.params[i].name: i for i in signature.tensors}
    if key is None:
        return ";".join(f"{name}={'x'.join(str(bucket(e)) for e in views[i].shape)}" for name, i in tensors.items())
    if isinstance(key, str):
        key = [key]
    dims: dict[str, int] = {}
    for i in signature.tensors:
        for dim, extent in zip(signature.params[i].dims, views[i].shape):
            if dim is not None:
                dims.setdefault(dim, extent)
    by_name = {p.name: p for p in signature.params}
    parts = []
    for name in key:
        if name in by_name:
            p = by_name[name]
            value = "x".join(map(str, views[p.index].shape)) if p.kind == "tensor" else repr(args[p.index])
        elif name in dims:
            value = str(dims[name])
        else:
            known = ", ".join(list(by_name) + [d for d in dims if d not in by_name])
            raise ValueError(f"{signature.name}: autotune key '{name}' names no parameter or dimension ({known})")
        parts.append(f"{name}={value}")
    return ";".join(parts)


def promise_violation(promises: dict[str, int], extents: dict[str, int]) -> str | None:
    """Why a candidate's @aligned promises do not hold for these extents (None: they hold)."""
    for symbol, divisor in promises.items():
        extent = extents.get(symbol)
        if extent is not None and extent % divisor:
            return f"breaks @aligned({symbol} = {divisor}): {symbol} = {extent} is not a multiple of {divisor}"
    return None


def symbol_extents(signature, views) -> dict[str, int]:
    """The extent of each dimension symbol of the tensor parameters (the first tensor that names it)."""
    out: dict[str, int] = {}
    for i in signature.tensors:
        for dim, extent in zip(signature.params[i].dims, views[i].shape):
            if dim is not None:
                out.setdefault(dim, int(extent))
    return out


# ----------------------------------------------------------------------------- the space of a .ph source


_MLIR_TEXT = re.compile(r"^\s*(module\b|func\.func\b|\"?builtin\.module)", re.M)


@dataclass
class SourceSpace:
    """The @autotune facts of one .ph kernel, from the front end (no MLIR)."""

    space: dict[str, list[int]]
    fixed: dict[str, int]
    configs: list[dict[str, int]]
    promises: list[dict[str, int]]  # per config: the resolved @aligned divisors
    threads: list[int]  # per config


def source_space(text: str, origin: str, kernel: str | None, defines: dict | None) -> SourceSpace | None:
    """The candidates of a .ph source with `defines` fixed; None for MLIR sources (their constants
    are bound in the IR and cannot be rebound) and for sources the front end rejects (compiling
    them reports the errors)."""
    if origin.endswith(".mlir") or origin == "<module>" or _MLIR_TEXT.search(text):
        return None
    from phobos.frontend import CompileError, check_source

    defines = dict(defines or {})
    try:
        program = check_source(text, origin, defines)
    except CompileError:
        return None
    chosen = [k for k in program.kernels if kernel is None or k.name == kernel]
    if len(chosen) != 1:
        return None
    info = chosen[0].info
    fixed = {n: v for n, v in defines.items() if n in info.space}
    configs = candidates(info.space, fixed)
    promises, threads = [], []
    for config in configs:
        if config == info.bindings:
            facts = info
        else:
            try:
                k = [k for k in check_source(text, origin, config).kernels if k.name == chosen[0].name][0]
            except CompileError:
                facts = None
            else:
                facts = k.info
        promises.append(dict(facts.aligned) if facts is not None else {})
        threads.append(int((facts.launch or {}).get("threads", 256)) if facts is not None else 256)
    return SourceSpace(dict(info.space), fixed, configs, promises, threads)
