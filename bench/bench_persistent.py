"""The persistent two-phase sum with grid_barrier() on the H200 beside the copy ceiling and torch
(issue 23, items 5 and 7), in one process.

  persistent_sum.ph: the resident grid (@persistent) adds tiles of 4096 f32 in registers,
  writes one partial sum per CTA, waits at grid_barrier(), and CTA 0 adds the partial sums:
  one launch, N = 2^28 floats (1 GiB) read.

The ceiling is a device-to-device torch copy: bytes moved per second (its read + write, as
bench_gathers.py and bench_bandwidth.py count it) against the sum's bytes moved (the vector
read; the partial sums are a few KB). Target (issue 23): >= 0.95 x copy. torch.sum is timed
beside it. The result is checked against float64 first; times are medians of CUDA-event-timed
runs. The JSON goes to bench/results/persistent.json (or $OUT).

    python bench/bench_persistent.py [--reps N]
"""

from __future__ import annotations

import argparse

import common

N = 1 << 28
PARTIALS = 1 << 14


def main() -> None:
    import torch

    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=30)
    args = parser.parse_args()
    folder = common.aot_folder("persistent_sum")
    if not folder.is_dir():
        raise SystemExit(f"no ahead-of-time folder {folder}: run bench/aot_build.py")
    kernel = common.phobos_kernel("persistent_sum")
    x = torch.randn(N, device="cuda")
    p = torch.zeros(PARTIALS, device="cuda")
    y = torch.zeros(1, device="cuda")
    kernel(x, p, y)
    want = float(x.double().sum())
    got = float(y)
    tol = 1e-5 * float(x.abs().double().sum())
    if abs(got - want) > tol:
        raise SystemExit(f"persistent_sum is wrong: {got} against {want} (tolerance {tol})")
    src = torch.empty_like(x)
    copy_ms = common.gpu_time_ms(lambda: src.copy_(x), reps=args.reps)
    copy_gbs = 2 * N * 4 / copy_ms / 1e6
    rows = []
    for label, fn in (("phobos persistent_sum", lambda: kernel(x, p, y)), ("torch.sum", lambda: torch.sum(x))):
        ms = common.gpu_time_ms(fn, reps=args.reps)
        gbs = N * 4 / ms / 1e6
        rows.append((label, f"{ms:.3f}", f"{gbs:.0f}", f"{gbs / copy_gbs:.3f}"))
    rows.append(("torch copy (read + write)", f"{copy_ms:.3f}", f"{copy_gbs:.0f}", "1.000"))
    print(common.table(rows, ["kernel", "ms", "GB/s", "x copy"]))
    resident = int((p != 0).sum())
    common.save(
        "persistent",
        {
            "n": N,
            "copy_gbs": copy_gbs,
            "rows": [{"kernel": r[0], "ms": float(r[1]), "gbs": float(r[2]), "x_copy": float(r[3])} for r in rows],
            "resident_ctas": resident,
            "target": ">= 0.95 x copy",
            "error": abs(got - want),
        },
    )


if __name__ == "__main__":
    main()
