"""Decode GEMV with 8-bit weights (issue 25, item 5): Y[T, N] from X f16 [T, K] and int8 (one scale
per row), Q8_0 (a scale per 32-element block) or f8e4m3 (one scale per row) weights [N, K], f32
accumulation, f16 out; Phobos (bench/kernels/gemv_i8.ph, gemv_q8_0.ph, gemv_q8_0_rows.ph, gemv_fp8.ph,
and on the tensor cores gemv_tc_i8.ph, gemv_tc_fp8.ph) beside torch and a device copy of the weight
bytes, one process on the GPU.

Baselines: the copy ceiling, torch's device-to-device copy of the 8-bit weights (GB/s counting
its read and its write), and torch.nn.functional.linear on the weights dequantised to f16 (the
cuBLAS GEMV a user would otherwise run; it reads twice the bytes). torch._int_mm is a GEMM of
int8 activations, not a GEMV of f16 ones: not a baseline here.

Every result is checked first against float64 (NumPy, gemv8_cases.reference and error_bound); a
Phobos candidate that fails is reported and never timed (torch's error against the exact
dequantised weights is printed, not judged: its weights are rounded to f16). Timing as
bench_gemv.py: batches of back-to-back launches behind a GPU spin, weights rotating over copies
that exceed the L2 cache, medians over interleaved rounds. GB/s count W, its scales, X and Y
once; "x copy" is that over the copy's GB/s.

Targets: T = 1 >= 0.95x the copy ceiling, T = 16 >= 0.9x.

    python bench/aot_build.py --only gemv                       # here: the folders (gemv8_jobs)
    python bench/bench_gemv8.py                                 # on the GPU machine (writes gemv8.json)
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys

import bench_gemv as B
import common

sys.path.insert(0, str(common.ROOT / "test" / "unit"))
import gemv8_cases as G  # noqa: E402

SHAPES = [(14336, 4096), (4096, 14336), (28672, 8192)]  # (N, K) of W
TOKENS = [1, 16]
ROTATE_BYTES = B.ROTATE_BYTES


def _cuda(tt, bn, kv, w):
    return {"TT": tt, "BN": bn, "KV": kv, "W": w}


def _q8(tt, br, kv, w):
    return {"TT": tt, "BR": br, "KV": kv, "W": w}


# (family, defines, the token counts it runs). Unmeasured: the T = 1 forms are gemv_f16's leaders
# (BN = 2 and 4, 16 or 32 bytes of each row per thread) and the cost model's pick; at T = 16 the
# CUDA-core forms run TT = 4 or 2 tokens per CTA (registers: TT x BN x 16 KV accumulators). q8_0
# at T = 1 also runs TT = 2 (the second token masked), its form before TT = 1 compiled, to compare.
CANDIDATES = [
    *[
        (fam, d, (1,))
        for fam in ("i8", "fp8")
        for d in (_cuda(1, 2, 1, 256), _cuda(1, 4, 1, 128), _cuda(1, 2, 2, 256), _cuda(1, 4, 2, 128))
    ],
    *[
        (fam, d, (16,))
        for fam in ("i8", "fp8")
        for d in (_cuda(4, 1, 1, 128), _cuda(2, 2, 1, 128), _cuda(4, 1, 2, 128))
    ],
    *[
        ("q8_0", d, (1,))
        for d in (_q8(1, 2, 2, 256), _q8(1, 4, 1, 128), _q8(1, 4, 2, 128), _q8(1, 1, 4, 256), _q8(2, 2, 2, 256))
    ],
    *[("q8_0", d, (16,)) for d in (_q8(4, 1, 1, 128), _q8(4, 2, 2, 128), _q8(2, 2, 2, 256))],
    *[
        ("q8_0r", {"BR": br, "KV": kv, "W": w}, (1,))
        for br, kv, w in ((4, 1, 128), (2, 1, 256), (2, 2, 128), (4, 1, 256))
    ],
    # i8 and fp8 on the tensor cores (f16(W) widened in registers): BN rows of W per CTA, BK bytes of each
    # per stage, STAGES deep; 32-row tiles for the 4096-row W (128 CTAs), 64 and 128 for the others.
    # Memory-bound, so one token costs what 16 do: timed at T = 1 too.
    *[
        (fam, {"BN": bn, "BK": bk, "W": w, "STAGES": st}, (1, 16))
        for fam in ("i8tc", "fp8tc")
        for bn, bk, w, st in (
            (64, 256, 128, 4),
            (32, 512, 128, 4),
            (64, 512, 128, 3),
            (128, 256, 256, 4),
            (32, 256, 128, 6),
            (64, 256, 128, 6),
        )
    ],  # fmt: skip
]
# Q8_0 on the tensor cores: a dot per 32-block, four blocks per iteration, the scales as [K/32, N].
CANDIDATES += [
    ("q8tc", {"BN": bn, "W": w, "STAGES": st}, (1, 16))
    for bn, w, st in ((64, 128, 4), (32, 128, 4), (128, 256, 4), (64, 128, 6), (32, 128, 6))
]
# i8 and fp8 on the tensor cores with K split S ways (gemv_tc_split_*.ph, then gemv_reduce_f16.ph):
# for 4096-row weights, where BN-row tiles give 128 or 64 CTAs of 4 warps. "S" is the split count
# (the extent of the partials), not a define of the kernel.
# ncu on the 16-token i8 kernels (stop 42): 4 to 8 warps per SM, DRAM at 55-65%, the warps issuing
# every 3.4-5.9 cycles: more warps per SM (W = 256 on 64-row tiles: a [16, 32] tile has too few
# m16 x n8 tiles for 8 warps; or 128-byte stages that let 4 CTAs share an SM).
CANDIDATES += [
    (fam, {"BN": bn, "BK": bk, "W": w, "STAGES": st, "S": sp}, (16,))
    for fam in ("i8tcs", "fp8tcs")
    for bn, bk, w, st, sp in (
        (32, 256, 128, 4, 2),
        (32, 512, 128, 4, 2),
        (64, 256, 128, 4, 4),
        (32, 256, 128, 6, 4),
        (64, 512, 128, 3, 2),
        (64, 256, 256, 4, 4),
        (64, 128, 128, 6, 4),
        (64, 128, 256, 6, 4),
        (64, 256, 256, 3, 8),
    )
]  # fmt: skip
# A family whose candidates are timed in another's cases (the same weights and sum).
TIMED_WITH = {"q8_0r": "q8_0", "i8tc": "i8", "fp8tc": "fp8", "q8tc": "q8_0", "i8tcs": "i8", "fp8tcs": "fp8"}
SPLIT_SHAPES = [(4096, 14336)]  # the split families run where a tile of rows per CTA leaves SMs idle


def _kernel_defines(defines: dict) -> dict:
    """A candidate's defines as its kernel takes them (a split family's S is the partials' extent)."""
    return {k: v for k, v in defines.items() if k != "S"}


