"""Warp roles on the TMA + wgmma ring (lowering/warp_roles.py, ops/pipelined_for.py's _RolesRing).

A GEMM main loop on sm_90a gets a producer warpgroup: the contract launches W + 128 threads,
the producer gives registers back and only issues the TMA copies behind the stages' empty
mbarriers, the consumers take the registers, free each stage from every warp after the
previous wgmma group, and run the rest of the kernel behind named barriers of their own.
Kernels the rule refuses keep the plain ring, and the plan says why.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

pytest.importorskip("mlir")

ROOT = Path(__file__).resolve().parents[2]
KERNELS = ROOT / "bench" / "kernels"
KEY = "A=a16.e16x16.s16;B=a16.e16x16.s16;C=a16.e16x16.s16"

_COLSUM = """
@launch(256)
@tensorcore
@pipeline
kernel gemm_colsum(A: tensor<f16>[M, K], B: tensor<f16>[N, K], C: tensor<f32>[M, N], S: tensor<f32>[MB, N]) {
  let m0 = ctx.block.x * 128
  let n0 = ctx.block.y * 256
  var acc: tile<f32>[128, 256] = 0.0
  for k in range(0, K, 64) {
    acc += dot_t(A[m0 :+ 128, k :+ 64], B[n0 :+ 256, k :+ 64])
  }
  C[m0 :+ 128, n0 :+ 256] = acc
  S[ctx.block.x, n0 :+ 256] = sum(acc, 0)
}
"""

_LOAD_FIRST = """
@launch(256)
@tensorcore
@pipeline
kernel gemm_bias_first(A: tensor<f16>[M, K], B: tensor<f16>[N, K], Bias: tensor<f32>[M, N], C: tensor<f32>[M, N]) {
  let m0 = ctx.block.x * 128
  let n0 = ctx.block.y * 256
  let bias = Bias[m0 :+ 128, n0 :+ 256]
  var acc: tile<f32>[128, 256] = 0.0
  for k in range(0, K, 64) {
    acc += dot_t(A[m0 :+ 128, k :+ 64], B[n0 :+ 256, k :+ 64])
  }
  C[m0 :+ 128, n0 :+ 256] = acc + bias
}
"""


def _stages(source, key: str, defines: dict | None = None, chip: str = "sm_90a") -> dict:
    from phobos.compiler import compile_stages

    text = source.read_text() if isinstance(source, Path) else source
    return compile_stages(text, key=key, chip=chip, defines=defines or {}, until="ptx")


def _contract(capsys, path: Path, key: str, *defines: str) -> dict:
    from phobos.cli.driver import main as phobos_main

    argv = ["compile", str(path), "--emit", "contract", "--chip", "sm_90a", "--key", key]
    for d in defines:
        argv += ["-D", d]
    assert phobos_main(argv) == 0
    return json.loads(capsys.readouterr().out)


def _roles(gpu_text: str) -> tuple[list[str], list[str]]:
    """The names of the ops in the consumers' and in the producer's branch of the gpu-stage IR
    (the scf.if whose arms raise and lower the registers)."""
    from mlir import ir

    from phobos.builder import context

    def names(region) -> list[str]:
        out = []
        for block in region.blocks:
            for op in block.operations:
                op.operation.walk(lambda inner: out.append(inner.name) or ir.WalkResult.ADVANCE)
        return out

    with context():
        module = ir.Module.parse(gpu_text)
        split = []

        def visit(op):
            first = [o.operation.name for o in op.regions[0].blocks[0].operations][:1] if op.regions else []
            if op.name == "scf.if" and first == ["nvvm.setmaxregister"]:
                split.append((names(op.regions[0]), names(op.regions[1])))
            return ir.WalkResult.ADVANCE

        module.operation.walk(visit)
    assert len(split) == 1, split
    return split[0]


def test_a_gemm_main_loop_gets_a_producer_warpgroup(capsys):
    contract = _contract(capsys, KERNELS / "hgemm.ph", KEY, "TK=64", "TN=256")
    assert contract["threads"] == 256 + 128
    note = contract["shared_memory"]["pipeline"][0]
    assert note["warp roles"] == (
        "a producer warpgroup (40 registers) issues the TMA copies; 8 consumer warps (232 registers)"
    )
    stage_barrier = [b for b in contract["shared_memory"]["barriers"] if "pipelined loop" in b["at"]]
    assert stage_barrier and "empty mbarrier" in stage_barrier[0]["reason"]


def test_the_roles_in_the_ptx():
    stages = _stages(KERNELS / "hgemm.ph", KEY, {"TK": 64, "TN": 256})
    ptx = stages["ptx"]
    assert ".maxntid 384, 1, 1" in ptx
    assert len(re.findall(r"setmaxnreg\.inc\.sync\.aligned\.u32 \t232;", ptx)) == 1
    assert len(re.findall(r"setmaxnreg\.dec\.sync\.aligned\.u32 \t40;", ptx)) == 1
    # two groups of three mbarriers: full (one arrival: the producer's expect_tx) and empty
    # (one arrival per consumer warp, mbarrier.arrive)
    assert len(re.findall(r"mbarrier\.init\.shared\.b64", ptx)) == 6
    assert len(re.findall(r"mbarrier\.arrive\.shared\.b64", ptx)) == 1
    # the only CTA barrier left is the one after the mbarriers are armed, before the roles split
    assert len(re.findall(r"\bbar\.sync\b", ptx)) == 1
    consumers, producer = _roles(stages["gpu"])
    # consumers: wait for the full stage, the wgmmas, wait for the previous group, free its stage,
    # then the epilogue; no CTA barrier and no copy
    for wanted in ("nvgpu.mbarrier.try_wait.parity", "nvvm.wgmma.wait.group.sync.aligned", "nvgpu.mbarrier.arrive"):
        assert wanted in consumers, wanted
    assert "gpu.barrier" not in consumers and "nvgpu.tma.async.load" not in consumers
    # producer: wait for an empty stage, arm the full one with its bytes, copy; nothing else
    for wanted in ("nvgpu.mbarrier.try_wait.parity", "nvgpu.mbarrier.arrive.expect_tx", "nvgpu.tma.async.load"):
        assert wanted in producer, wanted
    assert not [n for n in producer if "wgmma" in n or n in ("gpu.barrier", "nvvm.barrier", "nvgpu.mbarrier.arrive")]


def test_the_consumers_barriers_after_the_loop_are_named_barriers():
    """A cross-warp reduction after the loop synchronises the consumers only: `bar.sync 1, 256`
    (the producer warpgroup has left; a CTA barrier would wait for it forever)."""
    stages = _stages(_COLSUM, KEY + ";S=a16.e16x16.s16")
    consumers, producer = _roles(stages["gpu"])
    assert "nvvm.barrier" in consumers and "gpu.barrier" not in consumers + producer
    assert re.search(r"bar\.sync \t1, 256;", stages["ptx"])
    assert len(re.findall(r"bar\.sync \t0;", stages["ptx"])) == 1  # before the split


def test_what_runs_before_the_loop_runs_on_the_consumers():
    """A load before the loop (the bias tile) that the copies do not need runs in the consumers'
    branch only, after their registers are raised: the producer's threads are outside the
    kernel's layout and must not load."""
    stages = _stages(_LOAD_FIRST, KEY + ";Bias=a16.e16x16.s16")
    consumers, producer = _roles(stages["gpu"])
    assert "vector.load" in consumers or "llvm.load" in consumers
    assert not [n for n in producer if "load" in n and "tma" not in n]
    assert ".maxntid 384, 1, 1" in stages["ptx"]


