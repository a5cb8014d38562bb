"""@autotune: compile every candidate, check it against a reference, time it on the device, keep the winner.

    k = phobos.compile("bench/kernels/saxpy.ph")     # @autotune(BLOCK in [1024, 4096])
    result = k.autotune(x, y, 2.0)                    # compile (in parallel), check, time, cache
    print(result.table())                             # candidate, time, GB/s, rejected and why
    k.best_config                                     # {"BLOCK": 4096}
    k(x, y, 2.0)                                      # launches the winner for arguments like these

The parts, each usable alone (the CPU tests drive them with fakes):

  candidates      the Cartesian product of the @autotune spaces (values fixed by
                  `defines` stay fixed), first value first: candidate 0 is what
                  PHOBOS_AUTOTUNE=0 and an untuned kernel run
  pruning         before compiling, candidates whose @aligned promises the
                  arguments at hand break; after compiling, those whose registers
                  (EIATTR_REGCOUNT of the cubin) or shared memory exceed the chip
  compile_all     candidates compile in a process pool (concurrent.futures) into
                  the kernel cache; cache hits compile nothing
  evaluate        each candidate runs once on fresh copies of the arguments and
                  its outputs are compared with the reference (a `reference=`
                  callable, else the most conservative candidate) with per-dtype
                  tolerances; then the ones that agree are timed (`timer`)
  TuningStore     the winner on disk, next to the kernel cache:
                  <root>/autotune/<family>/<hash of spec key, tuning key, device>.json
  EventTimer      CUDA events around each launch, warm-up, the L2 flushed before
                  every timed launch, median (what triton.testing.do_bench does)
  DeviceRunner    the GPU side: scratch copies of the arguments (the caller's tensors
                  are never written while tuning), launches, read-back

Nothing here imports MLIR: a machine without it tunes from a folder of candidates
compiled ahead of time (phobos aot --all-candidates; phobos.load(folder)).
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import itertools
import json
import math
import os
import re
import statistics
import struct
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .arrays import HOST, ITEMSIZE, contiguous_strides
from .specialization import SpecKey

ENV = "PHOBOS_AUTOTUNE"  # 0: never tune, launch candidate 0 (the first value of every space)
ENV_JOBS = "PHOBOS_AUTOTUNE_JOBS"  # compile processes (default: one per CPU, at most one per candidate)
ENV_COMPARE = "PHOBOS_AUTOTUNE_COMPARE"  # where outputs are compared: auto (default), host, torch, cupy
STORE_FORMAT = 1

# (rtol, atol) per element type, as torch.testing.assert_close; integers and bools must match exactly.
TOLERANCES = {"f16": (1e-3, 1e-5), "bf16": (1.6e-2, 1e-5), "f32": (1.3e-6, 1e-5), "f64": (1e-7, 1e-7)}


def enabled() -> bool:
    """Whether launches tune (PHOBOS_AUTOTUNE unset or not 0/off/false/no)."""
    return os.environ.get(ENV, "1").strip().lower() not in ("0", "off", "false", "no")


class TuningError(RuntimeError):
    """Tuning found no candidate that compiles, runs and agrees with the reference."""

    def __init__(self, message: str, result: TuneResult | None = None):
        super().__init__(message)
        self.result = result


class TuningFault(TuningError):
    """A candidate faulted in a way that leaves the CUDA context unusable; it is recorded as
    faulting, so tuning again (in a new process) skips it."""


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


# ----------------------------------------------------------------------------- resources


@dataclass(frozen=True)
class Limits:
    """What one CTA may use on a chip."""

    registers_per_thread: int = 255
    registers_per_cta: int = 65536
    shared_per_cta: int = 48 * 1024  # bytes, with the opt-in for dynamic shared memory
    threads_per_cta: int = 1024


# Shared memory per CTA with the opt-in (CUDA C Programming Guide, compute capabilities table).
_SHARED_OPTIN = {
    "sm_70": 98304,
    "sm_72": 98304,
    "sm_75": 65536,
    "sm_80": 166912,
    "sm_86": 101376,
    "sm_87": 166912,
    "sm_89": 101376,
    "sm_90": 232448,
    "sm_100": 232448,
    "sm_120": 101376,
}


def chip_limits(chip: str) -> Limits:
    return Limits(shared_per_cta=_SHARED_OPTIN.get(chip.rstrip("a"), 48 * 1024))


def device_limits(device) -> Limits:
    """The limits the driver reports for a device (phobos.runtime.driver.Device)."""
    from . import driver

    attr = driver.cu.CUdevice_attribute

    def get(name):
        return driver.check(driver.cu.cuDeviceGetAttribute(getattr(attr, name), device.handle), name)

    return Limits(
        registers_per_thread=255,
        registers_per_cta=get("CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK"),
        shared_per_cta=get("CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN"),
        threads_per_cta=get("CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK"),
    )


@dataclass(frozen=True)
class Resources:
    registers: int | None  # per thread
    shared_bytes: int  # static shared memory per CTA
    frame_bytes: int  # local memory per thread (stack frame: spills, local arrays)


_EIATTR_FRAME_SIZE = 0x11
_EIATTR_REGCOUNT = 0x2F
_EIFMT_SVAL = 4


def cubin_resources(cubin: bytes, entry: str) -> Resources | None:
    """Registers, static shared memory and stack frame of `entry`, read from the cubin's ELF
    (the .nv.info attributes ptxas writes: EIATTR_REGCOUNT, EIATTR_FRAME_SIZE, and the size of
    .nv.shared.<entry>); None when the cubin is not an ELF this understands."""
    b = bytes(cubin)
    if len(b) < 64 or b[:4] != b"\x7fELF" or b[4] != 2:
        return None
    try:
        shoff = struct.unpack_from("<Q", b, 0x28)[0]
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", b, 0x3A)
        sections = [struct.unpack_from("<IIQQQQIIQQ", b, shoff + i * shentsize) for i in range(shnum)]

        def cstr(base: int, offset: int) -> str:
            end = b.index(b"\0", base + offset)
            return b[base + offset : end].decode(errors="replace")

        names_at = sections[shstrndx][4]
        by_name = {cstr(names_at, s[0]): s for s in sections}
        symtab = next((s for s in sections if s[1] == 2), None)  # SHT_SYMTAB
        symbol = None
        if symtab is not None:
            strings_at = sections[symtab[6]][4]
            for i in range(symtab[5] // 24):
                st_name = struct.unpack_from("<I", b, symtab[4] + 24 * i)[0]
                if cstr(strings_at, st_name) == entry:
                    symbol = i
                    break
        values: dict[int, int] = {}
        info = by_name.get(".nv.info")
        if info is not None and symbol is not None:
            data, p = b[info[4] : info[4] + info[5]], 0
            while p + 4 <= len(data):
                fmt, attr = data[p], data[p + 1]
                if fmt != _EIFMT_SVAL:
                    p += 4
                    continue
                size = struct.unpack_from("<H", data, p + 2)[0]
                if size >= 8 and attr in (_EIATTR_REGCOUNT, _EIATTR_FRAME_SIZE):
                    sym, value = struct.unpack_from("<II", data, p + 4)
                    if sym == symbol:
                        values[attr] = value
                p += 4 + size
        registers = values.get(_EIATTR_REGCOUNT)
        if registers is None and f".text.{entry}" in by_name:  # older ptxas: sh_info's top byte
            registers = (by_name[f".text.{entry}"][7] >> 24) or None
        shared = by_name.get(f".nv.shared.{entry}")
        return Resources(registers, int(shared[5]) if shared else 0, values.get(_EIATTR_FRAME_SIZE, 0))
    except (struct.error, ValueError, IndexError):
        return None


def resource_violation(resources: Resources | None, threads: int, dynamic_shared: int, limits: Limits) -> str | None:
    """Why a compiled candidate cannot launch on the chip (None: it fits)."""
    if threads > limits.threads_per_cta:
        return f"{threads} threads per CTA exceed the chip's {limits.threads_per_cta}"
    if resources is None:
        return None
    if resources.registers is not None:
        if resources.registers > limits.registers_per_thread:
            return f"{resources.registers} registers per thread exceed the chip's {limits.registers_per_thread}"
        # registers are allocated per warp in units of 256 (8 per thread)
        per_warp = -(-resources.registers * 32 // 256) * 256
        need = per_warp * -(-threads // 32)
        if need > limits.registers_per_cta:
            return (
                f"{resources.registers} registers x {threads} threads need {need} registers per CTA, "
                f"over the chip's {limits.registers_per_cta}"
            )
    shared = resources.shared_bytes + dynamic_shared
    if shared > limits.shared_per_cta:
        return f"{shared} bytes of shared memory per CTA exceed the chip's {limits.shared_per_cta}"
    return None


# ----------------------------------------------------------------------------- candidates and results


@dataclass
class Candidate:
    """One point of the space and what became of it."""

    index: int
    config: dict[str, int]
    promises: dict[str, int] | None = None  # @aligned divisors with this config (None: learnt after compiling)
    threads: int | None = None
    status: str = "pending"  # pending, ok, best, reference, pruned, failed, faulted, wrong
    reason: str = ""
    times_ms: list[float] = field(default_factory=list)
    compile_s: float = 0.0
    compiled: bool = False  # compiled by this tuning (False: found in the kernel cache)
    resources: Resources | None = None
    kernel: object = field(default=None, repr=False)  # the launchable candidate kernel

    @property
    def name(self) -> str:
        return config_name(self.config)

    @property
    def time_ms(self) -> float | None:
        return statistics.median(self.times_ms) if self.times_ms else None

    @property
    def viable(self) -> bool:
        return self.status in ("pending", "ok", "best", "reference")

    def reject(self, status: str, reason: str) -> None:
        self.status, self.reason = status, reason


@dataclass
class TuneResult:
    kernel: str
    candidates: list[Candidate]
    best: Candidate | None
    spec_key: str = ""
    tuning_key: str = ""
    device: str = ""
    bytes_moved: int = 0
    compile_s: float = 0.0  # wall time of compiling (0 with every candidate in the cache)
    check_s: float = 0.0  # wall time of running and comparing each candidate once
    timing_s: float = 0.0  # wall time of the timed runs
    from_cache: bool = False  # the winner came from the tuning store: nothing was run
    stored_at: str | None = None
    compared_on: str = ""  # where the outputs were compared: torch or cupy (on the GPU), host

    @property
    def best_config(self) -> dict[str, int] | None:
        return dict(self.best.config) if self.best is not None else None

    @property
    def compiled(self) -> int:
        return sum(c.compiled for c in self.candidates)

    def gbps(self, candidate: Candidate) -> float | None:
        t = candidate.time_ms
        return self.bytes_moved / (t * 1e6) if t and self.bytes_moved else None

    def rows(self) -> list[dict]:
        """One row per candidate: timed ones fastest first, then the rejected ones."""
        best = self.best.time_ms if self.best is not None else None
        order = sorted(self.candidates, key=lambda c: (c.time_ms is None, c.time_ms or 0.0, c.index))
        out = []
        for c in order:
            t = c.time_ms
            out.append(
                {
                    "candidate": c.name,
                    "config": dict(c.config),
                    "status": c.status,
                    "time_us": None if t is None else t * 1e3,
                    "gbps": self.gbps(c),
                    "vs_best": None if t is None or not best else t / best,
                    "reason": c.reason,
                    "registers": c.resources.registers if c.resources else None,
                    "compiled": c.compiled,
                }
            )
        return out

    def table(self) -> str:
        rows = [
            (
                r["candidate"],
                r["status"],
                "" if r["time_us"] is None else f"{r['time_us']:.2f}",
                "" if r["gbps"] is None else f"{r['gbps']:.0f}",
                "" if r["vs_best"] is None else f"{r['vs_best']:.3f}",
                "" if r["registers"] is None else str(r["registers"]),
                r["reason"],
            )
            for r in self.rows()
        ]
        headers = ("candidate", "status", "time (us)", "GB/s", "vs best", "regs", "rejected because / note")
        widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]

        def line(cells):
            return "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()

        return "\n".join([line(headers), line(["-" * w for w in widths])] + [line(r) for r in rows])

    def to_json(self) -> dict:
        return {
            "kernel": self.kernel,
            "best": self.best_config,
            "spec_key": self.spec_key,
            "tuning_key": self.tuning_key,
            "device": self.device,
            "bytes_moved": self.bytes_moved,
            "compile_s": self.compile_s,
            "check_s": self.check_s,
            "timing_s": self.timing_s,
            "from_cache": self.from_cache,
            "compared_on": self.compared_on,
            "candidates": self.rows(),
        }


# ----------------------------------------------------------------------------- checking and timing


def compare(name: str, dtype: str, got, want, rtol=None, atol=None) -> str | None:
    """Why `got` disagrees with `want` (None: it agrees within the dtype's tolerance).

    numpy arrays are compared on the host; torch tensors and cupy arrays where they are (on the
    GPU: nothing is copied to the host but the few numbers of the message), with the other
    operand moved to them when it is a host array."""
    default = TOLERANCES.get(dtype, (0.0, 0.0))
    rtol = default[0] if rtol is None else rtol
    atol = default[1] if atol is None else atol
    kind = _array_module(got) or _array_module(want)
    if kind == "torch":
        return _compare_torch(name, got, want, rtol, atol)
    if kind == "cupy":
        import cupy

        return _compare_xp(cupy, name, got, want, rtol, atol)
    return _compare_xp(np, name, got, want, rtol, atol)


def _array_module(a) -> str | None:
    """'torch' or 'cupy' for their arrays, None for anything else (numpy)."""
    top = type(a).__module__.split(".", 1)[0]
    return top if top in ("torch", "cupy") else None


def _mismatch(name, count, size, first, got_at, want_at, worst, rtol, atol) -> str:
    where = int(first[0]) if len(first) == 1 else tuple(int(i) for i in first)
    return (
        f"{name} differs from the reference in {count} of {size} elements (first at {where}: "
        f"{got_at:.7g} vs {want_at:.7g}; max abs error {worst:.3g}; rtol {rtol:g}, atol {atol:g})"
    )


def _compare_xp(xp, name, got, want, rtol, atol) -> str | None:
    """compare() with a numpy-like module: numpy on the host, cupy on the device."""
    got, want = xp.asarray(got), xp.asarray(want)
    if got.shape != want.shape:
        return f"{name} has shape {tuple(got.shape)}, the reference {tuple(want.shape)}"
    if got.dtype == want.dtype and bool(xp.array_equal(got, want, equal_nan=got.dtype.kind in "fc")):
        return None  # the common case between candidates: bit-identical
    g, w = got.astype(xp.float64), want.astype(xp.float64)
    both_nan = xp.isnan(g) & xp.isnan(w)
    bad = ~((xp.abs(g - w) <= atol + rtol * xp.abs(w)) | both_nan)
    count = int(xp.count_nonzero(bad))
    if not count:
        return None
    first = np.unravel_index(int(xp.flatnonzero(bad)[0]), bad.shape)
    finite = bad & xp.isfinite(g) & xp.isfinite(w)
    worst = float(xp.max(xp.abs(g - w)[finite])) if bool(finite.any()) else float("nan")
    return _mismatch(name, count, bad.size, first, float(g[first]), float(w[first]), worst, rtol, atol)


def _compare_torch(name, got, want, rtol, atol) -> str | None:
    """compare() on torch tensors, on their device."""
    import torch

    device = got.device if isinstance(got, torch.Tensor) else want.device

    def tensor(a):
        return a if isinstance(a, torch.Tensor) else torch.as_tensor(np.ascontiguousarray(a), device=device)

    got, want = tensor(got), tensor(want).to(device)
    if tuple(got.shape) != tuple(want.shape):
        return f"{name} has shape {tuple(got.shape)}, the reference {tuple(want.shape)}"
    if got.dtype == want.dtype:
        if got.is_floating_point():
            same = bool(((got == want) | (torch.isnan(got) & torch.isnan(want))).all())
        else:
            same = torch.equal(got, want)
        if same:
            return None  # the common case between candidates: bit-identical
    g, w = got.double(), want.double()
    both_nan = torch.isnan(g) & torch.isnan(w)
    bad = ~(((g - w).abs() <= atol + rtol * w.abs()) | both_nan)
    count = int(torch.count_nonzero(bad))
    if not count:
        return None
    first = np.unravel_index(int(torch.argmax(bad.reshape(-1).to(torch.uint8))), tuple(bad.shape))
    at = tuple(int(i) for i in first)
    finite = bad & torch.isfinite(g) & torch.isfinite(w)
    worst = float((g - w).abs()[finite].max()) if bool(finite.any()) else float("nan")
    return _mismatch(name, count, bad.numel(), first, float(g[at]), float(w[at]), worst, rtol, atol)


def _median_samples(samples) -> list[float]:
    if isinstance(samples, (int, float)):
        return [float(samples)]
    return [float(s) for s in samples]


def evaluate(
    cands: list[Candidate],
    runner,
    timer,
    *,
    reference=None,
    rtol=None,
    atol=None,
    progress=None,
) -> tuple[Candidate | None, float, float]:
    """Check every viable candidate against the reference, time those that agree, pick the fastest.

    runner: outputs(candidate) -> list of host arrays (the tensors the kernel writes, after one
    launch on fresh copies of the arguments; raises on a failed launch or fault);
    reference_outputs(fn) -> the same from a user's reference function; launcher(candidate) -> a
    callable that launches once; outputs_info: [(name, dtype)] of those tensors. timer(fn,
    candidate) -> samples in ms (or one number). Returns (best, check seconds, timing seconds)."""
    from . import driver

    t0 = time.perf_counter()
    info = runner.outputs_info
    viable = [c for c in cands if c.viable]
    want = None
    if hasattr(runner, "poison"):
        runner.poison = reference is None
    if reference is not None:
        want = runner.reference_outputs(reference)
    else:  # the most conservative candidate that runs is the reference
        for i in conservative_order([c.config for c in viable]):
            c = viable[i]
            got = _run(c, runner, driver)
            if got is not None:
                want = got
                c.status, c.reason = "reference", "the reference (most conservative candidate)"
                break
        if want is None:
            return None, time.perf_counter() - t0, 0.0
    for c in viable:
        if progress is not None:
            progress.step(c.name)
        if c.status == "reference" or not c.viable:
            continue
        got = _run(c, runner, driver)
        if got is None:
            continue
        for (name, dtype), g, w in zip(info, got, want):
            why = compare(name, dtype, g, w, rtol, atol)
            if why is not None:
                c.reject("wrong", why)
                break
        else:
            c.status = "ok"
    check_s = time.perf_counter() - t0
    t1 = time.perf_counter()
    timed = [c for c in cands if c.status in ("ok", "reference")]
    for c in timed:
        try:
            c.times_ms = _median_samples(timer(runner.launcher(c), c))
        except driver.KernelFault as e:
            _fault(c, e)
        except driver.CudaError as e:
            c.reject("failed", f"timing failed: {e}")
    best = min((c for c in cands if c.times_ms), key=lambda c: (c.time_ms, c.index), default=None)
    if best is not None:
        if best.status == "reference":
            best.reason = "also the reference"
        best.status = "best"
    return best, check_s, time.perf_counter() - t1


def _run(c: Candidate, runner, driver):
    try:
        return runner.outputs(c)
    except driver.KernelFault as e:
        _fault(c, e)
    except driver.CudaError as e:
        c.reject("failed", f"launch failed: {e}")
    except (ValueError, TypeError) as e:  # e.g. a grid outside the candidate's rule
        c.reject("pruned", str(e))
    return None


def _fault(c: Candidate, e) -> None:
    c.reject("faulted", str(e))
    if getattr(e, "name", "") in _sticky():
        raise TuningFault(
            f"candidate {c.name} faulted ({e}); the CUDA context of this process is unusable. It is "
            "recorded as faulting: tuning again in a new process skips it",
            None,
        ) from e


def _sticky() -> set:
    from . import driver

    return driver._STICKY


class EventTimer:
    """Device time of one launch in ms, as triton.testing.do_bench measures it: one run, an estimate
    over 5 runs, warm-up for `warmup_ms`, then `rep_ms` worth of runs (between min_reps and
    max_reps), each preceded by a memset of a buffer larger than the L2 cache (so every run reads
    from DRAM) and bracketed by CUDA events on the stream; the tuner takes the median."""

    def __init__(
        self,
        device=None,
        stream: int = 0,
        *,
        warmup_ms: float = 25.0,
        rep_ms: float = 100.0,
        min_reps: int = 10,
        max_reps: int = 1000,
        flush_bytes: int = 256 << 20,
    ):
        from . import driver

        self.device = device or driver.get_device(0)
        self.stream = stream
        self.warmup_ms, self.rep_ms = warmup_ms, rep_ms
        self.min_reps, self.max_reps = min_reps, max_reps
        self.flush_bytes = flush_bytes
        self._flush = None

    def flush(self) -> None:
        from . import driver

        if self._flush is None:
            self._flush = self.device.alloc(self.flush_bytes)
        driver.check(driver.cu.cuMemsetD32Async(self._flush, 0, self.flush_bytes // 4, self.stream), "cuMemsetD32Async")

    def close(self) -> None:
        if self._flush is not None:
            try:
                self.device.free(self._flush)
            except Exception:
                pass
            self._flush = None

    def __call__(self, fn: Callable[[], None], candidate=None) -> list[float]:
        from . import driver

        cu = driver.cu
        fn()
        driver.synchronize(self.stream)
        events = [driver.check(cu.cuEventCreate(0), "cuEventCreate") for _ in range(2)]
        try:
            driver.check(cu.cuEventRecord(events[0], self.stream), "cuEventRecord")
            for _ in range(5):
                self.flush()
                fn()
            driver.check(cu.cuEventRecord(events[1], self.stream), "cuEventRecord")
            driver.synchronize(self.stream)
            estimate = max(driver.check(cu.cuEventElapsedTime(events[0], events[1]), "cuEventElapsedTime") / 5, 1e-3)
        finally:
            for e in events:
                cu.cuEventDestroy(e)
        warmup = min(self.max_reps, max(1, int(self.warmup_ms / estimate)))
        reps = min(self.max_reps, max(self.min_reps, int(self.rep_ms / estimate)))
        starts = [driver.check(cu.cuEventCreate(0), "cuEventCreate") for _ in range(reps)]
        ends = [driver.check(cu.cuEventCreate(0), "cuEventCreate") for _ in range(reps)]
        try:
            for _ in range(warmup):
                fn()
            for i in range(reps):
                self.flush()
                driver.check(cu.cuEventRecord(starts[i], self.stream), "cuEventRecord")
                fn()
                driver.check(cu.cuEventRecord(ends[i], self.stream), "cuEventRecord")
            driver.synchronize(self.stream)
            return [driver.check(cu.cuEventElapsedTime(s, e), "cuEventElapsedTime") for s, e in zip(starts, ends)]
        finally:
            for e in starts + ends:
                cu.cuEventDestroy(e)


# ----------------------------------------------------------------------------- the device side


def _host_dtype(dtype: str):
    from .interpret import HOST_DTYPES

    return np.uint16 if dtype == "bf16" else HOST_DTYPES[dtype]


def _bf16_to_f32(bits: np.ndarray) -> np.ndarray:
    return (bits.astype(np.uint32) << 16).view(np.float32)


class _DeviceTensor:
    """Device memory shaped like an argument: its extents, element strides and 16-byte alignment
    class, so a launch on it has the argument's specialisation key."""

    def __init__(self, device, view, like_cls):
        self.device = device
        self.dtype = view.dtype
        self.shape = tuple(view.shape)
        from .binding import device_strides

        self.strides = device_strides(view)
        size = ITEMSIZE[view.dtype]
        empty = any(e == 0 for e in self.shape)
        self.nbytes = 0 if empty else size * (1 + sum((e - 1) * s for e, s in zip(self.shape, self.strides)))
        misalign = 0 if view.device == HOST or view.ptr is None else view.ptr % 16
        self.raw = device.alloc(self.nbytes + 16)
        self.ptr = self.raw + misalign  # cuMemAlloc returns 256-byte aligned memory
        self.arg = like_cls(view.dtype, self.shape, strides=self.strides)
        self.arg.__cuda_array_interface__["data"] = (self.ptr, False)

    def fill_from(self, view) -> None:
        from . import driver

        if not self.nbytes:
            return
        if view.device == HOST:
            flat = np.ascontiguousarray(view.host)
            driver.check(driver.cu.cuMemcpyHtoD(self.ptr, flat.ctypes.data, self.nbytes), "cuMemcpyHtoD")
        else:
            driver.check(driver.cu.cuMemcpyDtoD(self.ptr, view.ptr, self.nbytes), "cuMemcpyDtoD")

    def copy_from(self, other: _DeviceTensor) -> None:
        from . import driver

        if self.nbytes:
            driver.check(driver.cu.cuMemcpyDtoD(self.ptr, other.ptr, self.nbytes), "cuMemcpyDtoD")

    def fill_bytes(self, value: int) -> None:
        from . import driver

        if self.nbytes:
            driver.check(driver.cu.cuMemsetD8(self.ptr, value, self.nbytes), "cuMemsetD8")

    def download(self) -> np.ndarray:
        """The elements (not the padding), as a host array (bf16 as float32 values)."""
        from . import driver

        host = _host_dtype(self.dtype)
        raw = np.empty(max(self.nbytes, 1), np.uint8)
        if self.nbytes:
            driver.check(driver.cu.cuMemcpyDtoH(raw.ctypes.data, self.ptr, self.nbytes), "cuMemcpyDtoH")
        item = np.dtype(host).itemsize
        if self.nbytes and self.strides == contiguous_strides(self.shape):  # packed: no second copy
            out = raw.view(host).reshape(self.shape)
        else:
            out = np.lib.stride_tricks.as_strided(
                raw.view(host), self.shape, tuple(s * item for s in self.strides), writeable=False
            ).copy()
        return _bf16_to_f32(out) if self.dtype == "bf16" else out

    def snapshot(self, backend: str):
        """A copy of the elements (not the padding) in device memory, contiguous: a torch tensor or
        a cupy array (bf16 as float32 values, as download gives them). The copy is complete when
        this returns, so the buffer may be written again at once."""
        bits = np.dtype(np.int16 if self.dtype == "bf16" else _host_dtype(self.dtype))
        cai = {
            "shape": self.shape,
            "typestr": bits.str,
            "strides": tuple(s * bits.itemsize for s in self.strides),
            "data": (self.ptr, False),
            "version": 3,
        }
        if backend == "torch":
            import torch

            where = torch.device("cuda", self.device.ordinal)
            out = torch.empty(self.shape, dtype=_TORCH_DTYPES[bits.str](torch), device=where)
            if self.nbytes:
                out.copy_(torch.as_tensor(_ArrayInterface(cai), device=where))
                torch.cuda.current_stream(where).synchronize()
            return out.view(torch.bfloat16).float() if self.dtype == "bf16" else out
        import cupy

        with cupy.cuda.Device(self.device.ordinal):
            if not self.nbytes:
                out = cupy.empty(self.shape, dtype=bits)
            else:
                out = cupy.asarray(_ArrayInterface(cai)).copy()
                cupy.cuda.get_current_stream().synchronize()
            if self.dtype == "bf16":
                out = (out.view(cupy.uint16).astype(cupy.uint32) << 16).view(cupy.float32)
            return out

    def free(self) -> None:
        try:
            self.device.free(self.raw)
        except Exception:
            pass


class _ArrayInterface:
    """Device memory described by a __cuda_array_interface__ (what torch and cupy view)."""

    def __init__(self, cai: dict):
        self.__cuda_array_interface__ = cai


# numpy typestr -> torch dtype (bf16 is read as int16 bits)
_TORCH_DTYPES = {
    "<f2": lambda t: t.float16,
    "<f4": lambda t: t.float32,
    "<f8": lambda t: t.float64,
    "|b1": lambda t: t.bool,
    "|i1": lambda t: t.int8,
    "<i2": lambda t: t.int16,
    "<i4": lambda t: t.int32,
    "<i8": lambda t: t.int64,
}


def compare_backend(views, setting: str | None = None) -> str:
    """Where a tuning compares outputs: 'torch' or 'cupy' (on the GPU) or 'host' (numpy).

    setting (default $PHOBOS_AUTOTUNE_COMPARE, else 'auto'): 'auto' takes the framework of the
    tensor arguments (torch tensors: torch; cupy arrays: cupy), else one the process has already
    imported, else the host (numpy arguments, as `phobos tune` makes, never import either);
    'host', 'torch' or 'cupy' choose. A framework that cannot reach the GPU means the host."""
    setting = (setting or os.environ.get(ENV_COMPARE) or "auto").strip().lower()
    if setting not in ("auto", "host", "torch", "cupy"):
        raise ValueError(f"{ENV_COMPARE} must be auto, host, torch or cupy, got {setting!r}")
    if setting == "host":
        return "host"
    if setting == "auto":
        used = [getattr(v, "framework", None) for v in views if v is not None]
        order = [f for f in ("torch", "cupy") if f in used] + [f for f in ("torch", "cupy") if f in sys.modules]
    else:
        order = [setting]
    for name in dict.fromkeys(order):
        try:
            if name == "torch":
                import torch

                if torch.cuda.is_available():
                    return "torch"
            else:
                import cupy

                if cupy.cuda.runtime.getDeviceCount() > 0:
                    return "cupy"
        except Exception:  # not installed, or no GPU for it: the next, else the host
            continue
    return "host"


class DeviceRunner:
    """Runs candidates on scratch copies of the arguments, on one device and stream.

    Tensors the kernel writes (contract access write/readwrite) get a scratch buffer and a
    pristine copy; read-only device tensors are used in place; host (numpy) arrays are uploaded.
    Each checked run starts from the pristine contents, so a candidate sees exactly the
    arguments of the call, and the caller's tensors are never written. The outputs are compared
    on the GPU (copies as torch tensors or cupy arrays, `compare_on`, see compare_backend) or,
    without either, on the host."""

    def __init__(self, signature, args, views, *, grid=None, stream: int = 0, compare_on: str | None = None):
        from . import driver
        from .aot import like

        self.signature = signature
        self.grid = grid
        self.stream = stream
        self.args = list(args)
        ordinal = next((views[i].device for i in signature.tensors if views[i].device not in (None, HOST)), None)
        self.device = driver.get_device(ordinal or 0)
        self.device.make_current()
        driver.synchronize_context()  # the arguments' producers (other streams) are done
        params = signature.contract["params"]
        self.written = [i for i in signature.tensors if params[i].get("access", "readwrite") != "read"]
        # pure outputs start poisoned (all bits set: NaN, -1) when a candidate is the reference, so
        # a candidate that leaves elements unwritten disagrees even where the old contents were right
        self.write_only = {i for i in self.written if params[i].get("access") == "write"}
        self.poison = True
        self.outputs_info = [(signature.params[i].name, signature.params[i].dtype) for i in self.written]
        self.bytes_moved = _bytes_moved(signature, views)
        self.compare_on = compare_backend([views[i] for i in signature.tensors], compare_on)
        self.compare_fallback: str | None = None  # why the device comparison gave way to the host's
        self._buffers: list[_DeviceTensor] = []
        self._pristine: dict[int, _DeviceTensor] = {}
        self._host_inputs = {i: views[i] for i in signature.tensors}
        launch_args = list(args)
        try:
            for i in signature.tensors:
                v = views[i]
                if i in self.written or v.device == HOST:
                    scratch = self._buffer(v, like)
                    scratch.fill_from(v)
                    launch_args[i] = scratch.arg
                    if i in self.written:
                        pristine = self._buffer(v, like)
                        pristine.copy_from(scratch)
                        self._pristine[i] = pristine
                        self._pristine[i].scratch = scratch
            driver.synchronize_context()
        except BaseException:
            self.close()
            raise
        self.launch_args = tuple(launch_args)

    def _buffer(self, view, like) -> _DeviceTensor:
        t = _DeviceTensor(self.device, view, like)
        self._buffers.append(t)
        return t

    def _launch(self, c: Candidate) -> None:
        c.kernel(*self.launch_args, grid=self.grid, stream=self.stream)

    def outputs(self, c: Candidate) -> list[np.ndarray]:
        from . import driver

        for i, p in self._pristine.items():
            if self.poison and i in self.write_only:
                p.scratch.fill_bytes(0xFF)
            else:
                p.scratch.copy_from(p)
        self._launch(c)
        driver.synchronize(self.stream, kernel=c.name)
        return [self._read(self._pristine[i].scratch) for i in self.written]

    def _read(self, t: _DeviceTensor):
        """The elements of a scratch tensor where they are compared: a device copy, else the host."""
        if self.compare_on != "host":
            try:
                return t.snapshot(self.compare_on)
            except Exception as e:  # the framework refused the memory: compare on the host from now on
                self.compare_fallback = f"{self.compare_on}: {type(e).__name__}: {e}"
                self.compare_on = "host"
        return t.download()

    def reference_outputs(self, fn) -> list[np.ndarray]:
        """Runs the user's reference on host copies of the arguments: it writes the outputs in place
        (like the kernel) or returns them (one array, or a tuple in parameter order)."""
        from .interpret import HOST_DTYPES

        host_args = list(self.args)
        for i in self.signature.tensors:
            p = self._pristine.get(i)
            if p is not None:
                host_args[i] = p.download()
            else:
                v = self._host_inputs[i]
                if v.device == HOST:
                    host_args[i] = np.array(v.host)
                else:
                    tmp = _DeviceTensor(self.device, v, _like())
                    try:
                        tmp.fill_from(v)
                        host_args[i] = tmp.download()
                    finally:
                        tmp.free()
        returned = fn(*host_args)
        if returned is None:
            got = [host_args[i] for i in self.written]
        else:
            got = list(returned) if isinstance(returned, (tuple, list)) else [returned]
            if len(got) != len(self.written):
                names = ", ".join(n for n, _ in self.outputs_info)
                raise ValueError(f"the reference returned {len(got)} arrays; the kernel writes {names}")
        out = []
        for (_name, dtype), g in zip(self.outputs_info, got):
            g = np.asarray(_to_host(g))
            out.append(g.astype(HOST_DTYPES[dtype]) if dtype != "bf16" else g.astype(np.float32))
        return [self._upload(g) for g in out]

    def _upload(self, a: np.ndarray):
        """A host reference output where candidates' outputs are compared (uploaded once)."""
        if self.compare_on == "torch":
            import torch

            return torch.as_tensor(np.ascontiguousarray(a), device=torch.device("cuda", self.device.ordinal))
        if self.compare_on == "cupy":
            import cupy

            with cupy.cuda.Device(self.device.ordinal):
                return cupy.asarray(a)
        return a

    def launcher(self, c: Candidate) -> Callable[[], None]:
        kernel, args, grid, stream = c.kernel, self.launch_args, self.grid, self.stream
        return lambda: kernel(*args, grid=grid, stream=stream)

    def default_timer(self) -> EventTimer:
        return EventTimer(self.device, self.stream)

    def close(self) -> None:
        for b in self._buffers:
            b.free()
        self._buffers = []


def _like():
    from .aot import like

    return like


def _to_host(a):
    if hasattr(a, "detach") and hasattr(a, "cpu"):  # torch
        return a.detach().cpu().numpy()
    if hasattr(a, "get") and hasattr(a, "__cuda_array_interface__"):  # cupy
        return a.get()
    return a


def _bytes_moved(signature, views) -> int:
    """Bytes a launch reads and writes once each: read tensors once, written ones once,
    read-and-written ones twice (what the GB/s column divides by)."""
    params = signature.contract["params"]
    total = 0
    for i in signature.tensors:
        v = views[i]
        n = math.prod(v.shape) * ITEMSIZE.get(v.dtype, 0)
        total += n * (2 if params[i].get("access", "readwrite") == "readwrite" else 1)
    return total


# ----------------------------------------------------------------------------- the winner on disk


class TuningStore:
    """Winners on disk: <root>/autotune/<family>/<digest>.json, digest = hash of the specialisation
    key, the tuning key and the device name; faults.json lists candidates that faulted."""

    def __init__(self, root: os.PathLike):
        self.root = Path(root) / "autotune"

    @staticmethod
    def digest(spec_key: str, tkey: str, device: str) -> str:
        h = hashlib.sha256()
        for part in (spec_key, tkey, device):
            data = part.encode()
            h.update(len(data).to_bytes(8, "little"))
            h.update(data)
        return h.hexdigest()[:20]

    def path(self, family: str, spec_key: str, tkey: str, device: str) -> Path:
        return self.root / family / f"{self.digest(spec_key, tkey, device)}.json"

    def get(self, family: str, spec_key: str, tkey: str, device: str) -> dict | None:
        try:
            record = json.loads(self.path(family, spec_key, tkey, device).read_text())
        except (OSError, ValueError):
            return None
        if (
            record.get("format") != STORE_FORMAT
            or record.get("tuning_key") != tkey
            or record.get("spec_key") != spec_key
        ):
            return None
        return record

    def put(self, family: str, result: TuneResult, extra: dict | None = None) -> Path:
        path = self.path(family, result.spec_key, result.tuning_key, result.device)
        record = dict(result.to_json(), format=STORE_FORMAT, family=family, created=time.time(), **(extra or {}))
        _write_json(path, record)
        return path

    def faults(self, family: str) -> dict[str, str]:
        try:
            return dict(json.loads((self.root / family / "faults.json").read_text()))
        except (OSError, ValueError, TypeError):
            return {}

    def add_fault(self, family: str, name: str, message: str) -> None:
        faults = self.faults(family)
        faults[name] = message
        _write_json(self.root / family / "faults.json", faults)


def _write_json(path: Path, data, sort_keys: bool = True) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(data, f, indent=1, sort_keys=sort_keys)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


# ----------------------------------------------------------------------------- progress


class Progress:
    """A one-line progress bar on stderr when it is a terminal; silent otherwise."""

    def __init__(self, label: str, total: int, stream=None, enabled: bool | None = None):
        self.stream = stream or sys.stderr
        if enabled is None:
            enabled = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.enabled = bool(enabled) and total > 0
        self.label, self.total, self.done = label, total, 0

    def step(self, note: str = "") -> None:
        self.done += 1
        if self.enabled:
            width = 24
            filled = int(width * min(self.done, self.total) / self.total)
            bar = "#" * filled + "." * (width - filled)
            self.stream.write(f"\r{self.label} [{bar}] {min(self.done, self.total)}/{self.total} {note[:40]:<40}")
            self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()


# ----------------------------------------------------------------------------- compiling in parallel


def _compile_job(job: tuple) -> tuple:
    """In a pool worker: compile variants of one candidate into the kernel cache (or an
    ahead-of-time folder): one per key text, then one per example argument list.
    Returns (index, error or None, seconds, keys stored, examples skipped and why)."""
    index, source, kernel, chip, defines, options, cache_root, keys, examples, check = job
    from .kernel import Kernel

    t0 = time.perf_counter()
    stored, skipped = [], []
    try:
        k = Kernel(source, kernel=kernel, chip=chip, defines=defines, options=options, cache_dir=cache_root)
        for key in keys:
            k._variant(SpecKey.from_text(key) if key else SpecKey(), None)
            stored.append(key)
        for args in examples:
            sig = k.signature
            try:  # the grid does not change the variant (kernels without a grid rule need none here)
                binding = sig.bind(args, sig.describe(args), grid=(0, 0, 0), check_promises=check)
            except ValueError as e:  # a broken @aligned promise of this candidate: not its arguments
                skipped.append(str(e))
                continue
            k._variant(binding.key, None)
            stored.append(binding.key.to_text())
    except Exception as e:  # a CompileError, a missing compiler: the candidate's reason
        return index, first_error(e), time.perf_counter() - t0, stored, skipped
    return index, None, time.perf_counter() - t0, list(dict.fromkeys(stored)), skipped


def first_error(e: BaseException) -> str:
    """A one-line reason from an exception (the first error of a CompileError)."""
    records = getattr(e, "records", None)
    if records:
        errors = [r for r in records if getattr(r, "severity", "") == "error"] or records
        r = errors[0]
        where = f"{r.filename}:{r.line}:{r.col}: " if getattr(r, "filename", None) else ""
        return f"compile error: {where}{r.message}"
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0] if text else ''}"


