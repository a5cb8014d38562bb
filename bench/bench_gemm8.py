"""8-bit GEMM on sm_90a: Phobos wgmma (i8 and fp8) vs torch._int_mm and torch._scaled_mm, one process.

Sizes 4096^3 and 8192^3; B given as [N, K] (the weights' usual layout: both operands K-major,
as 8-bit wgmma needs). i8: C = A B^T in i32 against torch._int_mm (cuBLASLt), plus the
mma.sync m16n8k32 kernel (tc_i8_nt) for scale. fp8 (e4m3, per-tensor scales): C =
f16(scale_a scale_b A B^T) against torch._scaled_mm with out_dtype f16, and the f32-output
kernel against torch._scaled_mm into f32; the @fastmath kernel (wgmma_fp8_fast: sums kept in the
tensor cores, not promoted into f32) against torch._scaled_mm(use_fast_accum=True). Every result
is checked against a float64 reference first (i8: exactly); times are medians of event-timed
runs; TFLOP/s (TOPS for i8) count 2 M N K.

Targets (issue 25): fp8 at least 0.9x torch._scaled_mm, i8 at least 5x torch._int_mm
(>= 630 TOPS) at 4096^3.

    python bench/bench_gemm8.py [i8] [fp8]
"""

from __future__ import annotations

import common

SIZES = [(4096, 4096, 4096), (8192, 8192, 8192)]
# (source, operand type, output type, defines): sm_90a, TMA + wgmma
VARIANTS = [
    ("wgmma_i8", "i8", "i32", {"TN": 128}),
    ("wgmma_i8", "i8", "i32", {"TN": 256}),
    ("wgmma_fp8", "f8e4m3", "f32", {"TN": 128}),
    ("wgmma_fp8", "f8e4m3", "f32", {"TN": 256}),
    ("wgmma_fp8_scaled", "f8e4m3", "f16", {"TN": 128}),
    ("wgmma_fp8_scaled", "f8e4m3", "f16", {"TN": 256}),
    ("wgmma_fp8_fast", "f8e4m3", "f32", {"TN": 128}),  # @fastmath: sums kept in the tensor cores
    ("wgmma_fp8_fast", "f8e4m3", "f32", {"TN": 256}),
]
MMA_SYNC = [("tc_i8_nt", "i8", "i32", {})]  # sm_90a's mma.sync m16n8k32 (dot_t, K tile 64)
SCALE_A, SCALE_B = 0.5, 0.25


def _row(size, dtype, impl, ms, err, extra=None) -> dict:
    m, n, k = size
    row = {"size": list(size), "dtype": dtype, "impl": impl, "ms": ms, "TFLOP/s": 2 * m * n * k / ms / 1e9}
    row["max_rel_err"] = err
    row.update(extra or {})
    return row


def _resources(kernel, args) -> dict:
    from bench_gemm import _resources as resources

    return resources(kernel, args)


def _phobos_variants(operand: str, variants: list):
    """(impl name, kernel, output type) of each sm_90a variant of `operand`."""
    for name, vop, c_type, defines in variants:
        if vop == operand:
            tiles = ",".join(f"{x}={y}" for x, y in sorted(defines.items())) or "default"
            if not common.aot_folder(name, defines, "sm_90a").is_dir():
                print(f"  (no folder {common.aot_folder(name, defines, 'sm_90a')}: skipped)")
                continue
            yield f"phobos {name} {tiles}", common.phobos_kernel(name, defines, chip="sm_90a"), c_type


def _launcher(kern, args, c):
    """A call of `kern` on `args` that returns its output `c`, and its resources."""

    def run():
        kern(*args)
        return c

    return run, lambda: _resources(kern, args)


