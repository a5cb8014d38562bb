"""`phobos run`: launch a kernel once on random data, on the GPU or in the interpreter.

    phobos run examples/scale.ph --args 'f32[4096,4096] f32[4096,4096] 2.0' --interpret
    phobos run examples/gemm_fp32.ph --args 'f32[255,129] f32[129,257] f32[255,257] 1.5 0.5' --interpret \\
        --trace 29 --save out/

Tensors are filled with random values (a fixed seed: --seed), the kernel runs
once (its grid rule, or --grid), and each tensor is summarised afterwards:
shape, element type, min, max, mean and a float64 checksum. The compile time
(the variant for these arguments, or the interpreter's tile stage) and the run
time are reported apart. --save writes each tensor as NAME.npy; --trace LINE
prints the values the ops on that line of the source define (in the
interpreter), each with its CTA and the source's name for it (the variable or
the expression); --trace-cta X[,Y[,Z]] keeps one CTA's. In the interpreter, a
warning names each tensor part of which no CTA wrote (of those the kernel
stores to) or read (of those it loads from).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

from phobos import fp8
from phobos.runtime.aot import like, parse_args_text
from phobos.runtime.interpret import HOST_DTYPES


def add_parser(sub, common) -> None:
    """The `run` subcommand (driver.py registers it)."""
    r = sub.add_parser(
        "run",
        help="run a kernel once on random data, on the GPU or in the interpreter",
        description="Run a kernel once on random data (tensors as in --args) and summarise its tensors afterwards.",
    )
    common(r)
    r.add_argument("--kernel", default=None, help="the kernel to run when the file has several")
    r.add_argument(
        "--args", required=True, metavar="ARGS", help="the arguments, e.g. 'f32[4096,4096] f32[4096,4096] 2.0'"
    )
    r.add_argument("--interpret", action="store_true", help="run in the interpreter (CPU, NumPy) instead of on the GPU")
    r.add_argument("--grid", default=None, metavar="X[,Y[,Z]]", help="the grid (default: the kernel's grid rule)")
    r.add_argument("--seed", type=int, default=0, help="the seed of the random data (default: 0)")
    r.add_argument("--trace", type=int, default=None, metavar="LINE", help="print the values defined on LINE")
    r.add_argument("--trace-limit", type=int, default=20, metavar="N", help="how many traced values (default: 20)")
    r.add_argument(
        "--trace-cta", default=None, metavar="X[,Y[,Z]]", help="trace only this CTA's values (its block ids)"
    )
    r.add_argument("--save", default=None, metavar="DIR", help="write each tensor after the run as DIR/NAME.npy")


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
    if dtype in ("u8", "u32"):  # the whole range: about half the elements set the top bit, where unsigned ops differ
        host = HOST_DTYPES[dtype]
        return rng.integers(0, np.iinfo(host).max, size=shape, dtype=host, endpoint=True)
    if dtype in fp8.NAMES:  # numpy has no fp8: ml_dtypes' arrays, which launches and the interpreter take
        import ml_dtypes

        codes = fp8.encode(rng.uniform(-1.0, 1.0, size=shape), dtype)
        return codes.view({"f8e4m3": ml_dtypes.float8_e4m3fn, "f8e5m2": ml_dtypes.float8_e5m2}[dtype])
    values = rng.uniform(-1.0, 1.0, size=shape).astype(HOST_DTYPES[dtype])
    if dtype == "bf16":  # numpy has no bf16: ml_dtypes' arrays, as for fp8 (a float32 array is an f32 argument)
        import ml_dtypes

        return values.astype(ml_dtypes.bfloat16)
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


def _tracer(line: int, limit: int, out, source: str, cta: tuple | None = None):
    """The trace hook: values made on `line` (in CTA `cta` only, when given), labelled in the
    source's words where the file is .ph source (trace_labels)."""
    from phobos.cli.trace_labels import labels_for

    labels = labels_for(source)
    shown = [0]

    def trace(loc, op_name, value, block=(0, 0, 0)):
        if loc is None or loc[1] != line or shown[0] >= limit:
            return
        if cta is not None and tuple(block[: len(cta)]) != cta:
            return
        if shown[0] == 0 and labels is not None:
            out(f"trace of line {line}: {labels.line_text(line)}")
        shown[0] += 1
        label = labels.label(loc[1], loc[2], op_name) if labels is not None else op_name
        where = ",".join(str(b) for b in block)
        out(f"{loc[0]}:{loc[1]}:{loc[2]}: cta ({where}): {label} = {summary(value)}")
        if shown[0] == limit:
            out(f"(trace: the first {limit} values; --trace-limit shows more)")

    trace.with_cta = True
    return trace


