"""Odd row pitches before and after tile-realign-rows: the 2-D scale of bench_bandwidth.py built by
this compiler and by an earlier one (a second artifacts folder), side by side in one process.

Y = alpha X at 16381 x 16381 f32 (every row start misaligned but one in four), at 16383 x 16380
(pitch 4k: the pass leaves it alone, so the two builds must tie) and at 16384^2 (aligned). Each
kernel is checked against float64 before it is timed; rounds alternate over every kernel of both
builds and a 1 GiB device copy (the ceiling), medians of CUDA-event timings.

    python bench/bench_realign.py --base /tmp/gpu-base      # PHOBOS_GPU_ARTIFACTS: this build
Writes bench/results/realign.json.
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

import common

SHAPES = [(16381, 16381), (16383, 16380), (16384, 16384)]
KERNELS = [  # (source, defines): bench_bandwidth.py's scale candidates that take slices
    ("scale", {"TM": 32, "TN": 128}),
    ("scale", {"TM": 16, "TN": 256}),
    ("scale", {"TM": 8, "TN": 512}),
    ("scale_rowwise", {"TM": 32, "TN": 128}),
    ("scale_rowwise", {"TM": 8, "TN": 512}),
]


def builds(base: Path) -> list[tuple[str, str, object]]:
    """(build, label, kernel) for every kernel folder present in this build and the base."""
    import phobos

    out = []
    for build, root in (("new", common.ARTIFACTS), ("base", base)):
        for source, defines in KERNELS:
            folder = root / "aot" / common.aot_folder(source, defines).name
            if folder.is_dir():
                label = source + "".join(f" {k}={v}" for k, v in defines.items())
                out.append((build, label, phobos.load(folder)))
            else:
                print(f"  (no folder {folder}: skipped)")
    return out


def run_shape(shape, kernels, rounds: int, reps: int) -> list[dict]:
    import torch

    x = torch.randn(shape, device="cuda")
    y = torch.empty_like(x)
    src = torch.randn(1 << 28, device="cuda")
    dst = torch.empty_like(src)
    alpha = 1.5
    want = alpha * x.double()
    runs = [("copy", "torch copy_ 1 GiB", lambda: dst.copy_(src), 2 * src.numel() * 4)]
    for build, label, k in kernels:
        y.fill_(float("nan"))
        k(x, y, alpha)
        torch.cuda.synchronize()
        if not bool(((y.double() - want).abs() <= 1e-6 * want.abs()).all()):
            raise AssertionError(f"{shape}: {build} {label} computed a wrong result")
        runs.append((build, label, lambda k=k: k(x, y, alpha), 2 * x.numel() * 4))
    times: dict = {(b, lab): [] for b, lab, _, _ in runs}
    for _ in range(rounds):  # alternate: the clock's drift falls on every kernel alike
        for build, label, fn, _ in runs:
            times[(build, label)].append(common.gpu_time_ms(fn, reps=reps))
    copy_ms = statistics.median(times[("copy", "torch copy_ 1 GiB")])
    copy_gbs = runs[0][3] / copy_ms / 1e6
    rows = []
    for build, label, _, nbytes in runs[1:]:
        ms = statistics.median(times[(build, label)])
        gbs = nbytes / ms / 1e6
        rows.append({"shape": list(shape), "build": build, "kernel": label, "ms": ms, "GBps": gbs,
                     "vs_copy": gbs / copy_gbs, "copy_GBps": copy_gbs})  # fmt: skip
    return rows  # the tensors are freed with this frame


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", type=Path, required=True, help="the earlier build's artifacts folder")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--reps", type=int, default=20)
    ns = parser.parse_args()
    import torch

    kernels = builds(ns.base)
    rows = []
    for shape in SHAPES:
        rows += run_shape(shape, kernels, ns.rounds, ns.reps)
        torch.cuda.empty_cache()
    table = [[f"{r['shape'][0]}x{r['shape'][1]}", r["build"], r["kernel"], f"{r['GBps']:.0f}", f"{r['vs_copy']:.3f}"]
             for r in rows]  # fmt: skip
    print(common.table(table, ["shape", "build", "kernel", "GB/s", "x copy"]))
    for shape in SHAPES:
        best = {b: max((r["vs_copy"] for r in rows if r["shape"] == list(shape) and r["build"] == b), default=0)
                for b in ("new", "base")}  # fmt: skip
        print(f"{shape}: best new {best['new']:.3f}x copy, best base {best['base']:.3f}x copy")
    base_commit = (ns.base / "COMMIT").read_text().strip() if (ns.base / "COMMIT").exists() else "?"
    path = common.save("realign", {"rows": rows, "base_commit": base_commit})
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
