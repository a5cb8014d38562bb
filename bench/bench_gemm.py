"""SGEMM on CUDA cores: Phobos vs cuBLAS fp32 (torch.mm, TF32 off) vs Triton's tuned fp32 matmul, one process.

Sizes 4096^3, 8192^3 and 4095x4097x4093. Phobos runs the masked seed kernel
(bench/kernels/gemm.ph) and, where the sizes are whole tiles, the @aligned
one, over a small sweep of tiles and CTA sizes; the best of each is reported
against cuBLAS. Every kernel's result is checked against a float64 torch
reference before it is timed; times are medians of event-timed runs;
TFLOP/s count 2 M N K. Registers, local memory, shared memory and
occupancy come from the driver for each Phobos variant.

Target (issue 9): at least 0.8x cuBLAS at each size.

    python bench/bench_gemm.py
"""

from __future__ import annotations

import common

# Non-default @autotune picks of gemm.ph (the default is TILE_M = TILE_N = 128, TILE_K = 8, W = 256).
SWEEP = [
    {},
    {"TILE_K": 16},
    {"MINB": 2},
    {"MINB": 2, "TILE_K": 16},
    {"TILE_M": 64, "W": 128},
    {"TILE_M": 64, "W": 128, "TILE_K": 16},
    {"TILE_N": 64, "W": 128, "TILE_K": 16},
    {"TILE_M": 64, "TILE_N": 64, "W": 128},
]
SIZES = [(4096, 4096, 4096), (8192, 8192, 8192), (4095, 4097, 4093)]


def _resources(kernel, args) -> dict:
    """Registers, local bytes, shared bytes and CTAs per SM of the variant `args` launch
    (the one that ran last, where the kernel has run: repacking may choose another)."""
    from cuda.bindings import driver as cu

    variant = getattr(kernel, "_last", None) or kernel._variant(kernel.key(*args), None)
    sig = variant.signature
    err, module = cu.cuModuleLoadData(variant.cubin)
    _, fn = cu.cuModuleGetFunction(module, sig.entry.encode())
    if sig.shared_bytes > 48 * 1024:
        cu.cuFuncSetAttribute(
            fn, cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, sig.shared_bytes
        )
    attr = cu.CUfunction_attribute
    _, regs = cu.cuFuncGetAttribute(attr.CU_FUNC_ATTRIBUTE_NUM_REGS, fn)
    _, local = cu.cuFuncGetAttribute(attr.CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, fn)
    _, ctas = cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(fn, sig.threads, sig.shared_bytes)
    return {"regs": regs, "local": local, "shared": sig.shared_bytes, "threads": sig.threads, "ctas_per_sm": ctas}


def _check(c, ref, scale, k, what):
    err = ((c - ref).abs() / (scale + 1e-30)).max().item()
    if not err <= 4 * (k + 8) * 2.0**-24:
        raise AssertionError(f"{what}: relative error {err}")


def measure(m: int, n: int, k: int) -> dict:
    """cuBLAS, Triton and every Phobos variant at one size, each checked before it is timed."""
    import torch
    import triton_kernels as tk

    a = torch.randn(m, k, device="cuda")
    b = torch.randn(k, n, device="cuda")
    ref = (a.double() @ b.double()).float()
    scale = (a.abs().double() @ b.abs().double()).float()
    c = torch.empty(m, n, device="cuda")
    torch.mm(a, b, out=c)
    _check(c, ref, scale, k, f"cuBLAS at {m}x{n}x{k}")
    entry = {"m": m, "n": n, "k": k, "phobos": []}
    entry["cublas_ms"] = common.gpu_time_ms(lambda: torch.mm(a, b, out=c))
    tk.launch_matmul_f32(a, b, c)
    _check(c, ref, scale, k, f"Triton at {m}x{n}x{k}")
    entry["triton_ms"] = common.gpu_time_ms(lambda: tk.launch_matmul_f32(a, b, c))
    aligned = m % 128 == 0 and n % 128 == 0 and k % 16 == 0
    for name in ("gemm", "gemm_aligned") if aligned else ("gemm",):
        for defines in SWEEP:
            if not common.aot_folder(name, defines).is_dir():
                continue
            kern = common.phobos_kernel(name, defines)
            c.normal_()
            kern(a, b, c, 1.0, 0.0)
            _check(c, ref, scale, k, f"phobos {name} {defines} at {m}x{n}x{k}")
            t = common.gpu_time_ms(lambda kern=kern: kern(a, b, c, 1.0, 0.0))
            res = _resources(kern, (a, b, c, 1.0, 0.0))
            entry["phobos"].append({"kernel": name, "defines": defines, "ms": t, **res})
    entry["best"] = min(entry["phobos"], key=lambda e: e["ms"])
    return entry


def _rows(entry: dict) -> list:
    m, n, k = entry["m"], entry["n"], entry["k"]
    size = f"{m}x{n}x{k}"
    flops = 2.0 * m * n * k
    cublas, triton = entry["cublas_ms"], entry["triton_ms"]
    rows = []
    for e in entry["phobos"]:
        tiles = ",".join(f"{name}={v}" for name, v in e["defines"].items()) or "default"
        rows.append(
            [size, e["kernel"], tiles, f"{flops / e['ms'] / 1e9:.1f}", f"{cublas / e['ms']:.2f}"]
            + [f"{triton / e['ms']:.2f}", e["regs"], e["local"], e["shared"], e["ctas_per_sm"]]
        )
    rows.append([size, "cuBLAS", "", f"{flops / cublas / 1e9:.1f}", "1.00", "", "", "", "", ""])
    rows.append([size, "Triton", "", f"{flops / triton / 1e9:.1f}", f"{cublas / triton:.2f}", "", "", "", "", ""])
    return rows


def main():
    import torch

    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    record = {"sizes": [list(s) for s in SIZES], "results": [measure(*s) for s in SIZES]}
    path = common.save("gemm", record)
    rows = [r for entry in record["results"] for r in _rows(entry)]
    headers = ["size", "kernel", "tiles", "TFLOP/s", "x cuBLAS", "x Triton", "regs", "local", "smem", "CTA/SM"]
    print(common.table(rows, headers))
    print(f"saved {path}")


if __name__ == "__main__":
    main()
