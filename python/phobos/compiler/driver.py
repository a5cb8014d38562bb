"""The compile driver: tile IR (or .ph source) -> the text of each stage and a cubin artifact.

    from phobos.compiler import compile_artifact, compile_stages
    art = compile_artifact("examples/scale.ph", chip="sm_90")
    art.cubin[:4] == b"\\x7fELF"; art.contract["abi"]; art.asm["ptx"]
    stages = compile_stages(module_or_text, key="X=a16.e16x16.s16;Y=a16.e16x16.s16")

It loops over the stages of passes/pipelines.py (tile, gpu, llvm, ptx, cubin),
runs each stage's passes in one PassManager and records the stage's text; the
launch contract is read from the kernel after the tile stage. phobos-opt's
tile-to-<stage> aliases expand to the same passes, and `phobos compile
--emit=<stage>` prints the same text. Problems in the kernel are
`CompileError`s with located diagnostics (the front end's error class, so the
`phobos` CLI prints them like front-end errors); chip and PTX features are
checked before any LLVM code runs (a bad pair aborts LLVM).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from mlir import ir

from phobos.analysis.abi import ParamError, TensorParam, abi_entries, describe_params
from phobos.analysis.grid import infer_grid
from phobos.compiler import containment, memo, ptxas
from phobos.compiler.pass_manager import PipelineError, build_pass_manager
from phobos.compiler.tile_program import ProgramError, to_program
from phobos.contract.artifact import FORMAT, Artifact
from phobos.contract.fingerprint import compiler_fingerprint
from phobos.contract.specialization import SpecKey
from phobos.diagnostics import Collector, Diagnostic, from_mlir
from phobos.dialect import kernel as K
from phobos.dialect import make_context
from phobos.dialect import tile as T
from phobos.dialect.tile import is_op
from phobos.frontend.errors import CompileError
from phobos.passes import pipelines
from phobos.target import DEFAULT_CHIP

__all__ = ["Artifact", "CompileError", "compile_artifact", "compile_program", "compile_stages", "STAGES"]

# The stages compile_stages returns (as text); compile_artifact runs every stage.
STAGES = tuple(s for s in pipelines.STAGES if pipelines.OUTPUT_OF[s] != "object-bytes")


# ----------------------------------------------------------------------------- sources


def _error(message: str, filename: str | None = None, line: int = 0, col: int = 0) -> CompileError:
    return CompileError([Diagnostic("error", message, filename, line, col)])


def _is_path(source: str) -> bool:
    return "\n" not in source and len(source) < 4096 and (source.endswith((".ph", ".mlir")) or os.path.isfile(source))


def _looks_like_mlir(text: str) -> bool:
    return bool(re.search(r"^\s*(module\b|func\.func\b|\"?builtin\.module)", text, re.M))


class _Job:
    """One compilation: a private context, the module, and its diagnostics."""

    def __init__(self, source, defines: dict | None, source_name: str = "<text>", for_gpu: bool = False, shared=None):
        self.source_name = source_name
        self.for_gpu = for_gpu  # .ph source is checked against the GPU's rules on tiles too
        self.context = make_context()
        self.collector = Collector(self.context)
        self.filename = "<module>"
        self.text: str | None = None
        # `shared`: what `prepare` will do to the module (the kernel kept, the tile passes that
        # take no key); for .ph source the module after it may come from memo.py instead.
        self.shared, self.prepared = shared, False
        self.memo_key: tuple | None = None  # the source, defines and `shared`: memo.py's key
        with self.context:
            self.module = self._load(source, defines)

    def _load(self, source, defines):
        if isinstance(source, ir.Module):
            text = source.operation.get_asm(enable_debug_info=True)
            return self._parse_mlir(text, "<module>")
        if isinstance(source, os.PathLike) or (isinstance(source, str) and _is_path(source)):
            path = os.fspath(source)
            try:
                with open(path, encoding="utf-8") as f:
                    text = f.read()
            except UnicodeDecodeError:
                raise _error(f"cannot read '{path}': it is not UTF-8 text") from None
            except OSError as e:
                raise _error(f"cannot read '{path}': {e.strerror or e}") from None
            if path.endswith((".ph", ".py")):  # .py: the @phobos.kernel functions of a Python file
                return self._parse_ph(text, path, defines)
            return self._parse_mlir(text, path)
        if isinstance(source, bytes):
            try:
                source = source.decode("utf-8")
            except UnicodeDecodeError as e:
                raise _error(f"the kernel source is not UTF-8 text (byte {e.start})") from None
        if not isinstance(source, str):
            raise TypeError(
                f"a kernel source is an mlir Module, MLIR text, .ph text or a path; got {type(source).__name__}"
            )
        if _looks_like_mlir(source):
            return self._parse_mlir(source, self.source_name)
        return self._parse_ph(source, self.source_name, defines)

    def _parse_mlir(self, text: str, filename: str) -> ir.Module:
        self.filename, self.text = filename, text
        if not text.isascii():  # lone surrogates (undecodable bytes) would fail in the bindings
            try:
                text.encode("utf-8")
            except UnicodeEncodeError as e:
                raise _error(f"the input is not UTF-8 text (character {e.start})", filename) from None
        try:
            return ir.Module.parse(text)
        except ir.MLIRError:
            raise self.failure("the input is not valid MLIR") from None

    def _parse_ph(self, text: str, filename: str, defines) -> ir.Module:
        try:
            from phobos.frontend import compile_to_tile_ir
        except ImportError:
            raise _error("compiling .ph source needs phobos.frontend, which is not installed", filename) from None
        self.filename, self.text = filename, text
        if self.shared is not None:
            self.memo_key = (text, filename, tuple(sorted((defines or {}).items())), self.for_gpu, self.shared)
            kept = memo.tile_ir(self.memo_key)
            if kept is not None:
                self.prepared = True
                return ir.Module.parse(kept)
        if self.for_gpu:  # at the tile that breaks a rule, not later at the kernel's name
            from phobos.frontend.gpu_rules import check_for_gpu

            check_for_gpu(text, filename, defines)
        return compile_to_tile_ir(text, filename, defines, context=self.context)

    def prepare(self) -> None:
        """What `shared` (kernel, one_kernel, tile pass elements) says: keep one kernel (`kernel`,
        or the only one) if one_kernel, then run the tile passes; the memo's module had both done."""
        if self.prepared or self.shared is None:
            return
        kernel, one_kernel, elements = self.shared
        if one_kernel:
            _select_kernel(self, kernel)
        self.run_elements(self.module, "tile", list(elements))
        if self.memo_key is not None and not self.collector.infos:  # nothing to report again
            memo.keep_tile_ir(self.memo_key, self.module.operation.get_asm(enable_debug_info=True))

    # ------------------------------------------------------------------ diagnostics

    def failure(self, fallback: str) -> CompileError:
        records = []
        for info in self.collector.take():
            diag = from_mlir(info, {"-": self.filename, "": self.filename})
            diag.notes = [n for n in diag.notes if not n.message.startswith("see current operation")]
            records.append(diag)
        if not any(d.severity == "error" for d in records):
            records.append(Diagnostic("error", fallback))
        sources = {self.filename: self.text} if self.text is not None else {}
        return CompileError(records, sources)

    def param_failure(self, e: ParamError) -> CompileError:
        """A parameter type the ABI cannot carry: the input's mistake, at the parameter."""
        diag = e.diagnostic({"-": self.filename, "": self.filename})
        return CompileError([diag], {self.filename: self.text} if self.text is not None else {})

    def run_stage(self, module: ir.Module, stage: str, params: dict[str, str], skip: int = 0) -> None:
        """Runs the passes of `stage` on `module` (after the first `skip`) in one PassManager."""
        self.run_elements(module, stage, pipelines.stage_elements(stage, params)[skip:])

    def run_elements(self, module: ir.Module, stage: str, elements: list[str]) -> None:
        """Runs pipeline elements (passes of `stage`) on `module` in one PassManager."""
        if not elements:
            return
        pipeline = f"builtin.module({','.join(elements)})"
        with self.context:
            try:
                pm = build_pass_manager(pipeline, self.context)
            except PipelineError as e:  # a bug in passes/pipelines.py, not in the kernel
                raise RuntimeError(f"the '{stage}' stage is not a valid pipeline: {e}") from None
            try:
                pm.run(module.operation)
            except ir.MLIRError:
                raise self.failure(f"the '{stage}' stage failed") from None
            except ParamError as e:  # a pass read the parameters of a kernel the ABI cannot carry
                raise self.param_failure(e) from None

    def assemble(self, ptx: str, target: ptxas.PtxasTarget, toolkit: str) -> bytes:
        """The cubin of the ptx stage's text, as the cubin stage would make it (ptxas.py)."""
        try:
            return ptxas.assemble(ptx.encode(), target, ptxas.ptxas_path(toolkit) or "ptxas")
        except ptxas.PtxasFailed as e:
            raise _error(f"`ptxas` invocation failed. Log:\n{e.log}") from None

    def reparse(self, text: str) -> ir.Module:
        with self.context:
            return ir.Module.parse(text)