_WORKER = "from phobos.runtime.autotune import _worker_main; _worker_main()"


def _worker_main() -> None:
    """A compile worker: pickled jobs in on stdin, pickled results out on the original stdout (fd 1
    then points at stderr, so nothing a compile prints can corrupt the results); ends at EOF."""
    import pickle

    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    stdin = sys.stdin.buffer
    while True:
        try:
            job = pickle.load(stdin)
        except EOFError:
            break
        pickle.dump(_compile_job(job), out)
        out.flush()


def _worker_env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    return env


def default_jobs(n: int) -> int:
    env = os.environ.get(ENV_JOBS)
    if env:
        try:
            return max(1, int(env))
        except ValueError:
            raise ValueError(f"{ENV_JOBS} must be a positive integer, got {env!r}") from None
    return max(1, min(n, os.cpu_count() or 1))


def compile_all(jobs: list[tuple], *, workers: int | None = None, progress: Progress | None = None) -> dict:
    """Run _compile_job for each job, in worker processes when there are several workers;
    returns {index: (error or None, seconds, keys stored, examples skipped)}."""
    out: dict[int, tuple] = {}
    workers = default_jobs(len(jobs)) if workers is None else max(1, workers)
    if workers == 1 or len(jobs) <= 1:
        for job in jobs:
            index, *rest = _compile_job(job)
            out[index] = tuple(rest)
            if progress is not None:
                progress.step(config_name(job[4]))
        return out
    # Worker processes are fresh interpreters (python -c), each compiling job after job: unlike a
    # multiprocessing pool they never re-import the caller's __main__ (a script without an
    # `if __name__ == "__main__"` guard) and they are safe to start from a process with threads
    # (CUDA, torch); inside a worker each compile is contained in a forked child as usual.
    import pickle
    import queue
    import subprocess
    import threading

    pending: queue.Queue = queue.Queue()
    for job in jobs:
        pending.put(job)
    lock = threading.Lock()

    def drive() -> None:
        proc = None
        try:
            while True:
                try:
                    job = pending.get_nowait()
                except queue.Empty:
                    return
                if proc is None:
                    proc = subprocess.Popen(
                        [sys.executable, "-c", _WORKER],
                        stdin=subprocess.PIPE,
                        stdout=subprocess.PIPE,
                        env=_worker_env(),
                    )
                try:
                    pickle.dump(job, proc.stdin)
                    proc.stdin.flush()
                    index, *rest = pickle.load(proc.stdout)
                except (EOFError, OSError, pickle.UnpicklingError) as e:  # the worker died: this job fails
                    index, rest = job[0], [f"the compile worker died ({type(e).__name__})", 0.0, [], []]
                    proc.kill()
                    proc.wait()
                    proc = None
                with lock:
                    out[index] = tuple(rest)
                    if progress is not None:
                        progress.step(config_name(job[4]))
        finally:
            if proc is not None:
                proc.stdin.close()
                proc.wait()

    n = min(workers, len(jobs))
    with concurrent.futures.ThreadPoolExecutor(max_workers=n) as pool:
        for f in [pool.submit(drive) for _ in range(n)]:
            f.result()
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


