"""The pipeline as data (passes/pipelines.py): every entry point names the same
stages and produces the same text.

`phobos compile --emit=<stage>`, `compile_stages(...)[<stage>]` and
`phobos-opt --pass-pipeline='builtin.module(tile-to-<stage>)'` must agree, and
the aliases must expand to exactly the passes of the stages they name.
"""

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mlir")

from phobos.compiler import STAGES, compile_stages  # noqa: E402
from phobos.compiler.pass_manager import PipelineError, build_pass_manager, expand_aliases  # noqa: E402
from phobos.dialect import make_context  # noqa: E402
from phobos.passes import pipelines, registry  # noqa: E402
from phobos.target import toolkit_dir  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SCALE = ROOT / "examples" / "scale.mlir"
BIN = Path(sys.executable).parent
needs_ptxas = pytest.mark.skipif(toolkit_dir() is None, reason="ptxas (nvidia-cuda-nvcc-cu12) is not installed")


def _run(tool, *args):
    p = subprocess.run([str(BIN / tool), *map(str, args)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return p.stdout


def test_stage_order_and_inputs():
    assert list(pipelines.STAGES) == ["tile", "gpu", "llvm", "ptx", "cubin"]
    assert pipelines.path_to("tile") == ["tile"]
    assert pipelines.path_to("ptx") == ["tile", "gpu", "llvm", "ptx"]
    assert pipelines.path_to("cubin") == ["tile", "gpu", "llvm", "cubin"]  # ptx and cubin both read llvm
    assert STAGES == ("tile", "gpu", "llvm", "ptx")


def test_every_phobos_step_is_a_registered_pass():
    for stage, steps in pipelines.STAGES.items():
        for step in steps:
            if step.name.startswith("tile-"):
                assert registry.lookup(step.name) is not None, (stage, step.name)


def test_every_stage_builds_a_pass_manager():
    params = pipelines.parameters("X=a16.e16x16.s16", "sm_80", "", False, ("tile",))
    params["toolkit"] = "/opt/toolkit"  # not looked up: building does not run ptxas
    context = make_context()
    for stage in pipelines.STAGES:
        build_pass_manager(f"builtin.module({','.join(pipelines.stage_elements(stage, params))})", context)


def test_options_fill_and_empty_ones_drop():
    params = pipelines.parameters("", "sm_90", "", True, ())
    assert pipelines.stage_elements("tile", params) == ["tile-inline", "tile-verify", "tile-specialize"]
    gpu = pipelines.stage_elements("gpu", params)
    assert "tile-lower-to-gpu{chip=sm_90 features=+ptx80}" in gpu
    # the recorded barriers are checked right after they are planned
    assert gpu[gpu.index("tile-insert-barriers{chip=sm_90}") + 1] == "tile-verify-barriers"
    params = pipelines.parameters("X=a16.e16.s", "sm_90a", "+ptx83", False, ())
    assert pipelines.stage_elements("tile", params)[2] == "tile-specialize{key=X=a16.e16.s}"
    assert "tile-lower-to-gpu{chip=sm_90a features=+ptx83 noalias=false}" in pipelines.stage_elements("gpu", params)
    assert "gpu.module(convert-gpu-to-nvvm{index-bitwidth=64})" in pipelines.stage_elements("llvm", params)


def test_alias_expands_to_the_stages_it_names():
    params = pipelines.parameters("", "sm_80", "", True, ())
    expected = [e for s in ("tile", "gpu", "llvm") for e in pipelines.stage_elements(s, params)]
    assert expand_aliases(["tile-to-llvm{chip=sm_80}"]) == expected
    assert expand_aliases(["cse", "tile-to-gpu"])[0] == "cse"
    assert set(pipelines.aliases()) == {"tile-to-gpu", "tile-to-llvm", "tile-to-ptx", "tile-to-cubin"}


@pytest.mark.parametrize(
    "element, message",
    [
        ("tile-to-gpu{chip=sm_99}", "chip 'sm_99' is not known"),
        ("tile-to-gpu{chip=sm_90 features=+ptx60}", "too old for sm_90"),
        ("tile-to-gpu{colour=red}", "'tile-to-gpu' has no option 'colour'"),
        ("tile-to-gpu{chip}", "option 'chip' of 'tile-to-gpu' needs a value"),
        ("tile-to-gpu{noalias=maybe}", "expects true or false"),
    ],
)
def test_alias_options_are_checked_before_llvm_runs(element, message):
    with pytest.raises(PipelineError, match=message):
        expand_aliases([element])


def test_unknown_stage_is_refused():
    with pytest.raises(pipelines.PipelineOptionError, match="unknown stage 'sass'"):
        pipelines.path_to("sass")
    with pytest.raises(ValueError, match="until must be one of"):
        compile_stages(str(SCALE), until="cubin")


@pytest.mark.parametrize("stage", ["tile", "gpu", "llvm"])
def test_cli_api_and_phobos_opt_print_the_same_stage(stage):
    api = compile_stages(str(SCALE), until=stage)[stage]
    cli = _run("phobos", "compile", SCALE, f"--emit={stage}")
    pipeline = "tile-verify,tile-specialize" if stage == "tile" else f"tile-to-{stage}"
    opt = _run("phobos-opt", SCALE, f"--pass-pipeline=builtin.module({pipeline})")
    assert cli == api
    assert opt.rstrip("\n") == api.rstrip("\n")


@needs_ptxas
def test_ptx_stage_agrees_with_the_tile_to_ptx_alias():
    api = compile_stages(str(SCALE), chip="sm_80")["ptx"]
    opt = _run("phobos-opt", SCALE, "--pass-pipeline=builtin.module(tile-to-ptx{chip=sm_80})")
    assert ".target sm_80" in api and ".visible .entry scale" in api
    assert "gpu.binary @scale_module" in opt and "assembly = " in opt
    assert _run("phobos", "compile", SCALE, "--emit=ptx", "--chip=sm_80") == api


def test_stages_stop_where_asked():
    dot = ROOT / "examples" / "gemm_fp32.ph"  # dot does not lower yet: the tile stage still prints
    assert set(compile_stages(str(dot), until="tile")) == {"tile"}
    assert "tile.dot" in _run("phobos", "compile", dot, "--emit=tile")
