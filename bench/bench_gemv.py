"""Decode GEMV and skinny GEMM (issue 25, item 5): Y[T, N] = X[T, K] @ W[N, K]^T in f16 (f32
accumulation), Phobos beside cuBLAS and a device copy of the weight bytes, one process on the GPU.

For each weight shape (N, K) and T tokens: every Phobos candidate of CANDIDATES that serves T,
launched from its ahead-of-time folder (bench/kernels/gemv_f16.ph, gemv_wave_f16.ph and
gemv_split_f16.ph on CUDA cores, gemv_tc_f16.ph and gemv_tc_split_f16.ph on the tensor cores,
the split ones with the second phase gemv_reduce_f16.ph), cuBLAS through torch.nn.functional.linear, and the copy
ceiling: torch's device-to-device copy of W (GB/s counting its read and its write).

Every result (cuBLAS's too) is checked first against X W^T computed by NumPy in float64, within
the f32-accumulation bound plus one f16 rounding (test/unit/gemv_cases.py); a candidate that
fails is reported and never timed. Times: CUDA events around a batch of back-to-back launches
(as decode runs them), started behind a spin of the GPU (torch.cuda._sleep) so that the host's
launch latency does not land inside the first one; the weights rotate over copies that together
exceed the L2 cache, so each launch reads W from DRAM; medians of reps, in interleaved rounds
over all candidates of a case. GB/s count W, X and Y once.

Targets (H200): T = 1 >= 0.95x the copy ceiling and >= 1.2x cuBLAS at N, K = 4096, 14336;
T = 16 >= 0.9x the copy ceiling.

    python bench/aot_build.py --only gemv                       # here: the folders (gemv_jobs)
    python bench/bench_gemv.py --out gemv.json                  # on the GPU machine
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys

import common

sys.path.insert(0, str(common.ROOT / "test" / "unit"))
import gemv_cases as G  # noqa: E402

SHAPES = [(14336, 4096), (4096, 14336), (28672, 8192), (8192, 28672)]  # (N, K) of W
TOKENS = [1, 2, 4, 8, 16]
ROTATE_BYTES = 384 << 20  # the weight copies a batch rotates over: several times the L2 cache
SLEEP_CYCLES = 1_000_000  # about 0.5 ms of GPU spin before each batch (covers its enqueueing)


def _cuda(tt, bn, w=256, kv=1):
    return {"TT": tt, "BN": bn, "KV": kv, "W": w}


def _wave(tt, bn, bk, w, minb):
    return {"TT": tt, "BN": bn, "BK": bk, "W": w, "MINB": minb}


def _tc(bn, bk, w=128, stages=None):
    return {"BN": bn, "BK": bk, "W": w, **({"STAGES": stages} if stages else {})}


# (family, defines, the token counts it runs, the splits S it runs with (None: not split)).
# Kept from the H100 run of bench/results/gemv-h100.log: the forms that led a case there or came
# within 1% of its best, the tested cuda TT=1 BN=2 W=256 and the best CUDA-core T = 2 form (the
# baselines of cuda_wave). Dropped: cuda BN=1, TT=1 W=128, TT=2 W=256 and TT >= 4 (1.3 to 5.5x
# the best), cuda_split KV=1, tc BN=32 BK=128, tc_split S=8 and BN=32 (BK=128 tied BN=64 S=2
# within 0.1% at its one lead). cuda_split now takes KV=2: at K = 14336 and S = 4 each split
# is one 4096-element chunk, as the whole K is for the form that led at 14336 x 4096.
# cuda_wave (gemv_wave_f16.ph) sizes the grid in whole waves of 132 SMs x MINB CTAs: at
# N = 4096 BN=4 MINB=8 and BN=8 MINB=4 are one wave (0.97), the others two (1.94); each SM
# keeps 64 KB of W in flight. The new tc / tc_split forms give 4096-row weights 128 CTAs, one
# per SM: BK=512 reads 1 KB of each W row per stage (64 KB in flight; X is 50% more at T = 16,
# so it is for T <= 8), the splits are the geometry that led at 8192 x 28672 (BN=64 BK=256)
# and BN=128 (X only 12.5% more bytes at T = 16) cut into 2 and 4 along K. tc_sync is the
# tc BN=64 BK=256 tiles without the ring, to tell whether the tensor-core forms' shortfall from
# the CUDA-core ones at T = 1 (0.89-0.93x copy against 0.97-1.03x) is their copy path
# (cp.async, 2 stages in flight) or their access pattern (BN rows x 2 BK bytes per stage,
# where the CUDA-core forms read 4 KB and more of a row at once). tc STAGES=5 (unmeasured) keeps
# four stages of W in flight per CTA instead of two, which the 0.82-0.87x T = 16 cases lacked.
CANDIDATES = [
    ("cuda", _cuda(1, 2), (1,), None),
    ("cuda", _cuda(1, 4), (1,), None),
    ("cuda", _cuda(1, 2, kv=2), (1,), None),
    ("cuda", _cuda(2, 1, w=128), (2,), None),
    ("cuda_wave", _wave(1, 4, 1024, 128, 8), (1,), None),
    ("cuda_wave", _wave(1, 8, 1024, 128, 4), (1,), None),
    ("cuda_wave", _wave(1, 4, 2048, 256, 4), (1,), None),
    ("cuda_wave", _wave(1, 2, 2048, 128, 8), (1,), None),
    ("cuda_wave", _wave(2, 4, 1024, 128, 4), (2,), None),
    ("cuda_split", _cuda(1, 2, kv=2), (1,), (2, 4)),
    ("tc", _tc(64, 128), tuple(TOKENS), None),
    ("tc", _tc(32, 256), tuple(TOKENS), None),
    ("tc", _tc(128, 128, w=256), tuple(TOKENS), None),
    ("tc", _tc(64, 256), tuple(TOKENS), None),  # one CTA per SM, 64 KB in flight: N = 8192
    ("tc", _tc(32, 512), tuple(TOKENS), None),
    ("tc", _tc(64, 256, stages=5), tuple(TOKENS), None),  # a deeper ring (@pipeline(STAGES)): 4 stages in flight
    ("tc", _tc(128, 128, w=256, stages=5), tuple(TOKENS), None),
    ("tc_sync", _tc(64, 256), tuple(TOKENS), None),  # beside tc BN=64 BK=256: cp.async ring or ld.global
    ("tc_split", _tc(64, 128), tuple(TOKENS), (2, 4)),
    ("tc_split", _tc(64, 256), tuple(TOKENS), (2,)),
    ("tc_split", _tc(128, 128, w=256), tuple(TOKENS), (4,)),
]


def label(family: str, defines: dict, s: int | None = None) -> str:
    return " ".join([family] + [f"{k}={v}" for k, v in defines.items()] + ([f"S={s}"] if s else []))


def aot_jobs(like) -> list[tuple]:
    """(source, defines, example argument lists, check) for bench/aot_build.py: every candidate
    with the layouts of the benchmark's launches, and the tested configurations with the layouts
    of test_gemv_gpu.py's pitched cases (the generic variant serves its ragged ones)."""
    jobs = []
    for family, defines, tokens, splits in CANDIDATES:
        for n, k in SHAPES:
            for t in tokens:
                for s in splits or (1,):
                    jobs += [(name, defines if name != G.REDUCE[0] else G.REDUCE[1], [args], True)
                             for name, args in G.layouts(family, (t, n, k, s), like)]  # fmt: skip
    for family, defines in G.WAVE_TESTED:  # pitched or not, the generic variant serves them all
        jobs.append((G.KERNEL[family], defines, [], True))
        for shape in G.WAVE_GPU_SHAPES:
            if shape[2] % 8 == 0 and shape[1] % 8 == 0:
                jobs += [(name, defines, [args], True) for name, args in G.layouts(family, shape, like)]
    for family, defines in G.TESTED:
        for shape in G.GPU_SHAPES:
            if shape[2] % 8 == 0 and shape[1] % 8 == 0:
                jobs += [(name, defines if name != G.REDUCE[0] else G.REDUCE[1], [args], True)
                         for name, args in G.layouts(family, shape, like)]  # fmt: skip
            elif family.endswith("split"):
                jobs.append((G.REDUCE[0], G.REDUCE[1], [], True))
            jobs.append((G.KERNEL[family], defines, [], True))
    return jobs


