"""The untuned default on synthetic spaces: the tile facts the front end gives, each term of the cost
model, the choice (promises, PHOBOS_AUTOTUNE_DEFAULT) and its reasons, and the launch path that
uses it. No GPU: the driver is faked where a launch path is exercised."""

from __future__ import annotations

import json

import pytest

import phobos
from phobos.runtime import driver
from phobos.runtime.autotune import (
    ENV,
    ENV_DEFAULT,
    TileFacts,
    chip_model,
    choose_default,
    default_policy,
    rank,
    source_facts,
)
from phobos.runtime.autotune.cost_model import estimate, grid_ctas, useful_fraction, vector_bytes
from phobos.runtime.autotune.tile_facts import Access, Dot, GridAxis, Loop

H100 = chip_model("sm_90")

GEMM = """
@autotune(TM in [32, 128], TN in [32, 128], TK in [4, 16], W in [64, 256])
@launch(W)
@pipeline
kernel gemm(A: tensor<f32>[M, K], B: tensor<f32>[K, N], C: tensor<f32>[M, N]) {
  let pm = ctx.block.x
  var acc: tile<f32>[TM, TN] = 0.0
  for kt in range(0, K, TK) {
    acc += dot(A[pm * TM :+ TM, kt :+ TK], B[kt :+ TK, ctx.block.y * TN :+ TN])
  }
  C[pm * TM :+ TM, ctx.block.y * TN :+ TN] = acc
}
"""

ROWS = """
@autotune(BN in [4096], W in [1024, 512, 256, 128])
@launch(W)
kernel rows(X: tensor<f16>[M, N], Y: tensor<f16>[M, N]) {
  let r = ctx.block.x
  Y[r :+ 1, 0 :+ BN] = X[r :+ 1, 0 :+ BN] * 2.0
}
"""

SAXPY = """
@autotune(BLOCK in [16, 4096])
@launch(256)
@aligned(N = BLOCK)
kernel saxpy(X: tensor<f32>[N], Y: tensor<f32>[N], a: f32) {
  let start = ctx.block.x * BLOCK
  Y[start :+ BLOCK] += a * X[start :+ BLOCK]
}
"""


def space_of(text: str, **fixed):
    from phobos.runtime.autotune import source_space

    space = source_space(text, "t.ph", None, fixed)
    return space, source_facts(text, "t.ph", None, space.configs)


# ----------------------------------------------------------------------------- tile facts


def test_facts_of_a_gemm_come_from_the_front_end():
    space, facts = space_of(GEMM)
    f = facts[space.configs.index({"TM": 128, "TN": 32, "TK": 16, "W": 64})]
    assert f.threads == 64 and f.min_blocks == 1 and f.pipelined and not f.tensorcore
    assert f.grid[:2] == [GridAxis("M", 128), GridAxis("N", 32)] and f.grid[2] is None
    assert f.dots == [Dot(128, 32, 16, 4, Loop("K", 16, 0), acc="acc", acc_element="f32", line=9)]
    loads = {a.tensor: a for a in f.accesses if not a.write}
    assert loads["A"].tile == (128, 16) and loads["A"].loop == Loop("K", 16, 0)
    assert loads["B"].tile == (16, 32) and loads["B"].dims == ("K", "N")
    (store,) = [a for a in f.accesses if a.write]
    assert store.tensor == "C" and store.loop is None and store.bytes == 128 * 32 * 4
    assert TileFacts.from_json(json.loads(json.dumps(f.to_json()))) == f  # the manifest's round trip


def test_grid_axes_through_lets_and_a_constant_factor():
    _, facts = space_of(SAXPY)
    assert facts[0].grid[0] == GridAxis("N", 16)
    _, facts = space_of(ROWS)
    assert facts[0].grid[0] == GridAxis("M", 1)