_START_FROM_A_LOAD = """
@launch(256)
@tensorcore
@pipeline
kernel gemm_from(A: tensor<f16>[M, K], B: tensor<f16>[N, K], C: tensor<f32>[M, N], Start: tensor<i32>[G]) {
  let m0 = ctx.block.x * 128
  let n0 = ctx.block.y * 256
  let k0 = Start[ctx.block.x]
  var acc: tile<f32>[128, 256] = 0.0
  for k in range(k0, K, 64) {
    acc += dot_t(A[m0 :+ 128, k :+ 64], B[n0 :+ 256, k :+ 64])
  }
  C[m0 :+ 128, n0 :+ 256] = acc
}
"""

ATTENTION = ROOT / "examples" / "attention_f16.ph"
ATTENTION_KEY = ";".join(f"{t}=a16.e16x16x16.s16x16" for t in "QKVO")


def test_attention_gets_roles_and_its_warpgroups_take_turns(capsys):
    """Attention's ring waits for its dots in each iteration; with two consumer warpgroups the
    roles free them from the ring's CTA barrier, and the warpgroups issue their wgmmas in turn
    (bar.sync on their own named barrier before each dot, bar.arrive on the other's after it):
    one's softmax runs beside the other's dots. The stage is freed after the body (no dot in
    flight), and the Q tile, loaded before the loop, is the consumers' alone."""
    defines = ["D=64", "BM=128", "BN=128", "W=256"]
    contract = _contract(capsys, ATTENTION, ATTENTION_KEY, *defines)
    assert contract["threads"] == 384
    note = contract["shared_memory"]["pipeline"][0]
    assert note["wgmma groups in flight"] == 0
    assert note["warp roles"].endswith("the two consumer warpgroups take turns issuing their wgmmas (ping-pong)")
    stages = _stages(ATTENTION, ATTENTION_KEY, {d.split("=")[0]: int(d.split("=")[1]) for d in defines})
    ptx = stages["ptx"]
    # two dots per iteration: each waits for its turn and hands the next one on; before the
    # loop the second warpgroup hands the first its first turn, after it the first takes the last
    assert len(re.findall(r"bar\.sync \t%r\d+, 256;", ptx)) == 2
    assert len(re.findall(r"bar\.arrive %r\d+, %r\d+;", ptx)) == 2 + 1
    assert len(re.findall(r"bar\.sync \t2, 256;", ptx)) == 1
    assert len(re.findall(r"\bbar\.sync \t0;", ptx)) == 1
    consumers, producer = _roles(stages["gpu"])
    assert "nvgpu.mbarrier.arrive" in consumers and "gpu.barrier" not in consumers
    assert not [n for n in producer if "wgmma" in n or n == "vector.load"]