def label(family: str, defines: dict) -> str:
    return " ".join([family] + [f"{k}={v}" for k, v in defines.items()])


def aot_jobs(like) -> list[tuple]:
    """(source, defines, example argument lists, check) for bench/aot_build.py: every candidate with
    the layouts of the benchmark's launches, the tested configurations with the layouts of
    test_gemv8_gpu.py's pitched cases and the generic variant (its ragged ones)."""
    jobs = []
    for family, defines, tokens in CANDIDATES:
        for n, k in SPLIT_SHAPES if family in G.SPLIT else SHAPES:
            for t in tokens:
                launches = G.layouts(family, (t, n, k), like, splits=defines.get("S", 1))
                jobs += [(name, _kernel_defines(defines) if name != G.REDUCE[0] else G.REDUCE[1], [args], True)
                         for name, args in launches]  # fmt: skip
    for family, defines in G.SPLIT_TESTED:  # the split tests: the generic variants, and the pitched layouts
        jobs += [(G.KERNEL[family], defines, [], True), (G.REDUCE[0], G.REDUCE[1], [], True)]
        for t, n, k in G.gpu_shapes(family):
            if G.pitched(n, k):
                jobs += [(name, defines if name != G.REDUCE[0] else G.REDUCE[1], [args], True)
                         for name, args in G.layouts(family, (t, n, k), like)]  # fmt: skip
    for family, defines in G.TESTED:
        jobs.append((G.KERNEL[family], defines, [], True))
        for t, n, k in G.gpu_shapes(family):
            if G.pitched(n, k):
                jobs += [(name, defines, [args], True) for name, args in G.layouts(family, (t, n, k), like)]
    return jobs


