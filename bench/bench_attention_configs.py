# ruff: noqa: E501
"""Every @autotune candidate of Triton's tutorial 06 port (examples/python/06_fused_attention.py),
timed one by one from one or more builds of its ahead-of-time folders, beside Triton's tutorial
kernel and torch's SDPA, in one process on the GPU: the evidence behind a schedule rule (which
configurations a change made faster or slower), where bench_tutorials.py times only the tuner's pick.

    PYTHONPATH=python:bench python bench/bench_attention_configs.py NAME=ARTIFACTS [NAME=ARTIFACTS ...]
        [--d 64,128] [--causal 0,1] [--s 4096] [--heads 128] [--reps 30] [--out FILE]

ARTIFACTS is a $PHOBOS_GPU_ARTIFACTS folder (bench/aot_build.py --only 06_fused); each candidate
is checked against SDPA before it is timed (medians of event-timed launches); TFLOP/s count
4 heads S^2 D (halved when causal). Writes JSON to --out (default: $OUT/attention_configs.json)
and prints a table per shape, the fastest candidate of each build last.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for _path in (ROOT / "bench", ROOT / "python"):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

CHIP = "sm_90a"


def _candidates(artifacts: Path, kernel: str, d: int) -> list[tuple[dict, Path]]:
    from aot_folders import folder_name

    folder = artifacts / "aot" / folder_name(f"06_fused_attention.{kernel}", {"D": d}, CHIP)
    manifest = json.loads((folder / "autotune.json").read_text())
    return [(c["config"], folder / c["folder"]) for c in manifest["candidates"] if c.get("status") == "ok"]


def _shape(builds, d: int, causal: bool, heads: int, s: int, reps: int) -> list[dict]:
    """The rows of one shape: each build's candidates against Triton's tutorial kernel and SDPA."""
    import functools

    import torch
    import triton
    import triton_tutorials as tt
    from bench_tutorials import _time

    import phobos

    q, k, v = (torch.randn(heads, s, d, device="cuda", dtype=torch.float16) for _ in range(3))
    scale = 1.0 / math.sqrt(d)
    # SDPA reads [batch, heads, S, D]: on [heads, S, D] it takes its math path (30x slower)
    q4, k4, v4 = (t.unsqueeze(0) for t in (q, k, v))
    sdpa = functools.partial(
        torch.nn.functional.scaled_dot_product_attention, q4, k4, v4, is_causal=causal, scale=scale
    )
    ref = sdpa()[0]
    flops = 4 * heads * s * s * d / (2 if causal else 1)
    shape = f"S={s} D={d} {'causal' if causal else 'full'}"
    o = torch.empty_like(q)
    triton_fn = functools.partial(tt.attn_fwd_kernel[(triton.cdiv(s, 128), heads)], q, k, v, o, scale, s, HEAD_DIM=d,
                                  BM=128, BN=64, CAUSAL=causal, num_warps=8, num_stages=3)  # fmt: skip
    try:
        triton_ms = _time(triton_fn, reps)
    except Exception as e:  # D = 256: the tutorial's 128 x 64 tiles in 3 stages outgrow shared memory
        print(f"== {shape}: Triton's tutorial kernel does not run: {type(e).__name__}: {str(e)[:120]}", flush=True)
        triton_ms = math.nan
    base = {"triton": triton_ms, "sdpa": _time(sdpa, reps)}
    print(f"== {shape}: triton {base['triton']:.4f} ms, sdpa {base['sdpa']:.4f} ms", flush=True)
    kernel = "attention_fwd_causal" if causal else "attention_fwd"
    rows = [
        _tuned(build, artifacts, kernel, d, (q, k, v, scale), ref, base, flops, shape, reps)
        for build, artifacts in builds
    ]
    for build, artifacts in builds:
        for config, folder in _candidates(artifacts, kernel, d):
            out = torch.full_like(q, float("nan"))
            launch = functools.partial(phobos.load(folder), q, k, v, out, scale)
            try:
                launch()
                torch.cuda.synchronize()
            except Exception as e:  # a candidate that cannot launch is recorded, not fatal
                print(f"  {build:5s} {config}: {type(e).__name__}: {e}", flush=True)
                continue
            ok = bool(torch.allclose(out.float(), ref.float(), atol=2e-2))
            ms = _time(launch, reps)
            cfg = " ".join(f"{n}={config[n]}" for n in ("BM", "BN", "W"))
            row = {"shape": shape, "build": build, "config": config, "ms": ms, "TFLOP/s": flops / ms / 1e9,
                   "vs_triton": base["triton"] / ms, "vs_sdpa": base["sdpa"] / ms, "correct": ok,
                   "triton_ms": base["triton"], "sdpa_ms": base["sdpa"]}  # fmt: skip
            rows.append(row)
            print(
                f"  {build:5s} {cfg:18s} {ms:8.4f} ms {row['TFLOP/s']:6.1f} TFLOP/s  x{row['vs_triton']:5.2f} triton  x{row['vs_sdpa']:5.2f} sdpa  {'ok' if ok else 'WRONG'}",
                flush=True,
            )
    return rows


def _tuned(build, artifacts, kernel, d, inputs, ref, base, flops, shape, reps) -> dict:
    """The tuner's pick from the build's autotune folder (tuned on this launch), and why it
    rejected the candidates it did not time."""
    import functools

    import torch
    from aot_folders import folder_name
    from bench_tutorials import _time

    import phobos

    q, k, v, scale = inputs
    out = torch.full_like(q, float("nan"))
    os.environ["PHOBOS_CACHE_DIR"] = tempfile.mkdtemp()  # each build tunes afresh (no stored winner)
    fn = phobos.load(artifacts / "aot" / folder_name(f"06_fused_attention.{kernel}", {"D": d}, CHIP))
    launch = functools.partial(fn, q, k, v, out, scale)
    launch()
    torch.cuda.synchronize()
    ok = bool(torch.allclose(out.float(), ref.float(), atol=2e-2))
    ms = _time(launch, reps)
    tuning = getattr(fn, "tuning", None)
    rejected = [
        f"{c.name}: {c.status}: {c.reason}"
        for c in getattr(tuning, "candidates", [])
        if c.status not in ("ok", "reference", "best")
    ]
    cfg = " ".join(f"{n}={fn.best_config[n]}" for n in ("BM", "BN", "W")) if getattr(fn, "best_config", None) else "?"
    print(
        f"  {build:5s} tuned: {cfg:18s} {ms:8.4f} ms {flops / ms / 1e9:6.1f} TFLOP/s  x{base['triton'] / ms:5.2f} triton  x{base['sdpa'] / ms:5.2f} sdpa  {'ok' if ok else 'WRONG'}; {len(rejected)} rejected",
        flush=True,
    )
    for why in rejected[:6]:
        print(f"      {why[:160]}", flush=True)
    return {"shape": shape, "build": build, "config": "tuned", "picked": getattr(fn, "best_config", None), "ms": ms,
            "TFLOP/s": flops / ms / 1e9, "vs_triton": base["triton"] / ms, "vs_sdpa": base["sdpa"] / ms, "correct": ok,
            "rejected": rejected, "triton_ms": base["triton"], "sdpa_ms": base["sdpa"]}  # fmt: skip


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("builds", nargs="+", help="NAME=ARTIFACTS")
    p.add_argument("--d", default="64,128")
    p.add_argument("--causal", default="0,1")
    p.add_argument("--s", type=int, default=4096)
    p.add_argument("--heads", type=int, default=128)
    p.add_argument("--reps", type=int, default=30)
    p.add_argument("--out")
    args = p.parse_args()
    from common import machine

    builds = [(b.split("=", 1)[0], Path(b.split("=", 1)[1])) for b in args.builds]
    rows, t0 = [], time.perf_counter()
    for d in (int(x) for x in args.d.split(",")):
        for causal in (bool(int(x)) for x in args.causal.split(",")):
            rows += _shape(builds, d, causal, args.heads, args.s, args.reps)
    print("\nfastest candidate per shape and build:")
    for shape in dict.fromkeys(r["shape"] for r in rows):
        for build, _ in builds:
            mine = [
                r
                for r in rows
                if r["shape"] == shape and r["build"] == build and r["correct"] and r["config"] != "tuned"
            ]
            if mine:
                best = min(mine, key=lambda r: r["ms"])
                cfg = " ".join(f"{n}={best['config'][n]}" for n in ("BM", "BN", "W"))
                print(
                    f"  {shape:22s} {build:5s} {cfg:18s} {best['ms']:.4f} ms {best['TFLOP/s']:6.1f} TFLOP/s x{best['vs_triton']:.2f} triton x{best['vs_sdpa']:.2f} sdpa"
                )
    out = Path(args.out or Path(os.environ.get("OUT", ROOT / "bench" / "results")) / "attention_configs.json")
    record = {"machine": machine(), "builds": {b: str(a) for b, a in builds}, "heads": args.heads, "S": args.s,
              "reps": args.reps, "wall_s": time.perf_counter() - t0, "rows": rows}  # fmt: skip
    out.write_text(json.dumps(record, indent=1))
    return 0 if all(r["correct"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
