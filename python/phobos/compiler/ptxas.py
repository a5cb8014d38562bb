"""The cubin from the PTX the compile has already made: ptxas run as gpu-module-to-binary runs it.

An artifact needs both the PTX text (the `ptx` stage) and the cubin. Upstream's
gpu-module-to-binary{format=bin} would translate the LLVM dialect to LLVM IR, optimise it and run
LLVM's NVPTX back end a second time, the same work as the `ptx` stage and a fifth of a GEMM
candidate's compile, before it hands the PTX to ptxas. Here ptxas gets the `ptx` stage's text with
the arguments upstream gives it (MLIR 22's NVPTXSerializer::compileToBinary: `-arch <chip> <file>
-o <file> --opt-level <O>`, O from the #nvvm.target, 2 by default), so the cubin is the same bytes.

A gpu.module whose target is anything else (ptxas options or other flags, link files, several
targets or modules) returns None from `plain_target`: the driver then runs upstream's pass.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from dataclasses import dataclass

from mlir import ir
from mlir.dialects import gpu

from phobos.compiler.pass_manager import split_elements
from phobos.dialect.tile import is_op

# The fields of an #nvvm.target that do not reach ptxas's command line but through -arch and
# --opt-level (triple and features shape the PTX, which is made already).
_PLAIN_FIELDS = {"O", "triple", "chip", "features"}
DEFAULT_OPT_LEVEL = 2  # NVVMTargetAttr's default O


class PtxasFailed(Exception):
    """ptxas refused the PTX (or could not run); `log` is what it printed."""

    def __init__(self, log: str):
        super().__init__(log)
        self.log = log


@dataclass(frozen=True)
class PtxasTarget:
    """What ptxas's command line takes from a gpu.module's #nvvm.target."""

    module_name: str
    chip: str
    opt_level: int


def plain_target(module: ir.Module) -> PtxasTarget | None:
    """The ptxas target of the module's one gpu.module, when its #nvvm.target has no field beyond
    O, triple, chip and features; else None."""
    found = [op for op in module.body.operations if is_op(op, gpu.GPUModuleOp)]
    if len(found) != 1 or "targets" not in found[0].attributes:
        return None
    targets = ir.ArrayAttr(found[0].attributes["targets"])
    text = str(targets[0]) if len(targets) == 1 else ""
    if not (text.startswith("#nvvm.target<") and text.endswith(">")):
        return None
    fields = {}
    for element in split_elements(text[len("#nvvm.target<") : -1]):
        name, eq, value = element.partition("=")
        fields[name.strip()] = value.strip().strip('"') if eq else None
    if not set(fields) <= _PLAIN_FIELDS or "chip" not in fields:
        return None
    try:
        opt_level = int(fields.get("O") or DEFAULT_OPT_LEVEL)
    except ValueError:
        return None
    name = ir.StringAttr(found[0].attributes["sym_name"]).value
    return PtxasTarget(name, str(fields["chip"]), opt_level)


def ptxas_path(toolkit: str) -> str | None:
    """`<toolkit>/bin/ptxas` when it can run (the first place upstream looks), else None."""
    path = os.path.join(toolkit, "bin", "ptxas")
    return path if toolkit and os.access(path, os.X_OK) else None


def assemble(ptx: bytes, target: PtxasTarget, ptxas: str) -> bytes:
    """The cubin of `ptx` for `target`, by the ptxas at `ptxas`; raises PtxasFailed."""
    base = f"mlir-{target.module_name}-{target.chip}-"
    with tempfile.TemporaryDirectory(prefix="phobos-ptxas-") as tmp:
        ptx_file, cubin_file = os.path.join(tmp, base + ".ptx"), os.path.join(tmp, base + ".bin")
        with open(ptx_file, "wb") as f:
            f.write(ptx)
        args = [ptxas, "-arch", target.chip, ptx_file, "-o", cubin_file, "--opt-level", str(target.opt_level)]
        try:
            done = subprocess.run(args, stdin=subprocess.DEVNULL, capture_output=True)
        except OSError as e:
            raise PtxasFailed(f"cannot run {ptxas}: {e.strerror or e}") from None
        if done.returncode != 0:
            log = (done.stdout + done.stderr).decode(errors="replace").strip()
            raise PtxasFailed(log or f"exit status {done.returncode}")
        with open(cubin_file, "rb") as f:
            return f.read()
