"""Crash containment (phobos.compiler.containment): an abort in MLIR's native code
is a CompileError naming the input, the normal path is unchanged, and input known
to crash MLIR is refused first with its location."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import pytest

from phobos import compiler
from phobos.compiler import containment
from phobos.frontend.errors import CompileError

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCALE_PH = os.path.join(ROOT, "examples", "scale.ph")
SCALE_MLIR = os.path.join(ROOT, "examples", "scale.mlir")


def _unroll_jam_by_zero() -> None:
    """A real upstream assertion: affine-loop-unroll-jam with factor 0 (LoopUtils.cpp)."""
    from mlir import ir, passmanager

    text = """func.func @f(%a: memref<16xf32>) {
      affine.for %i = 0 to 16 {
        %0 = affine.load %a[%i] : memref<16xf32>
        affine.store %0, %a[%i] : memref<16xf32>
      }
      return
    }"""
    with ir.Context():
        module = ir.Module.parse(text)
        passmanager.PassManager.parse("builtin.module(func.func(affine-loop-unroll-jam{unroll-jam-factor=0}))").run(
            module.operation
        )


@pytest.mark.parametrize("how", ["fork", "spawn"])
def test_real_assertion_gives_its_first_line(monkeypatch, how):
    monkeypatch.setenv(containment.ENV_MODE, how)
    with pytest.raises(containment.Aborted) as caught:
        containment.run(_unroll_jam_by_zero)
    assert caught.value.message.startswith("/")  # the program name is dropped
    assert "LoopUtils.cpp" in caught.value.message
    assert caught.value.message.endswith("failed.") and "Assertion `unrollJamFactor > 0" in caught.value.message


@pytest.mark.parametrize(
    "crash, message",
    [
        ("abort", "MLIR aborted: signal 6 (SIGABRT)"),
        ("segv", "MLIR aborted: signal 11 (SIGSEGV)"),
        ("unreachable", "MLIR aborted: unknown IRDL constraint (UNREACHABLE executed at "),
    ],
)
@pytest.mark.parametrize("entry", ["compile_stages", "compile_artifact", "compile_program"])
def test_api_abort_is_a_compile_error_naming_the_input(monkeypatch, capfd, crash, message, entry):
    monkeypatch.setenv(containment.ENV_MODE, "fork")
    monkeypatch.setenv(containment.ENV_CRASH, crash)
    with pytest.raises(CompileError) as caught:
        getattr(compiler, entry)(SCALE_PH)
    (filename, line, _, severity, text), *_ = caught.value.diagnostics
    assert (filename, line, severity) == (SCALE_PH, 0, "error")
    assert text.startswith(message)
    assert str(caught.value).startswith(f"{SCALE_PH}: error: MLIR aborted: ")
    assert "UNREACHABLE" not in capfd.readouterr().err  # the raw dump is not relayed


def test_text_input_is_named_by_source_name(monkeypatch):
    monkeypatch.setenv(containment.ENV_CRASH, "abort")
    with open(SCALE_MLIR) as f:
        text = f.read()
    with pytest.raises(CompileError, match=r"^kernel\.mlir: error: MLIR aborted: signal 6"):
        compiler.compile_stages(text, until="tile", source_name="kernel.mlir")


def test_spawned_worker_when_the_process_has_threads(monkeypatch):
    monkeypatch.setenv(containment.ENV_CRASH, "abort")
    monkeypatch.delenv(containment.ENV_MODE, raising=False)
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert containment.mode() == "spawn"
        with pytest.raises(CompileError, match="MLIR aborted: signal 6"):
            compiler.compile_stages(SCALE_PH, until="tile")
    finally:
        stop.set()
        thread.join()


@pytest.mark.parametrize("how", ["fork", "spawn", "off"])
def test_normal_path_unchanged(monkeypatch, how):
    monkeypatch.setenv(containment.ENV_MODE, how)
    stages = compiler.compile_stages(SCALE_PH, until="gpu")
    monkeypatch.setenv(containment.ENV_MODE, "off")
    assert stages == compiler.compile_stages(SCALE_PH, until="gpu")
    assert "gpu.func @scale" in stages["gpu"]


def test_errors_of_the_kernel_come_back_as_they_are(monkeypatch):
    monkeypatch.setenv(containment.ENV_MODE, "fork")
    with pytest.raises(CompileError) as caught:
        compiler.compile_stages("kernel k(x: f32) { let y = }", source_name="bad.ph")
    assert caught.value.diagnostics[0][0] == "bad.ph" and caught.value.diagnostics[0][1] == 1


def test_mlir_module_source(monkeypatch):
    from mlir import ir

    from phobos.dialect import make_context

    with open(SCALE_MLIR) as f:
        text = f.read()
    monkeypatch.setenv(containment.ENV_MODE, "off")
    expected = compiler.compile_stages(text, until="tile")["tile"]
    with make_context():
        module = ir.Module.parse(text)
        for how in ("fork", "spawn"):
            monkeypatch.setenv(containment.ENV_MODE, how)
            assert compiler.compile_stages(module, until="tile")["tile"] == expected


def _deep_mlir(levels: int) -> str:
    return "func.func @f() {\n" + "scf.execute_region {\n" * levels + "scf.yield\n}\n" * levels + "return\n}\n"


def test_nesting_error_names_the_place():
    assert containment.nesting_error(_deep_mlir(998)) is None  # the function's body is one level
    assert containment.nesting_error(_deep_mlir(1000)) == (
        1001,
        20,
        "the input nests brackets and regions more than 1000 levels deep; MLIR's parser would overflow its stack",
    )
    # strings and comments do not count
    assert containment.nesting_error('"' + "[" * 2000 + '"\n// ' + "{" * 2000 + "\n") is None


def test_deep_mlir_is_refused_by_the_api(tmp_path):
    path = tmp_path / "deep.mlir"
    path.write_text(_deep_mlir(5000))  # overflows MLIR's parser stack
    with pytest.raises(CompileError) as caught:
        compiler.compile_stages(str(path), until="tile")
    assert caught.value.diagnostics[0][:3] == (str(path), 1001, 20)
    with pytest.raises(CompileError, match=r"^t\.mlir:1001:20: error: the input nests"):
        compiler.compile_stages(_deep_mlir(5000), until="tile", source_name="t.mlir")


def test_aborting_pass_options():
    assert "unroll-jam-factor=0" in containment.pass_option_error(
        "builtin.module(func.func(affine-loop-unroll-jam{unroll-jam-factor=0}))"
    )
    assert (
        containment.pass_option_error("builtin.module(func.func(affine-loop-unroll-jam{unroll-jam-factor=4}))") is None
    )
    assert "tile-sizes=32,0" in containment.pass_option_error("func.func(affine-loop-tile{tile-sizes=32,0})")
    assert "format=elf" in containment.pass_option_error("gpu-module-to-binary{format=elf}")
    assert containment.pass_option_error("gpu-module-to-binary{format=isa},canonicalize") is None


def _tool(*argv, **env):
    return subprocess.run(
        [sys.executable, "-m", *argv], capture_output=True, text=True, env=dict(os.environ, **env), cwd=ROOT
    )


@pytest.mark.parametrize(
    "argv, name",
    [
        (["phobos.tools.phobos_opt", SCALE_MLIR, "--tile-to-gpu"], SCALE_MLIR),
        (["phobos.tools.phobos_cli", "compile", SCALE_PH, "--emit=gpu"], SCALE_PH),
    ],
)
def test_tools_exit_1_with_one_line(argv, name):
    done = _tool(*argv, PHOBOS_TEST_CRASH="unreachable")
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.startswith(f"{name}: error: MLIR aborted: unknown IRDL constraint (UNREACHABLE executed at ")
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


def test_phobos_opt_output_is_the_same_contained_or_not():
    argv = ["phobos.tools.phobos_opt", SCALE_MLIR, "--tile-verify", "--mlir-print-ir-after-all"]
    contained, direct = _tool(*argv), _tool(*argv, PHOBOS_CONTAINMENT="off")
    assert (contained.returncode, contained.stdout, contained.stderr) == (0, direct.stdout, direct.stderr)


def _raise_unpicklable():
    from mlir import ir

    class Holder(Exception):
        pass

    with ir.Context() as context:
        raise Holder("kept message", context)


def test_an_exception_that_does_not_pickle_keeps_its_name_and_message(monkeypatch):
    monkeypatch.setenv(containment.ENV_MODE, "fork")
    with pytest.raises(RuntimeError, match=r"^Holder: \('kept message'"):
        containment.run(_raise_unpicklable)
