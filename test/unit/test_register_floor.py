"""The register floor (runtime/autotune/register_floor.py): a lower bound on registers per thread
from the front end's tile facts, and the pruning on it before ptxas, in the tuner's screen step and
in `phobos aot --all-candidates` (the manifest's "pruned" entries). No GPU."""

from __future__ import annotations

import argparse
import json

import numpy as np

import phobos
from phobos.cli.tune import aot_all_candidates
from phobos.runtime import autotune as at
from phobos.runtime.autotune.register_floor import floor_pruned, register_floor, thread_cap
from phobos.runtime.autotune.tile_facts import TileFacts

LIMITS = at.chip_limits("sm_90")

# The original gemm_fp32.ph's shape: an f32 sum carried across the K loop.
GEMM = """\
@autotune(TM in [256, 128], TN in [256, 128], TK in [8], W in [256])
@launch(W)
kernel gemm(A: tensor<f32>[M, K], B: tensor<f32>[K, N], C: tensor<f32>[M, N]) {
  var acc: tile<f32>[TM, TN] = 0.0
  for kt in range(0, K, TK) {
    acc += dot(A[ctx.block.x * TM :+ TM, kt :+ TK], B[kt :+ TK, ctx.block.y * TN :+ TN])
  }
  C[ctx.block.x * TM :+ TM, ctx.block.y * TN :+ TN] = acc
}
"""


def facts_of(text: str, **fixed) -> tuple[list[dict], list[TileFacts | None]]:
    space = at.source_space(text, "t.ph", None, fixed or None)
    return space.configs, at.source_facts(text, "t.ph", None, space.configs)


def pruned_configs(text: str, **fixed) -> dict[str, str]:
    configs, facts = facts_of(text, **fixed)
    return {at.config_name(configs[i]): why for i, why in floor_pruned(facts, LIMITS).items()}


# ----------------------------------------------------------------------------- the floor


def test_a_256x256_f32_sum_over_256_threads_is_pruned_and_256x128_kept():
    configs, facts = facts_of(GEMM)
    floors = {at.config_name(c): register_floor(f).registers for c, f in zip(configs, facts)}
    assert floors == {
        "TM=256 TN=256 TK=8 W=256": 256,  # 65536 f32 over 256 threads
        "TM=256 TN=128 TK=8 W=256": 128,
        "TM=128 TN=256 TK=8 W=256": 128,
        "TM=128 TN=128 TK=8 W=256": 64,
    }
    pruned = pruned_configs(GEMM)
    assert list(pruned) == ["TM=256 TN=256 TK=8 W=256"]
    why = pruned["TM=256 TN=256 TK=8 W=256"]
    assert why == (
        "registers: the sum 'acc' of the dot at line 6 alone needs at least 256 registers per thread "
        "(256 x 256 f32 over 256 threads), more than the 255 a thread has; ptxas would keep it in local memory"
    )


def test_a_space_whose_every_candidate_exceeds_keeps_them_all():
    assert pruned_configs(GEMM, TM=256, TN=256) == {}  # one candidate: nothing else would be left
    wide = GEMM.replace("W in [256]", "W in [128, 64]").replace("TN in [256, 128]", "TN in [256]")
    configs, facts = facts_of(wide, TM=256)
    assert [register_floor(f).registers for f in facts] == [512, 1024]
    assert floor_pruned(facts, LIMITS) == {}


def test_only_a_sum_carried_across_a_loop_counts():
    once = """\
@autotune(TM in [256, 128], TN in [256])
@launch(256)
kernel once(A: tensor<f32>[M, K], B: tensor<f32>[K, N], C: tensor<f32>[M, N]) {
  C[ctx.block.x * TM :+ TM, 0 :+ TN] = dot(A[ctx.block.x * TM :+ TM, 0 :+ 8], B[0 :+ 8, 0 :+ TN])
}
"""
    _, facts = facts_of(once)
    assert facts[0].dots and not facts[0].dots[0].acc and register_floor(facts[0]) is None
    # in a loop but not carried: a fresh value each trip, or a sum declared inside the loop
    fresh = """\
@autotune(TM in [256, 128], TN in [256])
@launch(256)
kernel fresh(A: tensor<f32>[M, K], B: tensor<f32>[K, N], C: tensor<f32>[M, N]) {
  for kt in range(0, K, 8) {
    var acc: tile<f32>[TM, TN] = 0.0
    acc += dot(A[ctx.block.x * TM :+ TM, kt :+ 8], B[kt :+ 8, 0 :+ TN])
    let s = dot(A[ctx.block.x * TM :+ TM, kt :+ 8], B[kt :+ 8, 0 :+ TN])
    C[ctx.block.x * TM :+ TM, 0 :+ TN] = acc + s
  }
}
"""
    _, facts = facts_of(fresh)
    assert len(facts[0].dots) == 2 and all(register_floor(f) is None for f in facts)
    assert pruned_configs(fresh) == {}


