"""How long tuning takes to compile, on this machine (no GPU): the cold compile of two @autotune
spaces, and where the time of one candidate goes.

    .venv/bin/python bench/bench_tuning.py                    # both spaces, cold, into tuning-cpu.json
    .venv/bin/python bench/bench_tuning.py --case gemm16 --label pool
    .venv/bin/python bench/bench_tuning.py --breakdown        # stage times of one candidate
    .venv/bin/python bench/bench_tuning.py --case none --space-breakdown   # of every gemm_fp32 variant

Cases (each from an empty cache, so every candidate compiles):
  gemm16     bench/kernels/gemm.ph -D MINB=1 (16 candidates) tuned at 4095 x 4097 x 4093, the
             compile step of a first-launch tuning as `phobos tune --compile-only` runs it: the base
             kernel's generic variant, then one variant per candidate (docs/autotune.md, Measured).
  gemm_fp32  the original Phobos's examples/gemm_fp32.ph (64 candidates, read from the mirror's git
             directory, --original) as `phobos aot --all-candidates` builds it with the three GPU
             shapes of test/unit/original_cases.py: the generic variant and one per layout.
  tensorcore_f16  examples/tensorcore_f16.ph (24 candidates) as `phobos aot --all-candidates`
             builds it without arguments: the generic variant of each candidate.

Others share this 2-core machine, so each case records its CPU seconds (this process and the
compile workers and children it waited for) and the load average before and after, not only the
wall time. Runs are appended to bench/results/tuning-cpu.json (--out), labelled (--label).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import common

sys.path.insert(0, str(common.ROOT / "test" / "unit"))  # original_cases: shapes, @cluster stripping

MIRROR = Path("/work/.mirror/joa+phobos-lang/repo")
RESULTS = common.ROOT / "bench" / "results" / "tuning-cpu.json"
GEMM16_SIZE = (4095, 4097, 4093)


def cpu_seconds() -> float:
    """User + system CPU time of this process and of its waited-for children."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def head_commit() -> str:
    """HEAD, with '+dirty' when the compiler's or the tuner's sources differ from it."""

    def git(*args):
        return subprocess.run(["git", *args], cwd=common.ROOT, capture_output=True, text=True).stdout.strip()

    dirty = git("status", "--porcelain", "--untracked-files=no", "--", "python/phobos")
    return (git("rev-parse", "--short", "HEAD") or "unknown") + ("+dirty" if dirty else "")


