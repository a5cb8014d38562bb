"""The compile driver: tile IR (or .ph source) -> stage texts and a cubin artifact.

    from phobos.compiler import compile_artifact, compile_stages
    art = compile_artifact("examples/scale.ph", chip="sm_90")
    art.cubin[:4] == b"\\x7fELF"; art.contract["abi"]; art.asm["ptx"]
    stages = compile_stages(module_or_text, key="X=a16.e16x16.s16;Y=a16.e16x16.s16")

The stages are those of phobos.lowering.stages, each printed after it ran:

    "tile"  tile IR after verify / specialize / elide-masks / assign-layout
    "gpu"   after tile-lower-to-gpu (gpu.module + gpu.func on per-thread vectors)
    "llvm"  after the upstream NVVM lowering (llvm.func in the gpu.module)
    "ptx"   the PTX text (gpu-module-to-binary{format=isa})

and the cubin comes from gpu-module-to-binary{format=bin} with the ptxas of
nvidia-cuda-nvcc-cu12. phobos-opt runs the same stages by name (tile-to-gpu,
tile-to-nvvm, tile-to-ptx, tile-to-cubin). Problems in the kernel are
`CompileError`s with located diagnostics (the front end's error class, so
the `phobos` CLI prints them like front-end errors); chip and PTX features are
checked before any LLVM code runs (a bad pair aborts LLVM).

    python -m phobos.compiler FILE [--emit tile|gpu|llvm|ptx|contract] [--chip sm_90] [--key TEXT] [-D N=V]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from typing import Dict, List, Optional, Tuple

from mlir import ir
from mlir.passmanager import PassManager

from phobos.artifact import FORMAT, Artifact
from phobos.diagnostics import Collector, Diagnostic, from_mlir
from phobos.dialect import kernel as K
from phobos.dialect import make_context
from phobos.fingerprint import compiler_fingerprint
from phobos.frontend.errors import CompileError
from phobos.lowering import stages
from phobos.lowering.abi import ParamError, TensorParam, abi_entries, describe_params
from phobos.lowering.grid import infer_grid
from phobos.lowering.target import DEFAULT_CHIP, TargetError, check_target
from phobos.passes import registry
from phobos.specialization import SpecKey

__all__ = ["Artifact", "CompileError", "compile_artifact", "compile_stages"]

STAGES = ("tile", "gpu", "llvm", "ptx")


# ----------------------------------------------------------------------------- sources


def _error(message: str, filename: Optional[str] = None, line: int = 0, col: int = 0) -> CompileError:
    return CompileError([Diagnostic("error", message, filename, line, col)])


def _is_path(source: str) -> bool:
    return "\n" not in source and len(source) < 4096 and (source.endswith((".ph", ".mlir")) or os.path.isfile(source))


def _looks_like_mlir(text: str) -> bool:
    return bool(re.search(r"^\s*(module\b|func\.func\b|\"?builtin\.module)", text, re.M))


class _Job:
    """One compilation: a private context, the module, and its diagnostics."""

    def __init__(self, source, defines: Optional[dict]):
        self.context = make_context()
        self.collector = Collector(self.context)
        self.filename = "<module>"
        self.text: Optional[str] = None
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
            except OSError as e:
                raise _error(f"cannot read '{path}': {e.strerror or e}") from None
            return self._parse_ph(text, path, defines) if path.endswith(".ph") else self._parse_mlir(text, path)
        if isinstance(source, bytes):
            source = source.decode()
        if not isinstance(source, str):
            raise TypeError(f"a kernel source is an mlir Module, MLIR text, .ph text or a path; got {type(source).__name__}")
        if _looks_like_mlir(source):
            return self._parse_mlir(source, "<text>")
        return self._parse_ph(source, "<text>", defines)

    def _parse_mlir(self, text: str, filename: str) -> ir.Module:
        self.filename, self.text = filename, text
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
        return compile_to_tile_ir(text, filename, defines, context=self.context)

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

    def run(self, elements: List[Tuple[str, str]], what: str) -> None:
        """Runs Phobos steps (name, options) and upstream texts ("", text) in one PassManager."""
        with self.context:
            pm = PassManager("builtin.module")
            for name, options in elements:
                if name:
                    info = registry.lookup(name)
                    pm.add(info.bind(options), name=info.name, argument=info.argument, description=info.summary)
                else:
                    pm.add(options)
            try:
                pm.run(self.module.operation)
            except ir.MLIRError:
                raise self.failure(f"{what} failed") from None

    def text_of(self) -> str:
        return str(self.module)


# ----------------------------------------------------------------------------- kernels


def _kernels(module: ir.Module) -> List[ir.Operation]:
    return [op.operation for op in module.body.operations if K.is_kernel(op.operation)]


def _select_kernel(job: _Job, kernel: Optional[str]) -> ir.Operation:
    kernels = _kernels(job.module)
    names = [ir.StringAttr(k.attributes["sym_name"]).value for k in kernels]
    if not kernels:
        raise _error("the input has no tile kernel (a func.func with the tile.kernel attribute)", job.filename)
    if kernel is None:
        if len(kernels) > 1:
            raise _error(f"the input has several kernels ({', '.join(names)}); choose one with kernel=", job.filename)
        return kernels[0]
    if kernel not in names:
        raise _error(f"the input has no kernel '{kernel}' (it has {', '.join(names)})", job.filename)
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


def _check_target(chip: str, options: Optional[dict]) -> str:
    try:
        return check_target(chip, (options or {}).get("features"))
    except TargetError as e:
        raise _error(str(e)) from None


def _contract(fn: ir.Operation, chip: str, key: str, options: Optional[dict]) -> dict:
    try:
        params = describe_params(fn)
    except ParamError as e:
        raise CompileError([Diagnostic("error", str(e))]) from None
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
    name = ir.StringAttr(fn.attributes["sym_name"]).value
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
        "promises": [{"symbol": s, "divisor": d} for s, d in K.aligned(fn).items()],
        "bindings": K.bindings(fn),
        "key": key,
        "fingerprint": compiler_fingerprint(),
        "options": dict(options or {}),
    }


def _access(fn: ir.Operation) -> Tuple[Dict[int, str], set]:
    """({param: "read" | "write" | "readwrite"}, params accessed in the offset form (tile.load/tile.store))."""
    args = list(fn.regions[0].blocks[0].arguments)
    reads, writes, flat = set(), set(), set()

    def visit(op):
        if op.name in ("tile.load", "tile.load_slice"):
            target, base = reads, op.operands[0]
        elif op.name in ("tile.store", "tile.store_slice"):
            target, base = writes, op.operands[1]
        else:
            return ir.WalkResult.ADVANCE
        for i, a in enumerate(args):
            if a == base:
                target.add(i)
                if op.name in ("tile.load", "tile.store"):
                    flat.add(i)
        return ir.WalkResult.ADVANCE

    fn.walk(visit)
    out = {}
    for i in reads | writes:
        out[i] = "readwrite" if i in reads and i in writes else ("read" if i in reads else "write")
    return out, flat


# ----------------------------------------------------------------------------- driver


def _compile(source, kernel, key, chip, defines, options, want_cubin: bool):
    features = _check_target(chip, options)
    key_text = _key_text(key)
    job = _Job(source, defines)
    fn = _select_kernel(job, kernel)
    asm: Dict[str, str] = {}
    job.run([(n, o) for n, o in stages.tile_steps(key_text)], "the tile passes")
    asm["tile"] = job.text_of()
    with job.context:
        fn = _select_kernel(job, kernel)
        contract = _contract(fn, chip, key_text, options)
    noalias = bool((options or {}).get("noalias", True))
    job.run([stages.lower_step(chip, features, noalias)] + [("", p) for p in stages.GPU_CLEANUP], "tile-lower-to-gpu")
    asm["gpu"] = job.text_of()
    job.run([("", stages.upstream_to_nvvm())], "the NVVM lowering")
    asm["llvm"] = job.text_of()
    with job.context:
        isa = ir.Module.parse(asm["llvm"])
    _run_binary(job, isa, "isa")
    ptx = stages.first_binary(isa)
    asm["ptx"] = ptx.decode() if ptx is not None else ""
    cubin = None
    if want_cubin:
        _run_binary(job, job.module, "bin")
        cubin = stages.first_binary(job.module)
        if cubin is None or not cubin.startswith(b"\x7fELF"):
            raise _error(f"gpu-module-to-binary produced no cubin for '{contract['name']}'")
    return asm, contract, cubin


def _run_binary(job: _Job, module: ir.Module, fmt: str) -> None:
    try:
        element = stages.binary_element(fmt)
    except TargetError as e:
        raise _error(str(e)) from None
    with job.context:
        pm = PassManager.parse(f"builtin.module({element})")
        try:
            pm.run(module.operation)
        except ir.MLIRError:
            raise job.failure(f"gpu-module-to-binary{{format={fmt}}} failed") from None


def compile_stages(source, *, kernel: Optional[str] = None, key=None, chip: str = DEFAULT_CHIP,
                   defines: Optional[dict] = None, options: Optional[dict] = None) -> Dict[str, str]:
    """The text of each stage ("tile", "gpu", "llvm", "ptx") for one kernel of `source`
    (an mlir Module, MLIR text, .ph text, or a .mlir/.ph path)."""
    asm, _, _ = _compile(source, kernel, key, chip, defines, options, want_cubin=False)
    return asm


def compile_artifact(source, *, kernel: Optional[str] = None, key=None, chip: str = DEFAULT_CHIP,
                     defines: Optional[dict] = None, options: Optional[dict] = None) -> Artifact:
    """Compiles one kernel of `source` to a cubin with its launch contract and stage texts.

    key: a SpecKey (or its text) of launch-time facts; chip: sm_70 or newer;
    defines: @autotune bindings for .ph sources; options: recorded in the
    contract ("features" overrides the PTX ISA version, e.g. "+ptx83"; "noalias": False
    keeps read-only tensors from being declared noalias, for kernels whose
    outputs overlap their inputs in other than the elementwise in-place way)."""
    asm, contract, cubin = _compile(source, kernel, key, chip, defines, options, want_cubin=True)
    return Artifact(cubin=cubin, contract=contract, asm=asm)


# ----------------------------------------------------------------------------- command line


def main(argv: Optional[List[str]] = None) -> int:
    p = argparse.ArgumentParser(prog="python -m phobos.compiler", description=__doc__.split("\n\n")[0])
    p.add_argument("source", help="a .mlir or .ph file ('-' reads MLIR from stdin)")
    p.add_argument("--emit", default="ptx", choices=STAGES + ("contract",), help="what to print (default: ptx)")
    p.add_argument("--kernel", default=None)
    p.add_argument("--chip", default=DEFAULT_CHIP)
    p.add_argument("--features", default=None, help="PTX ISA features, e.g. +ptx80")
    p.add_argument("--key", default=None, help="a specialisation key's text")
    p.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME=VALUE")
    p.add_argument("-o", dest="output", default=None, metavar="FOLDER",
                   help="also write <kernel>.cubin and <kernel>.json into FOLDER")
    args = p.parse_args(argv)
    source = sys.stdin.read() if args.source == "-" else args.source
    defines = {}
    for d in args.defines:
        name, _, value = d.partition("=")
        defines[name] = int(value)
    options = {"features": args.features} if args.features else None
    try:
        if args.emit == "contract" or args.output:
            art = compile_artifact(source, kernel=args.kernel, key=args.key, chip=args.chip,
                                   defines=defines or None, options=options)
            if args.output:
                art.save(args.output)
            text = json.dumps(art.contract, indent=1, sort_keys=True) + "\n" if args.emit == "contract" else art.asm[args.emit]
        else:
            text = compile_stages(source, kernel=args.kernel, key=args.key, chip=args.chip,
                                  defines=defines or None, options=options)[args.emit]
    except CompileError as e:
        sys.stderr.write(str(e))
        return 1
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