# ----------------------------------------------------------------------------- the tuner


class Tuner:
    """The candidates of one kernel and their tuning (shared by compiled and loaded kernels).

    Subclasses say where candidate kernels come from (`_prepare`: compile them, or find them in
    an ahead-of-time folder)."""

    def __init__(self, name: str, family: str, configs, promises, threads, store_root, *, key=None):
        self.name = name
        self.family = family
        self.configs = [dict(c) for c in configs]
        self.promises = list(promises)
        self.threads = list(threads)
        self.store = TuningStore(store_root)
        self.key = key
        self.decisions: dict[tuple, dict[str, int]] = {}  # (spec key, tuning key) -> config, this process
        self.kernels: dict[int, object] = {}  # candidate index -> launchable kernel
        self.last_result: TuneResult | None = None

    def __len__(self) -> int:
        return len(self.configs)

    # subclasses
    def candidate_kernel(self, index: int):
        raise NotImplementedError

    def _prepare(self, cands: list[Candidate], spec_key: str, progress: Progress | None, jobs) -> float:
        """Make every viable candidate's variant for `spec_key` available; returns wall seconds."""
        raise NotImplementedError

    def chip(self) -> str:
        raise NotImplementedError

    # ------------------------------------------------------------------------- decisions

    def index_of(self, config: dict) -> int | None:
        try:
            return self.configs.index({k: int(v) for k, v in config.items()})
        except (ValueError, TypeError, AttributeError):
            return None

    def decide(self, signature, args, views, spec_key: str, *, grid=None) -> int:
        """The candidate for a launch on `args`: this process's decision, the store's, or a tuning now."""
        tkey = tuning_key(signature, args, views, self.key)
        known = self.decisions.get((spec_key, tkey))
        if known is not None:
            return self.index_of(known)
        device = _device_name(views, signature)
        record = self.store.get(self.family, spec_key, tkey, device)
        if record is not None and self.index_of(record.get("best") or {}) is not None:
            self.decisions[(spec_key, tkey)] = record["best"]
            return self.index_of(record["best"])
        result = self.tune(signature, args, views, spec_key, grid=grid, tkey=tkey, device=device)
        return self.index_of(result.best.config)

    def screen(
        self, signature, args, views, spec_key: str, *, jobs=None, progress=None, runner=None, tkey=None, device=None
    ) -> TuneResult:
        """The steps before running anything: candidates that faulted before, that break an @aligned
        promise for these arguments, that fail to compile, or that exceed the chip's registers or
        shared memory are rejected with the reason; the others are compiled (or found) for
        `spec_key`. Needs no GPU (phobos tune --compile-only)."""
        tkey = tuning_key(signature, args, views, self.key) if tkey is None else tkey
        device = device or _device_name(views, signature)
        cands = [
            Candidate(i, dict(c), self.promises[i], self.threads[i] if i < len(self.threads) else None)
            for i, c in enumerate(self.configs)
        ]
        extents = _extents(signature, views)
        faults = self.store.faults(self.family)
        for c in cands:
            if c.name in faults:
                c.reject("faulted", f"faulted in an earlier tuning run: {faults[c.name]}")
                continue
            why = promise_violation(c.promises or {}, extents)
            if why:
                c.reject("pruned", why)
        show = Progress(f"{self.name}: compile", sum(c.viable for c in cands), enabled=progress)
        compile_s = self._prepare(cands, spec_key, show, jobs)
        show.close()
        limits = None
        for c in cands:
            if not c.viable:
                continue
            c.kernel = self.candidate_kernel(c.index)
            try:
                variant = c.kernel._variant(SpecKey.from_text(spec_key) if spec_key else SpecKey(), None)
            except Exception as e:
                c.reject("failed", first_error(e))
                continue
            why = promise_violation({s: d for s, d in variant.signature.promises}, extents)
            if why:
                c.reject("pruned", why)
                continue
            c.threads = variant.signature.threads
            c.resources = cubin_resources(variant.cubin, variant.signature.entry)
            if limits is None:
                limits = self._limits(runner)
            why = resource_violation(c.resources, c.threads, variant.signature.shared_bytes, limits)
            if why:
                c.reject("pruned", why)
        return TuneResult(self.name, cands, None, spec_key, tkey, device, compile_s=compile_s)

    def tune(
        self,
        signature,
        args,
        views,
        spec_key: str,
        *,
        grid=None,
        tkey: str | None = None,
        device: str | None = None,
        reference=None,
        timer=None,
        runner=None,
        force: bool = True,
        jobs: int | None = None,
        progress: bool | None = None,
        rtol=None,
        atol=None,
        store: bool = True,
        stream=None,
    ) -> TuneResult:
        """Tune for `args`: prune, compile, check, time; store and return the result.

        force=False returns the stored winner when there is one (nothing runs)."""
        tkey = tuning_key(signature, args, views, self.key) if tkey is None else tkey
        device = device or _device_name(views, signature)
        if not force:
            record = self.store.get(self.family, spec_key, tkey, device)
            if record is not None and self.index_of(record.get("best") or {}) is not None:
                best = Candidate(self.index_of(record["best"]), dict(record["best"]), status="best")
                self.decisions[(spec_key, tkey)] = best.config
                return TuneResult(self.name, [best], best, spec_key, tkey, device, from_cache=True)
        result = self.screen(
            signature, args, views, spec_key, jobs=jobs, progress=progress, runner=runner, tkey=tkey, device=device
        )
        cands = result.candidates
        if not any(c.viable for c in cands):
            raise TuningError(self._none_left(cands), result)
        own_runner = runner is None
        if own_runner:
            runner = DeviceRunner(signature, args, views, grid=grid, stream=0 if stream is None else stream)
        try:
            timer = timer or runner.default_timer()
            result.bytes_moved = getattr(runner, "bytes_moved", 0)
            show = Progress(f"{self.name}: check and time", sum(c.viable for c in cands), enabled=progress)
            try:
                best, result.check_s, result.timing_s = evaluate(
                    cands, runner, timer, reference=reference, rtol=rtol, atol=atol, progress=show
                )
            except TuningFault as e:
                faulted = [c for c in cands if c.status == "faulted" and not c.reason.startswith("faulted in")]
                for c in faulted:
                    self.store.add_fault(self.family, c.name, c.reason)
                e.result = result
                raise
            finally:
                show.close()
                if own_runner and hasattr(timer, "close"):
                    timer.close()
                result.compared_on = getattr(runner, "compare_on", "host")
                if getattr(runner, "compare_fallback", None):
                    result.compared_on += f" (device comparison failed: {runner.compare_fallback})"
        finally:
            if own_runner:
                runner.close()
        result.best = best
        self.last_result = result
        if best is None:
            raise TuningError(self._none_left(cands), result)
        self.decisions[(spec_key, tkey)] = dict(best.config)
        if store:
            try:
                result.stored_at = str(self.store.put(self.family, result))
            except OSError:
                result.stored_at = None  # a read-only cache: the decision still holds in this process
        return result

    def _limits(self, runner) -> Limits:
        device = getattr(runner, "device", None)
        if device is not None and hasattr(device, "handle"):
            try:
                return device_limits(device)
            except Exception:
                pass
        return chip_limits(self.chip())

    def _none_left(self, cands: list[Candidate]) -> str:
        lines = [f"{self.name}: no @autotune candidate compiles, runs and agrees with the reference:"]
        lines += [f"  {c.name}: {c.status}: {c.reason}" for c in cands]
        return "\n".join(lines)


