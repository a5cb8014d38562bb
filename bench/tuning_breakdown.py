"""Where the compile time of one @autotune candidate goes (bench_tuning.py --breakdown).

Each candidate is compiled in this process (containment off, so nothing but the compile is timed),
twice: the first compile pays for the imports and the passes' first use, the second is what a
worker that has compiled before pays. Stages: the GPU rules check and the front end (.ph -> tile
IR), then each pipeline stage (tile, gpu, llvm, ptx, and cubin: ptxas), and the reparses between
them. `spawn_s` is what a fresh interpreter pays before its first compile (start, imports, an MLIR
context): the cost of one contained compile in spawn mode on top of the compile itself.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager

import common

CANDIDATES = (  # (name, source, defines, layouts: (M, N, K) or None for the generic variant)
    ("gemm_fp32", "original", {"TILE_M": 64, "TILE_N": 64, "TILE_K": 16}, [None, (260, 380, 324), (37, 45, 29)]),
    ("gemm_fp32", "original", {"TILE_M": 256, "TILE_N": 256, "TILE_K": 32}, [None]),  # the space's slowest
    ("tensorcore_f16", "examples/tensorcore_f16.ph", {"TM": 128, "TN": 128, "TK": 32, "W": 256}, [None]),
    ("gemm16", "bench/kernels/gemm.ph", {"MINB": 1, "TILE_M": 128, "TILE_N": 128, "TILE_K": 8, "W": 256}, [None]),
)


@contextmanager
def _stage_timers(times: dict):
    """Time the front end, the GPU rules and every stage of phobos.compiler.driver into `times`."""
    from phobos import frontend
    from phobos.compiler import driver
    from phobos.frontend import gpu_rules

    def timed(name, fn):
        def wrapper(*args, **kwargs):
            t0 = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                times[name] = times.get(name, 0.0) + time.perf_counter() - t0

        return wrapper

    saved = (frontend.compile_to_tile_ir, gpu_rules.check_for_gpu, driver._Job.run_stage, driver._Job.reparse)
    run_stage = saved[2]

    def stage(job, module, name, params):
        timed(f"stage {name}", run_stage)(job, module, name, params)

    frontend.compile_to_tile_ir = timed("front end", saved[0])
    gpu_rules.check_for_gpu = timed("gpu rules", saved[1])
    driver._Job.run_stage = stage
    driver._Job.reparse = timed("reparse", saved[3])
    try:
        yield
    finally:
        frontend.compile_to_tile_ir, gpu_rules.check_for_gpu, driver._Job.run_stage, driver._Job.reparse = saved


def _key(source: str, defines: dict, shape) -> str:
    if shape is None:
        return ""
    from aot_build import gemm_args

    import phobos

    with tempfile.TemporaryDirectory() as cache:
        k = phobos.compile(source, defines=defines, cache_dir=cache)
        dtype = "f16" if "f16" in source else "f32"
        return k.key(*gemm_args(*shape, dtype=dtype)).to_text()


def _one(source: str, defines: dict, key: str) -> dict:
    from phobos.compiler import driver
    from phobos.contract.specialization import SpecKey

    times: dict = {}
    with _stage_timers(times):
        t0 = time.perf_counter()
        spec = SpecKey.from_text(key) if key else None
        driver._compile(source, None, spec, "sm_90", defines, None, "artifact", source_name=source)
        total = time.perf_counter() - t0
    record = {name: round(s, 3) for name, s in times.items()}
    record["other"] = round(total - sum(times.values()), 3)
    record["total"] = round(total, 3)
    return record


def spawn_seconds() -> float:
    """A fresh interpreter's start, imports and first MLIR context, as a spawned compile pays them."""
    code = "from phobos.compiler import driver; from phobos.dialect import make_context; make_context()"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, env=env)
    return round(time.perf_counter() - t0, 3)


def breakdowns(original_text: str) -> dict:
    """{candidate: {layout: {'first': stage times, 'again': stage times}}, 'spawn_s': seconds}."""
    os.environ["PHOBOS_CONTAINMENT"] = "off"
    out: dict = {"spawn_s": spawn_seconds()}
    with tempfile.TemporaryDirectory() as tmp:
        original = os.path.join(tmp, "gemm_fp32.ph")
        with open(original, "w", encoding="utf-8") as f:
            f.write(original_text)
        for name, source, defines, shapes in CANDIDATES:
            path = original if source == "original" else str(common.ROOT / source)
            for shape in shapes:
                key = _key(path, defines, shape)
                label = f"{name} {defines} {'generic' if shape is None else 'x'.join(map(str, shape))}"
                out[label] = {"key": key, "first": _one(path, defines, key), "again": _one(path, defines, key)}
    return out