def load(family: str, defines: dict):
    """(main kernel, reduce kernel or None) from their ahead-of-time folders, or None."""
    import phobos

    folders = [common.aot_folder(G.KERNEL[family], defines)]
    if family.endswith("split"):
        folders.append(common.aot_folder(*G.REDUCE))
    missing = [f for f in folders if not f.is_dir()]
    if missing:
        print(f"  (no ahead-of-time folder {missing[0]}: run bench/aot_build.py --only gemv)")
        return None
    kernels = [phobos.load(f) for f in folders]
    return kernels[0], kernels[1] if len(kernels) > 1 else None


def reference(x16, w) -> tuple:
    """X W^T and |X| |W|^T in float64 by NumPy, over row blocks of W (bounded host memory)."""
    import numpy as np

    x = x16.cpu().numpy()
    want, size = [], []
    for r in range(0, w.shape[0], 2048):
        a, b = G.reference(x, w[r : r + 2048].cpu().numpy())
        want.append(a)
        size.append(b)
    return np.concatenate(want, axis=1), np.concatenate(size, axis=1)


def check(y, want, size, k) -> float:
    """The largest error relative to the allowed bound (<= 1 passes)."""
    import numpy as np

    got = y.float().cpu().numpy().astype(np.float64)
    if np.isnan(got).any():
        return math.inf
    return float(np.max(np.abs(got - want) / G.bound(want, size, k)))