@pytest.mark.parametrize(
    "defines,threads,why",
    [
        (["D=64", "BM=64", "BN=64", "W=128"], 128, "one warpgroup runs them"),
        # 96 registers of dots (S and O sums, Q and P fragments): two CTAs of 256 threads fit
        (["D=64", "BM=128", "BN=64", "W=256"], 256, "two CTAs share an SM without a producer warpgroup"),
    ],
    ids=["one-warpgroup", "two-ctas-fit"],
)
def test_attention_that_runs_two_ctas_or_one_warpgroup_keeps_the_plain_ring(capsys, defines, threads, why):
    contract = _contract(capsys, ATTENTION, ATTENTION_KEY, *defines)
    note = contract["shared_memory"]["pipeline"][0]
    assert contract["threads"] == threads and "warp roles" not in note
    assert why in note["why no producer warp"]


def test_promoted_fp8_sums_that_would_spill_keep_the_plain_ring(capsys):
    """wgmma_fp8 at TN = 256 holds its f32 sum and each dot's fp8 partial: 256 registers a thread,
    more than the consumers' 232 (it ran at half speed with roles); at TN = 128 it takes them."""
    fp8 = KERNELS / "wgmma_fp8.ph"
    note = _contract(capsys, fp8, KEY, "TN=256")["shared_memory"]["pipeline"][0]
    assert "its dots need about 288 registers a thread, more than the consumers' 232" in note["why no producer warp"]
    note = _contract(capsys, fp8, KEY, "TN=128")["shared_memory"]["pipeline"][0]
    assert "ping-pong" in note["warp roles"]


_MANY_THREADS = """
@launch(1024)
@tensorcore
@pipeline
kernel gemm_wide(A: tensor<f16>[M, K], B: tensor<f16>[N, K], C: tensor<f32>[M, N]) {
  let m0 = ctx.block.x * 512
  let n0 = ctx.block.y * 64
  var acc: tile<f32>[512, 64] = 0.0
  for k in range(0, K, 64) {
    acc += dot_t(A[m0 :+ 512, k :+ 64], B[n0 :+ 64, k :+ 64])
  }
  C[m0 :+ 512, n0 :+ 64] = acc
}
"""


@pytest.mark.parametrize(
    "source,key,defines,why",
    [
        (KERNELS / "hgemm.ph", KEY, ["TK=64", "MINB=2"], "several CTAs per SM"),
        (KERNELS / "hgemm.ph", KEY, ["TK=64"], "two CTAs of 98304 bytes of shared memory share an SM"),
        (_START_FROM_A_LOAD, KEY, [], "the producer's copies need 'tile.load_slice' before the loop"),
        (_MANY_THREADS, KEY, [], "1024 threads leave no room for a producer warpgroup"),
    ],
    ids=["two-ctas-asked", "two-ctas-fit", "copies-read-a-load", "too-many-threads"],
)
def test_kernels_the_rule_refuses_keep_the_plain_ring(capsys, tmp_path, source, key, defines, why):
    if isinstance(source, str):
        path = tmp_path / "k.ph"
        path.write_text(source)
        source = path
    contract = _contract(capsys, source, key, *defines)
    assert contract["threads"] in (128, 256, 1024)
    note = contract["shared_memory"]["pipeline"][0]
    assert note["wgmma groups in flight"] == 1 and "warp roles" not in note
    assert why in note["why no producer warp"]
    ptx = _stages(source, key, {d.split("=")[0]: int(d.split("=")[1]) for d in defines})["ptx"]
    assert "setmaxnreg" not in ptx and "mbarrier.arrive.shared.b64" not in ptx


def test_explain_names_the_schedule():
    from phobos.compiler.explain import explain_source, render_text

    text = render_text(explain_source(KERNELS / "hgemm.ph", key=KEY, chip="sm_90a", defines={"TK": 64, "TN": 256}))
    assert "a producer warpgroup (40 registers) issues the TMA copies; 8 consumer warps" in text
    assert "each warp frees the stage on its empty mbarrier after its wait" in text
