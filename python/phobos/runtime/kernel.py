"""Kernel objects: what `phobos.compile` and `phobos.load` return.

    k = phobos.compile("examples/scale.ph")      # lazy: nothing is compiled yet
    k(x, y, 2.0)                                 # grid from the kernel's rule
    k[(m_tiles, n_tiles)](x, y, 2.0)              # or an explicit grid, Triton style
    k.asm["ptx"]                                 # stage texts of the variant last used
    k.interpret(x, y, 2.0)                       # on the CPU with NumPy (PHOBOS_INTERPRET=1: every call)

A launch computes the specialisation key of its arguments (alignment and
divisibility of pointers, extents, strides, integer scalars) and runs the
variant compiled for that key: from memory, else from the on-disk cache, else
compiled now (which needs MLIR; without it the error says how to compile ahead
of time). Argument layouts seen before skip the checks and the key: a Plan
(phobos.runtime.launch) per checked layout, and for torch tensors and cupy
arrays a generated front that finds it in one dictionary lookup
(phobos.runtime.fastpath).

`phobos.load(folder)` launches from an ahead-of-time folder without the
source: each launch picks the most specialised variant in the folder whose
key the arguments satisfy.
"""

from __future__ import annotations

import numbers
import os
from collections.abc import Mapping
from pathlib import Path

from phobos.contract.fingerprint import compiler_fingerprint
from phobos.contract.specialization import SpecKey, divisibility_class, implies, strength
from phobos.target import default_chip

from . import arrays, driver, fastpath
from . import autotune as _autotune
from . import cache as _cache
from . import check_record as _check_record
from . import interpret as _interpret
from . import source_check as _source_check
from .arrays import HOST
from .binding import Signature, bind_keywords
from .calling import Calls
from .launch import UNPACKABLE, Plan, Variant, current_device, stream_handle
from .repack import padded_view, plan_repack

_MAX_PLANS = 512


def _repack_enabled() -> bool:
    """PHOBOS_REPACK=0 turns repacking off (repack.py): operands TMA cannot read then run as they are."""
    return os.environ.get("PHOBOS_REPACK", "1") != "0"


class CompilerUnavailableError(RuntimeError):
    """A variant is missing from the cache and this machine cannot compile (no MLIR)."""


def _key_text(key) -> str:
    if key is None:
        return ""
    if isinstance(key, SpecKey):
        return key.to_text()
    return SpecKey.from_text(str(key)).to_text()


