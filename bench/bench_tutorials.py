# ruff: noqa: E501
"""Triton's tutorials 01/02/03/05/06 (examples/python/) beside Triton's own tutorial kernels
(bench/triton_tutorials.py), in one process on the GPU, at the tutorials' sizes.

    PYTHONPATH=python python bench/bench_tutorials.py [--out bench/results/tutorials.json]

Each pair is timed with CUDA events (median of --reps launches after warm-up, Phobos kernels
tuned first) and checked against torch before timing. Needs torch, triton, a GPU and, for
kernels not yet in the cache, the compiler (MLIR). Results: ms and Phobos/Triton speed.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import statistics
import sys
import time
from pathlib import Path

import torch
import triton

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
import triton_tutorials as tt  # noqa: E402


def _tutorial(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "examples" / "python" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _time(fn, reps: int) -> float:
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


def _pair(name, phobos_fn, triton_fn, check, reps):
    phobos_fn()
    triton_fn()
    torch.cuda.synchronize()
    ok = check()
    p, t = _time(phobos_fn, reps), _time(triton_fn, reps)
    row = {"name": name, "phobos_ms": p, "triton_ms": t, "speed_vs_triton": t / p, "correct": bool(ok)}
    print(f"{name:34s} phobos {p:8.4f} ms  triton {t:8.4f} ms  x{t / p:5.2f}  {'ok' if ok else 'WRONG'}", flush=True)
    return row


def vector_add(reps):
    k = _tutorial("01_vector_add").add
    n = 98432 * 1024
    x, y = torch.rand(n, device="cuda"), torch.rand(n, device="cuda")
    a, b = torch.empty_like(x), torch.empty_like(x)
    grid = (triton.cdiv(n, 1024),)
    return _pair("01 vector add (n=98432*1024)", lambda: k(x, y, a),
                 lambda: tt.add_kernel[grid](x, y, b, n, BLOCK_SIZE=1024), lambda: torch.equal(a, x + y), reps)  # fmt: skip


def softmax(reps, n_cols):
    k = _tutorial("02_fused_softmax").for_columns(n_cols)
    x = torch.randn(4096, n_cols, device="cuda")
    a, b = torch.empty_like(x), torch.empty_like(x)
    block = triton.next_power_of_2(n_cols)
    warps = 4 if block < 2048 else 8 if block < 4096 else 16
    return _pair(f"02 softmax (4096x{n_cols})", lambda: k(x, a),
                 lambda: tt.softmax_kernel[(4096,)](b, x, x.stride(0), b.stride(0), n_cols, BLOCK_SIZE=block, num_warps=warps),
                 lambda: torch.allclose(a, torch.softmax(x, 1), atol=1e-6), reps)  # fmt: skip


def matmul(reps, size):
    k = _tutorial("03_matmul").matmul
    a = torch.randn(size, size, device="cuda", dtype=torch.float16)
    b = torch.randn(size, size, device="cuda", dtype=torch.float16)
    c1, c2 = (torch.empty(size, size, device="cuda", dtype=torch.float16) for _ in range(2))
    grid = (triton.cdiv(size, 128) * triton.cdiv(size, 256),)

    def tri():  # noqa: E306 - the tutorial's best H100 config: 128x256x64, 3 stages, 8 warps
        tt.matmul_kernel[grid](a, b, c2, size, size, size, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                               c2.stride(0), c2.stride(1), BM=128, BN=256, BK=64, GROUP_M=8, num_stages=3, num_warps=8)  # fmt: skip

    return _pair(f"03 matmul f16 ({size}^3)", lambda: k(a, b, c1), tri,
                 lambda: torch.allclose(c1.float(), (a.float() @ b.float()), rtol=1e-2, atol=1e-1), reps)  # fmt: skip


def layer_norm(reps, n):
    mod = _tutorial("05_layer_norm")
    k = mod.layer_norm_fwd.with_defines(**mod.tile_for(n))
    m = 4096
    x = torch.randn(m, n, device="cuda")
    w, bias = torch.rand(n, device="cuda"), torch.rand(n, device="cuda")
    y1, y2 = torch.empty_like(x), torch.empty_like(x)
    mean1, rstd1 = torch.empty(m, 1, device="cuda"), torch.empty(m, 1, device="cuda")
    mean2, rstd2 = torch.empty(m, device="cuda"), torch.empty(m, device="cuda")
    block = min(65536 // x.element_size(), triton.next_power_of_2(n))
    warps = min(max(block // 256, 1), 8)
    ref = torch.nn.functional.layer_norm(x, (n,), w, bias, 1e-5)
    return _pair(f"05 layer norm fwd (4096x{n})", lambda: k(x, w, bias, y1, mean1, rstd1, 1e-5),
                 lambda: tt.layer_norm_fwd_kernel[(m,)](x, y2, w, bias, mean2, rstd2, x.stride(0), n, 1e-5,
                                                        BLOCK_SIZE=block, num_warps=warps),
                 lambda: torch.allclose(y1, ref, atol=1e-4), reps)  # fmt: skip


def attention(reps, causal, s=4096, heads=4 * 32, d=64):
    mod = _tutorial("06_fused_attention")
    k = (mod.attention_fwd_causal if causal else mod.attention_fwd).with_defines(D=d)
    q, kk, v = (torch.randn(heads, s, d, device="cuda", dtype=torch.float16) for _ in range(3))
    o1, o2 = torch.empty_like(q), torch.empty_like(q)
    scale = 1.0 / math.sqrt(d)
    ref = torch.nn.functional.scaled_dot_product_attention(q, kk, v, is_causal=causal, scale=scale)
    grid = (triton.cdiv(s, 128), heads)
    return _pair(f"06 attention fwd causal={causal} (Z*H={heads}, S={s}, D={d})", lambda: k(q, kk, v, o1, scale),
                 lambda: tt.attn_fwd_kernel[grid](q, kk, v, o2, scale, s, HEAD_DIM=d, BM=128, BN=64, CAUSAL=causal,
                                                  num_warps=8, num_stages=3),
                 lambda: torch.allclose(o1.float(), ref.float(), atol=2e-2), reps)  # fmt: skip


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--reps", type=int, default=100)
    p.add_argument("--out", default=str(ROOT / "bench" / "results" / "tutorials.json"))
    args = p.parse_args(argv)
    rows = [vector_add(args.reps)]
    rows += [softmax(args.reps, n) for n in (1024, 4096, 8192)]
    rows += [matmul(args.reps, n) for n in (1024, 4096)]
    rows += [layer_norm(args.reps, n) for n in (1024, 4096, 8192)]
    rows += [attention(args.reps, c) for c in (False, True)]
    result = {"device": torch.cuda.get_device_name(), "triton": triton.__version__, "time": time.time(), "rows": rows}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {args.out}")
    return 0 if all(r["correct"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
