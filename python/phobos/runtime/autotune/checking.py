"""Checking candidates against the reference (per-dtype tolerances, on the host or where the
tensors are) and timing them (EventTimer: CUDA events, the L2 flushed, the median)."""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from ... import fp8
from .results import Candidate, TuningFault
from .space import conservative_order

# (rtol, atol) per element type, as torch.testing.assert_close; integers and bools must match exactly.
TOLERANCES = {"f16": (1e-3, 1e-5), "bf16": (1.6e-2, 1e-5), "f32": (1.3e-6, 1e-5), "f64": (1e-7, 1e-7)}
# fp8: one unit in the last place, relative (2^-mantissa bits) and near zero (the smallest subnormal),
# as f16's is about one unit: candidates that sum in another order may round to the neighbouring code.
TOLERANCES.update(
    {f.name: (2.0**-f.mantissa_bits, 2.0 ** (1 - f.bias - f.mantissa_bits)) for f in fp8.FORMATS.values()}
)


# ----------------------------------------------------------------------------- checking and timing


def compare(name: str, dtype: str, got, want, rtol=None, atol=None) -> str | None:
    """Why `got` disagrees with `want` (None: it agrees within the dtype's tolerance).

    numpy arrays are compared on the host; torch tensors and cupy arrays where they are (on the
    GPU: nothing is copied to the host but the few numbers of the message), with the other
    operand moved to them when it is a host array."""
    default = TOLERANCES.get(dtype, (0.0, 0.0))
    scaled = atol is None  # the default: also rtol x the largest reference magnitude (below)
    rtol = default[0] if rtol is None else rtol
    atol = default[1] if atol is None else atol
    kind = _array_module(got) or _array_module(want)
    codes = dtype if dtype in fp8.FORMATS else None
    if kind == "torch":
        return _compare_torch(name, got, want, rtol, atol, fp8_codes=codes, scaled=scaled)
    if kind == "cupy":
        import cupy

        return _compare_xp(cupy, name, got, want, rtol, atol, fp8_codes=codes, scaled=scaled)
    return _compare_xp(np, name, got, want, rtol, atol, fp8_codes=codes, scaled=scaled)


# Candidates that sum in another order (attention's key blocks of another width, a GEMM's other K
# split) differ by a few units of the output's largest magnitudes, not of each element's own: an
# element near zero amid larger ones may differ by far more than rtol of itself. Unless the caller
# gives atol, each element's tolerance is at least rtol times the largest finite reference
# magnitude (a wrong candidate, off by the values themselves, still fails). With f16's 1e-3 alone, every
# attention candidate whose key block differed from the reference's was rejected as wrong.


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


def _fp8_table(name: str) -> np.ndarray:
    """The value (float32) of each of the 256 codes of the fp8 type `name`."""
    return fp8.decode(np.arange(256, dtype=np.uint8), name)


def _compare_xp(xp, name, got, want, rtol, atol, *, fp8_codes=None, scaled=False) -> str | None:
    """compare() with a numpy-like module: numpy on the host, cupy on the device. fp8_codes: the
    fp8 type whose codes uint8 arrays hold (decoded to values: codes are no numbers to compare)."""
    got, want = xp.asarray(got), xp.asarray(want)
    if got.shape != want.shape:
        return f"{name} has shape {tuple(got.shape)}, the reference {tuple(want.shape)}"
    if got.dtype == want.dtype and bool(xp.array_equal(got, want, equal_nan=got.dtype.kind in "fc")):
        return None  # the common case between candidates: bit-identical
    if fp8_codes is not None:
        table = xp.asarray(_fp8_table(fp8_codes))
        got, want = (table[a] if a.dtype == np.uint8 else a for a in (got, want))
    g, w = got.astype(xp.float64), want.astype(xp.float64)
    tol = atol + rtol * xp.abs(w)
    if scaled and w.size:
        finite = xp.abs(w[xp.isfinite(w)])
        tol = xp.maximum(tol, rtol * float(finite.max())) if finite.size else tol
    both_nan = xp.isnan(g) & xp.isnan(w)
    with np.errstate(invalid="ignore"):  # inf - inf: infinities agree only when equal (g == w)
        bad = ~((g == w) | (xp.isfinite(w) & (xp.abs(g - w) <= tol)) | both_nan)
    count = int(xp.count_nonzero(bad))
    if not count:
        return None
    first = np.unravel_index(int(xp.flatnonzero(bad)[0]), bad.shape)
    finite = bad & xp.isfinite(g) & xp.isfinite(w)
    worst = float(xp.max(xp.abs(g - w)[finite])) if bool(finite.any()) else float("nan")
    return _mismatch(name, count, bad.size, first, float(g[first]), float(w[first]), worst, rtol, atol)


def _compare_torch(name, got, want, rtol, atol, *, fp8_codes=None, scaled=False) -> str | None:
    """compare() on torch tensors, on their device (fp8_codes: as for _compare_xp)."""
    import torch

    device = got.device if isinstance(got, torch.Tensor) else want.device

    def tensor(a):
        return a if isinstance(a, torch.Tensor) else torch.as_tensor(np.ascontiguousarray(a), device=device)

    got, want = tensor(got), tensor(want).to(device)
    # torch's uint32 (2.3+) has few kernels beyond conversion: compare u32 values as int64 (exact)
    u32 = getattr(torch, "uint32", None)
    got, want = (a.to(torch.int64) if a.dtype == u32 else a for a in (got, want))
    if tuple(got.shape) != tuple(want.shape):
        return f"{name} has shape {tuple(got.shape)}, the reference {tuple(want.shape)}"
    if got.dtype == want.dtype:
        if got.is_floating_point():
            same = bool(((got == want) | (torch.isnan(got) & torch.isnan(want))).all())
        else:
            same = torch.equal(got, want)
        if same:
            return None  # the common case between candidates: bit-identical
    if fp8_codes is not None:
        table = torch.as_tensor(_fp8_table(fp8_codes), device=device)
        got, want = (table[a.long()] if a.dtype == torch.uint8 else a for a in (got, want))
    g, w = got.double(), want.double()
    tol = atol + rtol * w.abs()
    if scaled and w.numel():
        finite = w[torch.isfinite(w)].abs()
        tol = tol.clamp(min=rtol * float(finite.max())) if finite.numel() else tol
    both_nan = torch.isnan(g) & torch.isnan(w)
    bad = ~((g == w) | (torch.isfinite(w) & ((g - w).abs() <= tol)) | both_nan)
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
    from .. import driver

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
    from .. import driver

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
        from .. import driver

        self.device = device or driver.get_device(0)
        self.stream = stream
        self.warmup_ms, self.rep_ms = warmup_ms, rep_ms
        self.min_reps, self.max_reps = min_reps, max_reps
        self.flush_bytes = flush_bytes
        self._flush = None

    def flush(self) -> None:
        from .. import driver

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
        from .. import driver

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