def machine() -> str:
    """The CPU model and count, as /proc/cpuinfo names it."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            models = [line.split(":", 1)[1].strip() for line in f if line.startswith("model name")]
    except OSError:
        models = []
    return f"{os.cpu_count()} x {models[0] if models else platform.processor() or platform.machine()}"


def load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def machine_busy_seconds() -> float | None:
    """CPU seconds every process on the machine has used since boot (/proc/stat), or None."""
    try:
        with open("/proc/stat", encoding="ascii") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle and iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def measured(fn) -> dict:
    """fn()'s record with its wall and CPU seconds, the load around it and the CPU seconds the
    rest of the machine used meanwhile (others_cpu_s: the other engineers' work)."""
    before, t0, c0, busy0 = load(), time.perf_counter(), cpu_seconds(), machine_busy_seconds()
    record = fn()
    busy1, cpu = machine_busy_seconds(), cpu_seconds() - c0
    record.update(wall_s=round(time.perf_counter() - t0, 2), cpu_s=round(cpu, 2))
    record.update(load_before=before, load_after=load())
    if busy0 is not None and busy1 is not None:
        record["others_cpu_s"] = round(max(0.0, busy1 - busy0 - cpu), 1)
    return record


def original_source(where: Path, name: str = "gemm_fp32") -> str:
    """An original Phobos program's text: from a git directory (main:examples/NAME.ph) or a file."""
    import original_cases as O

    if where.is_file():
        text = where.read_text(encoding="utf-8")
    else:
        text = subprocess.run(
            ["git", f"--git-dir={where}", "show", f"main:examples/{name}.ph"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    return O.strip_cluster(text)


GEMM_FP32_SOURCE = "original examples/gemm_fp32.ph, 3 layouts (original_cases.py's GPU shapes)"
TENSORCORE_F16_SOURCE = "examples/tensorcore_f16.ph, the generic variant of each candidate"


def gemm16(jobs: int | None) -> dict:
    from aot_build import gemm_args

    import phobos
    from phobos.cli.tune import _compile_only

    args = gemm_args(*GEMM16_SIZE, scalars=(1.0, 0.0))
    with tempfile.TemporaryDirectory(prefix="phobos-tuning-") as cache:
        k = phobos.compile(common.KERNELS / "gemm.ph", defines={"MINB": 1}, cache_dir=cache)
        t0 = time.perf_counter()
        k.signature  # noqa: B018 - the base kernel's generic variant, as a first launch compiles it
        base_s = time.perf_counter() - t0
        result = _compile_only(k, args, jobs)
    statuses = [c.status for c in result.candidates]
    return {
        "case": "gemm16",
        "source": "bench/kernels/gemm.ph -D MINB=1",
        "size": list(GEMM16_SIZE),
        "candidates": len(statuses),
        "compiled": result.compiled,
        "statuses": {s: statuses.count(s) for s in sorted(set(statuses))},
        "base_variant_s": round(base_s, 2),
        "candidates_s": round(result.compile_s, 2),
    }


def gemm_fp32(jobs: int | None, original: Path) -> dict:
    import original_cases as O

    from phobos.runtime.aot import like
    from phobos.runtime.autotune import compile_candidates
    from phobos.target import DEFAULT_CHIP

    program = next(p for p in O.PROGRAMS if p.name == "gemm_fp32")
    with tempfile.TemporaryDirectory(prefix="phobos-tuning-") as tmp:
        source = Path(tmp) / "gemm_fp32.ph"
        source.write_text(original_source(original), encoding="utf-8")
        examples = [O.layouts(program, shape, {}, like) for shape in program.gpu_shapes]
        manifest = compile_candidates(
            source, Path(tmp) / "out", chip=DEFAULT_CHIP, examples=examples, jobs=jobs, progress=False
        )
    entries = manifest["candidates"]
    slowest = sorted(entries, key=lambda e: -e["compile_s"])[:6]
    return {
        **manifest_summary(
            "gemm_fp32", "original examples/gemm_fp32.ph, 3 layouts (original_cases.py's GPU shapes)", manifest
        ),
        "candidates_s": round(sum(e["compile_s"] for e in entries), 2),  # each in its worker, summed
        "slowest": [{"config": e["config"], "compile_s": round(e["compile_s"], 2)} for e in slowest],
    }


def manifest_summary(case: str, source: str, manifest: dict) -> dict:
    """The figures of a candidates folder's build that every case reports."""
    entries = manifest["candidates"]
    return {
        "case": case,
        "source": source,
        "candidates": len(entries),
        "failed": sum(e["status"] == "failed" for e in entries),
        "pruned": sum(e["status"] == "pruned" for e in entries),  # before compiling: the register floor
        "compiled": sum(e["status"] == "ok" for e in entries),
        "variants": manifest["variants"],
        "workers": manifest["compile_workers"],
        "compile_wall_s": round(manifest["compile_wall_s"], 2),
    }


IDENTICAL = (  # (source, defines, layout or None) of the candidates --identical compares
    ("bench/kernels/gemm.ph", {"MINB": 1, "TILE_M": 128, "TILE_N": 128, "TILE_K": 8, "W": 256}, GEMM16_SIZE),
    ("bench/kernels/gemm.ph", {"MINB": 1, "TILE_M": 64, "TILE_N": 64, "TILE_K": 16, "W": 128}, GEMM16_SIZE),
    ("original", {"TILE_M": 256, "TILE_N": 128, "TILE_K": 32}, (37, 45, 29)),
    ("examples/tensorcore_f16.ph", {"TM": 128, "TN": 256, "TK": 64, "W": 256}, None),
)


def identical(original: Path) -> list[dict]:
    """Each IDENTICAL candidate compiled by the worker pool and, as before it, in a fresh interpreter
    (PHOBOS_CONTAINMENT=spawn): the cubins and PTX must be the same bytes."""
    from aot_build import gemm_args

    import phobos
    from phobos.runtime.autotune import compile_all

    out = []
    with tempfile.TemporaryDirectory(prefix="phobos-identical-") as tmp:
        fp32 = Path(tmp) / "gemm_fp32.ph"
        fp32.write_text(original_source(original), encoding="utf-8")
        cases = [(str(fp32) if s == "original" else str(common.ROOT / s), d, size) for s, d, size in IDENTICAL]
        keys = []
        for source, defines, size in cases:
            k = phobos.compile(source, defines=defines, cache_dir=Path(tmp) / "keys")
            keys.append(k.key(*gemm_args(*size)).to_text() if size else "")
        jobs = [
            (i, s, None, "sm_90", d, {}, f"{tmp}/pool", [key], [], True)
            for i, ((s, d, _), key) in enumerate(zip(cases, keys))
        ]
        errors = compile_all(jobs)
        os.environ["PHOBOS_CONTAINMENT"] = "spawn"
        for i, ((source, defines, _), key) in enumerate(zip(cases, keys)):
            error = errors[i][0]
            pooled = phobos.compile(source, defines=defines, cache_dir=f"{tmp}/pool").artifact(key)
            here = phobos.compile(source, defines=defines, cache_dir=f"{tmp}/here").artifact(key)
            out.append(
                {
                    "source": Path(source).name,
                    "defines": defines,
                    "key": key,
                    "pool_error": error,
                    "cubin_identical": pooled.cubin == here.cubin,
                    "ptx_identical": pooled.asm["ptx"] == here.asm["ptx"],
                }
            )
        del os.environ["PHOBOS_CONTAINMENT"]
    return out


def tensorcore_f16(jobs: int | None) -> dict:
    from phobos.runtime.autotune import compile_candidates
    from phobos.target import DEFAULT_CHIP

    with tempfile.TemporaryDirectory(prefix="phobos-tuning-") as tmp:
        source = common.ROOT / "examples" / "tensorcore_f16.ph"
        manifest = compile_candidates(source, tmp, chip=DEFAULT_CHIP, jobs=jobs, progress=False)
    return manifest_summary(
        "tensorcore_f16", "examples/tensorcore_f16.ph, the generic variant of each candidate", manifest
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--case", choices=("gemm16", "gemm_fp32", "tensorcore_f16", "all", "none"), default="all")
    p.add_argument("--jobs", type=int, default=None, help="compile workers (default: one per CPU)")
    p.add_argument("--label", default="", help="a name for this run in the results (e.g. 'before')")
    p.add_argument("--original", type=Path, default=MIRROR, help="the original Phobos's git dir, or gemm_fp32.ph")
    p.add_argument("--breakdown", action="store_true", help="also time the stages of single candidates")
    p.add_argument(
        "--space-breakdown", action="store_true", help="also time the stages of every gemm_fp32 variant (minutes)"
    )
    p.add_argument("--identical", action="store_true", help="compare the pool's cubins with fresh compiles")
    p.add_argument("--out", type=Path, default=RESULTS)
    p.add_argument("--commit", help="the commit measured, for a run from an export of it (no git there)")
    a = p.parse_args(argv)
    run = {"label": a.label, "commit": a.commit or head_commit(), "machine": machine(), "cpus": os.cpu_count()}
    run.update(jobs=a.jobs, cases=[])
    if a.case in ("gemm16", "all"):
        run["cases"].append(measured(lambda: gemm16(a.jobs)))
    if a.case in ("gemm_fp32", "all"):
        run["cases"].append(measured(lambda: gemm_fp32(a.jobs, a.original)))
    if a.case in ("tensorcore_f16", "all"):
        run["cases"].append(measured(lambda: tensorcore_f16(a.jobs)))
    if a.breakdown:
        from tuning_breakdown import breakdowns

        run["breakdown"] = breakdowns(original_source(a.original))
    if a.space_breakdown:
        from tuning_breakdown import space_breakdown

        run["space_breakdown"] = measured(lambda: space_breakdown(original_source(a.original)))
    if a.identical:
        run["identical"] = identical(a.original)
        print(json.dumps(run["identical"], indent=1))
    for case in run["cases"]:
        print(json.dumps(case), flush=True)
    for part in ("breakdown", "space_breakdown"):
        if part in run:
            print(json.dumps(run[part], indent=1))
    old = json.loads(a.out.read_text()) if a.out.is_file() else {"runs": []}
    old["runs"].append(run)
    a.out.write_text(json.dumps(old, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
