"""Memory-bound kernels at 1 GiB per tensor: Phobos vs a torch copy vs Triton, one process.

saxpy (y = a x + y: reads 2, writes 1 tensor) and scale (Y = alpha X: reads 1,
writes 1) on aligned sizes (whole tiles, rows 16-byte aligned) and ragged ones
(extents that are not whole tiles; with rows still 4-element multiples, and
fully odd). Bandwidth counts each byte read or written once; the ceiling is a
device-to-device copy of 1 GiB (torch `copy_`). Each kernel is checked against
a float64 reference before it is timed; times are medians of event-timed runs.

Targets: aligned >= 0.97 x copy bandwidth and not below Triton; ragged >= 0.95 x.

    python bench/bench_bandwidth.py [--handwritten]
"""

from __future__ import annotations

import argparse

import common

GIB_F32 = 1 << 28  # float32 elements in 1 GiB

# Tile shape x threads per CTA tried for the aligned 2-D scale: more bytes in
# flight per thread and fewer, longer-lived CTAs (TM * TN / W elements a thread).
ALIGNED_SWEEP = [
    (64, 128, 256),
    (128, 128, 256),
    (32, 256, 256),
    (64, 256, 256),
    (32, 512, 256),
    (64, 128, 512),
    (128, 128, 512),
    (64, 256, 512),
    (32, 128, 128),
    (64, 128, 128),
]

# Phobos variants per kernel: (source name, defines). The best is reported against Triton's best.
PHOBOS = {
    "saxpy": [("saxpy", {"BLOCK": 1024}), ("saxpy", {"BLOCK": 4096}), ("saxpy_offsets", {})],
    "saxpy_aligned": [
        ("saxpy_aligned", {"BLOCK": 1024}),
        ("saxpy_aligned", {"BLOCK": 4096}),
        ("saxpy_offsets_aligned", {}),
    ],
    "scale": [
        ("scale", {"TM": 32, "TN": 128}),
        ("scale", {"TM": 16, "TN": 256}),
        ("scale", {"TM": 8, "TN": 512}),
        ("scale_offsets", {}),
        ("scale_rowwise", {"TM": 32, "TN": 128}),
        ("scale_rowwise", {"TM": 8, "TN": 512}),
    ],
    "scale_aligned": [
        ("scale_aligned", {"TM": 32, "TN": 128}),
        ("scale_aligned", {"TM": 16, "TN": 256}),
        ("scale_aligned", {"TM": 8, "TN": 512}),
        ("scale_offsets_aligned", {}),
    ]
    + [("scale_aligned", {"TM": tm, "TN": tn, "W": w}) for tm, tn, w in ALIGNED_SWEEP],
}
HANDWRITTEN = {"saxpy": ["saxpy"], "saxpy_aligned": ["saxpy_aligned"], "scale": ["scale"], "scale_aligned": []}
TRITON_SAXPY = [(1024, 8), (4096, 8)]  # (BLOCK, num_warps)
TRITON_SCALE = [(32, 128, 8), (16, 256, 8), (8, 512, 8)]  # (TM, TN, num_warps)
TRITON_SCALE_ROWWISE = [(32, 128, 8), (8, 512, 8)]  # the same with consecutive programs along rows

CASES = [  # (name, kernel family, shape, aligned?)
    ("saxpy aligned", "saxpy", (GIB_F32,), True),
    ("saxpy ragged (N%4==0)", "saxpy", (GIB_F32 - 4,), False),
    ("saxpy ragged (odd N)", "saxpy", (GIB_F32 - 3,), False),
    ("scale aligned", "scale", (16384, 16384), True),
    ("scale ragged (N%4==0)", "scale", (16383, 16380), False),
    ("scale ragged (odd M, N)", "scale", (16381, 16381), False),
]


def phobos_candidates(family: str, aligned: bool, handwritten: bool):
    """(label, kernel) pairs: the plain kernel (specialised by key), plus the @aligned one on aligned sizes."""
    import phobos

    out = []
    names = [family] + ([family + "_aligned"] if aligned else [])
    for name in names:
        if handwritten:
            for hand in HANDWRITTEN[name]:
                out.append((f"hand-written {hand}", phobos.load(common.ARTIFACTS / "handwritten" / hand)))
            continue
        for source, defines in PHOBOS[name]:
            folder = common.aot_folder(source, defines)
            if folder.is_dir():
                label = source + "".join(f" {k}={v}" for k, v in defines.items())
                out.append((label, phobos.load(folder)))
            else:
                print(f"  (no ahead-of-time folder {folder}: skipped)")
    return out


def measure_copy(reps: int) -> tuple[float, float]:
    """(ms, GB/s read + write) of a device-to-device torch copy of 1 GiB; the buffers are freed on return."""
    import torch

    src = torch.randn(GIB_F32, device="cuda")
    dst = torch.empty_like(src)
    copy_ms = common.gpu_time_ms(lambda: dst.copy_(src), reps=reps)
    copy_gbs = 2 * src.numel() * 4 / copy_ms / 1e6
    return copy_ms, copy_gbs