class _Launchable(Calls):
    """Argument binding and the launch paths, shared by compiled and loaded kernels (how they are
    called, `k(...)` and `k[grid](...)`: runtime.calling)."""

    def __init__(self):
        self._plans: dict[tuple, Plan] = {}  # checked layout -> plan (the generic path)
        self._fast: fastpath.FastPath | None = None  # generated per signature (runtime.fastpath)
        # What a checked launch tries first: the launcher of the torch/cupy layout launched last
        # (runtime.fastpath), else the dispatcher of the fast path's table, else nothing (_miss).
        self._front = fastpath._miss  # for k[grid](...): front(args, grid, stream, sync)
        self._call = self._call_any  # for k(...): the same launcher, with the signature of a call
        self._grids: dict = {}  # k[grid] of int and tuple grids, made once
        self._signature: Signature | None = None
        self._last: Variant | None = None
        self._program: tuple[dict, Signature] | None = None  # for the interpreter
        self._interpreting = _interpret.enabled()  # PHOBOS_INTERPRET: every call runs in the interpreter
        if self._interpreting:
            self._front = self._interpret_front
        # @autotune (phobos.runtime.autotune): the tuner is made on first need
        self._tuner = None
        self._tuner_made = False
        self._autotune = None  # True/False: tune on launch or not; None: PHOBOS_AUTOTUNE decides
        self.autotune_key = None  # what picks a config (like Triton's key=); None: extents bucketed
        self.best_config: dict | None = None  # the config the last new argument layout launched with
        self.tuning = None  # the TuneResult of the last tuning

    # subclasses: the contract of the kernel, and the variant for a key
    def _get_signature(self) -> Signature:
        raise NotImplementedError

    def _variant(self, key: SpecKey, signature: Signature) -> Variant:
        raise NotImplementedError

    def variant(self, key: SpecKey | None = None) -> Variant:
        """The variant for a specialisation key (None: the generic one), from memory, the cache, or
        compiled now (loaded kernels: the most specialised variant the key satisfies). The tuner
        compiles, finds and checks its candidates with it."""
        return self._variant(key if key is not None else SpecKey(), None)

    def _interpretation(self) -> tuple[dict, Signature]:
        """(tile program, signature) for the interpreter: the generic variant's."""
        variant = self._variant(SpecKey(), self.signature)
        return _program_of(variant, self.name), variant.signature

    def interpret(self, *args, grid=None, check: bool = True, trace=None, coverage: bool = False, **kwargs):
        """Run on `args` in the interpreter (phobos.interpreter: the tile program, CTA by CTA, with
        NumPy) instead of on the GPU: the same checks and grid as a launch; numpy arrays and torch
        tensors are updated in place. trace: called as trace(loc, op_name, value) for every value
        an op defines (loc: [file, line, col]). coverage: return a CoverageReport naming the
        elements of each tensor no CTA wrote (of those it stores to) or read (None without)."""
        if kwargs:
            args = self._bind_keywords(args, kwargs)
        if self._program is None:
            self._program = self._interpretation()
        program, signature = self._program
        return _interpret.run(signature, program, args, grid, check, trace, coverage)

    def _interpret_front(self, args, grid, stream, sync):
        self.interpret(*args, grid=grid)

    @property
    def signature(self) -> Signature:
        if self._signature is None:
            self._signature = self._get_signature()
        return self._signature

    @property
    def name(self) -> str:
        return self.signature.name

    def _param_names(self) -> list[str]:
        return [p.name for p in self.signature.params]

    def _bind_keywords(self, args: tuple, kwargs: dict) -> tuple:
        return bind_keywords(self.name, self._param_names(), args, kwargs)

    # ------------------------------------------------------------------------- the generic path

    def _launch(self, args, grid, stream, sync: bool, check: bool) -> None:
        if self._interpreting:
            self.interpret(*args, grid=grid, check=check)
            return
        sig = self._signature or self.signature
        views = sig.describe(args)
        for i in sig.tensors:
            if views[i].device is None:  # a generic (__cuda_array_interface__) array: ask the driver
                try:
                    views[i].device = 0 if driver.single_device() else driver.pointer_device(views[i].ptr)
                except (driver.NoCudaDriverError, ValueError):
                    pass  # _plan checks the arguments first, then reports this
        layout = self._layout(sig, args, views, grid, check)
        plan = self._plans.get(layout)
        if plan is None:
            plan = self._plan(sig, args, views, grid, check, layout)
        else:
            sig.check_scalars(args)
            if sig.tensors and views[sig.tensors[0]].framework in fastpath.FRAMEWORKS:
                self._register_fast(args, grid, check, plan)  # e.g. cupy arrays of a layout torch made
        if stream is None:
            handle = 0
            for i in sig.tensors:
                if views[i].device != HOST:
                    handle = arrays.current_stream(views[i], args[i])
                    break
        else:
            handle = stream_handle(stream)
        try:
            plan.launch(args, views, handle, sync, grid)
        except UNPACKABLE + (TypeError, ValueError):
            # a value the packer refused: the full check says which and why
            plan.signature.bind(args, views, grid=None if callable(grid) else grid, check_promises=check)
            raise

    @staticmethod
    def _layout(sig: Signature, args, views, grid, check: bool) -> tuple:
        layout = [views[i].layout for i in sig.tensors]
        for i in sig.int_scalars:  # their divisibility is part of the key
            v = args[i]
            if type(v) is int:
                layout.append(divisibility_class(v))
            else:
                layout.append((type(v), divisibility_class(int(v)) if isinstance(v, numbers.Integral) else None))
        if grid is not None:
            if callable(grid):
                grid = "callable"  # evaluated per launch (Plan.grid_of)
            elif not isinstance(grid, int):
                grid = tuple(grid)
        layout.append(grid)
        layout.append(check)
        return tuple(layout)

    def _plan(self, sig: Signature, args, views, grid, check: bool, layout: tuple) -> Plan:
        tuner = self._launch_tuner()
        chooser = tuner if tuner is not None else self._default_chooser()
        repack = None
        if chooser is not None:  # the tuned candidate's variant (tuning now on a new key), or the untuned default
            variant = self._tuned_variant(chooser, sig, args, views, grid, tune=tuner is not None)
            binding = variant.signature.bind(args, views, grid=grid, check_promises=check)
        else:
            binding = sig.bind(args, views, grid=grid, check_promises=check)
            variant = self._variant(binding.key, sig)
            if variant.signature.contract is not sig.contract and variant.signature.abi != sig.abi:
                binding = variant.signature.bind(args, views, grid=grid, check_promises=check)
            chosen = plan_repack(self, sig, binding, variant, views) if _repack_enabled() else None
            if chosen is not None:  # TMA reads copies of the operands whose rows it cannot read
                variant, repack = chosen
                padded = list(views)
                for i in repack.params:
                    padded[i] = padded_view(views[i])
                binding = variant.signature.bind(args, padded, grid=grid, check_promises=check)
        ordinal = binding.device
        unknown = [views[i] for i in sig.tensors if views[i].device is None]
        for view in unknown:  # generic arrays whose device _launch could not learn: the driver's error now
            view_device = driver.pointer_device(view.ptr)
            if ordinal is None:
                ordinal = view_device
            elif view_device != ordinal:
                raise ValueError(
                    f"{sig.name}: device arrays on cuda:{view_device} and cuda:{ordinal}; "
                    "all device arrays of one launch must be on the same GPU"
                )
        if ordinal is None:
            ordinal = current_device()
        plan = Plan(
            variant, binding, driver.get_device(ordinal), grid_callable=callable(grid), owner=self, repack=repack
        )
        if unknown:
            return plan  # not cached: the device is not part of this layout
        if len(self._plans) >= _MAX_PLANS:
            self._plans.clear()
            if self._fast is not None:
                self._fast.clear()
        self._plans[layout] = plan
        self._register_fast(args, grid, check, plan)
        return plan

    def _register_fast(self, args, grid, check: bool, plan: Plan) -> None:
        """Let the generated front find `plan` for arguments like these (torch tensors, cupy arrays)."""
        if (
            check
            and not plan.host
            and plan.repack is None
            and (grid is None or type(grid) in (tuple, int) or callable(grid))
        ):
            if self._fast is None:
                self._fast = fastpath.FastPath(self.signature, self._install, self._call_slow)
            self._fast.register(args, grid, plan)

    # ------------------------------------------------------------------------- @autotune

    def _make_tuner(self, explicit: bool):
        """The kernel's tuner (phobos.runtime.autotune.Tuner), None when there is nothing to tune:
        subclasses. explicit: for k.autotune(), which also times a single candidate."""
        return None

    def _get_tuner(self, explicit: bool = False):
        if explicit and (self._tuner is None or not self._tuner_made):
            self._tuner, self._tuner_made = self._make_tuner(True), True
        elif not self._tuner_made:
            self._tuner, self._tuner_made = self._make_tuner(False), True
        if self._tuner is not None and (explicit or len(self._tuner) > 1):
            self._tuner.key = self.autotune_key
            return self._tuner
        return None

    def _launch_tuner(self):
        """The tuner a new argument layout consults: None with PHOBOS_AUTOTUNE=0 (or autotune=False),
        in the interpreter, without a CUDA driver (the launch then fails as before, without compiling
        every candidate first), and for kernels with at most one candidate."""
        on = self._autotune if self._autotune is not None else _autotune.enabled()
        if not on or self._interpreting or not driver.available():
            return None
        return self._get_tuner()

    def _default_chooser(self):
        """With tuning off (PHOBOS_AUTOTUNE=0, autotune=False): the tuner whose cost model picks the
        untuned default (autotune/default.py); None in the interpreter, without a driver, with
        PHOBOS_AUTOTUNE_DEFAULT=first, and for kernels with at most one candidate."""
        if self._interpreting or not driver.available() or _autotune.default_policy() == "first":
            return None
        return self._get_tuner()

    def _tuned_variant(self, tuner, sig: Signature, args, views, grid, tune: bool = True) -> Variant:
        # every check but the grid and the promises, which depend on the candidate
        loose = sig.bind(args, views, grid=(0, 0, 0), check_promises=False)
        before = tuner.last_result
        index = tuner.decide(sig, args, views, loose.key.to_text(), grid=grid, tune=tune)
        if tuner.last_result is not before:
            self.tuning = tuner.last_result
        self.best_config = dict(tuner.configs[index])
        return tuner.candidate_kernel(index)._variant(loose.key, None)

    def autotune(
        self,
        *args,
        reference=None,
        grid=None,
        key=None,
        timer=None,
        runner=None,
        force: bool = True,
        jobs: int | None = None,
        progress: bool | None = None,
        rtol: float | None = None,
        atol: float | None = None,
        store: bool = True,
    ):
        """Tune on `args` now: every @autotune candidate compiled (in parallel, into the kernel cache),
        run once on copies of the arguments and compared with the reference, timed on the device,
        the fastest stored on disk; later launches with arguments of the same specialisation and
        tuning key use it. Returns a phobos.runtime.autotune.TuneResult (`.table()`, `.best_config`).

        reference: f(*host_args) that writes the outputs in place or returns them (default: the most
        conservative candidate); grid: as for a launch (a callable sees each candidate's bindings);
        key: what picks a config (parameter or dimension names, or a callable of the arguments;
        default: the tensors' extents bucketed to powers of two), kept for later launches;
        timer(fn, candidate) -> samples in ms (default: CUDA events, L2 flushed, median);
        force=False: return the stored winner without running anything when there is one;
        jobs: compile processes; progress: the bar (default: on a terminal); rtol/atol: override
        the dtype's tolerance; store=False: keep the winner in this process only."""
        if key is not None:
            self.autotune_key = key
        tuner = self._get_tuner(explicit=True)
        if tuner is None:
            raise ValueError(
                f"{self!r} has no @autotune space to search: tuning rebinds the constants of .ph kernels "
                "(MLIR input has them bound in the IR)"
            )
        if runner is None:
            driver.init()  # no GPU: say so before compiling every candidate
        sig = self.signature
        views = sig.describe(args)
        for i in sig.tensors:
            if views[i].device is None and runner is None:
                views[i].device = 0 if driver.single_device() else driver.pointer_device(views[i].ptr)
        loose = sig.bind(args, views, grid=(0, 0, 0), check_promises=False)
        result = tuner.tune(
            sig,
            args,
            views,
            loose.key.to_text(),
            grid=grid,
            reference=reference,
            timer=timer,
            runner=runner,
            force=force,
            jobs=jobs,
            progress=progress,
            rtol=rtol,
            atol=atol,
            store=store,
        )
        self.tuning = result
        self.best_config = result.best_config
        self._plans.clear()  # layouts planned before launch the new winner from now on
        if self._fast is not None:
            self._fast.clear()
        return result

    # ------------------------------------------------------------------------- introspection

    def key(self, *args) -> SpecKey:
        """The specialisation key a launch on `args` would use."""
        sig = self.signature
        views = sig.describe(args)
        return sig.key(args, views)

    def warmup(self, *args, grid=None, check: bool = True):
        """Make (compile or load) the variant for `args` without launching; returns its artifact.

        Needs no GPU: arguments may be `phobos.like(...)` placeholders."""
        sig = self.signature
        binding = sig.bind(args, sig.describe(args), grid=grid, check_promises=check)
        variant = self._variant(binding.key, sig)
        self._last = variant
        return _artifact(variant)

    @property
    def asm(self) -> Mapping[str, str]:
        """Stage texts (e.g. "tile", "gpu", "ptx") of the variant last launched (else the generic one)."""
        variant = self._last or self._variant(SpecKey(), self.signature)
        return dict(variant.asm)

    @property
    def contract(self) -> dict:
        return self.signature.contract


