"""Rows per CTA for the f16 row kernels (issue 27, item 2): the hand-written kernels of
bench_stdlib.py with R rows per CTA instead of one (`X[r :+ R, 0 :+ BN]`, r = ctx.block.x * R),
R x W (R up to 8, W from 64) swept at 32768 x 4096 beside a device copy of the same bytes and torch.compile.

Why: f16 layer norm reached 0.80x copy on the H100 at R = 1 (stdlib-h100.json) where f16 RMSNorm
reached 0.97x; its two dependent block reductions cost per row, and R rows per CTA share them.
Not yet measured: if R > 1 wins, bench/stdlib_kernels.py gets an R axis.

    .venv/bin/python bench/bench_rows_per_cta.py --build     # here: kernels and their folders
    PHOBOS_GPU_ARTIFACTS=.cache/gpu PYTHONPATH=python:bench:test/unit python bench/bench_rows_per_cta.py
Writes bench/results/rows_per_cta.json. The kernels are written to .cache/rows_per_cta/ (not
bench/kernels/: they are a sweep, not part of the suite).
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

import bench_stdlib as b
import common
import stdlib_kernels as sk

OPS = ("layernorm", "rmsnorm", "softmax", "gelu_bias")
ROWS = (1, 2, 4, 8)
WARPS = (64, 128, 256, 512)
SOURCES = common.ROOT / ".cache" / "rows_per_cta"


def kernel_name(op: str) -> str:
    return f"rows_{op}_f16"


def source(op: str) -> str:
    """The hand-written f16 kernel of `op` with R rows per CTA."""
    body = sk.HAND[op].replace("r :+ 1", "r :+ R")
    return (
        f"@autotune(BN in [4096], R in {list(ROWS)}, W in {list(WARPS)})\n@launch(W)\n"
        f"kernel {kernel_name(op)}({sk.SIGNATURE[op].format(t='f16')}) {{\n  let r = ctx.block.x * R\n{body}}}\n"
    )


def folder(op: str, r: int, w: int) -> Path:
    return common.ARTIFACTS / "aot" / f"{kernel_name(op)}-R{r}-W{w}"


def build(ops, rows, warps) -> None:
    import phobos
    from phobos.runtime.aot import like

    SOURCES.mkdir(parents=True, exist_ok=True)
    for op in ops:
        path = SOURCES / f"{kernel_name(op)}.ph"
        path.write_text(source(op), encoding="utf-8")
        for r in rows:
            for w in warps:
                example = b.example_args(op, "f16", like)
                defines = {"BN": 4096, "R": r, "W": w}
                keys = phobos.compile_ahead(path, folder(op, r, w), defines=defines, examples=[example])
                print(f"{folder(op, r, w)}: {len(keys)} variants")


def run_op(op: str, copy_gbs: float, rounds: int) -> list[dict]:
    import torch

    import phobos

    args, targs, moved = b._inputs(op, "f16")
    scalars = [b.EPS] if op in ("layernorm", "rmsnorm") else []
    ref = b._torch_ops()[op](*[a.double() if torch.is_tensor(a) else a for a in targs])
    y = torch.empty_like(args[0])
    candidates = []
    for r in ROWS:
        for w in WARPS:
            if folder(op, r, w).is_dir():
                k = phobos.load(folder(op, r, w))
                candidates.append((f"R={r} W={w}", lambda k=k: k(*args, y, *scalars)))
    compiled = torch.compile(b._torch_ops()[op])
    candidates.append(("torch.compile", lambda: compiled(*targs)))
    errors = {}
    for name, fn in candidates:  # each checked on a poisoned output before it is timed
        y.fill_(float("nan"))
        out = fn()
        errors[name] = b._check(y if out is None else out, ref, "f16")
    times: dict = {name: [] for name, _ in candidates}
    for _ in range(rounds):
        for name, fn in candidates:
            times[name].append(common.gpu_time_ms(fn, reps=10))
    rows = []
    for name, _ in candidates:
        ms = statistics.median(times[name])
        gbs = moved / (ms * 1e-3) / 1e9
        rows.append({"op": op, "impl": name, "ms": ms, "GB/s": gbs, "vs_copy": gbs / copy_gbs, "rel_err": errors[name]})
    return rows


def copy_gbs(rounds: int) -> float:
    import torch

    x = torch.randn(b.M, b.N, device="cuda", dtype=torch.float16)
    y = torch.empty_like(x)
    ms = statistics.median(common.gpu_time_ms(lambda: y.copy_(x), reps=10) for _ in range(rounds))
    return 2 * x.numel() * x.element_size() / (ms * 1e-3) / 1e9


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", action="store_true", help="here: write the kernels and compile their folders")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--ops", default=",".join(OPS))
    parser.add_argument("--rows", default=",".join(map(str, ROWS)), help="--build: the R values to compile")
    parser.add_argument("--warps", default=",".join(map(str, WARPS)), help="--build: the W values to compile")
    ns = parser.parse_args()
    if ns.build:
        build(ns.ops.split(","), [int(x) for x in ns.rows.split(",")], [int(x) for x in ns.warps.split(",")])
        return 0
    ceiling = copy_gbs(ns.rounds)
    rows = []
    for op in ns.ops.split(","):
        rows += run_op(op, ceiling, ns.rounds)
    table = [[r["op"], r["impl"], f"{r['GB/s']:.0f}", f"{r['vs_copy']:.3f}"] for r in rows]
    print(f"copy f16 {b.M} x {b.N}: {ceiling:.0f} GB/s")
    print(common.table(table, ["op", "impl", "GB/s", "x copy"]))
    print(f"wrote {common.save('rows_per_cta', {'rows': rows, 'copy_GBps': ceiling, 'shape': [b.M, b.N]})}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
