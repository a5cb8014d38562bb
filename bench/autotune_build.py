"""Compile, here, every @autotune candidate the tuner's GPU tests and benchmark launch (the GPU
machine has no MLIR): one folder per kernel from `phobos.runtime.autotune.compile_candidates`.

    .venv/bin/python bench/autotune_build.py [--out .cache/autotune]     # the bandwidth kernels
    .venv/bin/python bench/autotune_build.py --gemm --from-head          # the GEMM spaces
    .venv/bin/python bench/autotune_build.py --all --from-head           # both

Writes, under OUT (git-ignored; carried to the GPU machine), <name>/autotune.json and
<name>/candidates/<config>/ for

  the bandwidth kernels (the default; OUT/COMMIT: the commit)
    saxpy_tune   bench/kernels/saxpy_tune.ph, BLOCK from 16 to 8192 (10 candidates)
    scale        bench/kernels/scale.ph, TM 8..64 x TN 128..512 (12 candidates)
    scale_gaps   bench/kernels/scale_gaps.ph, whose STEP = 2 candidates are wrong (6 candidates)
  each with the generic variant and those for the argument layouts of test/unit/test_autotune_gpu.py
  and bench/bench_autotune.py;

  the GEMM spaces (--gemm), for bench/bench_autotune.py --gemm, only the variants the benchmark
  launches (no generic variant, no stage texts: 60 KB a variant instead of 450 KB)
    gemm          bench/kernels/gemm.ph (masked), TILE_M x TILE_N x TILE_K x W x MINB: 32 candidates,
                  at 4096^3 and 4095 x 4097 x 4093
    gemm_aligned  bench/kernels/gemm_aligned.ph (@aligned), 32 candidates, at 4096^3
    gemm_minb1    gemm.ph with -D MINB=1: a 16-candidate space, at 4095 x 4097 x 4093
  and OUT/gemm_build.json: the cold compile wall time of each folder (candidates, variants, worker
  processes, this machine's CPUs and load) and of the compile step of a cold tuning of the
  16-candidate space (what a first launch compiles: `phobos tune --compile-only` on an empty
  kernel cache, one variant per candidate), with the commit.

Every folder is compiled from a cold cache (removed first); each manifest records its compile wall
time and, under "build", the commit it was built from. --from-head builds from a clean export of
HEAD (git archive) instead of the work tree, so what runs on the GPU is exactly that commit even
while others have uncommitted compiler changes here. At the end the sizes of OUT and .cache/gpu are
checked against what the device tool carries (64 MiB in all).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import common

GIB_F32 = 1 << 28
CARRY_LIMIT = 64 << 20  # bytes the device tool carries, all carried paths together
GEMM_SIZES = {"gemm": [(4096, 4096, 4096), (4095, 4097, 4093)], "gemm_aligned": [(4096, 4096, 4096)]}
COMPILER_PATHS = ["python/phobos", "dialect", "passes", "tools", "pyproject.toml"]


def plan():
    """(folder name, source name, defines, example argument lists, compile_candidates options)."""
    from phobos.runtime.aot import like

    def vec(n, align=16):
        return like("f32", (n,), align=align)

    def mat(m, n, pad_x=0, pad_y=0):
        return (like("f32", (m, n), strides=(n + pad_x, 1)), like("f32", (m, n), strides=(n + pad_y, 1)), 2.0)

    one_d = [(vec(n), vec(n), 2.0) for n in (4096, 1 << 22, 1000003, GIB_F32, GIB_F32 - 3)]
    one_d.append((vec(1000003, 1), vec(1000003), 2.0))
    two_d = [mat(4096, 4096), mat(1000, 1000), mat(1000, 1000, 3, 7), mat(16384, 16384), mat(16381, 16381)]
    return [
        ("saxpy_tune", "saxpy_tune", None, one_d, {}),
        ("scale", "scale", None, two_d, {}),
        ("scale_gaps", "scale_gaps", None, [(vec(1 << 20), vec(1 << 20), 3.0), (vec(1 << 24), vec(1 << 24), 3.0)], {}),
    ]


def gemm_plan():
    from aot_build import gemm_args

    lean = {"generic": False, "stages": False}

    def at(sizes):
        return [gemm_args(*s, scalars=(1.0, 0.0)) for s in sizes]

    return [
        ("gemm", "gemm", None, at(GEMM_SIZES["gemm"]), lean),
        ("gemm_aligned", "gemm_aligned", None, at(GEMM_SIZES["gemm_aligned"]), lean),
        ("gemm_minb1", "gemm", {"MINB": 1}, at([(4095, 4097, 4093)]), lean),
    ]


def git(*args) -> str:
    done = subprocess.run(["git", *args], cwd=common.ROOT, capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else ""


def provenance(commit: str | None) -> dict:
    """The commit built from, and whether the compiler's sources differ from it (a work tree build)."""
    if commit:  # --from-head: a clean export of that commit
        return {"commit": commit, "work_tree": False, "dirty_compiler_files": []}
    dirty = [line[3:] for line in git("status", "--porcelain", "--", *COMPILER_PATHS).splitlines() if line]
    return {
        "commit": git("rev-parse", "--short", "HEAD") or "unknown",
        "work_tree": True,
        "dirty_compiler_files": dirty,
    }