def timed_rounds(live: dict, rounds: int, batch: int, reps: int) -> dict:
    """{name: [ms per call, one per round]}: every candidate once per round, in turn, so the
    clock's drift over the run falls on all of them alike."""
    times: dict = {name: [] for name in live}
    for _ in range(rounds):
        for name, fn in live.items():
            times[name].append(batched_ms(fn, batch, reps))
    return times


def batched_ms(fn, batch: int, reps: int) -> float:
    """Median over `reps` of the event-timed time of `batch` back-to-back calls fn(i), per call."""
    import torch

    fn(0)
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda._sleep(SLEEP_CYCLES)  # the GPU spins while the batch is enqueued behind it
        start.record()
        for i in range(batch):
            fn(i)
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / batch)
    return statistics.median(times)


def _phobos_fns(kernels, family, s, xs, ws, y, t, n):
    """fn(i): one Phobos GEMV on the i-th weight copy; and whether every kernel it launches has a
    variant built for exactly these arguments (else it runs a less specialised one, e.g. generic)."""
    import torch

    p = torch.empty(s, t, n, device="cuda", dtype=torch.float32) if s else None
    x = xs[t]
    main, reduce = kernels
    launches = [(main, (x[:, None, :] if family.startswith("cuda") else x, ws[0], p if s else y))]
    if s:
        launches.append((reduce, (p, y)))
    exact = all(k.key(*a).to_text() in k.keys for k, a in launches)
    return (lambda i: G.launch(kernels, family, x, ws[i % len(ws)], y, p)), exact


def run_case(n, k, t, ws, xs, want, size, loaded, args) -> dict:
    """Check every candidate that serves T (and cuBLAS), then time them in interleaved rounds."""
    import torch

    y = torch.empty(t, n, device="cuda", dtype=torch.float16)
    ref, mag = want[:t], size[:t]
    x = xs[t]
    cands = {"cuBLAS": lambda i: torch.nn.functional.linear(x, ws[i % len(ws)])}
    exact = {}
    for family, defines, tokens, splits in CANDIDATES:
        kernels = loaded.get(label(family, defines))
        if t in tokens and kernels:
            for s in splits or (None,):
                name = label(family, defines, s)
                cands[name], exact[name] = _phobos_fns(kernels, family, s, xs, ws, y, t, n)
                if not exact[name]:
                    print(f"  note: {name} runs a less specialised variant (no variant for these exact arguments)")
    errors, wrong = {}, []
    for name, fn in cands.items():
        y.fill_(float("nan"))
        try:
            out = fn(0)  # cuBLAS returns its result, the Phobos launches fill y
        except Exception as e:  # an unattended run goes on past one candidate's failure
            errors[name], out = math.inf, None
            print(f"  FAILED {name}: {type(e).__name__}: {e}")
        else:
            errors[name] = check(y if out is None else out, ref, mag, k)
        if errors[name] > 1.0 and name == "cuBLAS":  # its reductions may be less than f32 (torch's default)
            print(f"  note: cuBLAS's max error is {errors[name]:.3g} x the f32-accumulation bound")
        elif errors[name] > 1.0:
            wrong.append(name)
            print(f"  WRONG {name}: max error {errors[name]:.3g} x the bound; not timed")
    live = {name: fn for name, fn in cands.items() if name not in wrong}
    times = timed_rounds(live, args.rounds, args.batch, args.reps)
    moved = 2 * (n * k + t * k + t * n)
    rows = []
    for name, v in times.items():
        ms = statistics.median(v)
        rows.append({"impl": name, "us": ms * 1e3, "GB/s": moved / ms / 1e6, "err_over_bound": errors[name],
                     "exact_variant": exact.get(name)})  # fmt: skip
    return {"N": n, "K": k, "T": t, "bytes": moved, "rows": sorted(rows, key=lambda r: r["us"]), "wrong": wrong}