# ----------------------------------------------------------------------------- kernels


def _select_kernel(job: _Job, kernel: str | None) -> ir.Operation:
    kernels = K.kernels(job.module)
    names = [K.kernel_name(k) for k in kernels]
    if not kernels:  # about the input as a whole: placed at its start
        raise _error("the input has no tile kernel (a func.func with the tile.kernel attribute)", job.filename, 1, 1)
    # Choosing among kernels is the caller's option (--kernel on the command line, kernel= from Python).
    if kernel is None:
        if len(kernels) > 1:
            raise _error(
                f"{job.filename} has several kernels ({', '.join(names)}); choose one with --kernel NAME "
                "(kernel= from Python)"
            )
        return kernels[0]
    if kernel not in names:
        raise _error(f"--kernel: {job.filename} has no kernel '{kernel}' (it has {', '.join(names)})")
    chosen = kernels[names.index(kernel)]
    for other in kernels:
        if other != chosen:
            other.erase()
    return chosen


def _key_text(key) -> str:
    if key is None:
        return ""
    if isinstance(key, SpecKey):
        return key.to_text()
    try:
        return SpecKey.from_text(str(key)).to_text()
    except ValueError as e:
        raise _error(f"invalid specialisation key: {e}") from None


def _parameters(key_text: str, chip: str, options: dict | None, stages: tuple[str, ...]) -> dict[str, str]:
    options = options or {}
    try:
        return pipelines.parameters(
            key_text,
            chip,
            options.get("features") or "",
            bool(options.get("noalias", True)),
            stages,
            check=bool(options.get("check", False)),
        )
    except pipelines.PipelineOptionError as e:
        raise _error(str(e)) from None


