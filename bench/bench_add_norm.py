"""Residual add + RMSNorm in f16 (issue 27, item 2: "add + norm"): bench/kernels/add_rmsnorm_f16.ph
at R rows per CTA x W threads, 32768 x 4096, beside a device copy of the same bytes and
torch.compile's kernel of the same two results (H = X + Res, Y = rmsnorm(H) * w).

    .venv/bin/python bench/bench_add_norm.py --build      # here: its folders under $PHOBOS_GPU_ARTIFACTS
    PHOBOS_GPU_ARTIFACTS=.cache/gpu PYTHONPATH=python:bench:test/unit python bench/bench_add_norm.py

Bytes counted: X and Res read, H and Y written (4 x 2 bytes per element); the weight row is in L2.
Every candidate is checked against float64 on poisoned outputs before it is timed. Writes
bench/results/add_norm.json.
"""

from __future__ import annotations

import argparse
import statistics

import common

M, N, EPS = 32768, 4096, 1e-5
ROWS = (1, 2, 4)
WARPS = (128, 256, 512)
NAME = "add_rmsnorm_f16"


def folder(r: int, w: int):
    return common.ARTIFACTS / "aot" / f"{NAME}-R{r}-W{w}"


def build() -> None:
    import phobos
    from phobos.runtime.aot import like

    rows = like("f16", (M, N))
    example = (rows, rows, like("f32", (N,)), rows, rows, EPS)
    for r in ROWS:
        for w in WARPS:
            defines = {"BN": 4096, "R": r, "W": w}
            source = common.KERNELS / f"{NAME}.ph"
            keys = phobos.compile_ahead(source, folder(r, w), defines=defines, examples=[example])
            print(f"{folder(r, w)}: {len(keys)} variants")


def torch_add_rmsnorm(x, res, w, eps):
    import torch

    h = x + res
    v = h.float()
    return h, (v * torch.rsqrt(v.pow(2).mean(1, keepdim=True) + eps) * w).to(x.dtype)


def run(rounds: int) -> dict:
    import torch

    import phobos

    x = torch.randn(M, N, device="cuda", dtype=torch.float16) * 3
    res = torch.randn(M, N, device="cuda", dtype=torch.float16)
    w = torch.rand(N, device="cuda") + 0.5
    want_h = (x.double() + res.double()).half()
    v = want_h.double()
    want_y = v * torch.rsqrt(v.pow(2).mean(1, keepdim=True) + EPS) * w.double()
    h, y = torch.empty_like(x), torch.empty_like(x)
    candidates = []  # (name, launch), each checked, then timed in interleaved rounds
    for r in ROWS:
        for threads in WARPS:
            if folder(r, threads).is_dir():
                k = phobos.load(folder(r, threads))
                candidates.append((f"R={r} W={threads}", lambda k=k: k(x, res, w, h, y, EPS)))
    compiled = torch.compile(torch_add_rmsnorm)
    candidates.append(("torch.compile", lambda: compiled(x, res, w, EPS)))
    errors = {}
    for name, fn in candidates:  # on poisoned outputs first
        h.fill_(float("nan"))
        y.fill_(float("nan"))
        out = fn()
        got_h, got_y = out if out is not None else (h, y)
        assert torch.equal(got_h, want_h), f"{name}: the residual differs"
        err = ((got_y.double() - want_y).abs() / (want_y.abs() + 2**-14)).max().item()
        assert err < 2e-3, f"{name}: relative error {err}"
        errors[name] = err
    src = torch.randn(M, 2 * N, device="cuda", dtype=torch.float16)  # a copy of the same 4 x 2 bytes
    dst = torch.empty_like(src)
    candidates.append(("copy", lambda: dst.copy_(src)))
    times: dict = {name: [] for name, _ in candidates}
    for _ in range(rounds):
        for name, fn in candidates:
            times[name].append(common.gpu_time_ms(fn, reps=10))
    moved = 4 * 2 * M * N
    ceiling = moved / (statistics.median(times["copy"]) * 1e-3) / 1e9
    rows = []
    for name, _ in candidates:
        ms = statistics.median(times[name])
        gbs = moved / (ms * 1e-3) / 1e9
        rows.append({"impl": name, "ms": ms, "GB/s": gbs, "vs_copy": gbs / ceiling, "rel_err": errors.get(name)})
    return {"rows": rows, "copy_GBps": ceiling, "shape": [M, N], "bytes": moved}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", action="store_true", help="here: compile the candidates' folders")
    parser.add_argument("--rounds", type=int, default=7)
    ns = parser.parse_args()
    if ns.build:
        build()
        return 0
    out = run(ns.rounds)
    for row in out["rows"]:
        print(f"{row['impl']:14} {row['GB/s']:6.0f} GB/s  {row['vs_copy']:.3f}x copy")
    print(f"wrote {common.save('add_norm', out)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
