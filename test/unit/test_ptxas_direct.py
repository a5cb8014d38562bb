"""The cubin from the ptx stage's text (compiler/ptxas.py): the same bytes as upstream's
gpu-module-to-binary makes, the #nvvm.target fields it takes, and ptxas's refusal as a
CompileError."""

from __future__ import annotations

from pathlib import Path

import pytest
from mlir import ir

from phobos.compiler import driver, memo, ptxas
from phobos.dialect import make_context
from phobos.frontend.errors import CompileError
from phobos.passes import pipelines
from phobos.target import toolkit_dir

ROOT = Path(__file__).resolve().parents[2]
PTXAS = ptxas.ptxas_path(toolkit_dir() or "")
needs_ptxas = pytest.mark.skipif(PTXAS is None, reason="no ptxas (nvidia-cuda-nvcc-cu12)")

# (source, defines, key): a GEMM variant, a kernel calling libdevice (exp), a tensor-core kernel
KERNELS = [
    ("examples/gemm_fp32.ph", None, "A=a16.e16x16.s16;B=a16.e16x16.s16;C=a16.e16x16.s16"),
    ("examples/softmax.ph", None, None),
    ("examples/tensorcore_f16.ph", {"TM": 64, "TN": 64, "TK": 32, "W": 128}, None),
]


def compiled(source: str, defines, key, *, upstream: bool, monkeypatch) -> driver._Compiled:
    """The artifact stages of `source`, its cubin by the ptx stage's text or by upstream's pass."""
    memo.forget()  # each compile whole, nothing reused from the one before
    with monkeypatch.context() as m:
        m.setenv("PHOBOS_CONTAINMENT", "off")
        if upstream:
            m.setattr(ptxas, "plain_target", lambda module: None)
        path = str(ROOT / source)
        return driver._compile(path, None, key, "sm_90", defines, None, "artifact", source_name=path)


@needs_ptxas
@pytest.mark.parametrize("source, defines, key", KERNELS)
def test_the_cubin_is_the_bytes_upstreams_pass_makes(source, defines, key, monkeypatch):
    direct = compiled(source, defines, key, upstream=False, monkeypatch=monkeypatch)
    upstream = compiled(source, defines, key, upstream=True, monkeypatch=monkeypatch)
    assert direct.cubin is not None and direct.cubin.startswith(b"\x7fELF")
    assert direct.cubin == upstream.cubin
    assert direct.asm == upstream.asm


@needs_ptxas
def test_ptxas_gets_upstreams_command_line(tmp_path, monkeypatch):
    log = tmp_path / "argv"
    fake = tmp_path / "bin" / "ptxas"  # a toolkit whose ptxas records its arguments, then runs the real one
    fake.parent.mkdir()
    fake.write_text(f'#!/bin/sh\necho "$@" >> {log}\nexec {PTXAS} "$@"\n')
    fake.chmod(0o755)
    monkeypatch.setattr(pipelines, "toolkit_dir", lambda: str(tmp_path))
    for upstream in (False, True):
        compiled("examples/saxpy.ph", None, None, upstream=upstream, monkeypatch=monkeypatch)
    calls = [line.split() for line in log.read_text().splitlines()]
    assert len(calls) == 2
    shapes = [[Path(a).suffix if "/" in a else a for a in call] for call in calls]
    assert shapes[0] == shapes[1] == ["-arch", "sm_90", ".ptx", "-o", ".bin", "--opt-level", "2"]


def target_of(targets: str) -> ptxas.PtxasTarget | None:
    text = f"module attributes {{gpu.container_module}} {{ gpu.module @k_module {targets} {{ }} }}"
    with make_context():
        return ptxas.plain_target(ir.Module.parse(text))


def test_the_target_fields_ptxas_takes():
    assert target_of('[#nvvm.target<chip = "sm_90", features = "+ptx80">]') == ptxas.PtxasTarget("k_module", "sm_90", 2)
    assert target_of('[#nvvm.target<O = 3, chip = "sm_80">]') == ptxas.PtxasTarget("k_module", "sm_80", 3)


@pytest.mark.parametrize(
    "targets",
    [
        '[#nvvm.target<chip = "sm_90", flags = {"ptxas-cmd-options" = ["-v"]}>]',  # options of ptxas's own
        '[#nvvm.target<chip = "sm_90", link = ["lib.bc"]>]',
        '[#nvvm.target<chip = "sm_90">, #nvvm.target<chip = "sm_80">]',  # two objects
        "",  # no target
    ],
)
def test_other_targets_are_left_to_upstream(targets):
    assert target_of(targets) is None


@needs_ptxas
def test_ptxas_refusing_the_ptx_is_a_compile_error_with_its_log():
    target = ptxas.PtxasTarget("k_module", "sm_90", 2)
    with pytest.raises(ptxas.PtxasFailed, match="syntax error|Parsing error|error"):
        ptxas.assemble(b".version 8.0\n.target sm_90\nnot ptx at all\n", target, PTXAS)
    with make_context():
        job = driver._Job("module {}", None)
    with pytest.raises(CompileError, match="`ptxas` invocation failed"):
        job.assemble("not ptx", target, toolkit_dir() or "")
