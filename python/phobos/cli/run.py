"""`phobos run`: launch a kernel once on random data, on the GPU or in the interpreter.

    phobos run examples/scale.ph --args 'f32[4096,4096] f32[4096,4096] 2.0' --interpret
    phobos run examples/gemm_fp32.ph --args 'f32[255,129] f32[129,257] f32[255,257] 1.5 0.5' --interpret \\
        --trace 29 --save out/

Tensors are filled with random values (a fixed seed: --seed), the kernel runs
once (its grid rule, or --grid), and each tensor is summarised afterwards:
shape, element type, min, max, mean and a float64 checksum. --save writes
each tensor as NAME.npy; --trace LINE prints the values the ops on that line
of the source define (in the interpreter).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from phobos.runtime.aot import like, parse_args_text
from phobos.runtime.interpret import HOST_DTYPES


class RunError(ValueError):
    """A run the command line describes badly (the message names the option)."""


def random_arguments(text: str, seed: int) -> list[object]:
    """Host arrays of random data for the tensors of `text` ('f32[64,64] 2.0 ...'), numbers as given."""
    try:
        examples = parse_args_text(text)
    except ValueError as e:
        raise RunError(f"--args: {e}") from None
    rng = np.random.default_rng(seed)
    return [_random_array(rng, a) if isinstance(a, like) else a for a in examples]


def _random_array(rng: np.random.Generator, placeholder: like) -> np.ndarray:
    dtype = placeholder.dtype
    shape = placeholder.shape
    if dtype == "i1":
        return rng.random(shape) < 0.5
    if dtype in ("i8", "i32", "i64"):
        return rng.integers(-100, 100, size=shape).astype(HOST_DTYPES[dtype])
    values = rng.uniform(-1.0, 1.0, size=shape).astype(HOST_DTYPES[dtype])
    if dtype == "bf16":  # representable values only
        values = (values.view(np.uint32) & np.uint32(0xFFFF0000)).view(np.float32)
    return values


def parse_grid(text: str | None):
    if text is None:
        return None
    try:
        grid = tuple(int(g) for g in text.split(","))
    except ValueError:
        raise RunError(f"--grid expects up to three integers separated by commas, got '{text}'") from None
    if not 1 <= len(grid) <= 3 or any(g < 1 for g in grid):
        raise RunError(f"--grid expects one to three positive integers, got '{text}'")
    return grid


def _tracer(line: int, limit: int, out):
    shown = [0]

    def trace(loc, op_name, value):
        if loc is None or loc[1] != line or shown[0] >= limit:
            return
        shown[0] += 1
        out(f"{loc[0]}:{loc[1]}:{loc[2]}: {op_name} -> {summary(value)}")
        if shown[0] == limit:
            out(f"(trace: the first {limit} values; --trace-limit shows more)")

    return trace


def summary(value) -> str:
    a = np.asarray(value)
    if a.size == 0:
        return f"{a.dtype}{list(a.shape)} (empty)"
    if a.ndim == 0:
        return f"{a.dtype} {a.item()!r}"
    f = a.astype(np.float64)
    return f"{a.dtype}{list(a.shape)} min {f.min():.6g} max {f.max():.6g} mean {f.mean():.6g} sum {f.sum():.17g}"


def run(
    kernel,
    args_text: str,
    *,
    interpret: bool,
    seed: int = 0,
    grid_text: str | None = None,
    trace_line: int | None = None,
    trace_limit: int = 20,
    save: str | None = None,
    out=print,
) -> None:
    values = random_arguments(args_text, seed)
    grid = parse_grid(grid_text)
    if trace_line is not None and not interpret:
        raise RunError("--trace needs --interpret (the GPU does not report values)")
    start = time.perf_counter()
    if interpret:
        trace = _tracer(trace_line, trace_limit, out) if trace_line is not None else None
        kernel.interpret(*values, grid=grid, trace=trace)
    else:
        kernel(*values, grid=grid, sync=True)
    seconds = time.perf_counter() - start
    where = "the interpreter" if interpret else "the GPU"
    out(f"ran {kernel.name} in {where} in {seconds:.3f} s")
    names = [p["name"] for p in kernel.contract["params"]]
    for name, value in zip(names, values):
        if isinstance(value, np.ndarray):
            out(f"  {name}: {summary(value)}")
            if save:
                Path(save).mkdir(parents=True, exist_ok=True)
                np.save(Path(save) / f"{name}.npy", value)