def test_loop_trips():
    assert Loop("K", 16).trips({"K": 4096}) == 256
    assert Loop("K", 16).trips({"K": 4093}) == 256
    assert Loop(100, 8, 4).trips({}) == 12


# ----------------------------------------------------------------------------- the model's terms


def stream(tile, threads=256, element_bytes=4, dims=("M", "N"), grid=None):
    axes = grid or [GridAxis("M", tile[0]), GridAxis("N", tile[1]), None]
    loads = Access("X", element_bytes, tile, dims, False)
    stores = Access("Y", element_bytes, tile, dims, True)
    return TileFacts({"T": tile[0]}, threads, grid=axes, accesses=[loads, stores])


def test_vector_width_follows_the_row_pitch():
    a = Access("X", 4, (8, 128), ("M", "N"), False)
    assert vector_bytes(a, 256, {"M": 4096, "N": 4096}) == 16
    assert vector_bytes(a, 256, {"M": 4096, "N": 4094}) == 8  # 16376-byte rows: 8-byte aligned
    assert vector_bytes(a, 256, {"M": 4096, "N": 4093}) == 4
    thin = Access("X", 2, (1, 1024), ("M", "N"), False)
    assert vector_bytes(thin, 1024, {"M": 8, "N": 1024}) == 2  # one f16 per thread


def test_grid_waves_and_masking_waste():
    f = stream((64, 64))
    assert grid_ctas(f, {"M": 4096, "N": 4096}) == 64 * 64
    assert grid_ctas(f, {"M": 4097, "N": 4096}) == 65 * 64
    assert useful_fraction(f, {"M": 4097, "N": 4096}) == pytest.approx(4097 / (65 * 64))
    e = estimate(f, {"M": 4096, "N": 4096}, H100)
    assert e.facts["waves"] == pytest.approx(4096 / (132 * e.facts["ctas_per_sm"]))
    no_axis = TileFacts({}, 256, accesses=[Access("Y", 4, (1024,), ("N",), True)])
    assert grid_ctas(no_axis, {"N": 10_000}) == 10  # no grid axis known: the written tensor over its tile


def test_a_partial_last_wave_costs_a_whole_one():
    """132 SMs x 2 CTAs of 1024 threads: 264 tiles take one wave, 265 take two."""
    tile = TileFacts({}, 1024, grid=[GridAxis("M", 1), None, None])
    tile.accesses = [Access("X", 4, (1, 8192), ("M", None), False)]
    one_wave = estimate(tile, {"M": 132 * 2}, H100)
    assert one_wave.facts["ctas_per_sm"] == 2 and one_wave.facts["wave_efficiency"] == 1.0
    spill_over = estimate(tile, {"M": 132 * 2 + 1}, H100)
    assert spill_over.facts["wave_efficiency"] < 0.51
    assert spill_over.cycles == pytest.approx(2 * one_wave.cycles)


def test_small_tiles_starve_the_memory_system():
    ranked = rank([stream((1, 16)), stream((8, 256))], {"M": 16384, "N": 16384}, H100)
    assert [e.config["T"] for e in ranked] == [8, 1]
    thin, wide = ranked[1], ranked[0]
    assert thin.facts["latency_efficiency"] < 0.2 and wide.facts["latency_efficiency"] == 1.0


def test_registers_past_the_min_blocks_cap_spill():
    dot = Dot(128, 128, 16, 4, Loop("K", 16))
    loads = [Access("A", 4, (128, 16), ("M", "K"), False, Loop("K", 16))]
    grid = [GridAxis("M", 128), GridAxis("N", 128), None]
    free = TileFacts({"MINB": 1}, 256, 1, grid, loads, [dot], pipelined=True)
    capped = TileFacts({"MINB": 2}, 256, 2, grid, loads, [dot], pipelined=True)
    extents = {"M": 4096, "N": 4096, "K": 4096}
    a, b = estimate(free, extents, H100), estimate(capped, extents, H100)
    assert a.facts["spill"] == 1.0 and b.facts["spill"] > 1.1  # 64 outputs a thread need over 128 registers
    assert b.facts["ctas_per_sm"] == 2 and a.facts["ctas_per_sm"] == 1
    assert b.cycles > a.cycles


