# ruff: noqa: E501
"""Triton's tutorials 01/02/03/05/06 (examples/python/) beside Triton's own tutorial kernels
(bench/triton_tutorials.py), in one process on the GPU, at the tutorials' sizes.

    PYTHONPATH=python python bench/bench_tutorials.py [--quick] [--reps 100] [--out FILE]

Each pair is timed with CUDA events (median of --reps launches after warm-up; Phobos kernels with
@autotune constants left free are tuned on their first launch, as Triton's are not: the
Triton side runs the tutorial's configuration) and checked against torch before timing. Layer
norm's backward row also times torch's own backward and Phobos's two-kernel form.

Where the compiler (MLIR) is missing, as on the GPU machine, the kernels are launched from the
ahead-of-time folders bench/aot_build.py builds (`--only tutorials`; $PHOBOS_GPU_ARTIFACTS/aot,
default .cache/gpu/aot), compiled for sm_90a: the same kernels at the same layouts (a folder of
every @autotune candidate tunes on the GPU like the decorated kernel). `--from-aot` forces that.

Writes the card, sizes, commit and rows as JSON to --out (default: $OUT/tutorials.json when OUT is
set, else bench/results/tutorials.json) and prints a short table last. Needs torch, triton and a
GPU; importing this file needs neither (bench/aot_build.py reads the sizes from it).
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import json
import math
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for _path in (ROOT / "bench", ROOT / "python", ROOT / "test" / "unit"):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

# The sizes (bench/aot_build.py builds a variant for each layout; --quick runs the first ones).
VECTOR_ADD = [98432, 98432 * 1024, 1 << 27]  # the tutorial's example, its largest sizes
SOFTMAX_ROWS = 4096
SOFTMAX_COLS = [1024, 4096, 8192, 12288]  # the tutorial sweeps N = 256 .. 12544 (past 16384: the two-pass path)
# Thread counts timed beside the tile rule's pick (softmax_defines: W = BN / 8, at most 512), where
# Triton runs 16 warps: the evidence for the rule at long rows.
SOFTMAX_W = {8192: (1024,), 12288: (256, 1024)}
MATMUL = [1024, 2048, 4096, 8192]  # square f16, M = N = K
LAYER_NORM_ROWS = 4096
# as far as the tutorial goes; the port takes rows of at most 16384 (N <= BN)
LAYER_NORM_COLS = [1024, 4096, 8192, 16384]
# Thread counts of the forward timed beside the rule's (layer_norm_defines: W = BN / 16, 128 to 1024):
# the rule's earlier W = BN / 8 (512 at 4096, 1024 at 8192), and 512 at 16384.
LAYER_NORM_W = {4096: (512,), 8192: (1024,), 16384: (512,)}
ATTENTION_HEADS = 4 * 32  # Z * H: the tutorial's BATCH = 4, N_HEADS = 32
ATTENTION_SEQ = [1024, 2048, 4096, 8192, 16384]  # N_CTX = 2**10 .. 2**14
ATTENTION_D = [64, 128]
CHIP = "sm_90a"  # what the folders are built for: the H200's own chip


@functools.cache
def _tutorial(name: str):
    spec = importlib.util.spec_from_file_location(
        f"phobos_tutorial_{name}", ROOT / "examples" / "python" / f"{name}.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def row_tile(n: int, per_thread: int, most_threads: int) -> dict:
    """The tile tutorials 02 and 05 size to a row of n columns (02's for_columns, 05's tile_for),
    restated so that launching from the folders needs no front end; bench/aot_build.py checks
    that they agree."""
    bn = min(max(256, 1 << (n - 1).bit_length()), 16384)
    return {"BN": bn, "W": min(max(bn // per_thread, 128), most_threads)}


def softmax_defines(n: int) -> dict:
    return row_tile(n, 8, 512)


def layer_norm_defines(n: int) -> dict:
    return row_tile(n, 16, 1024)


FUSED_MAX_N = 8192  # 05_layer_norm.FUSED_MAX_N: the fused backward up to it, the two kernels past it


def compiler_available() -> bool:
    return importlib.util.find_spec("mlir") is not None


class Kernels:
    """The tutorial kernels: the decorated ones (compiled here), or from their ahead-of-time folders."""

    def __init__(self, from_aot: bool):
        self.from_aot = from_aot
        self.loaded: dict[Path, object] = {}

    def __call__(self, name: str, defines: dict | None = None):
        """'03_matmul.matmul' with `defines` fixed."""
        defines = dict(defines or {})
        if not self.from_aot:
            stem, _, kernel = name.partition(".")
            k = getattr(_tutorial(stem), kernel)
            return k.with_defines(**defines) if defines else k
        from aot_folders import ARTIFACTS, folder_name

        import phobos

        folder = ARTIFACTS / "aot" / folder_name(name, defines, CHIP)
        if folder not in self.loaded:
            if not folder.is_dir():
                raise FileNotFoundError(
                    f"no ahead-of-time folder {folder}: build it where the compiler is (.venv/bin/python "
                    "bench/aot_build.py --only tutorials) and carry .cache/gpu here"
                )
            self.loaded[folder] = phobos.load(folder)
        return self.loaded[folder]


# ----------------------------------------------------------------------------- timing


def _time(fn, reps: int) -> float:
    import torch

    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def _pair(name, sizes, phobos_fn, ref_fn, check, reps, reference="triton"):
    import torch

    phobos_fn()  # first launch: tunes where @autotune constants are free
    ref_fn()
    torch.cuda.synchronize()
    ok = bool(check())
    p, t = _time(phobos_fn, reps), _time(ref_fn, reps)
    row = {"name": name, "sizes": sizes, "reference": reference, "phobos_ms": p, f"{reference}_ms": t,
           f"speed_vs_{reference}": t / p, "correct": ok}  # fmt: skip
    print(
        f"{name:44s} phobos {p:8.4f} ms  {reference} {t:8.4f} ms  x{t / p:5.2f}  {'ok' if ok else 'WRONG'}", flush=True
    )
    return row


# ----------------------------------------------------------------------------- the tutorials


def vector_add(K, reps, n):
    import torch
    import triton
    import triton_tutorials as tt

    k = K("01_vector_add.add")
    x, y = torch.rand(n, device="cuda"), torch.rand(n, device="cuda")
    a, b = torch.empty_like(x), torch.empty_like(x)
    grid = (triton.cdiv(n, 1024),)
    return _pair(f"01 vector add (n={n})", {"n": n}, lambda: k(x, y, a),
                 lambda: tt.add_kernel[grid](x, y, b, n, BLOCK_SIZE=1024), lambda: torch.equal(a, x + y), reps)  # fmt: skip


def softmax(K, reps, n_cols, w=None):
    """Tutorial 02 at n_cols columns, with the rule's tile, or with its BN and `w` threads."""
    import torch
    import triton
    import triton_tutorials as tt

    m = SOFTMAX_ROWS
    defines = softmax_defines(n_cols) if w is None else {**softmax_defines(n_cols), "W": w}
    k = K("02_fused_softmax.softmax", defines)
    x = torch.randn(m, n_cols, device="cuda")
    a, b = torch.empty_like(x), torch.empty_like(x)
    block = triton.next_power_of_2(n_cols)
    warps = 4 if block < 2048 else 8 if block < 4096 else 16
    title = f"02 softmax ({m}x{n_cols})" + ("" if w is None else f" W={w}")
    return _pair(title, {"M": m, "N": n_cols, **defines}, lambda: k(x, a),
                 lambda: tt.softmax_kernel[(m,)](b, x, x.stride(0), b.stride(0), n_cols, BLOCK_SIZE=block, num_warps=warps),
                 lambda: torch.allclose(a, torch.softmax(x, 1), atol=1e-6), reps)  # fmt: skip


