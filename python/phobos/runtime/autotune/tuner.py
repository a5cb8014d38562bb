"""The tuner of one kernel: decide (this process's decision, the store's, or a tuning now), screen
(prune and compile), tune (check and time, store the winner). SourceTuner compiles candidates from
source; FolderTuner finds them in an ahead-of-time folder."""

from __future__ import annotations

import os
import time
from pathlib import Path

from phobos.contract.specialization import SpecKey

from ..arrays import HOST
from .checking import evaluate
from .cost_model import chip_model
from .default import DefaultChoice, choose_default
from .device import DeviceRunner
from .parallel import compile_all, first_error
from .progress import Progress
from .register_floor import floor_pruned
from .resources import Limits, chip_limits, cubin_resources, device_limits, resource_violation
from .results import Candidate, TuneResult, TuningError, TuningFault, TuningStore
from .space import SourceSpace, promise_violation, symbol_extents, tuning_key
from .tile_facts import TileFacts, source_facts


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
        self.last_default: DefaultChoice | None = None
        self._facts: list[TileFacts | None] | None = None

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

    def tile_facts(self) -> list[TileFacts | None]:
        """Each candidate's static facts for the cost model (None where unknown)."""
        return [None] * len(self.configs)

    def available(self) -> set[int] | None:
        """The candidates that can launch without compiling anything new (None: any, compiled on use)."""
        return None

    # ------------------------------------------------------------------------- decisions

    def index_of(self, config: dict) -> int | None:
        try:
            return self.configs.index({k: int(v) for k, v in config.items()})
        except (ValueError, TypeError, AttributeError):
            return None

    def decide(self, signature, args, views, spec_key: str, *, grid=None, tune: bool = True) -> int:
        """The candidate for a launch on `args`: this process's decision, the store's, or a tuning
        now (tune=False: the untuned default, default.py)."""
        tkey = tuning_key(signature, args, views, self.key)
        known = self.decisions.get((spec_key, tkey))
        if known is not None:
            return self.index_of(known)
        device = _device_name(views, signature)
        record = self.store.get(self.family, spec_key, tkey, device)
        if record is not None and self.index_of(record.get("best") or {}) is not None:
            self.decisions[(spec_key, tkey)] = record["best"]
            return self.index_of(record["best"])
        if not tune:
            self.last_default = self.default_choice(symbol_extents(signature, views), device=device, views=views)
            return self.last_default.index
        result = self.tune(signature, args, views, spec_key, grid=grid, tkey=tkey, device=device)
        return self.index_of(result.best.config)

    def default_choice(self, extents: dict[str, int], *, device: str | None = None, views=None) -> DefaultChoice:
        """The candidate an untuned launch with these extents runs, and why (the cost model's pick)."""
        if self._facts is None:
            self._facts = self.tile_facts()
        chip = chip_model(self.chip(), sms=_sm_count(views), device_name=device)
        return choose_default(
            self.configs, self._facts, extents, chip, promises=self.promises, available=self.available()
        )

    def screen(
        self, signature, args, views, spec_key: str, *, jobs=None, progress=None, runner=None, tkey=None, device=None
    ) -> TuneResult:
        """The steps before running anything: candidates that faulted before, that break an @aligned
        promise for these arguments, whose carried dot sum cannot fit a thread's registers
        (register_floor.py), that fail to compile, or that exceed the chip's registers or shared
        memory are rejected with the reason; the others are compiled (or found) for `spec_key`.
        Needs no GPU (phobos tune --compile-only)."""
        tkey = tuning_key(signature, args, views, self.key) if tkey is None else tkey
        device = device or _device_name(views, signature)
        cands = [
            Candidate(i, dict(c), self.promises[i], self.threads[i] if i < len(self.threads) else None)
            for i, c in enumerate(self.configs)
        ]
        extents = symbol_extents(signature, views)
        faults = self.store.faults(self.family)
        for c in cands:
            if c.name in faults:
                c.reject("faulted", f"faulted in an earlier tuning run: {faults[c.name]}")
                continue
            why = promise_violation(c.promises or {}, extents)
            if why:
                c.reject("pruned", why)
        limits = self._limits(runner)
        self._prune_on_register_floor(cands, limits)
        show = Progress(f"{self.name}: compile", sum(c.viable for c in cands), enabled=progress)
        compile_s = self._prepare(cands, spec_key, show, jobs)
        show.close()
        for c in cands:
            if not c.viable:
                continue
            c.kernel = self.candidate_kernel(c.index)
            try:
                variant = c.kernel.variant(SpecKey.from_text(spec_key) if spec_key else SpecKey())
            except Exception as e:
                c.reject("failed", first_error(e))
                continue
            why = promise_violation({s: d for s, d in variant.signature.promises}, extents)
            if why:
                c.reject("pruned", why)
                continue
            c.threads = variant.signature.threads
            c.resources = cubin_resources(variant.cubin, variant.signature.entry)
            why = resource_violation(c.resources, c.threads, variant.signature.shared_bytes, limits)
            if why:
                c.reject("pruned", why)
        return TuneResult(self.name, cands, None, spec_key, tkey, device, compile_s=compile_s)

    def _prune_on_register_floor(self, cands: list[Candidate], limits: Limits) -> None:
        """Prunes, before compiling, the viable candidates whose carried dot sum alone needs more
        registers than a thread may have, while another viable one fits (register_floor.py)."""
        if self._facts is None:
            self._facts = self.tile_facts()
        viable = {c.index for c in cands if c.viable}
        for index, why in floor_pruned(self._facts, limits, among=viable).items():
            cands[index].reject("pruned", why)

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


