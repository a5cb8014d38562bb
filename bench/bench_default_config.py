"""The untuned default on the GPU: the configuration the cost model picks for a launch that does not
tune (docs/autotune.md, "The untuned default"), against the tuned best and candidate 0, side by
side, for the GEMM spaces and the row kernels. Issue 27's target: the default within 0.8x of the
tuned best (the best's time over the default's at least 0.8).

  candidate folders (.cache/autotune, compiled here: the GPU machine has no MLIR)
    gemm, gemm_aligned, gemm_minb1   bench/autotune_build.py --gemm (32, 32 and 16 candidates)
    scale                            bench/autotune_build.py (12 candidates, 16384^2 and 16381^2)
    hgemm                            this script's --build (48 candidates, 4096^3 and 4095 x 4097 x 4093)
  for each case: the default is what `phobos.load(copy, autotune=False)` launches (the runtime's
  own choice, from the facts in the folder's manifest); the tuned best is a cold `k.autotune` on a
  fresh copy (every candidate checked against the most conservative one, then timed); then the
  default, the best and candidate 0 are timed side by side with the tuner's timer (CUDA events,
  L2 flushed, medians; alternating rounds, the best median of each).

  the std.nn row kernels (bench/kernels/std_<op>_f16.ph, W in [512, 256, 128, 1024]), 32768 x 4096
    one folder per W from bench/aot_build.py (its stdlib jobs), under $PHOBOS_GPU_ARTIFACTS: every
    candidate, so timing all four is the tuning; the default is the cost model's pick for the
    shape (from the source, with the device's SM count).

Here (MLIR):
    .venv/bin/python bench/autotune_build.py --all --from-head
    .venv/bin/python bench/bench_default_config.py --build --from-head
    PHOBOS_GPU_ARTIFACTS=.cache/gpu .venv/bin/python bench/aot_build.py --only std_
There (GPU):
    PHOBOS_GPU_ARTIFACTS=.cache/gpu PYTHONPATH=python:bench:test/unit python bench/bench_default_config.py
Writes bench/results/default_config.json.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import common

FOLDERS = common.ROOT / ".cache" / "autotune"
ROUNDS = 3
TARGET = 0.8
HGEMM_SIZES = [(4096, 4096, 4096), (4095, 4097, 4093)]
FOLDER_CASES = [  # (label, folder, size, element type of A and B)
    ("gemm 4096^3 (masked)", "gemm", (4096, 4096, 4096), "f32"),
    ("gemm 4095x4097x4093", "gemm", (4095, 4097, 4093), "f32"),
    ("gemm_aligned 4096^3", "gemm_aligned", (4096, 4096, 4096), "f32"),
    ("gemm MINB=1 4095x4097x4093", "gemm_minb1", (4095, 4097, 4093), "f32"),
    ("hgemm 4096^3", "hgemm", (4096, 4096, 4096), "f16"),
    ("hgemm 4095x4097x4093", "hgemm", (4095, 4097, 4093), "f16"),
    ("scale 16384^2", "scale", (16384, 16384), "f32"),
    ("scale ragged 16381^2", "scale", (16381, 16381), "f32"),
]
ROW_OPS = ("softmax", "layernorm", "rmsnorm", "gelu_bias", "rotary")


# ----------------------------------------------------------------------------- here: the hgemm folder


def build(jobs: int | None, built_from: str | None) -> int:
    """The hgemm candidates folder (lean: only the benchmark's variants, no stage texts)."""
    import autotune_build as ab
    from aot_build import gemm_args

    examples = [gemm_args(*s, dtype="f16", scalars=()) for s in HGEMM_SIZES]
    entries = [("hgemm", "hgemm", None, examples, {"generic": False, "stages": False})]
    _, failures = ab.build(FOLDERS.resolve(), jobs, entries, ab.provenance(built_from))
    print("\n".join(["not built:"] + failures) if failures else "built")
    return 1 if failures else 0


def build_from_head(jobs: int | None) -> int:
    """--build from a clean export of HEAD (others' uncommitted compiler changes stay out)."""
    sha = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=common.ROOT, capture_output=True, text=True)
    with tempfile.TemporaryDirectory(prefix="phobos-head-") as tmp:
        archive = subprocess.run(["git", "archive", "HEAD"], cwd=common.ROOT, capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, check=True)
        for sub in ("dialect", "passes", "tools"):
            if (Path(tmp) / sub).is_dir() and not (Path(tmp) / "python" / "phobos" / sub).exists():
                (Path(tmp) / "python" / "phobos" / sub).symlink_to(Path("..") / ".." / sub)
        env = dict(os.environ, PYTHONPATH=f"{tmp}/python:{tmp}/bench:{tmp}/test/unit")
        cmd = [sys.executable, f"{tmp}/bench/bench_default_config.py", "--build", "--built-from", sha.stdout.strip()]
        cmd += ["--folders", str(FOLDERS.resolve())] + (["--jobs", str(jobs)] if jobs else [])
        return subprocess.call(cmd, cwd=tmp, env=env)


