"""Interpreter mode: run a kernel's tile program on the CPU with NumPy instead of launching it.

    PHOBOS_INTERPRET=1 python app.py       # every phobos.compile(...) / phobos.load(...) kernel interprets
    k.interpret(x, y, 2.0)                 # one call in the interpreter, whatever the mode
    k.interpret(x, y, 2.0, trace=print)    # trace(loc, op, value) sees every value an op defines

Arguments are checked exactly as for a launch (count, dtypes, ranks, shared
dimension symbols, @aligned promises) and the grid comes from the same rule,
so a call that works in the interpreter works on the GPU and the other way
round. Tensors are numpy arrays or torch tensors (on any device: non-CPU ones
and bf16 ones are copied to the host and back); results are written in place.
fp8 tensors (torch.float8_e4m3fn/e5m2, ml_dtypes' float8 arrays) run as their
8-bit codes (uint8 views that write through).
The program comes from the compiler's tile stage (phobos.compiler.compile_program)
or, for cached and ahead-of-time kernels, from the artifact (asm["program"]),
which needs no MLIR.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence

import numpy as np

from phobos.fp8 import NAMES as FP8

from . import persistent
from .arrays import HOST, ArrayArg, describe, torch_dtype_name
from .binding import Signature

ENV = "PHOBOS_INTERPRET"

# Phobos element type -> the numpy dtype the interpreter holds it in (bf16 as float32 values, fp8 as codes).
HOST_DTYPES = {
    "f8e4m3": np.uint8,
    "f8e5m2": np.uint8,
    "f16": np.float16,
    "bf16": np.float32,
    "f32": np.float32,
    "f64": np.float64,
    "i1": np.bool_,
    "i8": np.int8,
    "u8": np.uint8,
    "u32": np.uint32,
    "i32": np.int32,
    "i64": np.int64,
}


def enabled() -> bool:
    """Whether PHOBOS_INTERPRET asks every kernel call to interpret."""
    return os.environ.get(ENV, "") not in ("", "0")


class _HostArguments:
    """The arguments as host numpy arrays, with what must be copied back after the run."""

    def __init__(self, sig: Signature, args: Sequence[object]):
        self.values = list(args)
        self.views: list[ArrayArg | None] = [None] * len(args)
        self._copy_back: list[Callable[[], None]] = []
        self._widened_copies: dict[tuple, np.ndarray] = {}  # bf16 arrays' float32 copies, by view
        self._written: set[tuple] = set()
        tensors = set(sig.tensors)
        for i, a in enumerate(args):
            if i in tensors:  # a tensor the kernel only reads is not copied back
                written = i >= len(sig.params) or sig.contract["params"][i].get("access") != "read"
                self.values[i], self.views[i] = self._host(a, written)

    def _host(self, a, written: bool) -> tuple[object, ArrayArg | None]:
        if isinstance(a, np.ndarray):
            view = describe(a)  # the launch's own reading of a numpy array
            if view.dtype == "bf16":  # ml_dtypes bfloat16: held as float32 values, rounded back after
                return self._widened(a, view, written)
            return (a.view(np.uint8) if view.dtype in FP8 else a), view
        torch = sys.modules.get("torch")
        if torch is not None and isinstance(a, torch.Tensor):
            return self._torch(torch, a, written)
        return a, None  # not an array the interpreter takes: the binder's checks say what is wrong

    def _widened(self, a: np.ndarray, view: ArrayArg, written: bool) -> tuple[np.ndarray, ArrayArg]:
        # One copy per distinct view, as a launch stages one device buffer per host array: k(x, x)
        # must read what it writes. The checks see the caller's strides (a negative one is refused).
        ident = (a.__array_interface__["data"][0], a.shape, a.strides)
        host = self._widened_copies.get(ident)
        if host is None:
            host = self._widened_copies[ident] = a.astype(np.float32)  # exact: every bf16 is a float32
        if written and ident not in self._written:
            self._written.add(ident)

            def copy_back(a=a, host=host):
                a[...] = host.astype(a.dtype)  # round to nearest even, as the GPU's bf16 stores

            self._copy_back.append(copy_back)
        return host, ArrayArg(None, view.shape, view.strides, "bf16", HOST, "numpy", host)

    def _torch(self, torch, t, written: bool) -> tuple[np.ndarray, ArrayArg]:
        dtype = torch_dtype_name(t)
        fp8 = dtype in FP8  # numpy has no fp8: the codes, as uint8
        if t.device.type == "cpu" and t.dtype != torch.bfloat16:
            host = (t.detach().view(torch.uint8) if fp8 else t.detach()).numpy()  # shares memory: writes land
        else:
            host = t.detach().to("cpu", torch.float32 if t.dtype == torch.bfloat16 else t.dtype)
            host = (host.view(torch.uint8) if fp8 else host).numpy()

            def copy_back(t=t, host=host):
                back = torch.from_numpy(host).to(t.device)
                t.copy_(back.view(t.dtype) if fp8 else back.to(t.dtype))

            if written:
                self._copy_back.append(copy_back)
        view = ArrayArg(None, tuple(t.shape), tuple(t.stride()), dtype, HOST, "numpy", host)
        return host, view

    def finish(self) -> None:
        for copy_back in self._copy_back:
            copy_back()


def run(
    sig: Signature, program: dict, args: Sequence[object], grid=None, check: bool = True, trace=None, coverage=False
):
    """Checks `args` against the kernel's contract and runs `program` over the grid; with
    `coverage`, returns the interpreter's CoverageReport (what no CTA wrote or read)."""
    from phobos.interpreter import run_program
    from phobos.interpreter.coverage import Coverage

    host = _HostArguments(sig, args)
    if len(args) != len(sig.params) or any(host.views[i] is None for i in sig.tensors):
        sig.describe(args)  # raises the launch's own error: the count, or the argument that is no array
        bad = next(i for i in sig.tensors if host.views[i] is None)
        raise TypeError(
            f"{sig.name}: the interpreter takes numpy arrays and torch tensors for "
            f"{sig.params[bad].name}, got {type(args[bad]).__name__}"
        )
    binding = sig.bind(host.values, host.views, grid=grid, check_promises=check)
    watched = Coverage() if coverage else None
    grid = persistent.interpreted(binding.grid, sig.rule_limit(binding.symbols)) if sig.persistent else binding.grid
    run_program(program, host.values, grid, trace, watched)
    host.finish()
    return watched.report() if watched is not None else None