def _contract(job: _Job, fn: ir.Operation, chip: str, key: str, options: dict | None) -> dict:
    try:
        params = describe_params(fn)
    except ParamError as e:
        raise job.param_failure(e) from None
    access, flat = _access(fn)
    out_params = []
    for i, p in enumerate(params):
        entry = p.to_json()
        if isinstance(p, TensorParam):
            entry["access"] = access.get(i, "none")
            if i in flat and p.rank >= 2:
                # tile.load/tile.store address it by flat element offsets from its base, which
                # are row-major offsets only if the rows are packed: no padded-row views
                entry["contiguity"] = "all"
        out_params.append(entry)
    name = K.kernel_name(fn)
    return {
        "format": FORMAT,
        "kernel": name,
        "name": name,
        "chip": chip,
        "threads": K.launch(fn)["threads"],
        "shared_bytes": 0,
        "params": out_params,
        "abi": abi_entries(params),
        "grid": infer_grid(fn, params),
        **({"persistent": True} if K.PERSISTENT in fn.attributes else {}),  # grid: the resident CTAs
        "promises": [{"symbol": s, "divisor": d} for s, d in K.aligned(fn).items()],
        **_extent_blocks(fn),
        "bindings": K.bindings(fn),
        "key": key,
        "fingerprint": compiler_fingerprint(),
        "options": dict(options or {}),
    }


def _extent_blocks(fn: ir.Operation) -> dict:
    """The contract's extent_blocks (only when the kernel has some: older contracts lack the key)."""
    rules = [{"symbol": s, "of": of, "block": b} for s, (of, b) in K.extent_blocks(fn).items()]
    return {"extent_blocks": rules} if rules else {}