def machine() -> dict:
    load = os.getloadavg() if hasattr(os, "getloadavg") else (None,)
    return {"cpus": os.cpu_count(), "load_1min": load[0], "python": sys.version.split()[0]}


def cpu_seconds() -> float:
    """User + system CPU time of this process and its waited-for children (the compile workers and
    the compiles they contain): with 2 cores, the wall time cannot drop below half of it."""
    import resource

    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def folder_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.is_dir() else 0


def build(out: Path, jobs, entries, build_info: dict) -> tuple[list[dict], list[str]]:
    from phobos.runtime.autotune import compile_candidates, write_json
    from phobos.target import DEFAULT_CHIP

    done, failures = [], []
    for name, source, defines, examples, options in entries:
        folder = out / name
        shutil.rmtree(folder, ignore_errors=True)  # a cold build: the compile time is the cold one
        t0, c0 = time.perf_counter(), cpu_seconds()
        manifest = compile_candidates(
            common.KERNELS / f"{source}.ph",
            folder,
            chip=DEFAULT_CHIP,
            defines=defines,
            examples=examples,
            jobs=jobs,
            progress=False,
            **options,
        )
        wall, cpu = time.perf_counter() - t0, cpu_seconds() - c0
        manifest["build"] = dict(build_info, machine=machine(), wall_s=wall, cpu_s=cpu, bytes=folder_bytes(folder))
        write_json(folder / "autotune.json", manifest, sort_keys=False)
        bad = [c for c in manifest["candidates"] if c["status"] != "ok"]
        failures += [f"{name} {c['config']}: {c.get('reason')}" for c in bad]
        n = len(manifest["candidates"])
        size = manifest["build"]["bytes"] / 2**20
        print(
            f"{folder}: {n} candidates, {manifest['variants']} variants in {wall:.1f} s, CPU {cpu:.1f} s "
            f"({manifest['compile_workers']} workers, load {manifest['build']['machine']['load_1min']:.1f}; "
            f"{len(bad)} failed; {size:.1f} MiB)",
            flush=True,
        )
        done.append(
            {
                "folder": name,
                "source": f"bench/kernels/{source}.ph",
                "defines": defines or {},
                "candidates": n,
                "variants": manifest["variants"],
                "failed": len(bad),
                "compile_wall_s": manifest["compile_wall_s"],
                "wall_s": wall,
                "cpu_s": cpu,
                "workers": manifest["compile_workers"],
                "bytes": manifest["build"]["bytes"],
            }
        )
    return done, failures


def cold_tuning_compile(source: str, defines: dict | None, size, jobs) -> dict:
    """The compile step of tuning `source` on a first launch at `size`, from an empty kernel cache:
    the base kernel's generic variant (its signature gives the arguments' key), then one variant per
    candidate in the process pool; what `phobos tune FILE --args ... --compile-only` does."""
    from aot_build import gemm_args

    import phobos
    from phobos.cli.tune import _compile_only

    args = gemm_args(*size, scalars=(1.0, 0.0))
    with tempfile.TemporaryDirectory(prefix="phobos-cold-") as cache:
        k = phobos.compile(common.KERNELS / f"{source}.ph", defines=defines, cache_dir=cache)
        t0, c0 = time.perf_counter(), cpu_seconds()
        k.signature  # noqa: B018 - compiles the generic variant, as a launch does first
        base_s = time.perf_counter() - t0
        result = _compile_only(k, args, jobs)
        total, cpu = time.perf_counter() - t0, cpu_seconds() - c0
    rows = result.rows()
    return {
        "source": f"bench/kernels/{source}.ph",
        "defines": defines or {},
        "size": list(size),
        "candidates": len(result.candidates),
        "compiled": result.compiled,
        "base_variant_s": base_s,
        "candidates_s": result.compile_s,
        "total_s": total,
        "cpu_s": cpu,
        "workers": min(jobs or os.cpu_count() or 1, len(result.candidates)),
        "machine": machine(),
        "table": [{k: r[k] for k in ("candidate", "status", "registers", "reason")} for r in rows],
    }