def _device_name(views, signature) -> str:
    """The GPU's name (winners are per device); 'unknown' where no driver answers."""
    from .. import driver

    try:
        ordinal = next((views[i].device for i in signature.tensors if views[i].device not in (None, HOST)), 0)
        return driver.get_device(ordinal or 0).name
    except Exception:
        return "unknown"


def _sm_count(views) -> int | None:
    """The SM count of the GPU the arguments are on (None without a driver: the chip's table)."""
    from .. import driver

    try:
        ordinal = next((v.device for v in views or () if getattr(v, "device", None) not in (None, HOST)), 0)
        device = driver.get_device(ordinal or 0)
        attr = driver.cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT
        return int(driver.check(driver.cu.cuDeviceGetAttribute(attr, device.handle), "SM count"))
    except Exception:
        return None


class SourceTuner(Tuner):
    """Candidates of a kernel compiled from .ph source: one phobos Kernel per config (its defines),
    compiled in a process pool into the kernel cache."""

    def __init__(self, kernel, space: SourceSpace, *, key=None):
        from .. import cache as _cache

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

    def tile_facts(self) -> list[TileFacts | None]:
        b = self.base
        configs = [dict(b.defines, **c) for c in self.configs]
        return source_facts(b.source_text, b.origin, b.kernel_name, configs)

    def candidate_kernel(self, index: int):
        k = self.kernels.get(index)
        if k is None:
            from ..kernel import Kernel

            b = self.base
            defines = dict(b.defines, **self.configs[index])
            k = self.kernels[index] = Kernel(
                b.portable_source,
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
            source = b.portable_source
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
            from ..cache import default_root

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

    def tile_facts(self) -> list[TileFacts | None]:
        """From the manifest (phobos aot --all-candidates records them); None for older folders."""
        return [TileFacts.from_json(c["facts"]) if c.get("facts") else None for c in self.manifest["candidates"]]

    def available(self) -> set[int] | None:
        return set(self.kernels)

    def candidate_kernel(self, index: int):
        return self.kernels[index]

    def _prepare(self, cands, spec_key, progress, jobs) -> float:
        for c in cands:
            entry = self.manifest["candidates"][c.index]
            if c.viable and c.index not in self.kernels:
                status = "pruned" if entry.get("status") == "pruned" else "failed"
                c.reject(status, entry.get("reason") or "not compiled into the folder")
        return 0.0