def matmul(K, reps, size):
    import torch
    import triton
    import triton_tutorials as tt

    k = K("03_matmul.matmul")
    a = torch.randn(size, size, device="cuda", dtype=torch.float16)
    b = torch.randn(size, size, device="cuda", dtype=torch.float16)
    c1, c2 = (torch.empty(size, size, device="cuda", dtype=torch.float16) for _ in range(2))
    grid = (triton.cdiv(size, 128) * triton.cdiv(size, 256),)

    def tri():  # noqa: E306 - the tutorial's best H100 config: 128x256x64, 3 stages, 8 warps
        tt.matmul_kernel[grid](a, b, c2, size, size, size, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                               c2.stride(0), c2.stride(1), BM=128, BN=256, BK=64, GROUP_M=8, num_stages=3, num_warps=8)  # fmt: skip

    if hasattr(k, "autotune"):  # from the folders: the tuner's table (its pick launches below)
        print(k.autotune(a, b, c1).table(), flush=True)
    return _pair(f"03 matmul f16 ({size}^3)", {"M": size, "N": size, "K": size}, lambda: k(a, b, c1), tri,
                 lambda: torch.allclose(c1.float(), (a.float() @ b.float()), rtol=1e-2, atol=1e-1), reps)  # fmt: skip


def layer_norm(K, reps, n, threads=None):
    """Tutorial 05's forward at n columns, with the rule's tile, or with its BN and `threads`."""
    import torch
    import triton
    import triton_tutorials as tt

    defines = layer_norm_defines(n) if threads is None else {**layer_norm_defines(n), "W": threads}
    k = K("05_layer_norm.layer_norm_fwd", defines)
    m = LAYER_NORM_ROWS
    x = torch.randn(m, n, device="cuda")
    w, bias = torch.rand(n, device="cuda"), torch.rand(n, device="cuda")
    y1, y2 = torch.empty_like(x), torch.empty_like(x)
    mean1, rstd1 = torch.empty(m, 1, device="cuda"), torch.empty(m, 1, device="cuda")
    mean2, rstd2 = torch.empty(m, device="cuda"), torch.empty(m, device="cuda")
    block = min(65536 // x.element_size(), triton.next_power_of_2(n))
    warps = min(max(block // 256, 1), 8)
    ref = torch.nn.functional.layer_norm(x, (n,), w, bias, 1e-5)
    title = f"05 layer norm fwd ({m}x{n})" + ("" if threads is None else f" W={threads}")
    return _pair(title, {"M": m, "N": n, **defines}, lambda: k(x, w, bias, y1, mean1, rstd1, 1e-5),
                 lambda: tt.layer_norm_fwd_kernel[(m,)](x, y2, w, bias, mean2, rstd2, x.stride(0), n, 1e-5,
                                                        BLOCK_SIZE=block, num_warps=warps),
                 lambda: torch.allclose(y1, ref, atol=1e-4), reps)  # fmt: skip


def layer_norm_backward(K, reps, n):
    """The port's backward (05_layer_norm.backward: up to FUSED_MAX_N columns the fused kernel,
    layer_norm_bwd: dx per row on a resident grid, each CTA's column sums of dy * xhat and dy added
    into zeroed DW and DB at its end; past it the two-kernel form, layer_norm_bwd_dx then
    layer_norm_bwd_dwdb, which reads dy and x again) beside the tutorial's own backward
    (triton_tutorials.layer_norm_backward: lock-guarded partial sums, then their reduction). Also
    timed, in the row: torch's backward and the two-kernel form at every size."""
    import torch
    import triton_tutorials as tt

    m = LAYER_NORM_ROWS
    fused_k = K("05_layer_norm.layer_norm_bwd", {"BN": layer_norm_defines(n)["BN"]})  # W: tuned at the first call
    dx_k = K("05_layer_norm.layer_norm_bwd_dx", layer_norm_defines(n))
    dwdb_k = K("05_layer_norm.layer_norm_bwd_dwdb")
    x, dy = torch.randn(m, n, device="cuda"), torch.randn(m, n, device="cuda")
    w, bias = torch.rand(n, device="cuda"), torch.rand(n, device="cuda")
    mean = x.mean(1, keepdim=True)
    rstd = torch.rsqrt(x.var(1, unbiased=False, keepdim=True) + 1e-5)
    outs = {who: (torch.empty_like(x), torch.empty(n, device="cuda"), torch.empty(n, device="cuda"))
            for who in ("fused", "two", "triton")}  # fmt: skip

    def fused_fn():
        dx, dw, db = outs["fused"]
        dw.zero_()  # the kernel adds its CTAs' column sums into them (timed: part of the backward)
        db.zero_()
        fused_k(dy, x, w, mean, rstd, dx, dw, db)

    def two_fn():
        dx, dw, db = outs["two"]
        dx_k(dy, x, w, mean, rstd, dx)
        dw.zero_()
        db.zero_()
        dwdb_k(dy, x, mean, rstd, dw, db)

    def triton_fn():
        tt.layer_norm_backward(dy, x, w, mean.view(m), rstd.view(m), *outs["triton"])

    backward = torch.ops.aten.native_layer_norm_backward
    flat_mean, flat_rstd = mean.view(m), rstd.view(m)

    def torch_fn():
        backward(dy, x, [n], flat_mean, flat_rstd, w, bias, [True, True, True])

    x64, dy64, w64 = x.double(), dy.double(), w.double()
    rs = torch.rsqrt(x64.var(1, unbiased=False, keepdim=True) + 1e-5)
    xhat = (x64 - x64.mean(1, keepdim=True)) * rs
    wdy = w64 * dy64
    ref_dx = (wdy - (xhat * (xhat * wdy).mean(1, keepdim=True) + wdy.mean(1, keepdim=True))) * rs
    refs = (ref_dx, (dy64 * xhat).sum(0), dy64.sum(0))  # dx, dw, db in float64
    tolerances = ((1e-4, 1e-4), (1e-4, 1e-3), (1e-4, 1e-3))  # (rtol, atol) of each

    def check(who):
        return all(torch.allclose(got.double(), ref, rtol=rtol, atol=atol)
                   for got, ref, (rtol, atol) in zip(outs[who], refs, tolerances))  # fmt: skip

    fused = n <= FUSED_MAX_N
    if fused and hasattr(fused_k, "autotune"):  # a folder of every W: tune here, show each one
        print(fused_k.autotune(dy, x, w, mean, rstd, *outs["fused"]).table(), flush=True)
    row = _pair(f"05 layer norm bwd ({m}x{n})", {"M": m, "N": n}, fused_fn if fused else two_fn, triton_fn,
                lambda: check("fused" if fused else "two"), reps)  # fmt: skip
    row["form"] = "fused" if fused else "two kernels"
    two_fn()
    torch.cuda.synchronize()
    row["triton_correct"], row["two_kernel_correct"] = check("triton"), check("two")
    ran = ("fused", "triton", "two") if fused else ("triton", "two")
    for who in ran:  # dx, dw, db against float64
        row[f"{who}_max_errors"] = [float((got.double() - ref).abs().max()) for got, ref in zip(outs[who], refs)]
    row["two_kernel_ms"], row["torch_ms"] = _time(two_fn, reps), _time(torch_fn, reps)
    print(f"{'':44s} two kernels {row['two_kernel_ms']:8.4f} ms  torch {row['torch_ms']:8.4f} ms"
          f"  (triton {'ok' if row['triton_correct'] else 'WRONG'}, two kernels {'ok' if row['two_kernel_correct'] else 'WRONG'};"
          f" max errors of dx, dw, db: {', '.join(f'{who} ' + ' '.join(f'{e:.1e}' for e in row[who + '_max_errors']) for who in ran)})",
          flush=True)  # fmt: skip
    return row


def attention(K, reps, causal, s, d, heads=ATTENTION_HEADS):
    import torch
    import triton
    import triton_tutorials as tt

    k = K("06_fused_attention.attention_fwd_causal" if causal else "06_fused_attention.attention_fwd", {"D": d})
    q, kk, v = (torch.randn(heads, s, d, device="cuda", dtype=torch.float16) for _ in range(3))
    o1, o2 = torch.empty_like(q), torch.empty_like(q)
    scale = 1.0 / math.sqrt(d)
    # (1, heads, S, D): SDPA's fused kernels take four dimensions; with three it materialises S x S
    ref = torch.nn.functional.scaled_dot_product_attention(q[None], kk[None], v[None], is_causal=causal, scale=scale)[0]
    grid = (triton.cdiv(s, 128), heads)
    return _pair(f"06 attention fwd causal={causal} (Z*H={heads}, S={s}, D={d})",
                 {"heads": heads, "S": s, "D": d, "causal": causal}, lambda: k(q, kk, v, o1, scale),
                 lambda: tt.attn_fwd_kernel[grid](q, kk, v, o2, scale, s, HEAD_DIM=d, BM=128, BN=64, CAUSAL=causal,
                                                  num_warps=8, num_stages=3),
                 lambda: torch.allclose(o1.float(), ref.float(), atol=2e-2), reps)  # fmt: skip


def _sizes(quick: bool) -> dict:
    if quick:
        return {"vector_add": VECTOR_ADD[1:2], "softmax": [4096, 12288], "matmul": [4096], "layer_norm": [4096],
                "attention": [(c, 4096, d) for d in ATTENTION_D for c in (False, True)]}  # fmt: skip
    return {"vector_add": VECTOR_ADD, "softmax": SOFTMAX_COLS, "matmul": MATMUL, "layer_norm": LAYER_NORM_COLS,
            "attention": [(c, s, d) for d in ATTENTION_D for c in (False, True) for s in ATTENTION_SEQ]}  # fmt: skip


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--reps", type=int, default=100)
    p.add_argument("--quick", action="store_true", help="one or two sizes per tutorial")
    p.add_argument("--from-aot", action="store_true", help="launch from the ahead-of-time folders even with MLIR")
    p.add_argument("--out", help="JSON file (default: $OUT/tutorials.json, else bench/results/tutorials.json)")
    p.add_argument("--only", help="comma-separated tutorials: vector_add, softmax, matmul, layer_norm, attention")
    args = p.parse_args(argv)
    only = set(args.only.split(",")) if args.only else None
    import common
    import torch
    import triton

    from_aot = args.from_aot or not compiler_available()
    K = Kernels(from_aot)
    sizes = _sizes(args.quick)
    if only is not None:
        sizes = {name: (v if name in only else []) for name, v in sizes.items()}
    t0 = time.perf_counter()
    rows = [vector_add(K, args.reps, n) for n in sizes["vector_add"]]
    rows += [softmax(K, args.reps, n) for n in sizes["softmax"]]
    rows += [softmax(K, args.reps, n, w) for n in sizes["softmax"] for w in SOFTMAX_W.get(n, ())]
    rows += [matmul(K, args.reps, n) for n in sizes["matmul"]]
    rows += [layer_norm(K, args.reps, n) for n in sizes["layer_norm"]]
    rows += [layer_norm(K, args.reps, n, w) for n in sizes["layer_norm"] for w in LAYER_NORM_W.get(n, ())]
    rows += [layer_norm_backward(K, args.reps, n) for n in sizes["layer_norm"]]
    rows += [attention(K, args.reps, c, s, d) for c, s, d in sizes["attention"]]
    result = {
        "device": torch.cuda.get_device_name(),
        "triton": triton.__version__,
        "kernels_from": "ahead-of-time folders (sm_90a)" if from_aot else "compiled here",
        "sizes": sizes,
        "reps": args.reps,
        "wall_s": time.perf_counter() - t0,
        "time": time.time(),
        "machine": common.machine(),
        "rows": rows,
    }
    out = Path(args.out) if args.out else Path(os.environ.get("OUT") or ROOT / "bench" / "results") / "tutorials.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(
        f"\nwrote {out} ({result['device']}, commit {result['machine'].get('commit')}, kernels from {result['kernels_from']})"
    )
    print(common.table([(r["name"], f"{r['phobos_ms']:.4f}", f"{r[r['reference'] + '_ms']:.4f} {r['reference']}",
                         f"{r['speed_vs_' + r['reference']]:.2f}", "ok" if r["correct"] else "WRONG") for r in rows],
                       ["tutorial", "phobos ms", "reference ms", "speed", "check"]))  # fmt: skip
    return 0 if all(r["correct"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