def _extents(signature, views) -> dict[str, int]:
    out: dict[str, int] = {}
    for i in signature.tensors:
        for dim, extent in zip(signature.params[i].dims, views[i].shape):
            if dim is not None:
                out.setdefault(dim, int(extent))
    return out


def _device_name(views, signature) -> str:
    """The GPU's name (winners are per device); 'unknown' where no driver answers."""
    from . import driver

    try:
        ordinal = next((views[i].device for i in signature.tensors if views[i].device not in (None, HOST)), 0)
        return driver.get_device(ordinal or 0).name
    except Exception:
        return "unknown"


class SourceTuner(Tuner):
    """Candidates of a kernel compiled from .ph source: one phobos Kernel per config (its defines),
    compiled in a process pool into the kernel cache."""

    def __init__(self, kernel, space: SourceSpace, *, key=None):
        from . import cache as _cache

        super().__init__(
            kernel.kernel_name or kernel.origin,
            kernel.family,
            space.configs,
            space.promises,
            space.threads,
            kernel.cache.root,
            key=key,
        )
        self.base = kernel
        self.space = space
        self._cache = _cache

    def chip(self) -> str:
        return self.base.chip

    def candidate_kernel(self, index: int):
        k = self.kernels.get(index)
        if k is None:
            from .kernel import Kernel

            b = self.base
            defines = dict(b.defines, **self.configs[index])
            k = self.kernels[index] = Kernel(
                b._compile_source if isinstance(b._compile_source, str) else b._text,
                kernel=b.kernel_name,
                chip=b.chip,
                defines=defines,
                options=b.options,
                cache_dir=b.cache.root,
            )
        return k

    def _prepare(self, cands, spec_key, progress, jobs) -> float:
        t0 = time.perf_counter()
        work = []
        for c in cands:
            if not c.viable:
                continue
            k = self.candidate_kernel(c.index)
            if k.cache.get(k.family, spec_key) is not None:
                continue  # in the kernel cache: nothing to compile
            b = self.base
            source = b._compile_source if isinstance(b._compile_source, str) else b._text
            work.append(
                (c.index, source, b.kernel_name, b.chip, k.defines, b.options, str(b.cache.root), [spec_key], [], True)
            )
        if progress is not None:
            progress.total = len(work)
            progress.enabled = progress.enabled and bool(work)
        done = compile_all(work, workers=jobs, progress=progress)
        for c in cands:
            if c.index in done:
                error, seconds = done[c.index][:2]
                c.compiled, c.compile_s = True, seconds
                if error:
                    c.reject("failed", error)
        return time.perf_counter() - t0 if work else 0.0