def test_gemm_prefers_thick_thread_tiles_and_long_k_steps():
    space, facts = space_of(GEMM)
    ranked = rank(facts, {"M": 4096, "N": 4096, "K": 4096}, H100)
    best = ranked[0].config
    assert best["TM"] * best["TN"] // best["W"] >= 32 and best["TK"] == 16
    bottom = [e.config for e in ranked[-len(ranked) // 4 :]]
    thin = [c for c in space.configs if c["TM"] * c["TN"] // c["W"] == 4]  # 4 outputs a thread: little reuse
    assert thin and all(c in bottom for c in thin)
    assert ranked[-1].config["W"] == 64 and ranked[-1].facts["spill"] > 1.5  # 256 accumulators a thread


def test_row_kernels_keep_two_vectors_per_thread():
    space, facts = space_of(ROWS)
    ranked = rank(facts, {"M": 32768, "N": 4096}, H100)
    assert ranked[0].config["W"] in (128, 256) and ranked[-1].config["W"] == 1024
    assert ranked[-1].facts["vectors_per_thread"] < 1


def test_sm_count_and_device_change_the_chip():
    assert chip_model("sm_90").sms == 132
    assert chip_model("sm_90a", sms=114).sms == 114  # an H100 PCIe
    assert chip_model("sm_90", device_name="NVIDIA H200").dram_bytes_per_clock > H100.dram_bytes_per_clock
    assert chip_model("sm_75").name == "H100"  # an unknown chip: the sm_90 table


# ----------------------------------------------------------------------------- the choice


def test_choice_skips_candidates_whose_promises_break(monkeypatch):
    monkeypatch.delenv(ENV_DEFAULT, raising=False)
    space, facts = space_of(SAXPY)
    choice = choose_default(space.configs, facts, {"N": 1 << 20}, H100, promises=space.promises)
    assert choice.how == "model" and choice.config["BLOCK"] >= 1024
    ragged = choose_default(space.configs, facts, {"N": (1 << 20) + 16}, H100, promises=space.promises)
    assert ragged.config == {"BLOCK": 16}  # only BLOCK = 16 divides N
    assert len(ragged.excluded) == len(space.configs) - 1
    assert "breaks @aligned(N = 4096)" in ragged.excluded[len(space.configs) - 1]


def test_first_policy_and_bad_values(monkeypatch):
    space, facts = space_of(SAXPY)
    monkeypatch.setenv(ENV_DEFAULT, "first")
    assert default_policy() == "first"
    choice = choose_default(space.configs, facts, {"N": 1 << 20}, H100)
    assert (choice.index, choice.how) == (0, "first") and "candidate 0" in choice.reasons()[0]
    monkeypatch.setenv(ENV_DEFAULT, "fastest")
    with pytest.raises(ValueError, match="PHOBOS_AUTOTUNE_DEFAULT='fastest'"):
        default_policy()


def test_no_facts_falls_back_to_the_first_runnable(monkeypatch):
    monkeypatch.delenv(ENV_DEFAULT, raising=False)
    choice = choose_default([{"B": 1}, {"B": 2}], [None, None], {}, H100, available={1})
    assert (choice.index, choice.how) == (1, "no facts") and choice.excluded == {0: "not compiled"}


def test_reasons_name_the_runner_up_and_candidate_zero(monkeypatch):
    monkeypatch.delenv(ENV_DEFAULT, raising=False)
    space, facts = space_of(ROWS)
    choice = choose_default(space.configs, facts, {"M": 32768, "N": 4096}, H100)
    reasons = choice.reasons()
    assert reasons[0].startswith(f"BN=4096 W={choice.config['W']}: about")
    assert any(r.startswith(f"runner-up BN=4096 W={choice.runner_up.config['W']}") for r in reasons)
    (first,) = [r for r in reasons if r.startswith("candidate 0 BN=4096 W=1024")]
    assert "x the time (" in first and "KiB in flight per SM" in first
    data = json.loads(json.dumps(choice.to_json()))
    assert data["config"] == choice.config and len(data["ranking"]) == 4


# ----------------------------------------------------------------------------- the launch path


def test_tuning_off_launches_through_the_default(tmp_path, monkeypatch):
    src = tmp_path / "rows.ph"
    src.write_text(ROWS)
    monkeypatch.setattr(driver, "available", lambda: True)
    monkeypatch.setenv(ENV, "0")
    monkeypatch.delenv(ENV_DEFAULT, raising=False)
    k = phobos.compile(src, cache_dir=tmp_path / "c")
    assert k._launch_tuner() is None
    chooser = k._default_chooser()
    assert chooser is not None and len(chooser) == 4
    monkeypatch.setenv(ENV_DEFAULT, "first")
    assert phobos.compile(src, cache_dir=tmp_path / "c")._default_chooser() is None
    monkeypatch.setattr(driver, "available", lambda: False)
    monkeypatch.delenv(ENV_DEFAULT)
    assert phobos.compile(src, cache_dir=tmp_path / "c")._default_chooser() is None  # the launch fails as before


def test_decide_without_tuning_takes_the_default(tmp_path, monkeypatch):
    """Tuner.decide(tune=False): the model's pick for the arguments' extents, nothing tuned."""
    import numpy as np

    from phobos.runtime.binding import Signature

    src = tmp_path / "rows.ph"
    src.write_text(ROWS)
    monkeypatch.delenv(ENV_DEFAULT, raising=False)
    k = phobos.compile(src, cache_dir=tmp_path / "c")
    tuner = k._get_tuner(explicit=True)
    monkeypatch.setattr(tuner, "tune", lambda *a, **kw: pytest.fail("decide(tune=False) tuned"))
    x = np.zeros((32768, 4096), np.float16)
    sig = Signature(k.tile_contract())
    views = sig.describe((x, x))
    index = tuner.decide(sig, (x, x), views, "", tune=False)
    assert tuner.configs[index]["W"] in (128, 256)
    assert tuner.last_default.index == index and tuner.last_default.extents == {"M": 32768, "N": 4096}


def test_a_folder_ranks_from_its_manifest(tmp_path, monkeypatch):
    """phobos.load(folder): the facts come from autotune.json; only compiled candidates take part,
    and a folder without facts (built before the model) keeps the first compiled candidate."""
    from phobos.runtime.autotune import FolderTuner

    monkeypatch.delenv(ENV_DEFAULT, raising=False)
    space, facts = space_of(ROWS)
    entries = [
        {
            "config": c,
            "folder": f"candidates/{i}",
            "promises": {},
            "threads": c["W"],
            "status": "ok",
            "facts": f.to_json(),
        }
        for i, (c, f) in enumerate(zip(space.configs, facts))
    ]
    manifest = json.loads(json.dumps({"kernel": "rows", "family": "x", "chip": "sm_90", "candidates": entries}))
    tuner = FolderTuner(tmp_path, manifest, {0: object(), 3: object()})  # W = 1024 and W = 128 compiled
    choice = tuner.default_choice({"M": 32768, "N": 4096})
    assert (choice.how, choice.config) == ("model", {"BN": 4096, "W": 128})
    assert choice.excluded == {1: "not compiled", 2: "not compiled"}
    for entry in manifest["candidates"]:
        del entry["facts"]
    old = FolderTuner(tmp_path, manifest, {2: object(), 3: object()})
    assert (old.default_choice({"M": 32768, "N": 4096}).how, old.default_choice({}).index) == ("no facts", 2)