def _i8(m: int, n: int, k: int) -> list[dict]:
    import torch

    a = torch.randint(-128, 128, (m, k), device="cuda", dtype=torch.int8)
    w = torch.randint(-128, 128, (n, k), device="cuda", dtype=torch.int8)
    ref = a.double() @ w.double().T  # exact: |sums| < 2^53
    out = []

    def record(impl, fn, extra=None):
        got = fn()
        torch.cuda.synchronize()
        bad = (got.double() != ref).sum().item()
        assert bad == 0, f"{impl}: {bad} wrong elements"
        ms = common.gpu_time_ms(fn, warmup=3, reps=15)
        out.append(_row((m, n, k), "i8", impl, ms, 0.0, extra() if extra else None))

    record("torch._int_mm", lambda: torch._int_mm(a, w.T))
    c = torch.empty(m, n, device="cuda", dtype=torch.int32)
    for impl, kern, _ in _phobos_variants("i8", VARIANTS + MMA_SYNC):
        c.fill_(-0x5A5A5A5A)  # poison: every element must be written
        record(impl, *_launcher(kern, (a, w, c), c))
    return out


def _fp8(m: int, n: int, k: int) -> list[dict]:
    import torch

    e4m3 = torch.float8_e4m3fn
    a = (torch.randn(m, k, device="cuda") * 4).to(e4m3)
    w = (torch.randn(n, k, device="cuda") * 4).to(e4m3)
    exact = a.double() @ w.double().T
    size = a.double().abs() @ w.double().abs().T
    sa, sb = torch.tensor(SCALE_A, device="cuda"), torch.tensor(SCALE_B, device="cuda")
    out = []

    def record(impl, fn, scale, extra=None):
        got = fn()
        torch.cuda.synchronize()
        e = ((got.double() - scale * exact).abs() / (scale * size + 1e-30)).max().item()
        assert e < 2e-3, f"{impl}: relative error {e}"  # f16's rounding, fp8 sums of reduced precision
        ms = common.gpu_time_ms(fn, warmup=3, reps=15)
        out.append(_row((m, n, k), "fp8 e4m3", impl, ms, e, extra() if extra else None))

    scale = SCALE_A * SCALE_B
    torch_rows = ((torch.float16, "f16", False), (torch.float32, "f32", False), (torch.float32, "f32", True))
    for dtype, name, fast in torch_rows:
        record(
            f"torch._scaled_mm {name}" + (" use_fast_accum" if fast else ""),
            lambda dtype=dtype, fast=fast: torch._scaled_mm(
                a, w.T, scale_a=sa, scale_b=sb, out_dtype=dtype, use_fast_accum=fast
            ),
            scale,
        )
    for impl, kern, c_type in _phobos_variants("f8e4m3", VARIANTS):
        c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16 if c_type == "f16" else torch.float32)
        args = (a, w, c, scale) if c_type == "f16" else (a, w, c)
        record(impl, _launcher(kern, args, c)[0], scale if c_type == "f16" else 1.0, _launcher(kern, args, c)[1])
    return out


def main():
    import sys

    kinds = tuple(sys.argv[1:]) or ("i8", "fp8")
    results = []
    for s in SIZES:
        if "i8" in kinds:
            results += _i8(*s)
        if "fp8" in kinds:
            results += _fp8(*s)
    path = common.save("gemm8", {"sizes": [list(s) for s in SIZES], "results": results})
    best: dict = {}
    for r in results:
        if r["impl"].startswith("torch"):
            key = (tuple(r["size"]), r["dtype"])
            best[key] = max(best.get(key, 0), r["TFLOP/s"])
    rows = []
    for r in results:
        base = best.get((tuple(r["size"]), r["dtype"]), 0)
        res = (
            f"{r.get('regs', '')} regs {r.get('shared', '')} B CTA/SM {r.get('ctas_per_sm', '')}" if "regs" in r else ""
        )
        ratio = f"{r['TFLOP/s'] / base:.2f}" if base else ""
        size = "x".join(map(str, r["size"]))
        rows.append([size, r["dtype"], r["impl"], f"{r['TFLOP/s']:.1f}", ratio, f"{r['max_rel_err']:.1e}", res])
    print(common.table(rows, ["size", "dtype", "impl", "TFLOP/s (TOPS)", "x torch", "max rel err", "resources"]))
    print(f"saved {path}")


if __name__ == "__main__":
    main()
