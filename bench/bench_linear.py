"""A linear layer with bias, Y = X W^T + b in f16 (f32 sums), beside torch.addmm on the same card
in one process (issue 26: ">= 0.95x torch.addmm").

Kernel: bench/kernels/linear_f16.ph on sm_90a (TMA + wgmma, the weight read K-major as stored,
the bias added and Y rounded to f16 in the epilogue), its TN = 256 and TN = 128 variants
(bench/aot_build.py's linear_jobs). Baseline: torch.addmm(b, x, w.t()) (cuBLASLt with its bias
epilogue) into a preallocated f16 Y. Each result is checked against float64 first (|Y - Y64|
within 2^-9 of |X||W|^T + |b|); a wrong one is reported, never timed. The kernels and torch
alternate in rounds; medians of the rounds' event-timed medians.

    python bench/bench_linear.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import statistics

import common
from test_linear_gpu import VARIANTS

SHAPES = [(4096, 4096, 4096), (8192, 8192, 8192), (4000, 11008, 4096)]  # M, N, K


def run_shape(torch, shape, rounds: int, reps: int) -> list[dict]:
    m, n, k = shape
    x = torch.randn(m, k, device="cuda").half()
    w = torch.randn(n, k, device="cuda").half()
    b = torch.randn(n, device="cuda").half()
    ref = x.double() @ w.double().t() + b.double()
    size = x.double().abs() @ w.double().abs().t() + b.double().abs()
    y = torch.empty(m, n, device="cuda", dtype=torch.float16)
    runs = [("torch.addmm", lambda: torch.addmm(b, x, w.t(), out=y))]
    for defines in VARIANTS:
        folder = common.aot_folder("linear_f16", defines, "sm_90a")
        if not folder.is_dir():
            print(f"  (no folder {folder}: skipped)")
            continue
        kernel = common.phobos_kernel("linear_f16", defines, "sm_90a")
        label = "linear_f16 " + ",".join(f"{a}={v}" for a, v in sorted(defines.items()))
        runs.append((label, lambda kernel=kernel: kernel(x, w, b, y)))
    rows, timed = [], []
    for label, fn in runs:
        y.fill_(float("nan"))
        fn()
        torch.cuda.synchronize()
        err = ((y.double() - ref).abs() / (size + 1e-30)).max().item()
        row = {"shape": list(shape), "kernel": label, "max_rel_err": err}
        rows.append(row)
        if err <= 2.0**-9:
            timed.append((row, fn))
        else:
            print(f"  WRONG {shape} {label}: max rel err {err:.2e} (not timed)")
    samples: dict = {id(r): [] for r, _ in timed}
    for _ in range(rounds):
        for row, fn in timed:
            samples[id(row)].append(common.gpu_time_ms(fn, warmup=2, reps=reps))
    base = statistics.median(samples[id(rows[0])]) if id(rows[0]) in samples else None
    for row, _ in timed:
        ms = statistics.median(samples[id(row)])
        row.update(ms=ms, TFLOPs=2 * m * n * k / ms / 1e9, x_addmm=(base / ms) if base else None)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--reps", type=int, default=10)
    ns = parser.parse_args()
    import torch

    rows = []
    for shape in SHAPES:
        rows += run_shape(torch, shape, ns.rounds, ns.reps)
        torch.cuda.empty_cache()
    table = [
        ["x".join(map(str, r["shape"])), r["kernel"], f"{r.get('TFLOPs', 0):.1f}", f"{r.get('x_addmm') or 0:.3f}",
         f"{r['max_rel_err']:.1e}"]
        for r in rows
    ]  # fmt: skip
    print(common.table(table, ["shape", "kernel", "TFLOP/s", "x addmm", "max rel err"]))
    print(f"saved {common.save('linear', {'rows': rows})}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
