"""Kernel parameters of types the ABI cannot carry (hand-written tile IR): a located error at the
parameter from every driver (compile API, phobos, phobos-opt), never an internal error."""

from __future__ import annotations

import dataclasses
import os
import pickle
import subprocess
import sys

import pytest

from phobos.analysis.abi import DTYPES, ParamError, describe_params
from phobos.compiler import CompileError, compile_program, compile_stages
from phobos.compiler.explain import explain_source
from phobos.diagnostics import file_location
from phobos.dialect import make_context
from phobos.dialect.verify import verify_tile_ir

KERNEL = """\
func.func @k(%Y: memref<?xf32> {tile.name = "Y", tile.dims = ["N"]},
             %X: memref<?xTYPE> {tile.name = "X", tile.dims = ["N"]})
    attributes {tile.kernel, tile.launch = {threads = 128 : i64}} {
  %pid = "tile.block_id"() {dim = 0 : i64} : () -> index
  %c128 = arith.constant 128 : index
  %off = arith.muli %pid, %c128 : index
  %y = "tile.load_slice"(%Y, %off) : (memref<?xf32>, index) -> tensor<128xf32>
  "tile.store_slice"(%y, %Y, %off) : (tensor<128xf32>, memref<?xf32>, index) -> ()
  return
}
"""


def _located(e: CompileError, type_text: str) -> None:
    (d,) = e.records
    assert (d.severity, d.line, d.col) == ("error", 2, 14)  # at %X, not at the kernel
    assert d.message == f"tensor parameter 'X' has element type {type_text}; supported: {', '.join(DTYPES)}"


@pytest.mark.parametrize("type_text", ["i16", "index"])
@pytest.mark.parametrize("until", ["gpu", "contract"])
def test_compile_api_reports_the_parameter(type_text, until, tmp_path):
    path = tmp_path / "k.mlir"
    path.write_text(KERNEL.replace("TYPE", type_text))
    with pytest.raises(CompileError) as info:
        if until == "contract":
            compile_program(str(path))
        else:
            compile_stages(str(path), until=until)
    _located(info.value, type_text)
    assert info.value.records[0].filename == str(path)
    assert f"{path}:2:14: error: tensor parameter 'X'" in str(info.value)


def test_explain_reports_the_parameter():
    with pytest.raises(CompileError) as info:
        explain_source(KERNEL.replace("TYPE", "i16"), source_name="k.mlir")
    _located(info.value, "i16")
    assert info.value.records[0].filename == "k.mlir"


def test_param_error_crosses_processes():
    # the compile driver runs MLIR in a child process, which pickles what it raises
    e = ParamError("tensor parameter 'X' has element type i16", "X", "memref<?xi16>", ("-", 2, 14))
    back = pickle.loads(pickle.dumps(e))
    assert (str(back), back.param, back.type_text, back.where) == (str(e), "X", "memref<?xi16>", ("-", 2, 14))
    d = back.diagnostic({"-": "k.mlir"})
    assert (d.filename, d.line, d.col, d.message) == ("k.mlir", 2, 14, str(e))
    assert ParamError("no place").diagnostic().filename is None


@pytest.mark.parametrize("tool", ["phobos-opt", "phobos"])
def test_command_line_tools_report_the_parameter(tool, tmp_path):
    path = tmp_path / "k.mlir"
    path.write_text(KERNEL.replace("TYPE", "i16"))
    bindir = os.path.dirname(sys.executable)
    cmd = [f"{bindir}/phobos-opt", str(path), "--tile-to-gpu"]
    if tool == "phobos":
        cmd = [f"{bindir}/phobos", "compile", str(path), "--emit=gpu"]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert run.returncode == 1, run.stderr
    assert run.stderr.startswith(f"{path}:2:14: error: tensor parameter 'X' has element type i16; supported: ")
    assert "internal" not in run.stderr and "Traceback" not in run.stderr


# Element types about the ABI's: integers of each width and signedness, index, floats it has and lacks.
AROUND_THE_ABI = "i1 i2 i8 i16 i32 i64 i128 si32 ui8 index f16 bf16 f32 f64 tf32 f8E4M3FN f8E5M2 f8E4M3 f4E2M1FN"


def _verdicts(param: str):
    """What the ABI (describe_params) and the kernel checks (verify_tile_ir) say of a kernel with
    the one parameter `param`: (the ABI's error or None, [(message, where)] of the checks)."""
    from mlir import ir

    context = make_context()
    found = []

    def handler(d):
        found.append((str(d.message), file_location(d.location)))
        return True

    with context:
        module = ir.Module.parse(f"func.func @k({param}) attributes {{tile.kernel}} {{\n  return\n}}")
        fn = module.body.operations[0]
        handle = context.attach_diagnostic_handler(handler)
        try:
            ok = verify_tile_ir(module.operation)
        finally:
            handle.detach()
        try:
            describe_params(fn)
        except ParamError as e:
            return e, ok, found
    return None, ok, found


@pytest.mark.parametrize("kind", ["tensor", "scalar"])
def test_tile_verify_refuses_what_the_abi_cannot_carry(kind):
    # The kernel checks and the ABI read parameter types by one rule (verify.param_dtype): tile-verify
    # refuses exactly the parameters the ABI refuses, at the parameter, with the ABI's message.
    for type_text in AROUND_THE_ABI.split():
        for unsigned in ("", ", tile.unsigned"):
            if kind == "tensor":
                param = f'%X: memref<?x{type_text}> {{tile.name = "X", tile.dims = ["N"]{unsigned}}}'
            else:
                param = f'%X: {type_text} {{tile.name = "X"{unsigned}}}'
            error, ok, found = _verdicts(param)
            if error is None:
                assert ok and not found, param
            else:
                assert not ok and found == [(str(error), error.where)], param


def test_the_lowering_alone_reports_the_parameter():
    # The kernel checks that every pass runs first refuse such a kernel before tile-lower-to-gpu
    # reads its parameters, so no command line reaches this; without them the lowering still
    # raises the ParamError at the parameter (which the drivers report), not an error at the kernel.
    from mlir import ir, passmanager

    from phobos.passes.registry import lookup

    info = lookup("tile-lower-to-gpu")
    assert info is not None
    alone = dataclasses.replace(info, verify_first=False)
    context = make_context()
    with context:
        module = ir.Module.parse(KERNEL.replace("TYPE", "i16"))
        pm = passmanager.PassManager("builtin.module", context)
        pm.add(alone.bind(""), name=alone.name, argument=alone.argument, description=alone.summary)
        with pytest.raises(ParamError) as info_:
            pm.run(module.operation)
    e = info_.value
    assert (e.param, e.type_text, e.where[1:]) == ("X", "memref<?xi16>", (2, 14))
    assert str(e) == f"tensor parameter 'X' has element type i16; supported: {', '.join(DTYPES)}"