def test_a_rescaled_sum_counts_as_attention_carries_it():
    text = GEMM.replace("acc += dot(A", "acc = acc * 0.5 + dot(A")  # every element of acc read each trip
    assert list(pruned_configs(text)) == ["TM=256 TN=256 TK=8 W=256"]


def test_an_f16_sum_counts_two_bytes():
    half = """\
@autotune(TM in [256, 128], TN in [256], W in [128])
@launch(W)
kernel h(A: tensor<f16>[M, K], B: tensor<f16>[K, N], C: tensor<f16>[M, N]) {
  var acc: tile<f16>[TM, TN] = 0.0
  for kt in range(0, K, 16) {
    acc += dot(A[ctx.block.x * TM :+ TM, kt :+ 16], B[kt :+ 16, 0 :+ TN])
  }
  C[ctx.block.x * TM :+ TM, 0 :+ TN] = acc
}
"""
    configs, facts = facts_of(half)
    assert facts[0].dots[0].acc_element == "f16"
    assert [register_floor(f).registers for f in facts] == [256, 128]  # halves packed in pairs
    pruned = pruned_configs(half)
    assert list(pruned) == ["TM=256 TN=256 W=128"]
    assert "(256 x 256 f16 over 128 threads)" in pruned["TM=256 TN=256 W=128"]
    # the same operands summed in f32 (the dot's own type): twice the registers
    wide = half.replace("var acc: tile<f16>", "var acc: tile<f32>").replace("= acc\n", "= f16(acc)\n")
    assert [register_floor(f).registers for f in facts_of(wide)[1]] == [512, 256]


def test_the_cap_follows_the_ctas_threads():
    assert thread_cap(256, LIMITS) == 255 and thread_cap(128, LIMITS) == 255
    assert thread_cap(1024, LIMITS) == 64 and thread_cap(512, LIMITS) == 128 and thread_cap(384, LIMITS) == 168


def test_facts_recorded_before_the_floor_prune_nothing():
    _, facts = facts_of(GEMM)
    old = [f.to_json() for f in facts]
    for f in old:
        for d in f["dots"]:
            for key in ("acc", "acc_element", "line"):
                del d[key]
    again = [TileFacts.from_json(json.loads(json.dumps(f))) for f in old]
    assert all(register_floor(f) is None for f in again) and floor_pruned(again, LIMITS) == {}
    assert [TileFacts.from_json(f.to_json()) for f in facts] == facts  # the new fields round-trip


# ----------------------------------------------------------------------------- the tuner and aot

SMALL = GEMM.replace("TM in [256, 128], TN in [256, 128]", "TM in [256, 16], TN in [256]")  # 2 candidates


def test_the_tuner_prunes_on_the_floor_before_compiling(tmp_path):
    src = tmp_path / "gemm.ph"
    src.write_text(SMALL)
    k = phobos.compile(src, cache_dir=tmp_path / "cache")
    a, b, c = np.ones((64, 32), np.float32), np.ones((32, 256), np.float32), np.zeros((64, 256), np.float32)
    sig = k.signature
    views = sig.describe((a, b, c))
    key = sig.bind((a, b, c), views, grid=(0, 0, 0), check_promises=False).key.to_text()
    result = k._get_tuner(explicit=True).screen(sig, (a, b, c), views, key, jobs=1, progress=False)
    by = {x.name: x for x in result.candidates}
    big, small = by["TM=256 TN=256 TK=8 W=256"], by["TM=16 TN=256 TK=8 W=256"]
    assert big.status == "pruned" and not big.compiled and "at least 256 registers per thread" in big.reason
    assert small.viable and small.compiled and result.compiled == 1


def test_aot_records_pruned_candidates_in_the_manifest(tmp_path):
    src = tmp_path / "gemm.ph"
    src.write_text(SMALL)
    out, lines = tmp_path / "aot", []
    args = argparse.Namespace(file=str(src), output=str(out), kernel=None, chip="sm_90", key=[], no_check=False)
    assert aot_all_candidates(args, {}, [], None, RuntimeError, out=lines.append) == 0
    manifest = json.loads((out / "autotune.json").read_text())
    big, small = manifest["candidates"]
    assert big["config"] == {"TM": 256, "TN": 256, "TK": 8, "W": 256} and big["status"] == "pruned"
    assert "at least 256 registers per thread (256 x 256 f32 over 256 threads)" in big["reason"]
    assert big["keys"] == [] and big["compile_s"] == 0.0 and big["facts"] is not None
    assert not (out / big["folder"]).exists() and small["status"] == "ok" and (out / small["folder"]).is_dir()
    assert manifest["variants"] == 1
    assert any("TM=256 TN=256 TK=8 W=256: pruned: registers: the sum 'acc'" in line for line in lines)
    # tuning from the folder reports it as pruned, with the reason
    tuner = phobos.load(out)._get_tuner(explicit=True)
    cands = [at.Candidate(i, dict(cfg)) for i, cfg in enumerate(tuner.configs)]
    tuner._prune_on_register_floor(cands, LIMITS)
    tuner._prepare(cands, "", None, 1)
    assert [x.status for x in cands] == ["pruned", "pending"] and cands[0].reason == big["reason"]