def _artifact(variant: Variant):
    return _cache._artifact_class()(
        cubin=variant.cubin, contract=variant.contract, asm=dict(variant.asm), program=variant.program
    )


def _variant_from_entry(entry: _cache.Entry) -> Variant:
    return Variant(entry.cubin(), entry.contract(), entry.asm(), program=entry.program())


def _program_of(variant: Variant, name: str) -> dict:
    if variant.program is None:
        raise CompilerUnavailableError(
            f"the artifacts of '{name}' carry no tile program for the interpreter (they were built before it "
            "existed): compile them again (phobos aot, or an empty cache)"
        )
    return variant.program


# ----------------------------------------------------------------------------- compiled from source


class Kernel(_Launchable):
    """A kernel compiled from source, one variant per specialisation key, on first use."""

    def __init__(
        self,
        source,
        *,
        kernel: str | None = None,
        chip: str | None = None,
        defines: dict | None = None,
        options: dict | None = None,
        cache_dir: os.PathLike | None = None,
        autotune: bool | None = None,
        autotune_key=None,
        origin: str | None = None,
        check: bool | None = None,
    ):
        super().__init__()
        options = dict(options or {})
        if check if check is not None else _check_record.check_mode_default():
            options["check"] = True  # check mode: part of the family (the cache key)
        self._autotune = autotune
        self.autotune_key = autotune_key
        self._text, self.origin, self._compile_source = _source_check.read_source(source)
        if origin is not None:  # source text read from a file (a @phobos.kernel's lines of its .py file)
            self.origin = origin
        self.kernel_name = kernel
        self.chip = chip or default_chip()
        self.defines = dict(defines or {})
        self.options = dict(options or {})
        self.cache = _cache.Cache(cache_dir)
        self.family = _cache.family_digest(
            self._text, kernel, self.defines, self.chip, self.options, compiler_fingerprint()
        )
        self._variants: dict[str, Variant] = {}
        self._tile: tuple[dict, dict] | None = None

    def __repr__(self):
        return f"<phobos.Kernel {self.kernel_name or '?'} from {self.origin} for {self.chip}>"

    @property
    def source_text(self) -> str:
        """The source as text: what the kernel's family hashes and the front end reads (an MLIR
        module given as an object: its printed form)."""
        return self._text

    @property
    def portable_source(self) -> str:
        """The source as another process can compile it: the path or text it was given (an MLIR
        module object, which cannot be pickled: its printed form). Compile workers take this."""
        return self._compile_source if isinstance(self._compile_source, str) else self._text

    def tile_contract(self) -> dict:
        """The contract (parameters, promises, launch facts) of the tile stage: needs MLIR, but no
        GPU lowering and no ptxas. The tuner binds example arguments with it."""
        return self._tile_stage()[1]

    def _make_tuner(self, explicit: bool):
        space = _autotune.source_space(self._text, self.origin, self.kernel_name, self.defines)
        if space is None or (len(space.configs) < 2 and not explicit):
            return None
        return _autotune.SourceTuner(self, space, key=self.autotune_key)

    def _get_signature(self) -> Signature:
        if self._interpreting:  # no GPU code is needed: the contract of the tile stage
            return Signature(self._tile_stage()[1])
        return self._variant(SpecKey(), None).signature

    def _interpretation(self) -> tuple[dict, Signature]:
        # The generic variant's when it is cached (no MLIR needed), else the tile stage's:
        # the interpreter needs no GPU code, so kernels the GPU lowering refuses still run.
        entry = None if self._interpreting else self.cache.get(self.family, "")
        if entry is not None and entry.program() is not None:
            return entry.program(), Signature(entry.contract())
        program, contract = self._tile_stage()
        return program, Signature(contract)

    def _tile_stage(self) -> tuple[dict, dict]:
        """(program, contract) from the compiler's tile stage (needs MLIR; no ptxas, no GPU lowering)."""
        if self._tile is None:
            self._tile = _compiler(self, "").compile_program(
                self._compile_source,
                kernel=self.kernel_name,
                chip=self.chip,
                defines=self.defines or None,
                options=self.options or None,
                source_name=self.origin,
            )
        return self._tile

    def _variant(self, key: SpecKey, signature: Signature | None) -> Variant:
        text = _key_text(key)
        variant = self._variants.get(text)
        if variant is not None:
            return variant
        entry = self.cache.get(self.family, text)
        if entry is None:
            entry = self._compile(text)
        variant = self._variants[text] = _variant_from_entry(entry)
        return variant

    def _compile(self, key_text: str) -> _cache.Entry:
        compiler = _compiler(self, key_text)
        artifact = compiler.compile_artifact(
            self._compile_source,
            kernel=self.kernel_name,
            key=SpecKey.from_text(key_text) if key_text else None,
            chip=self.chip,
            defines=self.defines or None,
            options=self.options or None,
            source_name=self.origin,
        )
        meta = {
            "source": self.origin,
            "chip": self.chip,
            "defines": self.defines,
            "options": self.options,
            "fingerprint": compiler_fingerprint(),
            "kernel": artifact.contract.get("name", self.kernel_name or ""),
        }
        return self.cache.put(self.family, key_text, artifact, meta)

    def artifact(self, key=None):
        """The artifact (cubin, contract, asm) of one variant: the generic one unless `key`
        (a SpecKey or its text) is given. Compiles on a cache miss."""
        return _artifact(self._variant(SpecKey.from_text(_key_text(key)), None))

    def stages(self, key=None) -> dict[str, str]:
        """All stage texts of one variant, straight from the compiler (needs MLIR)."""
        compiler = _compiler(self, _key_text(key))
        text = _key_text(key)
        return compiler.compile_stages(
            self._compile_source,
            kernel=self.kernel_name,
            key=SpecKey.from_text(text) if text else None,
            chip=self.chip,
            defines=self.defines or None,
            options=self.options or None,
            source_name=self.origin,
        )

    def with_defines(self, **defines) -> Kernel:
        """The same kernel with @autotune constants fixed (like Triton's constexpr keywords):
        `k.with_defines(BLOCK=1024)(x, y)`. Checked now; compiled on first use."""
        source = self._compile_source if self.origin != "<module>" else self._text
        return compile(
            source,
            kernel=self.kernel_name,
            chip=self.chip,
            defines={**self.defines, **defines},
            options=self.options,
            cache_dir=self.cache.root,
            autotune=self._autotune,
            autotune_key=self.autotune_key,
        )