def _access(fn: ir.Operation) -> tuple[dict[int, str], set]:
    """({param: "read" | "write" | "readwrite"}, params accessed in the offset form (tile.load/tile.store))."""
    args = list(fn.regions[0].blocks[0].arguments)
    reads, writes, flat = set(), set(), set()

    def visit(op):
        if is_op(op, *T.LOAD_OPS):
            target, base = reads, op.operands[0]
        elif is_op(op, *T.STORE_OPS):
            target, base = writes, op.operands[1]
        elif is_op(op, *T.ATOMIC_OPS):  # reads and writes, at element offsets
            i = list(args).index(op.opview.base)
            reads.add(i), writes.add(i), flat.add(i)
            return ir.WalkResult.ADVANCE
        else:
            return ir.WalkResult.ADVANCE
        for i, a in enumerate(args):
            if a == base:
                target.add(i)
                if is_op(op, *T.OFFSET_OPS):
                    flat.add(i)
        return ir.WalkResult.ADVANCE

    fn.walk(visit)
    out = {}
    for i in reads | writes:
        out[i] = "readwrite" if i in reads and i in writes else ("read" if i in reads else "write")
    return out, flat


# ----------------------------------------------------------------------------- driver


def _compile(
    source,
    kernel,
    key,
    chip,
    defines,
    options,
    until: str,
    debug_info: bool = False,
    source_name: str = "<text>",
    with_contract: bool = False,
):
    """Runs every stage up to `until` ("artifact": all of them).

    The contract (with `with_contract` or for an artifact), the program the
    interpreter runs (with the contract) and the cubin
    need one kernel (`kernel`, or the only one); the IR stages show every
    kernel of the source when none is named."""
    key_text = _key_text(key)
    wanted = tuple(pipelines.STAGES) if until == "artifact" else tuple(pipelines.path_to(until))
    with_contract = with_contract or until == "artifact"
    params = _parameters(key_text, chip, options, wanted)
    one_kernel = kernel is not None or with_contract or any(pipelines.OUTPUT_OF[s] != "ir" for s in wanted)
    shared = _shared_tile_elements(params)
    for_gpu = any(s != "tile" for s in wanted)
    job = _Job(
        source, defines, source_name, for_gpu=for_gpu, shared=(kernel if one_kernel else None, one_kernel, shared)
    )
    job.prepare()
    run = _StageRun(job, wanted, params, debug_info)
    contract, program = None, None
    for stage in wanted:
        if run.has_output(stage):
            continue
        module = run.run(stage, skip=len(shared) if stage == "tile" else 0)
        if stage == "tile" and with_contract:
            with job.context:
                fn = _select_kernel(job, kernel)
                contract = _contract(job, fn, chip, key_text, options)
                program = _program(fn)
        if stage == "gpu" and contract is not None:
            _record_lowering_facts(module, contract)
        run.record(stage, module)
    cubin = run.cubin
    if until == "artifact" and (cubin is None or not cubin.startswith(b"\x7fELF")):
        raise _error(f"gpu-module-to-binary produced no cubin for '{contract['name']}'")
    return _Compiled(run.asm, contract, cubin, program)


def _shared_tile_elements(params: dict[str, str]) -> tuple[str, ...]:
    """The tile stage's passes before the first that takes the launch key: every variant of a
    kernel runs them alike (memo.py keeps their result)."""
    shared = []
    for step in pipelines.STAGES["tile"]:
        if any("{key}" in value for value in step.options.values()):
            break
        shared.append(step.text(params))
    return tuple(shared)