def parse_cta(text: str | None):
    if text is None:
        return None
    try:
        cta = tuple(int(c) for c in text.split(","))
    except ValueError:
        raise RunError(f"--trace-cta expects up to three integers separated by commas, got '{text}'") from None
    if not 1 <= len(cta) <= 3 or any(c < 0 for c in cta):
        raise RunError(f"--trace-cta expects one to three block ids (0 or more), got '{text}'")
    return cta


def _stderr(text: str) -> None:
    sys.stderr.write(text + "\n")


def _seconds(t: float) -> str:
    return f"{t * 1e3:.3g} ms" if t < 1 else f"{t:.3g} s"


def summary(value) -> str:
    a = np.asarray(value)
    if a.size == 0:
        return f"{a.dtype}{list(a.shape)} (empty)"
    if a.ndim == 0:
        return f"{a.dtype} {a.item()!r}"
    f = a.astype(np.float64)
    return f"{a.dtype}{list(a.shape)} min {f.min():.6g} max {f.max():.6g} mean {f.mean():.6g} sum {f.sum():.17g}"


def _savable(a: np.ndarray) -> np.ndarray:
    """bf16 as its float32 values (exact): np.save writes an ml_dtypes array as raw void bytes."""
    return a.astype(np.float32) if a.dtype.name == "bfloat16" else a


def run(
    kernel,
    args_text: str,
    *,
    interpret: bool,
    seed: int = 0,
    grid_text: str | None = None,
    trace_line: int | None = None,
    trace_limit: int = 20,
    trace_cta: str | None = None,
    save: str | None = None,
    out=print,
    warn=None,
) -> None:
    values = random_arguments(args_text, seed)
    grid = parse_grid(grid_text)
    cta = parse_cta(trace_cta)
    if trace_line is not None and not interpret:
        raise RunError("--trace needs --interpret (the GPU does not report values)")
    if cta is not None and trace_line is None:
        raise RunError("--trace-cta needs --trace LINE")
    start = time.perf_counter()
    if interpret:
        _ = kernel.contract  # the tile stage, which the interpreter runs: compiled here, not timed as the run
    else:
        kernel.warmup(*values, grid=grid)  # the variant for these arguments
    compiled = time.perf_counter() - start
    start = time.perf_counter()
    if interpret:
        source = getattr(kernel, "origin", "")
        trace = _tracer(trace_line, trace_limit, out, source, cta) if trace_line is not None else None
        coverage = kernel.interpret(*values, grid=grid, trace=trace, coverage=True)
    else:
        kernel(*values, grid=grid, sync=True)
    ran = time.perf_counter() - start
    where = "the interpreter" if interpret else "the GPU"
    copies = "" if interpret else ", with the copies of the arrays to the GPU and back"
    out(f"ran {kernel.name} in {where}: compiled in {_seconds(compiled)}, ran in {_seconds(ran)}{copies}")
    if interpret:  # a grid or tiles that leave part of a tensor alone give no error: say so
        for message in coverage.messages():
            (warn or _stderr)(f"phobos: warning: {message}")
    names = [p["name"] for p in kernel.contract["params"]]
    for name, value in zip(names, values):
        if isinstance(value, np.ndarray):
            out(f"  {name}: {summary(value)}")
            if save:
                Path(save).mkdir(parents=True, exist_ok=True)
                np.save(Path(save) / f"{name}.npy", _savable(value))