def run_shape(n, k, args, loaded) -> list[dict]:
    import torch

    w0 = torch.randn(n, k, device="cuda", dtype=torch.float16)
    x16 = torch.randn(max(TOKENS), k, device="cuda", dtype=torch.float16)
    want, size = reference(x16, w0)
    ws = [w0] + [w0.clone() for _ in range(max(1, math.ceil(ROTATE_BYTES / w0.nbytes)) - 1)]
    xs = {t: x16[:t].contiguous() for t in TOKENS}
    dst = torch.empty_like(w0)
    copy_ms = statistics.median(batched_ms(lambda i: dst.copy_(ws[i % len(ws)]), args.batch, args.reps)
                                for _ in range(args.rounds))  # fmt: skip
    copy_gbs = 2 * w0.nbytes / copy_ms / 1e6
    out = []
    for t in args.tokens:
        case = run_case(n, k, t, ws, xs, want, size, loaded, args)
        case["copy_GB/s"] = copy_gbs
        out.append(summarise(case))
    return out


def summarise(case: dict) -> dict:
    """Best Phobos overall and per family, cuBLAS, and the ratios; printed as a table."""
    rows = case["rows"]
    cublas = next(r for r in rows if r["impl"] == "cuBLAS")
    mine = [r for r in rows if r["impl"] != "cuBLAS"]
    best = mine[0] if mine else None
    families = {}
    for r in mine:
        families.setdefault(r["impl"].split()[0], r)
    case["best"] = best and best["impl"]
    case["families"] = {f: r["impl"] for f, r in families.items()}
    if best:
        case["phobos_over_copy"] = best["GB/s"] / case["copy_GB/s"]
        case["phobos_over_cublas"] = cublas["us"] / best["us"]
    case["cublas_over_copy"] = cublas["GB/s"] / case["copy_GB/s"]
    lines = [(r["impl"], f"{r['us']:.1f}", f"{r['GB/s']:.0f}", f"{r['GB/s'] / case['copy_GB/s']:.3f}",
              f"{cublas['us'] / r['us']:.3f}") for r in [cublas] + list(families.values())]  # fmt: skip
    title = f"N={case['N']} K={case['K']} T={case['T']} (copy {case['copy_GB/s']:.0f} GB/s)"
    print(common.table(lines, [title, "us", "GB/s", "x copy", "x cuBLAS"]), flush=True)
    return case


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="the JSON file to write (default: $OUT or bench/results, gemv.json)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved timing rounds (the median is kept)")
    parser.add_argument("--reps", type=int, default=5, help="timed batches per round")
    parser.add_argument("--batch", type=int, default=10, help="back-to-back launches per timed batch")
    parser.add_argument("--shapes", default=",".join(f"{n}x{k}" for n, k in SHAPES), help="N x K, comma-separated")
    parser.add_argument("--tokens", default=",".join(map(str, TOKENS)))
    args = parser.parse_args(argv)
    args.tokens = [int(t) for t in args.tokens.split(",")]
    loaded = {}
    for family, defines, _, _ in CANDIDATES:
        loaded[label(family, defines)] = load(family, defines)
    cases = []
    for shape in args.shapes.split(","):
        n, k = (int(v) for v in shape.split("x"))
        cases += run_shape(n, k, args, loaded)
    targets = [_target(c) for c in cases]
    for line in filter(None, targets):
        print(line)
    data = {"cases": cases, "targets": [t for t in targets if t], "machine": common.machine(),
            "timing": {"rounds": args.rounds, "reps": args.reps, "batch": args.batch}}  # fmt: skip
    path = common.results_dir() / "gemv.json" if not args.out else common.Path(args.out)
    path.write_text(json.dumps(data, indent=1, sort_keys=True))
    print(f"wrote {path}")
    return 0


def _target(case: dict) -> str | None:
    ratio = case.get("phobos_over_copy")
    if ratio is None or case["T"] not in (1, 16):
        return None
    floor = 0.95 if case["T"] == 1 else 0.9
    line = f"N={case['N']} K={case['K']} T={case['T']}: {ratio:.3f}x copy (>= {floor}: {_met(ratio >= floor)})"
    if case["T"] == 1 and (case["N"], case["K"]) == (4096, 14336):
        x = case["phobos_over_cublas"]
        line += f", {x:.3f}x cuBLAS (>= 1.2: {_met(x >= 1.2)})"
    return line


def _met(ok: bool) -> str:
    return "met" if ok else "NOT met"


if __name__ == "__main__":
    raise SystemExit(main())