def _compiler(kernel: Kernel, key_text: str):
    """phobos.compiler, or a CompilerUnavailableError that says how to compile ahead of time."""
    try:
        from phobos import compiler
    except ImportError as e:
        missing = (getattr(e, "name", None) or "").split(".")[0]
        if missing != "mlir" and "mlir" not in str(e):
            raise
        what = f"kernel {kernel.kernel_name or kernel.origin!r}"
        variant = f"the variant for key '{key_text}'" if key_text else "its generic variant"
        raise CompilerUnavailableError(
            f"{what} needs {variant} (chip {kernel.chip}), which is not in the cache at {kernel.cache.root}, and this "
            f"machine cannot compile it: the MLIR Python bindings are not installed ({e}). Compile it ahead of time "
            f"on a machine with Phobos's compiler:\n"
            f"    phobos aot {kernel.origin} -o DIR{' --kernel ' + kernel.kernel_name if kernel.kernel_name else ''}"
            f"{' --key ' + repr(key_text) if key_text else ''}\n"
            f"(or phobos.compile_ahead(source, DIR, examples=[args])), copy DIR here, and launch with "
            f"phobos.load(DIR) or with PHOBOS_CACHE_DIR=DIR."
        ) from e
    return compiler


def compile(
    source,
    *,
    kernel: str | None = None,
    chip: str | None = None,
    defines: dict | None = None,
    options: dict | None = None,
    cache_dir: os.PathLike | None = None,
    autotune: bool | None = None,
    autotune_key=None,
    check: bool | None = None,
) -> Kernel:
    """A launchable kernel from a .ph/.mlir path, its text or an MLIR module (compiled lazily per key).

    chip: the GPU to compile for (None: PHOBOS_CHIP, else the device's own, else phobos.target.DEFAULT_CHIP);
    autotune: tune @autotune constants on the first launch of each new argument layout (None:
    unless PHOBOS_AUTOTUNE=0); autotune_key: what picks a config (docs/autotune.md); check: check
    mode (None: PHOBOS_CHECK=1), where each promise the compiler relies on is verified on the
    device and a broken one raises phobos.PromiseBroken at the launch (docs/check-mode.md).
    A .ph source is checked now: a broken one raises phobos.frontend.CompileError here."""
    compiled = Kernel(
        source,
        kernel=kernel,
        chip=chip,
        defines=defines,
        options=options,
        cache_dir=cache_dir,
        autotune=autotune,
        autotune_key=autotune_key,
        check=check,
    )
    _source_check.check(compiled._text, compiled.origin, kernel, defines, compiled._interpreting)
    return compiled