class _StageRun:
    """The stages of one compile after the front end: the module each reads (the one the job
    holds, or a reparsed snapshot), the text or object each gives, and two shortcuts to the same
    bytes: the cubin from the ptx stage's text (ptxas.py), and the PTX and cubin kept for an LLVM
    module that printed the same (memo.py)."""

    def __init__(self, job: _Job, wanted: tuple[str, ...], params: dict[str, str], debug_info: bool):
        self.job, self.wanted, self.params, self.debug_info = job, wanted, params, debug_info
        self.asm: dict[str, str] = {}
        self.snapshots: dict[str, str] = {}  # stages read by more than one later stage, with locations
        self.held: str | None = None  # the stage job.module holds
        self.cubin: bytes | None = None
        self.direct: ptxas.PtxasTarget | None = None  # set when ptxas takes the ptx stage's text

    def has_output(self, stage: str) -> bool:
        """Whether `stage`'s output is had without running its passes (made so here if not yet)."""
        if self.direct is None or stage not in ("ptx", "cubin"):
            return False
        toolkit, group = self.params["toolkit"], self.job.memo_key
        if stage == "ptx":
            kept = memo.binaries(group, self.asm["llvm"], toolkit) if group is not None else None
            if kept is not None:
                self.asm["ptx"], self.cubin = kept
            return kept is not None
        if self.cubin is None:
            self.cubin = self.job.assemble(self.asm["ptx"], self.direct, toolkit)
            if group is not None:
                memo.keep_binaries(group, self.asm["llvm"], toolkit, self.asm["ptx"], self.cubin)
        return True

    def run(self, stage: str, skip: int = 0) -> ir.Module:
        """Runs `stage`'s passes (after the first `skip`) on the module it reads; returns it."""
        before = pipelines.INPUT_OF[stage]  # None: the input, which the job holds
        held = before is None or before == self.held
        module = self.job.module if held else self.job.reparse(self.snapshots[str(before)])
        self.job.run_stage(module, stage, self.params, skip)
        self.held = stage if module is self.job.module else self.held
        if stage == "llvm" and {"ptx", "cubin"} <= set(self.wanted):
            self.direct = ptxas.plain_target(module) if ptxas.ptxas_path(self.params["toolkit"]) else None
        readers = [s for s in self.wanted if pipelines.INPUT_OF[s] == stage and not (s == "cubin" and self.direct)]
        if len(readers) > 1:
            self.snapshots[stage] = module.operation.get_asm(enable_debug_info=True)
        return module

    def record(self, stage: str, module: ir.Module) -> None:
        """The stage's output: its IR text, its PTX, or its cubin."""
        output = pipelines.OUTPUT_OF[stage]
        if output == "object-bytes":
            self.cubin = first_binary(module)
        elif output == "object-text":
            binary = first_binary(module)
            self.asm[stage] = binary.decode() if binary is not None else ""
        else:
            self.asm[stage] = module.operation.get_asm(enable_debug_info=self.debug_info)


def _record_lowering_facts(module: ir.Module, contract: dict) -> None:
    """What the lowering recorded on the gpu.func for the launch: the dynamic shared memory it
    planned and its plan, the TMA tensor maps, and the check sites of a kernel in check mode."""
    import json

    from mlir.dialects import gpu

    def visit(op):
        if is_op(op, gpu.GPUFuncOp) and "phobos.shared_bytes" in op.attributes:
            contract["shared_bytes"] = ir.IntegerAttr(op.attributes["phobos.shared_bytes"]).value
            contract["shared_memory"] = json.loads(ir.StringAttr(op.attributes["phobos.shared_plan"]).value)
        if is_op(op, gpu.GPUFuncOp) and "phobos.threads" in op.attributes:
            # a producer warpgroup beside the kernel's own threads (lowering/warp_roles.py)
            contract["threads"] = ir.IntegerAttr(op.attributes["phobos.threads"]).value
        if is_op(op, gpu.GPUFuncOp) and "phobos.checks" in op.attributes:
            # check mode: the sites of the kernel's device-side checks (lowering/device_checks.py)
            contract["checks"] = json.loads(ir.StringAttr(op.attributes["phobos.checks"]).value)
        if is_op(op, gpu.GPUFuncOp) and "phobos.tensor_maps" in op.attributes:
            # the TMA tensor maps are kernel parameters after the ABI's own (to_gpu._make_func)
            contract["abi"] = contract["abi"] + json.loads(ir.StringAttr(op.attributes["phobos.tensor_maps"]).value)
        return ir.WalkResult.ADVANCE

    with module.context:
        module.operation.walk(visit)


@dataclass
class _Compiled:
    asm: dict[str, str]  # stage name -> text
    contract: dict | None
    cubin: bytes | None
    program: dict | None  # the tile program for the interpreter


def _program(fn: ir.Operation) -> dict:
    try:
        return to_program(fn)
    except ProgramError as e:
        raise _error(f"the interpreter cannot represent kernel '{K.kernel_name(fn)}': {e}") from None


def first_binary(module: ir.Module) -> bytes | None:
    """The object bytes of the first gpu.binary in `module` (PTX text or a cubin)."""
    from mlir.dialects import gpu

    for op in module.body.operations:
        if is_op(op, gpu.BinaryOp):
            objects = ir.ArrayAttr(op.operation.attributes["objects"])
            return bytes(gpu.ObjectAttr(objects[0]).object)
    return None


