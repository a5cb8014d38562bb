"""Shared pieces of the GPU benchmarks: where kernels and results live, timing, records.

Benchmarks run on the GPU machine (no MLIR) from a checkout: Phobos kernels
come from the ahead-of-time folder that bench/aot_build.py fills here
($PHOBOS_GPU_ARTIFACTS, default .cache/gpu), Triton kernels compile there.
Results go to $OUT when set (the device tool brings that folder back), else to
bench/results/, one JSON file per benchmark with the card, sizes, numbers and
commit.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))

ARTIFACTS = Path(os.environ.get("PHOBOS_GPU_ARTIFACTS", ROOT / ".cache" / "gpu"))
KERNELS = ROOT / "bench" / "kernels"


def results_dir() -> Path:
    out = Path(os.environ.get("OUT") or ROOT / "bench" / "results")
    out.mkdir(parents=True, exist_ok=True)
    return out


def commit() -> str:
    if os.environ.get("PHOBOS_COMMIT"):
        return os.environ["PHOBOS_COMMIT"]
    stamp = ARTIFACTS / "COMMIT"
    if stamp.exists():
        return stamp.read_text().strip()
    try:
        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        ).stdout.strip()
    except OSError:
        return "unknown"


def machine() -> dict:
    info = {"python": platform.python_version(), "commit": commit(), "date": time.strftime("%Y-%m-%d %H:%M:%S")}
    try:
        import torch

        info["gpu"] = torch.cuda.get_device_name()
        info["torch"] = torch.__version__
        info["cuda"] = torch.version.cuda
    except Exception:
        pass
    try:
        import triton

        info["triton"] = triton.__version__
    except Exception:
        pass
    try:
        from cuda.bindings import driver

        info["driver"] = driver.cuDriverGetVersion()[1]
    except Exception:
        pass
    return info


def save(name: str, data: dict) -> Path:
    data = dict(data, machine=machine())
    path = results_dir() / f"{name}.json"
    path.write_text(json.dumps(data, indent=1, sort_keys=True))
    return path


def gpu_time_ms(fn, *, warmup: int = 5, reps: int = 30) -> float:
    """Median device time of `fn()` in ms, by CUDA events around each call."""
    import torch

    for _ in range(warmup):
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


def aot_folder(name: str, defines: dict | None = None, chip: str | None = None) -> Path:
    """The ahead-of-time folder of bench/kernels/<name>.ph built with `defines` (bench/aot_build.py)."""
    sys.path.insert(0, str(ROOT / "test" / "unit"))
    from aot_folders import folder_name

    return ARTIFACTS / "aot" / folder_name(name, defines, chip)


def phobos_kernel(name: str, defines: dict | None = None, chip: str | None = None):
    """The Phobos kernel bench/kernels/<name>.ph, launched from its ahead-of-time folder
    (no MLIR needed; each launch picks the folder's best variant for its arguments)."""
    import phobos

    return phobos.load(aot_folder(name, defines, chip))


def table(rows, headers) -> str:
    cols = [headers] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cols) for i in range(len(headers))]

    def line(r):
        return "  ".join(c.ljust(w) for c, w in zip(r, widths))

    return "\n".join([line(headers), line(["-" * w for w in widths])] + [line(r) for r in cols[1:]])