# ----------------------------------------------------------------------------- loaded from a folder


class LoadedKernel(_Launchable):
    """A kernel launched from an ahead-of-time folder: no source, no compiler."""

    def __init__(self, folder: Path, name: str, entries: list[_cache.Entry]):
        super().__init__()
        self.folder = folder
        self.kernel_name = name
        self._entries = entries
        self._variants: dict[str, Variant] = {}
        self._keys = [(e, SpecKey.from_text(e.key)) for e in entries]

    def __repr__(self):
        return f"<phobos.LoadedKernel {self.kernel_name} from {self.folder} ({len(self._entries)} variants)>"

    @property
    def keys(self) -> list[str]:
        return [e.key for e in self._entries]

    def _get_signature(self) -> Signature:
        generic = [e for e in self._entries if not e.key] or self._entries
        return self._load(generic[0]).signature

    def _load(self, entry) -> Variant:
        variant = self._variants.get(str(entry.path))
        if variant is None:
            variant = self._variants[str(entry.path)] = _variant_from_entry(entry)
        return variant

    def _variant(self, key: SpecKey, signature: Signature | None) -> Variant:
        fits = [(strength(k), e) for e, k in self._keys if implies(key, k)]
        if not fits:
            raise CompilerUnavailableError(
                f"no variant of '{self.kernel_name}' in {self.folder} fits these arguments (key '{key.to_text()}'); "
                f"it has: {', '.join(repr(e.key) for e in self._entries)}. Compile one ahead of time: "
                f"phobos aot SOURCE -o {self.folder} --key '{key.to_text()}'"
            )
        fits.sort(key=lambda f: f[0])
        return self._load(fits[-1][1])

    def artifact(self, key=None):
        return _artifact(self._variant(SpecKey.from_text(_key_text(key)), None))


