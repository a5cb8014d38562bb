"""The sm_90a tensor-core GEMM (TMA + wgmma) beside cuBLAS, and beside an earlier build of itself,
in one process (issue 26: Hopper at full speed).

Kernels: bench/kernels/hgemm.ph, hgemm_aligned.ph (f16) and bgemm.ph (bf16) as bench_hgemm.py
builds them for sm_90a (its WGMMA_VARIANTS; bench/aot_build.py's tensorcore_jobs), C = A B with
f32 accumulation stored as f32 (cuBLAS writes f16/bf16: its epilogue moves half the bytes); and
wgmma_tf32.ph, C = A B^T of f32 operands as tf32 (B given [N, K]: tf32 wgmma reads both operands
K-major), against cuBLAS with TF32 allowed on the same operands (wgmma8_jobs builds it).
Shapes: 4096^3 and 8192^3, the ragged 4095 x 4097 x 4093 (run on repacked operands, as TMA
needs 16-byte pitches), and the skinny 512 x 512 x 16384 and 64 x 4096 x 14336 the issue names.
On shapes whose 128 x 256 tiles number fewer than the SMs, the split-K f16 kernel
(hgemm_splitk.ph: each CTA one tile over a slice of K, its partial added into C by vector
reductions) runs too, timed with the zeroing of C its sum starts from (splitk_jobs builds it).

`--base DIR` loads the same variants from an earlier build's artifacts folder as well, and the
two builds and cuBLAS alternate in rounds (medians of the rounds' event-timed medians), so a
change of the schedule is measured against what it replaced on the same card in the same
process. Every kernel's result is checked against float64 first (max |C - C64| / (|A||B|)
within 2^-10, f16 inputs being exact in f32 products); a wrong one is reported, never timed.

    python bench/bench_hopper_gemm.py [--base /path/to/old/.cache/gpu] [--dtypes f16,bf16]
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

import common
import test_hgemm_splitk_gpu as splitk
from bench_hgemm import WGMMA_VARIANTS
from gather_cases import cdiv

SHAPES = [(4096, 4096, 4096), (8192, 8192, 8192), (4095, 4097, 4093), (512, 512, 16384), (64, 4096, 14336)]
TOLERANCE = {"f16": 2.0**-10, "bf16": 2.0**-10, "tf32": 2.0**-8}  # tf32: each operand truncated (2^-10)
# tf32: C = A B^T with B [N, K] (wgmma reads tf32 K-major only), cuBLAS on the same operands
TF32_VARIANTS = [("wgmma_tf32", "tf32", {"TN": 128}), ("wgmma_tf32", "tf32", {"TN": 256})]
SMS = 132  # the H100/H200 SXM's


def _variants(dtype: str, m: int, n: int, k: int) -> list[tuple[str, str, dict]]:
    """(name, dtype, defines) of the kernels that run `dtype` at this shape."""
    whole = not (m % 128 or n % 256 or k % 64)  # what hgemm_aligned promises
    out = [v for v in WGMMA_VARIANTS + TF32_VARIANTS if v[1] == dtype and (v[0] != "hgemm_aligned" or whole)]
    if dtype == "f16" and -(-m // 128) * -(-n // 256) < SMS:  # tiles leave SMs idle: split K too
        out += [("hgemm_splitk", "f16", splitk.defines_of(v)) for v in splitk.VARIANTS]
    return out


def _launcher(kernel, name: str, defines: dict, m: int, n: int, k: int):
    """fn(a, b, c) running `kernel`: split-K zeroes C and launches one CTA per tile and K slice."""
    if name != "hgemm_splitk":
        return lambda a, b, c: kernel(a, b, c)
    grid = (cdiv(m, defines["TM"]), cdiv(n, defines["TN"]), cdiv(k, defines["KS"]))
    return lambda a, b, c: (c.zero_(), kernel(a, b, c, grid=grid))


def _kernels(dtype: str, m: int, n: int, k: int, base: Path | None) -> list[tuple[str, str, object]]:
    """(build, label, fn(a, b, c)) for every variant of `dtype` present in this build (and the base)."""
    import phobos

    out = []
    roots = [("new", common.ARTIFACTS)] + ([("base", base)] if base is not None else [])
    for name, _, defines in _variants(dtype, m, n, k):
        label = f"{name} " + ",".join(f"{x}={y}" for x, y in sorted(defines.items()))
        for build, root in roots:
            folder = root / "aot" / common.aot_folder(name, defines, "sm_90a").name
            if folder.is_dir():
                out.append((build, label, _launcher(phobos.load(folder), name, defines, m, n, k)))
            else:
                print(f"  (no folder {folder}: skipped)")
    return out


def run_shape(torch, dtype: str, shape, base: Path | None, rounds: int, reps: int) -> list[dict]:
    m, n, k = shape
    tdt = {"f16": torch.float16, "bf16": torch.bfloat16, "tf32": torch.float32}[dtype]
    a = torch.randn(m, k, device="cuda").to(tdt)
    b = torch.randn(n, k, device="cuda").t() if dtype == "tf32" else torch.randn(k, n, device="cuda").to(tdt)
    ref = a.double() @ b.double()
    size = a.double().abs() @ b.double().abs()
    c16 = torch.empty(m, n, device="cuda", dtype=tdt)
    c = torch.empty(m, n, device="cuda", dtype=torch.float32)
    runs = [("cuBLAS", "torch.mm", lambda: _cublas(torch, a, b, c16, dtype), c16)]
    b_arg = b.t() if dtype == "tf32" else b  # the tf32 kernels take B as [N, K]: b is its transposed view
    runs += [(build, label, (lambda fn=fn: fn(a, b_arg, c)), c) for build, label, fn in _kernels(dtype, m, n, k, base)]
    rows, timed = [], []
    for build, label, fn, out in runs:
        out.fill_(float("nan"))
        fn()
        torch.cuda.synchronize()
        err = ((out.double() - ref).abs() / (size + 1e-30)).max().item()
        row = {"shape": list(shape), "dtype": dtype, "build": build, "kernel": label, "max_rel_err": err}
        rows.append(row)
        if build == "cuBLAS" or err <= TOLERANCE[dtype]:
            timed.append((row, fn))
        else:
            print(f"  WRONG {shape} {dtype} {build} {label}: max rel err {err:.2e} (not timed)")
    samples: dict = {id(r): [] for r, _ in timed}
    for _ in range(rounds):  # alternate: the clock's drift falls on every kernel alike
        for row, fn in timed:
            samples[id(row)].append(common.gpu_time_ms(fn, warmup=2, reps=reps))
    flops = 2 * m * n * k
    cublas = statistics.median(samples[id(timed[0][0])])
    for row, _ in timed:
        ms = statistics.median(samples[id(row)])
        row.update(ms=ms, TFLOPs=flops / ms / 1e9, x_cublas=cublas / ms)
    return rows


def _cublas(torch, a, b, out, dtype: str):
    """torch.mm into `out`, with TF32 allowed for this call only when `dtype` is tf32."""
    before = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = dtype == "tf32"
    try:
        torch.mm(a, b, out=out)
    finally:
        torch.backends.cuda.matmul.allow_tf32 = before


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, help="an earlier build's artifacts folder (A/B)")
    parser.add_argument("--dtypes", default="f16,bf16,tf32")
    parser.add_argument("--shapes", default=",".join("x".join(map(str, s)) for s in SHAPES))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--reps", type=int, default=10)
    ns = parser.parse_args()
    import torch

    shapes = [tuple(int(x) for x in s.split("x")) for s in ns.shapes.split(",")]
    rows = []
    for dtype in ns.dtypes.split(","):
        for shape in shapes:
            rows += run_shape(torch, dtype, shape, ns.base, ns.rounds, ns.reps)
            torch.cuda.empty_cache()
    table = [
        ["x".join(map(str, r["shape"])), r["dtype"], r["build"], r["kernel"], f"{r.get('TFLOPs', 0):.1f}",
         f"{r.get('x_cublas', 0):.3f}", f"{r['max_rel_err']:.1e}"]
        for r in rows
    ]  # fmt: skip
    print(common.table(table, ["shape", "dtype", "build", "kernel", "TFLOP/s", "x cuBLAS", "max rel err"]))
    base_commit = (ns.base / "COMMIT").read_text().strip() if ns.base and (ns.base / "COMMIT").exists() else None
    path = common.save("hopper_gemm", {"rows": rows, "base_commit": base_commit})
    print(f"saved {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
