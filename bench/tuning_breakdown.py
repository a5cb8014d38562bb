"""Where the compile time of @autotune candidates goes (bench_tuning.py --breakdown, --space-breakdown).

`breakdowns`: single candidates, each compiled in this process (containment off, so nothing but
the compile is timed) twice: the first compile pays for the imports and the passes' first use,
the second is what a worker that has compiled before pays. Stages: the GPU rules check and the
front end (.ph -> tile IR), then each pipeline stage (tile, gpu, llvm, ptx; the cubin is ptxas on
the ptx stage's text, compiler/ptxas.py), and the reparses between them. `spawn_s` is what a
fresh interpreter pays before its first compile (start, imports, an MLIR context): the cost of one
contained compile in spawn mode on top of the compile itself.

`space_breakdown`: every candidate of the original gemm_fp32.ph with its variants (generic and the
three layouts), compiled as a compile worker's child compiles them (one candidate after another,
its variants sharing what compiler/memo.py keeps), in this process: the seconds of each stage over
the whole space, how many front ends and ptxas runs the variants needed, and the slowest candidates.
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
def _stage_timers(times: dict, calls: dict | None = None):
    """Time the front end, the GPU rules, every stage of phobos.compiler.driver and ptxas into `times`
    (and count the calls into `calls`)."""
    from phobos import frontend
    from phobos.compiler import driver, ptxas
    from phobos.frontend import gpu_rules

    def timed(name, fn):
        def wrapper(*args, **kwargs):
            t0 = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                times[name] = times.get(name, 0.0) + time.perf_counter() - t0
                if calls is not None:
                    calls[name] = calls.get(name, 0) + 1

        return wrapper

    saved = (
        frontend.compile_to_tile_ir,
        gpu_rules.check_for_gpu,
        driver._Job.run_elements,
        driver._Job.reparse,
        ptxas.assemble,
    )
    run_elements = saved[2]

    def stage(job, module, name, elements):
        timed(f"stage {name}", run_elements)(job, module, name, elements)

    frontend.compile_to_tile_ir = timed("front end", saved[0])
    gpu_rules.check_for_gpu = timed("gpu rules", saved[1])
    driver._Job.run_elements = stage
    driver._Job.reparse = timed("reparse", saved[3])
    ptxas.assemble = timed("ptxas", saved[4])  # the cubin from the ptx stage's text (compiler/ptxas.py)
    try:
        yield
    finally:
        (
            frontend.compile_to_tile_ir,
            gpu_rules.check_for_gpu,
            driver._Job.run_elements,
            driver._Job.reparse,
            ptxas.assemble,
        ) = saved


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
    from phobos.compiler import driver, memo
    from phobos.contract.specialization import SpecKey

    memo.forget()  # the whole compile, nothing reused from the one before
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


def space_breakdown(original_text: str) -> dict:
    """The stage times of every variant of the original gemm_fp32.ph space, summed (see above)."""
    import original_cases as O

    from phobos.compiler import memo
    from phobos.runtime.aot import like
    from phobos.runtime.autotune.parallel import _compile_variants
    from phobos.runtime.autotune.space import source_space

    os.environ["PHOBOS_CONTAINMENT"] = "off"
    program = next(p for p in O.PROGRAMS if p.name == "gemm_fp32")
    examples = [O.layouts(program, shape, {}, like) for shape in program.gpu_shapes]
    times: dict = {}
    calls: dict = {}
    per_candidate, variants = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        source = os.path.join(tmp, "gemm_fp32.ph")
        with open(source, "w", encoding="utf-8") as f:
            f.write(original_text)
        space = source_space(original_text, source, None, None)
        with _stage_timers(times, calls):
            for i, config in enumerate(space.configs):
                memo.forget()  # a new candidate child starts with nothing kept
                t0 = time.perf_counter()
                job = (i, source, None, "sm_90", dict(config), {}, os.path.join(tmp, str(i)), [""], examples, True)
                _, error, _, stored, _ = _compile_variants(job)
                per_candidate.append((time.perf_counter() - t0, config, error))
                variants += len(stored)
    total = sum(s for s, _, _ in per_candidate)
    stages = {name: round(s, 2) for name, s in sorted(times.items(), key=lambda kv: -kv[1])}
    stages["other"] = round(total - sum(times.values()), 2)
    return {
        "candidates": len(per_candidate),
        "failed": sum(error is not None for _, _, error in per_candidate),
        "variants": variants,
        "total_s": round(total, 2),
        "stages_s": stages,
        "share": {name: round(s / total, 3) for name, s in stages.items()},
        "runs": {name: calls[name] for name in ("front end", "stage ptx", "ptxas") if name in calls},
        "slowest": [{"config": c, "s": round(s, 2)} for s, c, _ in sorted(per_candidate, key=lambda x: -x[0])[:6]],
    }