class TunedLoadedKernel(_Launchable):
    """A kernel launched from a folder of every @autotune candidate (phobos aot --all-candidates):
    tuned on the first launch of each new argument layout (or with k.autotune), without MLIR."""

    def __init__(self, folder: Path, manifest: dict, autotune: bool | None = None, autotune_key=None):
        super().__init__()
        self._autotune = autotune
        self.autotune_key = autotune_key
        self.folder = folder
        self.manifest = manifest
        self.kernel_name = manifest["kernel"]
        self.candidates: dict[int, LoadedKernel] = {}
        for i, entry in enumerate(manifest["candidates"]):
            if entry.get("status") == "ok" and (folder / entry["folder"]).is_dir():
                self.candidates[i] = load(folder / entry["folder"])
        if not self.candidates:
            raise FileNotFoundError(f"{str(folder)!r}: none of the candidates in autotune.json was compiled")
        self._default = self.candidates[min(self.candidates)]  # PHOBOS_AUTOTUNE=0 launches it

    def __repr__(self):
        return (
            f"<phobos.TunedLoadedKernel {self.kernel_name} from {self.folder} "
            f"({len(self.candidates)} of {len(self.manifest['candidates'])} candidates)>"
        )

    def _get_signature(self) -> Signature:
        return self._default.signature

    def _variant(self, key: SpecKey, signature: Signature | None) -> Variant:
        return self._default._variant(key, signature)

    def _make_tuner(self, explicit: bool):
        if len(self.manifest["candidates"]) < 2 and not explicit:
            return None
        return _autotune.FolderTuner(self.folder, self.manifest, self.candidates, key=self.autotune_key)

    def artifact(self, key=None):
        return self._default.artifact(key)


