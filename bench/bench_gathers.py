"""Gathers, scatters and atomics on the H200 beside torch, in one process (issue 23, item 7).

  gather       embedding lookup: Y = W[I] for a 1M x 4096 f16 table and 64k i32 indices
               (bench/kernels/gather_rows.ph) vs torch.index_select; bytes moved: the rows
               read and written (2 x 64k x 4096 x 2 bytes) and the indices.
  scatter-add  Y[I] += V for 64k f32 rows of 4096 into a 64k-row table with duplicate
               indices (scatter_add_rows.ph, atomic_add -> red.global.add.v4.f32 on sm_90: the
               rows are 16-byte aligned) vs torch.index_add_; bytes: V and I read, Y read and
               written once per distinct row touched (the least any scatter-add moves).
  histogram    64M i32 values, skewed (zipf), into 256 and 4096 bins (histogram.ph, one
               global atomic_add per value; histogram_shared.ph, per-CTA bins in shared
               memory, its variant with NB = the bins) vs torch.bincount and torch.histc;
               bytes: the values read.
  conv         3x3 convolution, stride 1, padding 1, NHWC f32 (conv3x3_nhwc.ph, an implicit
               GEMM of gathered rows) beside torch.nn.functional.conv2d in channels-last
               (cuDNN; TF32 off); the ratio is reported, no floor yet.

The ceiling of the memory-bound ones is a device-to-device torch copy (GB/s counting read +
write). Every kernel is checked against torch (float64 where it matters) before it is timed;
times are medians of CUDA-event-timed runs. Targets (issue 23): gather and scatter-add
>= 0.9 x copy and >= torch; histogram >= torch.bincount/histc.

    python bench/bench_gathers.py [--reps N] [--only gather,scatter,histogram,conv]
"""

from __future__ import annotations

import argparse
from functools import partial

import common

HIST_SHARED = ((256, 2048, 4), (256, 4096, 16), (4096, 4096, 4), (4096, 4096, 16))  # NB, BLOCK, STEPS
VARIANTS = {
    "gather": [("gather_rows", {"BB": 16, "BD": 256}), ("gather_rows", {"BB": 8, "BD": 512})],
    "scatter": [("scatter_add_rows", {"BM": bm, "BD": bd}) for bm, bd in ((16, 256), (8, 512), (16, 512))],
    "histogram": [("histogram", {"BLOCK": 2048}), ("histogram", {"BLOCK": 4096})]
    + [("histogram_shared", {"NB": nb, "BLOCK": bl, "STEPS": st}) for nb, bl, st in HIST_SHARED],
    "conv": [("conv3x3_nhwc", {"BP": 64, "BK": 64, "BC": 16})],
}
GATHER = (1 << 20, 4096, 1 << 16)  # table rows, row length, indices
SCATTER = (1 << 16, 4096, 1 << 16)  # table rows, row length, updates
HIST_N = 1 << 26
CONV = (32, 56, 56, 64, 64)  # N, H, W, C, K