def from_head(argv: list[str], out: Path) -> int:
    """Run this script from a clean export of HEAD, writing into `out`."""
    sha = git("rev-parse", "--short", "HEAD")
    with tempfile.TemporaryDirectory(prefix="phobos-head-") as tmp:
        archive = subprocess.run(["git", "archive", "HEAD"], cwd=common.ROOT, capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, check=True)
        for sub in ("dialect", "passes", "tools"):  # where the editable install maps phobos.<sub>
            if (Path(tmp) / sub).is_dir() and not (Path(tmp) / "python" / "phobos" / sub).exists():
                (Path(tmp) / "python" / "phobos" / sub).symlink_to(Path("..") / ".." / sub)
        env = dict(
            os.environ,
            PYTHONPATH=os.pathsep.join([str(Path(tmp) / "python"), str(Path(tmp) / "bench")]),
            PHOBOS_GPU_ARTIFACTS=str(common.ARTIFACTS.resolve()),  # for the size check
        )
        cmd = [sys.executable, str(Path(tmp) / "bench" / "autotune_build.py"), *argv, "--out", str(out)]
        print(f"building from a clean export of HEAD ({sha}) in {tmp}", flush=True)
        return subprocess.call(cmd + ["--built-from", sha], cwd=tmp, env=env)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=common.ROOT / ".cache" / "autotune")
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--gemm", action="store_true", help="the GEMM spaces only")
    parser.add_argument("--all", action="store_true", help="the bandwidth kernels and the GEMM spaces")
    parser.add_argument("--from-head", action="store_true", help="build from a clean export of HEAD")
    parser.add_argument("--built-from", default=None, help=argparse.SUPPRESS)  # set by --from-head
    ns = parser.parse_args()
    out = ns.out.resolve()
    if ns.from_head:
        argv = [a for a in sys.argv[1:] if a != "--from-head"]
        drop = [i for i, a in enumerate(argv) if a == "--out"]  # the export writes where this one would
        for i in reversed(drop):
            del argv[i : i + 2]
        argv = [a for a in argv if not a.startswith("--out=")]
        return from_head(argv, out)
    info = provenance(ns.built_from)
    out.mkdir(parents=True, exist_ok=True)
    failures = []
    if not ns.gemm or ns.all:
        _, bad = build(out, ns.jobs, plan(), info)
        failures += bad
        (out / "COMMIT").write_text(info["commit"] + "\n")
    if ns.gemm or ns.all:
        t0 = time.perf_counter()
        folders, bad = build(out, ns.jobs, gemm_plan(), info)
        failures += bad
        folders_s = time.perf_counter() - t0
        print("the compile step of a cold tuning (empty kernel cache, one variant per candidate):", flush=True)
        cold = []
        for source, defines, size in (("gemm", {"MINB": 1}, (4095, 4097, 4093)), ("gemm", None, (4095, 4097, 4093))):
            c = cold_tuning_compile(source, defines, size, ns.jobs)
            cold.append(c)
            print(
                f"  {c['source']} {c['defines'] or ''} at {'x'.join(map(str, size))}: {c['candidates']} candidates, "
                f"{c['total_s']:.1f} s (generic variant {c['base_variant_s']:.1f} s + candidates "
                f"{c['candidates_s']:.1f} s, {c['workers']} workers; CPU {c['cpu_s']:.1f} s, "
                f"load {c['machine']['load_1min']:.1f})",
                flush=True,
            )
        record = dict(info, machine=machine(), folders=folders, folders_wall_s=folders_s, cold_tuning=cold)
        (out / "gemm_build.json").write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
        print(f"wrote {out / 'gemm_build.json'}")
    if info["dirty_compiler_files"]:
        print(f"note: built from the work tree, whose compiler differs from {info['commit']} in:")
        print("  " + " ".join(info["dirty_compiler_files"]) + "\n  (--from-head builds exactly the commit)")
    gpu = common.ARTIFACTS
    total = folder_bytes(out) + folder_bytes(gpu)
    print(
        f"carried: {out} {folder_bytes(out) / 2**20:.1f} MiB + {gpu} {folder_bytes(gpu) / 2**20:.1f} MiB = "
        f"{total / 2**20:.1f} MiB ({'within' if total < CARRY_LIMIT else 'OVER'} the 64 MiB the device tool carries)"
    )
    if failures:
        print("\n".join(["", "not built:"] + failures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