def load(family: str, defines: dict):
    """The candidate's kernel from its ahead-of-time folder (a split family's: gemv8_cases.Split over
    it and the reduction), or None."""
    import phobos

    folders = [common.aot_folder(G.KERNEL[family], _kernel_defines(defines))]
    if family in G.SPLIT:
        folders.append(common.aot_folder(*G.REDUCE))
    missing = [f for f in folders if not f.is_dir()]
    if missing:
        print(f"  (no ahead-of-time folder {missing[0]}: run bench/aot_build.py --only gemv)")
        return None
    kernels = [phobos.load(f) for f in folders]
    return G.Split(kernels[0], kernels[1], defines["S"]) if family in G.SPLIT else kernels[0]


def make_weights(family: str, n: int, k: int):
    """(w on the device as the kernel takes it, its float64 values on the host, scales on the
    device, scales on the host, the dequantised f16 weights on the device)."""
    import numpy as np
    import torch

    from phobos.fp8 import decode

    gen = np.random.default_rng(1)
    if family == "fp8":
        w = (torch.randn(n, k, device="cuda") * 64).clamp(-448, 448).to(torch.float8_e4m3fn)
        host = decode(w.view(torch.uint8).cpu().numpy(), "f8e4m3").astype(np.float64)
    else:
        w = torch.randint(-128, 128, (n, k), device="cuda", dtype=torch.int8)
        host = w.cpu().numpy().astype(np.float64)
    shape = (n, k // G.BLOCK) if family == "q8_0" else (n,)
    s_host = gen.uniform(1e-3, 2e-2, shape).astype(np.float32)
    s = torch.from_numpy(s_host).cuda()
    deq = torch.from_numpy(G.dequantised(family, host, s_host).astype(np.float16)).cuda()
    return w, host, s, s_host, deq


def reference(x16, family, host, s_host):
    """Y and the size of its terms in float64, over row blocks of W (bounded host memory)."""
    import numpy as np

    x = x16.cpu().numpy()
    parts = [G.reference(x, family, host[r : r + 2048], s_host[r : r + 2048]) for r in range(0, host.shape[0], 2048)]
    return np.concatenate([a for a, _ in parts], axis=1), np.concatenate([b for _, b in parts], axis=1)


def check(y, want, size, k) -> float:
    import numpy as np

    got = y.float().cpu().numpy().astype(np.float64)
    if np.isnan(got).any():
        return math.inf
    return float(np.max(np.abs(got - want) / G.error_bound(want, size, k)))


def run_family(family, n, k, args, loaded) -> list[dict]:
    import torch

    w0, host, s, s_host, deq0 = make_weights(family, n, k)
    x16 = torch.randn(max(TOKENS), k, device="cuda", dtype=torch.float16)
    want, size = reference(x16, family, host, s_host)
    ws = [w0] + [w0.clone() for _ in range(max(1, math.ceil(ROTATE_BYTES / w0.nbytes)) - 1)]
    deqs = [deq0] + [deq0.clone() for _ in range(max(1, math.ceil(ROTATE_BYTES / deq0.nbytes)) - 1)]
    dst = torch.empty_like(w0)
    copy_ms = statistics.median(B.batched_ms(lambda i: dst.copy_(ws[i % len(ws)]), args.batch, args.reps)
                                for _ in range(args.rounds))  # fmt: skip
    copy_gbs = 2 * w0.nbytes / copy_ms / 1e6
    # the scales as each family timed here takes them (q8tc's transposed copy), made once per family
    scales = {fam: G.kernel_scales(fam, s) for fam in {f for f, _, _ in CANDIDATES if TIMED_WITH.get(f, f) == family}}
    out = []
    for t in args.tokens:
        x = x16[:t].contiguous()
        y = torch.empty(t, n, device="cuda", dtype=torch.float16)
        cands = {"torch f16": lambda i, x=x: torch.nn.functional.linear(x, deqs[i % len(deqs)])}
        for fam, defines, tokens in CANDIDATES:
            kernel = loaded.get(label(fam, defines))
            runs_here = (n, k) in SPLIT_SHAPES if fam in G.SPLIT else True
            if TIMED_WITH.get(fam, fam) == family and t in tokens and kernel and runs_here:
                cands[label(fam, defines)] = lambda i, kernel=kernel, fam=fam, x=x, y=y: kernel(
                    *G.kernel_args(fam, x, ws[i % len(ws)], scales[fam], y)
                )
        errors, wrong = {}, []
        for name, fn in cands.items():
            y.fill_(float("nan"))
            try:
                res = fn(0)
            except Exception as e:  # an unattended run goes on past one candidate's failure
                errors[name], res = math.inf, None
                print(f"  FAILED {name}: {type(e).__name__}: {e}")
            else:
                errors[name] = check(y if res is None else res, want[:t], size[:t], k)
            if name == "torch f16":
                print(f"  note: torch (f16-rounded weights) max error {errors[name]:.3g} x the bound")
            elif errors[name] > 1.0:
                wrong.append(name)
                print(f"  WRONG {name}: max error {errors[name]:.3g} x the bound; not timed")
        live = {name: fn for name, fn in cands.items() if name not in wrong}
        times = B.timed_rounds(live, args.rounds, args.batch, args.reps)
        moved = w0.nbytes + s.nbytes + 2 * (t * k + t * n)
        rows = sorted(({"impl": name, "us": statistics.median(v) * 1e3, "err_over_bound": errors[name]}
                       for name, v in times.items()), key=lambda r: r["us"])  # fmt: skip
        for r in rows:
            r["GB/s"] = moved / r["us"] / 1e3
            r["x_copy"] = r["GB/s"] / copy_gbs
        out.append(summarise({"family": family, "N": n, "K": k, "T": t, "bytes": moved, "copy_GB/s": copy_gbs,
                              "rows": rows, "wrong": wrong}))  # fmt: skip
    return out


def summarise(case: dict) -> dict:
    rows = case["rows"]
    base = next((r for r in rows if r["impl"] == "torch f16"), None)
    mine = [r for r in rows if r["impl"] != "torch f16"]
    case["best"] = mine[0]["impl"] if mine else None
    if mine:
        case["phobos_over_copy"] = mine[0]["x_copy"]
        if base:
            case["phobos_over_torch"] = base["us"] / mine[0]["us"]
    lines = [(r["impl"], f"{r['us']:.1f}", f"{r['GB/s']:.0f}", f"{r['x_copy']:.3f}",
              f"{base['us'] / r['us']:.3f}" if base else "-") for r in ([base] if base else []) + mine[:3]]  # fmt: skip
    title = f"{case['family']} N={case['N']} K={case['K']} T={case['T']} (copy {case['copy_GB/s']:.0f} GB/s)"
    print(common.table(lines, [title, "us", "GB/s", "x copy", "x torch"]), flush=True)
    return case


def target(case: dict) -> str | None:
    ratio = case.get("phobos_over_copy")
    if ratio is None:
        return None
    floor = 0.95 if case["T"] == 1 else 0.9
    met = "met" if ratio >= floor else "NOT met"
    return f"{case['family']} N={case['N']} K={case['K']} T={case['T']}: {ratio:.3f}x copy (>= {floor}: {met})"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="interleaved timing rounds (the median is kept)")
    parser.add_argument("--reps", type=int, default=5, help="timed batches per round")
    parser.add_argument("--batch", type=int, default=10, help="back-to-back launches per timed batch")
    parser.add_argument("--shapes", default=",".join(f"{n}x{k}" for n, k in SHAPES), help="N x K, comma-separated")
    parser.add_argument("--tokens", default=",".join(map(str, TOKENS)))
    parser.add_argument("--families", default="i8,q8_0,fp8")
    args = parser.parse_args(argv)
    args.tokens = [int(t) for t in args.tokens.split(",")]
    loaded = {label(f, d): load(f, d) for f, d, _ in CANDIDATES}
    cases = []
    for shape in args.shapes.split(","):
        n, k = (int(v) for v in shape.split("x"))
        for family in args.families.split(","):
            cases += run_family(family, n, k, args, loaded)
    targets = [line for line in map(target, cases) if line]
    for line in targets:
        print(line)
    timing = {"rounds": args.rounds, "reps": args.reps, "batch": args.batch}
    print(f"wrote {common.save('gemv8', {'cases': cases, 'targets': targets, 'timing': timing})}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