def cdiv(a, b):
    return -(-a // b)


def kernels(family):
    import phobos

    out = []
    for name, defines in VARIANTS[family]:
        folder = common.aot_folder(name, defines)
        if folder.is_dir():
            out.append((name + "".join(f" {k}={v}" for k, v in defines.items()), defines, phobos.load(folder)))
        else:
            print(f"  (no ahead-of-time folder {folder}: run bench/aot_build.py)")
    return out


def copy_gbs(reps):
    import torch

    src = torch.randn(1 << 28, device="cuda")
    dst = torch.empty_like(src)
    ms = common.gpu_time_ms(lambda: dst.copy_(src), reps=reps)
    return 2 * src.numel() * 4 / ms / 1e6


def bench_gather(reps, ceiling):
    import torch

    v, d, b = GATHER
    w = torch.randn(v, d, device="cuda", dtype=torch.float16)
    idx = torch.randint(0, v, (b,), device="cuda", dtype=torch.int32)
    want = torch.index_select(w, 0, idx.long())
    nbytes = 2 * b * d * 2 + b * 4
    rows = [("torch index_select", common.gpu_time_ms(lambda: torch.index_select(w, 0, idx.long()), reps=reps))]
    for label, df, k in kernels("gather"):
        y = torch.empty(b, d, device="cuda", dtype=torch.float16)
        grid = (cdiv(b, df["BB"]), cdiv(d, df["BD"]), 1)
        k(w, idx, y, grid=grid)
        assert torch.equal(y, want), f"{label}: wrong rows"
        rows.append((label, common.gpu_time_ms(partial(k, w, idx, y, grid=grid), reps=reps)))
    return _report("gather", rows, nbytes, ceiling)


def bench_scatter(reps, ceiling):
    import torch

    r, d, m = SCATTER
    idx = torch.randint(0, r, (m,), device="cuda", dtype=torch.int32)
    vals = torch.randn(m, d, device="cuda")
    base = torch.randn(r, d, device="cuda")
    want = base.double().index_add_(0, idx.long(), vals.double())
    touched = int(torch.unique(idx).numel())
    nbytes = m * d * 4 + 2 * touched * d * 4 + m * 4
    y = base.clone()
    idx64 = idx.long()  # torch takes int64 indices: converted once, outside the timing
    rows = [("torch index_add_", common.gpu_time_ms(lambda: y.index_add_(0, idx64, vals), reps=reps))]
    for label, df, k in kernels("scatter"):
        y = base.clone()
        grid = (cdiv(m, df["BM"]), cdiv(d, df["BD"]), 1)
        k(idx, vals, y, grid=grid)
        err = (y.double() - want).abs().max().item()
        assert err < 1e-3, f"{label}: max error {err}"
        rows.append((label, common.gpu_time_ms(partial(k, idx, vals, y, grid=grid), reps=reps)))
    return _report("scatter-add", rows, nbytes, ceiling)


def bench_histogram(reps, ceiling):
    import numpy as np
    import torch

    out = {}
    for bins in (256, 4096):
        x64 = np.minimum(np.random.default_rng(1).zipf(1.3, HIST_N) - 1, bins - 1)
        x = torch.from_numpy(x64.astype(np.int32)).cuda()
        xl, xf = x.long(), x.float()
        want = torch.bincount(xl, minlength=bins)
        rows = [
            ("torch bincount", common.gpu_time_ms(partial(torch.bincount, xl, minlength=bins), reps=reps)),
            ("torch histc", common.gpu_time_ms(partial(torch.histc, xf, bins=bins, min=0, max=bins), reps=reps)),
        ]
        for label, df, k in kernels("histogram"):
            if df.get("NB", bins) != bins:  # histogram_shared counts bins < NB: one variant per bin count
                continue
            h = torch.zeros(bins, device="cuda", dtype=torch.int32)
            grid = (cdiv(HIST_N, df["BLOCK"] * df.get("STEPS", 1)), 1, 1)
            k(x, h, grid=grid)
            assert torch.equal(h.long(), want), f"{label}: wrong counts"
            rows.append((label, common.gpu_time_ms(partial(_fresh, k, x, h, grid), reps=reps)))
        out[bins] = _report(f"histogram {bins} bins", rows, HIST_N * 4, ceiling)
    return out


def bench_conv(reps):
    import torch

    n, h, w, c, kk = CONV
    torch.backends.cudnn.allow_tf32 = False
    x = torch.randn(n, c, h, w, device="cuda").to(memory_format=torch.channels_last)
    weight = torch.randn(kk, c, 3, 3, device="cuda").to(memory_format=torch.channels_last)
    want = torch.nn.functional.conv2d(x, weight, padding=1)
    x2 = x.permute(0, 2, 3, 1).reshape(n * h * w, c)  # NHWC rows (channels-last memory: no copy)
    wt = weight.permute(2, 3, 1, 0).reshape(9 * c, kk).contiguous()  # [(r, s, c), k]
    flops = 2 * n * h * w * kk * 9 * c
    rows = [
        ("torch conv2d channels-last", common.gpu_time_ms(lambda: torch.nn.functional.conv2d(x, weight, padding=1)))
    ]
    for label, df, k in kernels("conv"):
        y = torch.empty(n * h * w, kk, device="cuda")
        grid = (cdiv(n * h * w, df["BP"]), cdiv(kk, df["BK"]), 1)
        k(x2.contiguous(), wt, y, h, w, grid=grid)
        got = y.reshape(n, h, w, kk).permute(0, 3, 1, 2)
        err = ((got - want).abs().max() / want.abs().max()).item()
        assert err < 1e-4, f"{label}: relative error {err}"
        xc = x2.contiguous()
        rows.append((label, common.gpu_time_ms(partial(k, xc, wt, y, h, w, grid=grid), reps=reps)))
    base = rows[0][1]
    print(
        common.table(
            [(lab, f"{ms:.3f}", f"{flops / ms / 1e9:.1f}", f"{base / ms:.2f}") for lab, ms in rows],
            ["conv", "ms", "TFLOP/s", "x torch"],
        )
    )
    return {"rows": [{"label": lab, "ms": ms, "tflops": flops / ms / 1e9} for lab, ms in rows], "shape": CONV}


def _fresh(k, x, h, grid):
    h.zero_()
    k(x, h, grid=grid)


def _report(what, rows, nbytes, ceiling):
    torch_ms = rows[0][1]
    lines = [
        (lab, f"{ms:.3f}", f"{nbytes / ms / 1e6:.0f}", f"{nbytes / ms / 1e6 / ceiling:.2f}", f"{torch_ms / ms:.2f}")
        for lab, ms in rows
    ]
    print(common.table(lines, [what, "ms", "GB/s", "x copy", "x torch"]))
    return {"rows": [{"label": lab, "ms": ms, "gbs": nbytes / ms / 1e6} for lab, ms in rows], "bytes": nbytes}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=30)
    parser.add_argument("--only", default="gather,scatter,histogram,conv")
    args = parser.parse_args()
    only = set(args.only.split(","))
    ceiling = copy_gbs(args.reps)
    print(f"copy ceiling: {ceiling:.0f} GB/s (read + write)")
    data = {"copy_gbs": ceiling}
    if "gather" in only:
        data["gather"] = bench_gather(args.reps, ceiling)
    if "scatter" in only:
        data["scatter"] = bench_scatter(args.reps, ceiling)
    if "histogram" in only:
        data["histogram"] = bench_histogram(args.reps, ceiling)
    if "conv" in only:
        data["conv"] = bench_conv(args.reps)
    print(f"wrote {common.save('gathers', data)}")


if __name__ == "__main__":
    main()