def _contained(source, source_name: str, **compile_args) -> _Compiled:
    """_compile in a child process (containment.py): an abort in MLIR's native code
    becomes a CompileError naming the input instead of ending the caller's process."""
    name = _input_name(source, source_name)
    _refuse_deep_mlir(source, name)
    if isinstance(source, ir.Module) and containment.mode() == "spawn":  # a Module does not pickle
        source, source_name = source.operation.get_asm(enable_debug_info=True), "<module>"
    try:
        return containment.run(_compile, source, source_name=source_name, **compile_args)
    except containment.Aborted as e:
        raise _error(f"MLIR aborted: {e.message}", name) from None


def _input_name(source, source_name: str) -> str:
    if isinstance(source, os.PathLike) or (isinstance(source, str) and _is_path(source)):
        return os.fspath(source)
    return "<module>" if isinstance(source, ir.Module) else source_name


def _refuse_deep_mlir(source, name: str) -> None:
    """MLIR text nested deep enough to overflow the parser's stack is refused before parsing."""
    text = source if isinstance(source, str) and not _is_path(source) and _looks_like_mlir(source) else None
    if name.endswith(".mlir") and text is None:
        try:
            with open(name, encoding="utf-8") as f:
                text = f.read()
        except (OSError, UnicodeDecodeError):
            return  # _Job reports it
    found = containment.nesting_error(text) if text is not None else None
    if found is not None:
        line, col, message = found
        raise CompileError([Diagnostic("error", message, name, line, col)], {name: text})


def compile_stages(
    source,
    *,
    kernel: str | None = None,
    key=None,
    chip: str = DEFAULT_CHIP,
    defines: dict | None = None,
    options: dict | None = None,
    until: str = "ptx",
    debug_info: bool = False,
    source_name: str = "<text>",
) -> dict[str, str]:
    """The text of each stage up to `until` (one of STAGES: "tile", "gpu", "llvm", "ptx") of
    `source` (an mlir Module, MLIR text, .ph text, or a .mlir/.ph path); `kernel`
    picks one kernel (needed for "ptx" when the source has several).
    debug_info: print locations in the IR stages; source_name: the file name
    diagnostics and locations give source text."""
    if until not in STAGES:
        raise ValueError(f"until must be one of {', '.join(STAGES)}, got {until!r}")
    return _contained(
        source,
        source_name,
        kernel=kernel,
        key=key,
        chip=chip,
        defines=defines,
        options=options,
        until=until,
        debug_info=debug_info,
    ).asm


def compile_artifact(
    source,
    *,
    kernel: str | None = None,
    key=None,
    chip: str = DEFAULT_CHIP,
    defines: dict | None = None,
    options: dict | None = None,
    source_name: str = "<text>",
) -> Artifact:
    """Compiles one kernel of `source` to a cubin with its launch contract, stage texts and
    tile program (for the interpreter).

    key: a SpecKey (or its text) of launch-time facts; chip: sm_70 or newer;
    defines: @autotune bindings for .ph sources; options: recorded in the
    contract ("features" overrides the PTX ISA version, e.g. "+ptx83"; "noalias": False
    keeps read-only tensors from being declared noalias, for kernels whose
    outputs overlap their inputs in other than the elementwise in-place way)."""
    done = _contained(
        source, source_name, kernel=kernel, key=key, chip=chip, defines=defines, options=options, until="artifact"
    )
    return Artifact(cubin=done.cubin, contract=done.contract, asm=done.asm, program=done.program)


def compile_program(
    source,
    *,
    kernel: str | None = None,
    chip: str = DEFAULT_CHIP,
    defines: dict | None = None,
    options: dict | None = None,
    source_name: str = "<text>",
) -> tuple[dict, dict]:
    """(program, contract) of one kernel of `source` after the tile stage, for the
    interpreter (phobos.interpreter): no GPU lowering, no ptxas. The contract is the
    generic variant's, as the runtime binds arguments with it; its chip is only recorded."""
    done = _contained(
        source,
        source_name,
        kernel=kernel,
        key=None,
        chip=chip,
        defines=defines,
        options=options,
        until="tile",
        with_contract=True,
    )
    return done.program, done.contract