class FolderTuner(Tuner):
    """Candidates compiled ahead of time into a folder (phobos aot --all-candidates): nothing is
    compiled, a variant missing for the arguments' key is that candidate's failure."""

    def __init__(self, folder: Path, manifest: dict, kernels: dict[int, object], *, key=None):
        store_root = folder if os.access(folder, os.W_OK) else None
        if store_root is None:
            from .cache import default_root

            store_root = default_root()
        configs = [c["config"] for c in manifest["candidates"]]
        super().__init__(
            manifest["kernel"],
            manifest["family"],
            configs,
            [c.get("promises") for c in manifest["candidates"]],
            [c.get("threads") for c in manifest["candidates"]],
            store_root,
            key=key,
        )
        self.manifest = manifest
        self.kernels = dict(kernels)
        self.folder = folder

    def chip(self) -> str:
        return self.manifest.get("chip", "sm_90")

    def candidate_kernel(self, index: int):
        return self.kernels[index]

    def _prepare(self, cands, spec_key, progress, jobs) -> float:
        for c in cands:
            entry = self.manifest["candidates"][c.index]
            if c.viable and c.index not in self.kernels:
                c.reject("failed", entry.get("reason") or "not compiled into the folder")
        return 0.0


# ----------------------------------------------------------------------------- ahead of time