# ----------------------------------------------------------------------------- there: candidate folders


def folder_args(size, element: str):
    import torch

    gen = torch.Generator(device="cuda").manual_seed(sum(size))
    if len(size) == 2:
        x = torch.randn(*size, device="cuda", generator=gen)
        return (x, torch.empty_like(x), 2.0)
    m, n, k = size
    dtype = {"f32": torch.float32, "f16": torch.float16}[element]
    a = torch.randn(m, k, device="cuda", generator=gen).to(dtype)
    b = torch.randn(k, n, device="cuda", generator=gen).to(dtype)
    c = torch.randn(m, n, device="cuda", generator=gen)
    return (a, b, c, 1.0, 0.0) if element == "f32" else (a, b, c)


def folder_case(label: str, name: str, size, element: str, timer, work: Path) -> dict:
    """The default (an untuned launch), the tuned best (a cold tuning) and candidate 0, side by side."""
    import torch

    import phobos
    from phobos.runtime.autotune import config_name

    src = FOLDERS / name
    if not (src / "autotune.json").is_file():
        raise SystemExit(f"no {src}: see this script's docstring for the build commands")
    args = folder_args(size, element)
    untuned = phobos.load(_fresh(src, work, label), autotune=False)
    untuned(*args)
    torch.cuda.synchronize()
    choice = untuned._tuner.last_default if untuned._tuner is not None else None
    how = choice.how if choice is not None else "stored winner"
    tuned = phobos.load(_fresh(src, work, label + " tuned"))
    result = tuned.autotune(*args, progress=False)
    table = {c.index: c for c in result.candidates}
    default = next(c.index for c in result.candidates if c.config == untuned.best_config)
    picks = {"default": default, "best": result.best.index, "first": min(tuned.candidates)}
    runs = {role: (lambda k=tuned.candidates[i]: k(*args)) for role, i in picks.items()}
    ms = side_by_side(runs, timer)
    record = {
        "case": label,
        "folder": name,
        "size": list(size),
        "how": how,
        "configs": {role: tuned.manifest["candidates"][i]["config"] for role, i in picks.items()},
        "status": {role: table[i].status for role, i in picks.items()},
        "ms": ms,
        "tuner_ms": {role: table[i].time_ms for role, i in picks.items()},
        "default_vs_best": ms["best"] / ms["default"],
        "first_vs_best": ms["best"] / ms["first"],
        "reasons": choice.reasons() if choice is not None else [],
        "table": result.to_json()["candidates"],
    }
    record["names"] = {role: config_name(c) for role, c in record["configs"].items()}
    return record


def _fresh(src: Path, work: Path, label: str) -> Path:
    folder = work / label.replace(" ", "_").replace("^", "")
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(src, folder)  # an empty tuning store: nothing stored is reused
    return folder


def side_by_side(runs: dict, timer) -> dict[str, float]:
    """Each run's best median over alternating rounds (kernels launched as the same callable twice
    are timed once)."""
    best = dict.fromkeys(runs, float("inf"))
    for _ in range(ROUNDS):
        for role, fn in runs.items():
            best[role] = min(best[role], statistics.median(timer(fn)))
    return best


# ----------------------------------------------------------------------------- there: the row kernels