def triton_runner(tk, family: str, cfg: tuple, x, y, alpha: float):
    """(run, label) for one Triton configuration."""
    if family == "saxpy":

        def run():
            return tk.launch_saxpy(x, y, alpha, block=cfg[0], warps=cfg[1])

        return run, f"triton BLOCK={cfg[0]} warps={cfg[1]}"
    if len(cfg) == 4:

        def run():
            return tk.launch_scale_rowwise(x, y, alpha, tm=cfg[0], tn=cfg[1], warps=cfg[2])

        return run, f"triton rowwise TM={cfg[0]} TN={cfg[1]} warps={cfg[2]}"

    def run():
        return tk.launch_scale(x, y, alpha, tm=cfg[0], tn=cfg[1], warps=cfg[2])

    return run, f"triton TM={cfg[0]} TN={cfg[1]} warps={cfg[2]}"


def run_case(tk, case: str, family: str, shape: tuple, aligned: bool, ns, copy_gbs: float) -> dict:
    """Check and time every candidate on one case; the tensors are freed on return."""
    import torch

    x = torch.randn(shape, device="cuda")
    y = torch.randn(shape, device="cuda")
    y0 = y.clone()
    alpha = 1.5
    nbytes = x.numel() * 4 * (3 if family == "saxpy" else 2)
    # float64 reference, and the size of the terms (the error bound of float32 rounding)
    if family == "saxpy":
        ref = alpha * x.double() + y0.double()
        size = (alpha * x.double()).abs() + y0.double().abs()
    else:
        ref = alpha * x.double()
        size = ref.abs()

    def check(run, label):
        y.copy_(y0) if family == "saxpy" else y.fill_(float("nan"))  # poison pure outputs
        run()
        torch.cuda.synchronize()
        if not bool(((y.double() - ref).abs() <= 1e-6 * size).all()):
            raise AssertionError(f"{case}: {label} computed a wrong result")

    rows = []
    for label, k in phobos_candidates(family, aligned, ns.handwritten):

        def run(k=k):
            return k(x, y, alpha)

        try:
            check(run, label)
        except ValueError as e:  # e.g. a promise the size does not keep
            print(f"  {label}: {e}")
            continue
        ms = common.gpu_time_ms(run, reps=ns.reps)
        rows.append(("phobos", label, ms, k.key(x, y, alpha).to_text()))
    configs = TRITON_SAXPY if family == "saxpy" else TRITON_SCALE + [cfg + ("rowwise",) for cfg in TRITON_SCALE_ROWWISE]
    for cfg in configs:
        run, label = triton_runner(tk, family, cfg, x, y, alpha)
        check(run, label)
        rows.append(("triton", label, common.gpu_time_ms(run, reps=ns.reps), ""))
    best = {
        who: min((r for r in rows if r[0] == who), key=lambda r: r[2], default=None) for who in ("phobos", "triton")
    }
    entry = {
        "case": case,
        "shape": list(shape),
        "bytes": nbytes,
        "aligned": aligned,
        "runs": [
            {"who": who, "kernel": kernel, "ms": ms, "GBps": nbytes / ms / 1e6, "key": key}
            for who, kernel, ms, key in rows
        ],
    }
    if best["phobos"] and best["triton"]:
        p, t = best["phobos"], best["triton"]
        entry["phobos_best"] = p[1]
        entry["phobos_vs_copy"] = (nbytes / p[2] / 1e6) / copy_gbs
        entry["triton_vs_copy"] = (nbytes / t[2] / 1e6) / copy_gbs
        entry["phobos_vs_triton"] = t[2] / p[2]  # > 1: Phobos faster
        goal = 0.97 if aligned else 0.95
        entry["target"] = f">= {goal} x copy" + (" and >= triton" if aligned else "")
        entry["met"] = entry["phobos_vs_copy"] >= goal and (not aligned or entry["phobos_vs_triton"] >= 1.0)
    print(f"\n{case} {list(shape)}: {nbytes / 2**30:.2f} GiB moved")
    print(
        common.table(
            [
                (who, kernel, f"{ms * 1e3:.1f}", f"{nbytes / ms / 1e6:.0f}", f"{nbytes / ms / 1e6 / copy_gbs:.3f}")
                for who, kernel, ms, _ in rows
            ],
            ["who", "kernel", "us", "GB/s", "x copy"],
        )
    )
    return entry


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--handwritten", action="store_true", help="use the hand-written cubins for Phobos")
    parser.add_argument("--reps", type=int, default=30)
    ns = parser.parse_args()

    import torch
    import triton_kernels as tk

    torch.manual_seed(0)
    results = []

    copy_ms, copy_gbs = measure_copy(ns.reps)
    print(f"torch copy 1 GiB: {copy_ms * 1e3:.1f} us, {copy_gbs:.0f} GB/s (read + write)")

    for case, family, shape, aligned in CASES:
        results.append(run_case(tk, case, family, shape, aligned, ns, copy_gbs))
        torch.cuda.empty_cache()

    common.save(
        "bandwidth" + ("_handwritten" if ns.handwritten else ""),
        {"copy_ms": copy_ms, "copy_GBps": copy_gbs, "cases": results},
    )
    print("\nsummary (best Phobos vs copy bandwidth and vs best Triton)")
    print(
        common.table(
            [
                (
                    e["case"],
                    e.get("phobos_best", "-"),
                    f"{e.get('phobos_vs_copy', 0):.3f}",
                    f"{e.get('triton_vs_copy', 0):.3f}",
                    f"{e.get('phobos_vs_triton', 0):.3f}",
                    e.get("target", ""),
                    "met" if e.get("met") else "NOT met",
                )
                for e in results
            ],
            ["case", "phobos kernel", "phobos/copy", "triton/copy", "phobos/triton speed", "target", ""],
        )
    )


if __name__ == "__main__":
    main()