def load(
    folder: str | os.PathLike, name: str | None = None, *, autotune: bool | None = None, autotune_key=None
) -> LoadedKernel | TunedLoadedKernel:
    """The kernel `name` of an ahead-of-time folder (written by phobos.runtime.aot or a PHOBOS cache);
    a folder of @autotune candidates (phobos aot --all-candidates) gives a kernel that tunes."""
    root = Path(folder)
    if not root.is_dir():
        raise FileNotFoundError(f"no ahead-of-time folder at {str(root)!r}")
    manifest = _autotune.load_manifest(root)
    if manifest is not None:
        if name is not None and name != manifest["kernel"]:
            raise KeyError(f"{str(root)!r} has no kernel '{name}' (it has {manifest['kernel']})")
        return TunedLoadedKernel(root, manifest, autotune=autotune, autotune_key=autotune_key)
    entries = list(_cache.Cache(root).entries())
    names = sorted({e.kernel for e in entries})
    if not entries:
        raise FileNotFoundError(f"{str(root)!r} holds no compiled kernels (write one with phobos aot)")
    if name is None:
        if len(names) > 1:
            raise ValueError(f"{str(root)!r} holds several kernels ({', '.join(names)}); pass name=")
        name = names[0]
    chosen = [e for e in entries if e.kernel == name]
    if not chosen:
        raise KeyError(f"{str(root)!r} has no kernel '{name}' (it has {', '.join(names)})")
    families = sorted({e.meta.get("family", "") for e in chosen})
    if len(families) > 1:
        builds = sorted(
            {f"{e.meta.get('source')} (chip {e.meta.get('chip')}, defines {e.meta.get('defines')})" for e in chosen}
        )
        raise ValueError(
            f"{str(root)!r} holds '{name}' from {len(families)} different builds ({'; '.join(builds)}); "
            "keep one build per ahead-of-time folder"
        )
    return LoadedKernel(root, name, chosen)
