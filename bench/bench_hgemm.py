"""f16 and bf16 GEMM on the tensor cores: Phobos (@tensorcore, mma.sync) vs cuBLAS vs Triton, one process.

Sizes 4096^3, 8192^3 and 4095x4097x4093; C = A B with f32 accumulation (C
f32 for Phobos; cuBLAS and Triton write f16/bf16, which only makes their
epilogue cheaper); and f32 operands as tf32 (examples/tensorcore_tf32.ph against
cuBLAS with TF32 allowed). Every result is checked against float64 first; times are
medians of event-timed runs; TFLOP/s count 2 M N K.

Targets (issue 11): at least 0.75x cuBLAS at 4096^3 and 8192^3, at least
1.0x cuBLAS at 4095x4097x4093.

    python bench/bench_hgemm.py [f16] [bf16] [tf32]
"""

from __future__ import annotations

import common

SIZES = [(4096, 4096, 4096), (8192, 8192, 8192), (4095, 4097, 4093)]
# (source, operand type, defines)
VARIANTS = [
    ("hgemm", "f16", {}),
    ("hgemm", "f16", {"MINB": 2}),
    ("hgemm", "f16", {"TK": 64}),
    ("hgemm", "f16", {"TK": 64, "MINB": 2}),
    ("hgemm_aligned", "f16", {}),
    ("hgemm_aligned", "f16", {"TK": 64, "MINB": 2}),
    ("hgemm", "f16", {"TN": 256, "TK": 64}),
    ("hgemm_aligned", "f16", {"TN": 256, "TK": 64}),
    ("bgemm", "bf16", {"TK": 64, "MINB": 2}),
    ("bgemm", "bf16", {}),
]
# examples/tensorcore_tf32.ph (f32 operands as tf32 on mma.sync m16n8k8), sm_90
TF32_VARIANTS = [{}, {"TM": 128, "TN": 128, "TK": 16, "W": 256}]
# sm_90a: TMA + wgmma (built for the sizes whose rows TMA reads)
WGMMA_VARIANTS = [
    ("hgemm", "f16", {"TK": 64}),
    ("hgemm", "f16", {"TN": 256, "TK": 64}),
    ("hgemm_aligned", "f16", {"TN": 256, "TK": 64}),
    ("bgemm", "bf16", {"TK": 64}),
    ("bgemm", "bf16", {"TN": 256, "TK": 64}),
]


def _resources(kernel, args) -> dict:
    from bench_gemm import _resources as resources

    return resources(kernel, args)


def _one(m: int, n: int, k: int, dtype: str) -> list[dict]:
    import torch
    import triton_kernels as tk

    tdt = {"f16": torch.float16, "bf16": torch.bfloat16, "tf32": torch.float32}[dtype]
    flops = 2 * m * n * k
    a = torch.randn(m, k, device="cuda").to(tdt)
    b = torch.randn(k, n, device="cuda").to(tdt)
    ref = a.double() @ b.double()
    size = a.double().abs() @ b.double().abs()
    out = []

    def record(impl, fn, c, extra=None):
        c.fill_(float("nan"))
        fn()
        torch.cuda.synchronize()
        e = ((c.double() - ref).abs() / (size + 1e-30)).max().item()
        ms = common.gpu_time_ms(fn, warmup=3, reps=15)
        row = {"size": [m, n, k], "dtype": dtype, "impl": impl, "ms": ms, "TFLOP/s": flops / ms / 1e9}
        row.update({"max_rel_err": e}, **((extra() if callable(extra) else extra) or {}))
        out.append(row)

    def phobos(name, defines, c, chip=None):
        """Time one Phobos variant; its resources are asked for after it ran (the variant repacking chose)."""
        kern = common.phobos_kernel(name, defines, chip=chip)
        tiles = ",".join(f"{x}={y}" for x, y in sorted(defines.items())) or "default"
        impl = f"phobos {name} {tiles}" + (f" {chip}" if chip else "")
        record(impl, lambda: kern(a, b, c), c, lambda: _resources(kern, (a, b, c)))

    c16 = torch.empty(m, n, device="cuda", dtype=tdt)
    if dtype == "tf32":  # cuBLAS on tf32 (TF32 on for this call only), the example kernel
        before = torch.backends.cuda.matmul.allow_tf32
        torch.backends.cuda.matmul.allow_tf32 = True
        try:
            record("cuBLAS", lambda: torch.mm(a, b, out=c16), c16)
        finally:
            torch.backends.cuda.matmul.allow_tf32 = before
        for defines in TF32_VARIANTS:
            phobos("tensorcore_tf32", defines, c16)
        return out
    record("cuBLAS", lambda: torch.mm(a, b, out=c16), c16)
    if dtype == "f16":
        record("Triton", lambda: tk.launch_matmul(a, b, c16), c16)
    c = torch.empty(m, n, device="cuda", dtype=torch.float32)
    whole = not (m % 128 or n % 256 or k % 64)  # what hgemm_aligned promises
    for name, vdtype, defines in VARIANTS:
        if vdtype == dtype and (name != "hgemm_aligned" or whole):
            phobos(name, defines, c)
    for name, vdtype, defines in WGMMA_VARIANTS:
        # sizes whose rows TMA cannot read run on repacked copies of A and B (runtime/repack.py)
        if vdtype == dtype and (name != "hgemm_aligned" or whole):
            phobos(name, defines, c, chip="sm_90a")
    return out


DTYPES = ("f16", "bf16", "tf32")


def measure(m: int, n: int, k: int, dtypes=DTYPES) -> list[dict]:
    return [r for d in dtypes for r in _one(m, n, k, d)]


def main():
    import sys

    dtypes = tuple(sys.argv[1:]) or DTYPES  # e.g. `python bench/bench_hgemm.py tf32`
    results = [r for s in SIZES for r in measure(*s, dtypes)]
    path = common.save("hgemm", {"sizes": [list(s) for s in SIZES], "results": results})
    best: dict = {}
    for r in results:
        key = (tuple(r["size"]), r["dtype"], r["impl"].split()[0])
        best[key] = max(best.get(key, 0), r["TFLOP/s"])
    rows = []
    for r in results:
        cub = best[(tuple(r["size"]), r["dtype"], "cuBLAS")]
        res = (
            f"{r.get('regs', '')} regs {r.get('shared', '')} B CTA/SM {r.get('ctas_per_sm', '')}" if "regs" in r else ""
        )
        rows.append(
            [
                "x".join(map(str, r["size"])),
                r["dtype"],
                r["impl"],
                f"{r['TFLOP/s']:.1f}",
                f"{r['TFLOP/s'] / cub:.2f}",
                f"{r['max_rel_err']:.1e}",
                res,
            ]
        )
    print(common.table(rows, ["size", "dtype", "impl", "TFLOP/s", "x cuBLAS", "max rel err", "resources"]))
    print(f"saved {path}")


if __name__ == "__main__":
    main()
