"""Kernels written with the standard library against the same kernels written out by hand and
against torch.compile, one process on the GPU (issue 29, performance).

Softmax, layer norm, RMSNorm, GELU + bias and rotary embedding (rotate-half) over 32768 rows of
4096 columns, in f32 and f16: bench/kernels/std_<op>_<type>.ph (std.nn) and hand_<op>_<type>.ph
(the same body written out; bench/stdlib_kernels.py writes both, test_stdlib_bench_kernels.py
requires identical PTX), each the best of W = 512, 256, 128, 1024 threads, and torch.compile of the
torch expression (default mode, compiled once, warmed up). Every output is checked against a
float64 torch reference before it is timed; times are medians of CUDA-event-timed runs; GB/s
count each tensor read or written once. JSON to $OUT or bench/results/stdlib.json.

Targets: std within 2% of hand (ratio hand_ms / std_ms >= 0.98) and >= torch.compile.

    python bench/aot_build.py            # here: builds the kernels (stdlib_jobs)
    python bench/bench_stdlib.py         # on the GPU machine
"""

from __future__ import annotations

import math
import statistics
import sys

import common

M, N = 32768, 4096
H = N // 2
WARPS = (512, 256, 128, 1024)
ROWS = ({"R": 2, "W": 256}, {"R": 4, "W": 128})  # R rows per CTA: bench_rows_per_cta.py's best f16 forms


def configs() -> list[dict]:
    """The defines of each timed variant: one row per CTA at every W, and the ROWS forms."""
    return [{"W": w} for w in WARPS] + [dict(r) for r in ROWS]


ROUNDS = 7  # interleaved timing rounds of 10 launches each; the median of the rounds' medians
EPS = 1e-5
TOL = {"f32": 1e-4, "f16": 1e-2}  # max error relative to the reference's size


def example_args(op: str, t: str, like) -> tuple:
    """The argument layouts of the benchmark's launch of `op` (for bench/aot_build.py)."""
    rows = like(t, (M, N))
    if op == "softmax":
        return (rows, rows)
    if op == "layernorm":
        return (rows, like("f32", (N,)), like("f32", (N,)), rows, EPS)
    if op == "rmsnorm":
        return (rows, like("f32", (N,)), rows, EPS)
    if op == "gelu_bias":
        return (rows, like(t, (N,)), rows)
    half = like("f32", (M, H))
    return (rows, half, half, rows)


def _torch_ops():
    import torch

    def softmax(x):
        return torch.softmax(x.float(), dim=1).to(x.dtype)

    def layernorm(x, w, b, eps):
        v = x if x.dtype == torch.float64 else x.float()  # the float64 reference stays float64
        return torch.nn.functional.layer_norm(v, (x.shape[1],), w.to(v.dtype), b.to(v.dtype), eps).to(x.dtype)

    def rmsnorm(x, w, eps):
        v = x.float()
        return (v * torch.rsqrt(v.pow(2).mean(1, keepdim=True) + eps) * w).to(x.dtype)

    def gelu_bias(x, b):
        return torch.nn.functional.gelu((x + b).float()).to(x.dtype)

    def rotary(x, c, s):
        v = x.float()
        x1, x2 = v[:, :H], v[:, H:]
        return torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], dim=1).to(x.dtype)

    return {"softmax": softmax, "layernorm": layernorm, "rmsnorm": rmsnorm, "gelu_bias": gelu_bias, "rotary": rotary}


def _inputs(op, t):
    """(kernel arguments before Y, torch arguments, bytes moved)."""
    import torch

    dtype = {"f32": torch.float32, "f16": torch.float16}[t]
    x = torch.randn(M, N, device="cuda", dtype=dtype)
    size = x.element_size() * M * N
    if op == "softmax":
        return [x], [x], 2 * size
    if op in ("layernorm", "rmsnorm"):
        w = torch.rand(N, device="cuda") + 0.5
        b = torch.randn(N, device="cuda")
        if op == "layernorm":
            return [x, w, b], [x, w, b, EPS], 2 * size
        return [x, w], [x, w, EPS], 2 * size
    if op == "gelu_bias":
        b = torch.randn(N, device="cuda", dtype=dtype)
        return [x, b], [x, b], 2 * size
    theta = torch.rand(M, H, device="cuda", dtype=torch.float64) * (2 * math.pi)
    c, s = theta.cos().float(), theta.sin().float()
    return [x, c, s], [x, c, s], 2 * size + 2 * 4 * M * H


def _check(got, ref64, t) -> float:
    err = (got.double() - ref64).abs().max().item()
    scale = ref64.abs().max().item() + 1e-30
    if err > TOL[t] * scale:
        raise AssertionError(f"max error {err} > {TOL[t]} x {scale}")
    return err / scale


def run_op(op: str, t: str, ops, rows: list) -> None:
    import torch

    args, targs, moved = _inputs(op, t)
    scalars = [EPS] if op in ("layernorm", "rmsnorm") else []
    ref = ops[op](*[a.double() if torch.is_tensor(a) else a for a in targs])
    y = torch.empty_like(args[0])

    candidates = []  # (impl, fn), each checked first, then timed in interleaved rounds
    for impl in ("std", "hand"):
        for defines in configs():
            k = common.phobos_kernel(f"{impl}_{op}_{t}", defines)
            label = " ".join(f"{x}={v}" for x, v in sorted(defines.items()))
            candidates.append((f"{impl} {label}", lambda k=k: k(*args, y, *scalars)))
    compiled = torch.compile(ops[op])
    candidates.append(("torch.compile", lambda: compiled(*targs)))
    errors = {}
    for impl, fn in candidates:
        y.fill_(float("nan"))
        out = fn()
        errors[impl] = _check(y if out is None else out, ref, t)
    # Rounds, each timing every candidate in turn: the clock's drift over the run falls on all alike.
    times: dict = {impl: [] for impl, _ in candidates}
    for _ in range(ROUNDS):
        for impl, fn in candidates:
            times[impl].append(common.gpu_time_ms(fn, reps=10))
    for impl, _ in candidates:
        ms = statistics.median(times[impl])
        rows.append({"op": op, "type": t, "impl": impl, "ms": ms, "GB/s": moved / (ms * 1e-3) / 1e9,
                     "rel_err": errors[impl]})  # fmt: skip


def best(rows, op, t, prefix) -> float:
    return min(r["ms"] for r in rows if r["op"] == op and r["type"] == t and r["impl"].startswith(prefix))


def main(argv) -> int:
    import stdlib_kernels as sk

    ops = _torch_ops()
    rows: list = []
    for op in sk.OPS:
        for t in sk.TYPES:
            run_op(op, t, ops, rows)
    summary = []
    for op in sk.OPS:
        for t in sk.TYPES:
            std, hand, tc = (best(rows, op, t, p) for p in ("std", "hand", "torch.compile"))
            summary.append(
                {"op": op, "type": t, "std_ms": std, "hand_ms": hand, "torch_compile_ms": tc,
                 "hand_over_std": hand / std, "torch_compile_over_std": tc / std}
            )  # fmt: skip
    print(common.table([[r["op"], r["type"], f"{r['std_ms']:.4f}", f"{r['hand_over_std']:.3f}",
                         f"{r['torch_compile_over_std']:.3f}"] for r in summary],
                       ["op", "type", "std ms", "hand/std", "torch.compile/std"]))  # fmt: skip
    path = common.save("stdlib", {"rows": rows, "summary": summary, "shape": [M, N]})
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
