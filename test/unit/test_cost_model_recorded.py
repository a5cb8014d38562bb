"""The untuned default's cost model against the tunings measured on GPUs (bench/results/): for each
recorded space and shape, the model's pick against the measured best. Needs no GPU.

The ratio is the best's measured time over the pick's (1.0: the model picked the measured best);
issue 27 asks for at least 0.8 on the GEMM and row kernels. Where the records hold only some of
the space (hand-picked sweeps), a pick outside them is not measured and is counted as such."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest

from phobos.runtime.autotune import chip_model, choose_default, config_name, source_facts, source_space

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "bench" / "results"
KERNELS = ROOT / "bench" / "kernels"
TARGET = 0.8  # issue 27: the default within 0.8x of the tuned best


def _tuner_tables():
    """Full tunings: every candidate timed by the tuner (autotune_gemm-h200.json, autotune.json)."""
    data = json.loads((RESULTS / "autotune_gemm-h200.json").read_text())
    for case in data["cases"]:
        folder = case["folder"]
        source = "gemm_aligned.ph" if folder == "gemm_aligned" else "gemm.ph"
        defines = {"MINB": 1} if folder == "gemm_minb1" else {}
        m, n, k = case["size"]
        yield case["case"], source, defines, {"M": m, "N": n, "K": k}, "NVIDIA H200", _times(case)
    data = json.loads((RESULTS / "autotune.json").read_text())
    for case in data["cases"]:
        if case["case"].startswith("saxpy"):
            extents = {"N": case["shape"][0]}
            source = "saxpy_tune.ph"
        else:
            extents = {"M": case["shape"][0], "N": case["shape"][1]}
            source = "scale.ph"
        yield case["case"], source, {}, extents, "NVIDIA H200", _times(case)


def _h100_tunings():
    """bench_default_config's full tunings on the H100 (default_config-h100.json): every candidate
    of the gemm, hgemm and scale spaces timed by the tuner at each case's shape."""
    data = json.loads((RESULTS / "default_config-h100.json").read_text())
    sources = {"gemm": ("gemm.ph", {}), "gemm_minb1": ("gemm.ph", {"MINB": 1}), "gemm_aligned": ("gemm_aligned.ph", {})}
    sources |= {"hgemm": ("hgemm.ph", {}), "scale": ("scale.ph", {})}
    for case in data["cases"]:
        if case.get("table") and case.get("folder") in sources:
            source, defines = sources[case["folder"]]
            size = case["size"]
            extents = dict(zip("MNK", size))
            yield f"{case['case']} (H100)", source, defines, extents, "NVIDIA H100", _times(case)


def _times(case) -> dict[str, float]:
    return {r["candidate"]: r["time_us"] for r in case["table"] if r.get("time_us")}


