"""Fused kernels of examples/ against Triton and torch, one process on the GPU.

Row softmax and layer norm at 32768 x 4096 f32 (GB/s count one read of X and
one write of Y: 8 bytes per element), against Triton kernels of the same
shape (one program per row, the best of 4, 8 and 16 warps), torch.softmax /
torch.nn.functional.layer_norm, and the copy ceiling (torch's device copy of
the same bytes). Flash attention forward (examples/attention*.ph) at B x H =
128 heads, S = 4096 (TFLOP/s count 4 S^2 D per head): f32 on CUDA cores at
D = 64; f16 on the tensor cores at D = 64 and 128, the tilings test_fused_gpu.py
holds, on sm_90 (mma.sync) and sm_90a (wgmma), against torch's
scaled_dot_product_attention three ways (its flash kernel, cuDNN's, and its
own choice). Every kernel's output is checked against a float64 reference
first; times are medians of event-timed runs.

Targets (issue 12): softmax >= 1.0x Triton; layer norm >= 0.95x the copy
ceiling; f32 attention correct and timed; f16 attention >= 0.7x SDPA.

    python bench/bench_fused.py [rows] [attention]
"""

from __future__ import annotations

import contextlib
import sys

import common

ROWS = (32768, 4096)
SOFTMAX = [{"BN": 4096, "W": w} for w in (256, 512, 1024)]
LAYERNORM = [{"BN": 4096, "W": w, "MINB": 1024 // w} for w in (256, 512, 1024)]
HEADS, SEQ = 128, 4096
ATTENTION = [{"BM": 64, "BN": 64, "D": 64, "W": 256}, {"BM": 64, "BN": 32, "D": 64, "W": 256}]
sys.path.insert(0, str(common.ROOT / "test" / "unit"))
from test_fused_gpu import ATTENTION_F16, ATTENTION_WGMMA  # noqa: E402  (the tested tilings)

EPS = 1e-5


def _gbps(bytes_moved, ms):
    return bytes_moved / (ms * 1e-3) / 1e9


def _rows_kernels():
    import torch
    import triton_kernels as tk

    m, n = ROWS
    x = torch.randn(m, n, device="cuda")
    w, b = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    y = torch.empty_like(x)
    moved = 2 * 4 * m * n
    out = []

    def record(kind, name, fn, ref=None, size=None):
        """fn() writes y, or returns its output (torch's own ops)."""
        y.fill_(float("nan"))
        got = fn()
        got = y if got is None or got is y else got
        torch.cuda.synchronize()
        err = 0.0 if ref is None else ((got.double() - ref).abs() / (size + 1e-30)).max().item()
        ms = common.gpu_time_ms(fn, reps=20)
        out.append({"kernel": kind, "impl": name, "ms": ms, "GB/s": _gbps(moved, ms), "max_rel_err": err})

    x64, w64, b64 = x.double(), w.double(), b.double()
    soft = torch.softmax(x64, dim=1)
    centred = x64 - x64.mean(1, keepdim=True)
    rstd = (centred.pow(2).mean(1, keepdim=True) + EPS).rsqrt()
    ln = centred * rstd * w64 + b64
    ln_size = centred.abs() * rstd * w64.abs() + b64.abs()
    src = torch.empty_like(x)
    record("copy", "torch copy", lambda: src.copy_(x))
    for d in SOFTMAX:
        k = common.phobos_kernel("softmax", d)
        record("softmax", f"phobos W={d['W']}", lambda k=k: k(x, y), soft, soft)
    for warps in (4, 8, 16):
        record("softmax", f"triton {warps} warps", lambda w_=warps: tk.launch_softmax(x, y, w_), soft, soft)
    record("softmax", "torch", lambda: torch.softmax(x, 1), soft, soft)
    for d in LAYERNORM:
        k = common.phobos_kernel("layernorm", d)
        record("layernorm", f"phobos W={d['W']}", lambda k=k: k(x, w, b, y, EPS), ln, ln_size)
    for warps in (4, 8, 16):
        launch = lambda w_=warps: tk.launch_layernorm(x, w, b, y, EPS, w_)  # noqa: E731
        record("layernorm", f"triton {warps} warps", launch, ln, ln_size)
    record("layernorm", "torch", lambda: torch.nn.functional.layer_norm(x, (n,), w, b, EPS), ln, ln_size)
    return out


def _sdpa_backends():
    """(label, backends) for torch's scaled_dot_product_attention: its flash kernel
    (FlashAttention-2), cuDNN's where torch has it, and torch's own choice."""
    from torch.nn.attention import SDPBackend

    out = [("torch sdpa flash", [SDPBackend.FLASH_ATTENTION])]
    if hasattr(SDPBackend, "CUDNN_ATTENTION"):
        out.append(("torch sdpa cudnn", [SDPBackend.CUDNN_ATTENTION]))
    out.append(("torch sdpa default", None))
    return out


def _attention_one(dtype, name: str, variants: list[dict], d: int, wgmma: tuple = ()) -> list[dict]:
    import torch
    from torch.nn.attention import sdpa_kernel

    flops = 4 * HEADS * SEQ * SEQ * d
    scale = d**-0.5
    q, k, v = (torch.randn(HEADS, SEQ, d, device="cuda").to(dtype) for _ in range(3))
    o = torch.empty_like(q)
    # the reference on 8 heads in float64 (all of them would take minutes)
    p = torch.softmax(q[:8].double() @ k[:8].double().transpose(1, 2) * scale, 2)
    ref, size = p @ v[:8].double(), p @ v[:8].double().abs() + (p @ v[:8].double()).abs()

    def err(got):
        return ((got[:8].double() - ref).abs() / (size + 1e-30)).max().item()

    out = []
    for defines, chip in [(x, None) for x in variants] + [(x, "sm_90a") for x in wgmma]:
        if defines["D"] != d:
            continue
        kern = common.phobos_kernel(name, defines, chip)
        o.fill_(float("nan"))
        kern(q, k, v, o, scale)
        torch.cuda.synchronize()
        e = err(o)
        ms = common.gpu_time_ms(lambda kern=kern: kern(q, k, v, o, scale), warmup=2, reps=10)
        tiles = f"BM={defines['BM']} BN={defines['BN']} W={defines['W']}" + (f" {chip}" if chip else "")
        out.append(
            {"kernel": name, "D": d, "impl": f"phobos {tiles}", "ms": ms, "TFLOP/s": flops / ms / 1e9, "max_rel_err": e}
        )
    qb, kb, vb = (t.view(4, HEADS // 4, SEQ, d) for t in (q, k, v))
    sdpa = torch.nn.functional.scaled_dot_product_attention
    for label, backends in _sdpa_backends() if dtype == torch.float16 else [("torch sdpa", None)]:
        try:
            with sdpa_kernel(backends) if backends else contextlib.nullcontext():
                e = err(sdpa(qb, kb, vb).reshape(HEADS, SEQ, d))
                ms = common.gpu_time_ms(lambda: sdpa(qb, kb, vb), warmup=2, reps=10)
        except RuntimeError as x:  # a backend this torch or card lacks
            print(f"{label}: not run ({str(x).splitlines()[0]})")
            continue
        out.append({"kernel": name, "D": d, "impl": label, "ms": ms, "TFLOP/s": flops / ms / 1e9, "max_rel_err": e})
    return out


def _attention():
    import torch

    out = _attention_one(torch.float32, "attention", ATTENTION, 64)
    for d in (64, 128):
        out += _attention_one(torch.float16, "attention_f16", ATTENTION_F16, d, ATTENTION_WGMMA)
    return out


def main():
    """`python bench/bench_fused.py [rows] [attention]`: both parts unless one is named."""
    parts = set(sys.argv[1:]) or {"rows", "attention"}
    results = (_rows_kernels() if "rows" in parts else []) + (_attention() if "attention" in parts else [])
    record = {"rows": list(ROWS), "heads": HEADS, "seq": SEQ, "results": results}
    path = common.save("fused" if parts == {"rows", "attention"} else "fused_" + "_".join(sorted(parts)), record)
    rows = []
    best = {}
    for r in results:
        rate = r.get("GB/s", r.get("TFLOP/s"))
        for impl in {r["impl"], r["impl"].split()[0]}:  # the row itself, and the best of its family
            key = (r["kernel"], r.get("D"), impl)
            best[key] = max(best.get(key, 0), rate)
        unit = "GB/s" if "GB/s" in r else "TFLOP/s"
        kernel = r["kernel"] + (f" D={r['D']}" if "D" in r else "")
        rows.append([kernel, r["impl"], f"{r['ms']:.3f}", f"{rate:.1f} {unit}", f"{r['max_rel_err']:.1e}"])
    print(common.table(rows, ["kernel", "impl", "ms", "rate", "max rel err"]))
    summary = []
    if "rows" in parts:
        copy = best[("copy", None, "torch")]
        for kind in ("softmax", "layernorm"):
            p, t, th = best[(kind, None, "phobos")], best[(kind, None, "triton")], best[(kind, None, "torch")]
            summary.append([kind, f"{p:.0f}", f"{p / t:.2f}x Triton", f"{p / th:.2f}x torch", f"{p / copy:.2f}x copy"])
    if "attention" in parts:
        p, s = best[("attention", 64, "phobos")], best[("attention", 64, "torch")]
        summary.append(["attention D=64", f"{p:.1f}", f"{p / s:.2f}x SDPA", "", ""])
        for d in (64, 128):
            p = best[("attention_f16", d, "phobos")]
            flash = best.get(("attention_f16", d, "torch sdpa flash"))
            top = best[("attention_f16", d, "torch")]
            ratio = f"{p / flash:.2f}x SDPA flash" if flash else "no flash"
            summary.append([f"attention_f16 D={d}", f"{p:.1f}", ratio, f"{p / top:.2f}x best SDPA", ""])
    print()
    print(common.table(summary, ["kernel", "best Phobos", "ratio", "ratio", "ratio"]))
    print(f"saved {path}")


if __name__ == "__main__":
    main()
