"""Check mode's cost on the bandwidth bench's kernels: the same source built normally and in
check mode (PHOBOS_CHECK=1), timed side by side in one process.

Each launch in check mode waits for the kernel and reads its check record, so the table
gives three times per case: the normal launch, the normal launch waiting for the kernel
(sync=True: what any checked launch pays for waiting), and check mode. The ratio is check
mode / normal (goal: <= 2x). Both results are checked against a float64 reference first.
Normal folders come from $PHOBOS_GPU_ARTIFACTS/aot, check-mode ones from
$PHOBOS_CHECK_ARTIFACTS/aot (default .cache/gpu-check), both built by bench/aot_build.py
(the second with PHOBOS_CHECK=1).

    python bench/bench_check_mode.py
"""

from __future__ import annotations

import os
from pathlib import Path

import common
import numpy as np

GIB_F32 = 1 << 28
CHECK_ARTIFACTS = Path(os.environ.get("PHOBOS_CHECK_ARTIFACTS", common.ROOT / ".cache" / "gpu-check"))

CASES = [  # (name, source, defines, shape)
    ("saxpy aligned", "saxpy_aligned", {"BLOCK": 1024}, (GIB_F32,)),
    ("saxpy ragged (odd N)", "saxpy", {"BLOCK": 1024}, (GIB_F32 - 3,)),
    ("scale aligned", "scale_aligned", {"TM": 32, "TN": 128}, (16384, 16384)),
    ("scale ragged (odd M, N)", "scale", {"TM": 32, "TN": 128}, (16381, 16381)),
]


def _load(root: Path, name: str, defines: dict):
    import phobos

    return phobos.load(root / "aot" / common.aot_folder(name, defines).name)


def _args(torch, source: str, shape: tuple):
    x = torch.randn(shape, device="cuda")
    y = torch.randn(shape, device="cuda")
    alpha = 1.7
    # (arguments, the float64 result, the argument it lands in, tensors moved)
    if source.startswith("saxpy"):
        return (x, y, alpha), x.double() * alpha + y.double(), 1, 3
    return (x, y, alpha), x.double() * alpha, 1, 2


def run_case(torch, name, source, defines, shape) -> dict:
    normal = _load(common.ARTIFACTS, source, defines)
    checked = _load(CHECK_ARTIFACTS, source, defines)
    args, expect, out, tensors = _args(torch, source, shape)
    errors = {}
    for mode, k in (("normal", normal), ("check", checked)):
        fresh = [a.clone() if hasattr(a, "clone") else a for a in args]
        k(*fresh, sync=True)
        errors[mode] = (fresh[out] - expect).abs().max().item() / expect.abs().max().item()
    if max(errors.values()) > 1e-5:
        print(f"{name}: WRONG (max relative error {errors}); not timed")
        return {"case": name, "kernel": f"{source}{defines}", "shape": list(shape), "errors": errors}
    nbytes = tensors * int(np.prod(shape)) * 4
    t_normal = common.gpu_time_ms(lambda: normal(*args))
    t_synced = common.gpu_time_ms(lambda: normal(*args, sync=True))
    t_check = common.gpu_time_ms(lambda: checked(*args))
    return {
        "case": name,
        "kernel": f"{source}{defines}",
        "shape": list(shape),
        "bytes": nbytes,
        "normal_ms": t_normal,
        "normal_synced_ms": t_synced,
        "check_ms": t_check,
        "normal_gbs": nbytes / t_normal / 1e6,
        "check_gbs": nbytes / t_check / 1e6,
        "ratio": t_check / t_normal,
        "errors": errors,
    }


def main():
    import torch

    rows = [run_case(torch, *case) for case in CASES]
    timed = [r for r in rows if "ratio" in r]
    path = common.save("check_mode", {"rows": rows, "goal": "check mode <= 2x the normal launch"})
    table = [
        (r["case"], *(f"{r[k]:.3f}" for k in ("normal_ms", "normal_synced_ms", "check_ms")), f"{r['ratio']:.2f}")
        for r in timed
    ]
    print(common.table(table, ["case", "normal ms", "normal+sync ms", "check ms", "check/normal"]))
    print(path)


if __name__ == "__main__":
    main()