def _row_kernels():
    """bench_stdlib's sweep of W over the std.nn row kernels (stdlib-h100.json): the whole space of
    one row per CTA (the sweep predates the R axis: the cases fix R = 1)."""
    data = json.loads((RESULTS / "stdlib-h100.json").read_text())
    m, n = data["shape"]
    groups: dict[tuple[str, str], dict[str, float]] = {}
    for row in data["rows"]:
        if row["impl"].startswith("std W="):
            groups.setdefault((row["op"], row["type"]), {})[f"BN=4096 {row['impl'][4:]} R=1"] = row["ms"] * 1e3
    for (op, elem), times in groups.items():
        extents = {"M": m, "N": n, "D": n, "H": n // 2}
        yield f"std {op} {elem}", f"std_{op}_{elem}.ph", {"R": 1}, extents, "NVIDIA H100", times


def _hand_picked_gemms():
    """bench_gemm and bench_hgemm's hand-picked configurations (defines over candidate 0)."""
    data = json.loads((RESULTS / "gemm-h200.json").read_text())
    base = {"TILE_M": 128, "TILE_N": 128, "TILE_K": 8, "W": 256, "MINB": 1}
    for result in data["results"]:
        groups: dict[str, dict[str, float]] = {}
        for run in result["phobos"]:
            groups.setdefault(run["kernel"], {})[config_name({**base, **run["defines"]})] = run["ms"] * 1e3
        extents = {"M": result["m"], "N": result["n"], "K": result["k"]}
        for kernel, times in groups.items():
            label = f"{kernel} {result['m']}x{result['n']}x{result['k']} (hand-picked)"
            yield label, f"{kernel}.ph", {}, extents, "NVIDIA H200", times
    data = json.loads((RESULTS / "hgemm-h200.json").read_text())
    base = {"TM": 128, "TN": 128, "TK": 32, "W": 256, "MINB": 1}
    names = {"default": {}, "MINB=2": {"MINB": 2}, "TK=64": {"TK": 64}, "MINB=2,TK=64": {"MINB": 2, "TK": 64}}
    names["TK=64,TN=256"] = {"TK": 64, "TN": 256}
    groups = {}
    for row in data["results"]:
        parts = row["impl"].split()
        if parts[0] == "phobos" and parts[1] in ("hgemm", "hgemm_aligned") and len(parts) == 3:
            config = config_name({**base, **names[parts[2]]})
            groups.setdefault((parts[1], tuple(row["size"])), {})[config] = row["ms"] * 1e3
    for (kernel, (m, n, k)), times in groups.items():
        yield f"{kernel} {m}x{n}x{k} (hand-picked)", f"{kernel}.ph", {}, {"M": m, "N": n, "K": k}, "NVIDIA H200", times


def _pick(source: str, defines: dict, extents: dict, device: str):
    space, facts = _space_and_facts(source, tuple(defines.items()))
    chip = chip_model("sm_90", device_name=device)
    return choose_default(space.configs, facts, extents, chip, promises=space.promises), space.configs


@functools.cache
def _space_and_facts(source: str, defines: tuple):
    text = (KERNELS / source).read_text()
    space = source_space(text, source, None, dict(defines))
    return space, source_facts(text, source, None, space.configs)


CASES = list(_tuner_tables()) + list(_h100_tunings()) + list(_row_kernels()) + list(_hand_picked_gemms())


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_pick_is_within_target_of_the_measured_best(case):
    label, source, defines, extents, device, times = case
    choice, configs = _pick(source, defines, extents, device)
    assert choice.how == "model", f"{label}: the model ranked nothing ({choice.how})"
    best = min(times.values())
    picked = times.get(config_name(choice.config))
    if picked is None:
        pytest.skip(f"{label}: the pick {config_name(choice.config)} was not among the measured configurations")
    assert best / picked >= TARGET, (
        f"{label}: the default {config_name(choice.config)} takes {picked:.1f} us, "
        f"{best / picked:.3f}x the measured best ({best:.1f} us)"
    )


def test_the_model_beats_candidate_zero_where_it_was_poor():
    """Where candidate 0 was under the target (hgemm, the f16 row kernels, saxpy), the pick is
    within it wherever it was measured: the default is not a trap."""
    poor, fixed, unmeasured = [], [], []
    for label, source, defines, extents, device, times in CASES:
        choice, configs = _pick(source, defines, extents, device)
        best, first = min(times.values()), times.get(config_name(configs[0]))
        if first is None or best / first >= TARGET:
            continue
        poor.append(label)
        picked = times.get(config_name(choice.config))
        if picked is None:
            unmeasured.append(label)
        elif best / picked >= TARGET:
            fixed.append(label)
    assert len(poor) >= 8, poor  # the records hold that many traps (if they shrink, this test says so)
    assert fixed == [p for p in poor if p not in unmeasured]
    assert len(unmeasured) <= 1, unmeasured


def test_enough_of_the_picks_were_measured():
    """Skips must not hide the check: all full tunings and row sweeps have their pick measured."""
    full = list(_tuner_tables()) + list(_h100_tunings()) + list(_row_kernels())
    for label, source, defines, extents, device, times in full:
        choice, _ = _pick(source, defines, extents, device)
        assert config_name(choice.config) in times, f"{label}: {config_name(choice.config)} not in the record"
    assert len(full) >= 18