MANIFEST = "autotune.json"


def compile_candidates(
    source,
    out_dir,
    *,
    kernel: str | None = None,
    chip: str,
    defines: dict | None = None,
    options: dict | None = None,
    keys=(),
    examples=(),
    check: bool = True,
    jobs: int | None = None,
    progress: bool | None = None,
    generic: bool = True,
    stages: bool = True,
) -> dict:
    """Every candidate of a .ph kernel into `out_dir`: candidates/<config>/ (an ahead-of-time folder
    each, with the generic variant and one variant per key and per example) and autotune.json, the
    manifest phobos.load(out_dir) tunes from. An example that breaks a candidate's @aligned promise
    is skipped for that candidate (tuning prunes it for such arguments); one that no candidate takes
    is an error. Returns the manifest.

    generic=False leaves the generic variant out (then only arguments with the keys of `keys` and
    `examples` launch); stages=False drops the stage texts (asm/: tile, gpu, llvm, ptx) once
    compiled, keeping the cubins, contracts and tile programs, all that launching and tuning read:
    a GEMM variant shrinks from about 450 KB to 60 KB."""
    import shutil

    from .fingerprint import compiler_fingerprint
    from .kernel import Kernel

    if not generic and not keys and not examples:
        raise ValueError("generic=False needs keys or examples: there would be no variant to compile")

    base = Kernel(source, kernel=kernel, chip=chip, defines=defines, options=options, cache_dir=out_dir)
    space = source_space(base._text, base.origin, kernel, defines)
    if space is None:
        raise ValueError(
            f"{base.origin}: compiling every @autotune candidate needs one .ph kernel that the front end "
            "accepts (the constants of MLIR input are bound in the IR; choose a kernel with --kernel)"
        )
    out = Path(out_dir)
    key_texts = [""] if generic else []
    key_texts += [k.to_text() if isinstance(k, SpecKey) else SpecKey.from_text(str(k)).to_text() for k in keys]
    examples = [tuple(e) for e in examples]
    src = base._compile_source if isinstance(base._compile_source, str) else base._text
    t0 = time.perf_counter()
    # Without the generic variant the workers cannot bind the examples (a kernel's signature comes
    # from its generic variant): their keys are computed here, once, from the tile stage's contract
    # (the parameters; no GPU code), and each candidate's @aligned promises from the front end.
    presets: dict[int, tuple[list[str], list[str]]] = {}
    if not generic and examples:
        presets = _example_keys(base, space, examples, check)
    work = []
    for i, config in enumerate(space.configs):
        folder = out / "candidates" / config_folder(config)
        full = dict(defines or {}, **config)
        keys_i, examples_i = (key_texts + presets[i][0], []) if presets else (key_texts, examples)
        work.append((i, src, kernel, chip, full, dict(options or {}), str(folder), keys_i, examples_i, check))
    show = Progress("aot: compile candidates", len(work), enabled=progress)
    workers = min(default_jobs(len(work)) if jobs is None else max(1, jobs), len(work))
    done = compile_all(work, workers=jobs, progress=show)
    show.close()
    wall = time.perf_counter() - t0
    if not stages:
        for stage_texts in (out / "candidates").glob("*/*/*/asm"):
            shutil.rmtree(stage_texts, ignore_errors=True)
    entries = []
    for i, config in enumerate(space.configs):
        error, seconds, stored, skipped = done[i]
        if presets:
            skipped = presets[i][1] + list(skipped)
        entry = {
            "config": config,
            "folder": f"candidates/{config_folder(config)}",
            "promises": space.promises[i],
            "threads": space.threads[i],
            "status": "failed" if error else "ok",
            "compile_s": seconds,
            "keys": stored,
            "skipped_examples": skipped,
        }
        if error:
            entry["reason"] = error
        entries.append(entry)
    ok = [e for e in entries if e["status"] == "ok"]
    if examples and ok and all(len(e["skipped_examples"]) == len(examples) for e in ok):
        raise ValueError(f"no candidate of {base.origin} takes the example arguments: {ok[0]['skipped_examples'][0]}")
    names = sorted({e.kernel for e in _cache_entries(out / ok[0]["folder"])}) if ok else []
    manifest = {
        "format": STORE_FORMAT,
        "kernel": names[0] if names else (kernel or base.origin),
        "source": base.origin,
        "family": base.family,
        "chip": chip,
        "defines": dict(defines or {}),
        "options": dict(options or {}),
        "space": space.space,
        "fixed": space.fixed,
        "fingerprint": compiler_fingerprint(),
        "compile_wall_s": wall,
        "compile_workers": workers,
        "variants": sum(len(e["keys"]) for e in entries),
        "candidates": entries,
    }
    _write_json(out / MANIFEST, manifest, sort_keys=False)  # configs in declaration order, as the table names them
    return manifest


def _example_keys(base, space: SourceSpace, examples, check: bool) -> dict[int, tuple[list[str], list[str]]]:
    """{candidate index: (key texts of the examples it takes, why it skips the others)}."""
    from .binding import Signature

    sig = Signature(base._tile_stage()[1])
    bound = []
    for args in examples:
        views = sig.describe(args)
        key = sig.bind(args, views, grid=(0, 0, 0), check_promises=False).key.to_text()
        bound.append((key, _extents(sig, views)))
    out = {}
    for i in range(len(space.configs)):
        keys, skipped = [], []
        for key, extents in bound:
            why = promise_violation(space.promises[i], extents) if check else None
            if why:
                skipped.append(f"{sig.name}: {why}")
            else:
                keys.append(key)
        out[i] = (list(dict.fromkeys(keys)), skipped)
    return out


def _cache_entries(folder: Path) -> list:
    from .cache import Cache

    return list(Cache(folder).entries())


def load_manifest(folder: Path) -> dict | None:
    path = Path(folder) / MANIFEST
    if not path.is_file():
        return None
    manifest = json.loads(path.read_text())
    if manifest.get("format") != STORE_FORMAT:
        raise ValueError(f"{path}: unknown autotune manifest format {manifest.get('format')!r}")
    return manifest