def row_case(op: str, timer, sms: int, device: str) -> dict:
    """std_<op>_f16 over W: every W's folder timed; the default is the cost model's pick."""
    import bench_stdlib as bs
    import torch

    from phobos.runtime.autotune import chip_model, choose_default, source_facts, source_space

    name = f"std_{op}_f16"
    path = common.KERNELS / f"{name}.ph"
    space = source_space(path.read_text(), str(path), None, None)
    facts = source_facts(path.read_text(), str(path), None, space.configs)
    extents = {"M": bs.M, "N": bs.N, "D": bs.N, "H": bs.H}
    choice = choose_default(
        space.configs, facts, extents, chip_model("sm_90", sms=sms, device_name=device), promises=space.promises
    )
    args, _, _ = bs._inputs(op, "f16")
    scalars = [bs.EPS] if op in ("layernorm", "rmsnorm") else []
    y = torch.empty_like(args[0])
    runs = {}
    for config in space.configs:
        k = common.phobos_kernel(name, {"W": config["W"]})
        runs[f"W={config['W']}"] = lambda k=k: k(*args, y, *scalars)
    ms = side_by_side(runs, timer)
    best = min(ms, key=ms.get)
    roles = {"default": f"W={choice.config['W']}", "best": best, "first": f"W={space.configs[0]['W']}"}
    return {
        "case": f"{name} {bs.M}x{bs.N}",
        "how": choice.how,
        "names": roles,
        "ms": {role: ms[w] for role, w in roles.items()},
        "all_ms": ms,
        "default_vs_best": ms[best] / ms[roles["default"]],
        "first_vs_best": ms[best] / ms[roles["first"]],
        "reasons": choice.reasons(),
    }


# ----------------------------------------------------------------------------- the run


def report(records: list[dict]) -> str:
    lines = []
    for r in records:
        lines.append(
            f"{r['case']}: default {r['names']['default']} ({r['how']}) {r['ms']['default'] * 1e3:.1f} us, "
            f"best {r['names']['best']} {r['ms']['best'] * 1e3:.1f} us, first {r['names']['first']} "
            f"{r['ms']['first'] * 1e3:.1f} us; default {r['default_vs_best']:.3f}x, first {r['first_vs_best']:.3f}x"
        )
        lines += [f"    {why}" for why in r["reasons"]]
    worst = min(r["default_vs_best"] for r in records)
    lines.append(f"worst default vs best: {worst:.3f} ({'meets' if worst >= TARGET else 'MISSES'} the {TARGET} target)")
    return "\n".join(lines)


def run(only: str | None) -> int:
    import torch

    from phobos.runtime.autotune import EventTimer

    torch.backends.cuda.matmul.allow_tf32 = False
    props = torch.cuda.get_device_properties(0)
    timer = EventTimer()
    records, failures = [], []
    with tempfile.TemporaryDirectory(prefix="phobos-default-") as tmp:
        for label, name, size, element in FOLDER_CASES:
            if only and only not in label:
                continue
            try:
                records.append(folder_case(label, name, size, element, timer, Path(tmp)))
            except Exception as e:  # noqa: BLE001 -- one case's failure is reported with the others
                failures.append(f"{label}: {type(e).__name__}: {e}")
                continue
            print(report(records[-1:]).rsplit("\n", 1)[0], flush=True)
    for op in ROW_OPS:
        if only and only not in op:
            continue
        try:
            records.append(row_case(op, timer, props.multi_processor_count, props.name))
        except Exception as e:  # noqa: BLE001
            failures.append(f"std_{op}_f16: {type(e).__name__}: {e}")
    print("\n" + report(records) if records else "no case ran")
    path = common.save("default_config", {"cases": records, "failures": failures, "target": TARGET})
    print(f"wrote {path}")
    if failures:
        print("\n".join(["failed:"] + failures))
    return 1 if failures or not records else 0


def main() -> int:
    global FOLDERS
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", action="store_true", help="here: compile the hgemm candidates folder")
    parser.add_argument("--from-head", action="store_true", help="with --build: from a clean export of HEAD")
    parser.add_argument("--built-from", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--folders", type=Path, default=FOLDERS, help="the candidate folders (.cache/autotune)")
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--only", default=None, help="cases whose label contains this")
    ns = parser.parse_args()
    FOLDERS = ns.folders
    if ns.build:
        return build_from_head(ns.jobs) if ns.from_head else build(ns.jobs, ns.built_from)
    return run(ns.only)


if __name__ == "__main__":
    sys.exit(main())
