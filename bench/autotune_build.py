"""Compile, here, every @autotune candidate the tuner's GPU tests and benchmark launch (the GPU
machine has no MLIR): one folder per kernel from `phobos.runtime.aot.compile_all_candidates`.

    .venv/bin/python bench/autotune_build.py [--out .cache/autotune]

Writes, under OUT (git-ignored; carried to the GPU machine), <name>/autotune.json and
<name>/candidates/<config>/ for
  saxpy_tune   bench/kernels/saxpy_tune.ph, BLOCK from 16 to 8192 (10 candidates)
  scale        bench/kernels/scale.ph, TM 8..64 x TN 128..512 (12 candidates)
  scale_gaps   bench/kernels/scale_gaps.ph, whose STEP = 2 candidates are wrong (6 candidates)
each with the variants for the argument layouts of test/unit/test_autotune_gpu.py and
bench/bench_autotune.py, compiled from a cold cache; the manifests record the compile wall
time (bench_autotune.py reports it), and OUT/COMMIT the commit.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import time
from pathlib import Path

import common

GIB_F32 = 1 << 28


def plan():
    from phobos.runtime.aot import like

    def vec(n, align=16):
        return like("f32", (n,), align=align)

    def mat(m, n, pad_x=0, pad_y=0):
        return (like("f32", (m, n), strides=(n + pad_x, 1)), like("f32", (m, n), strides=(n + pad_y, 1)), 2.0)

    one_d = [(vec(n), vec(n), 2.0) for n in (4096, 1 << 22, 1000003, GIB_F32, GIB_F32 - 3)]
    one_d.append((vec(1000003, 1), vec(1000003), 2.0))
    two_d = [mat(4096, 4096), mat(1000, 1000), mat(1000, 1000, 3, 7), mat(16384, 16384), mat(16381, 16381)]
    return [
        ("saxpy_tune", one_d),
        ("scale", two_d),
        ("scale_gaps", [(vec(1 << 20), vec(1 << 20), 3.0), (vec(1 << 24), vec(1 << 24), 3.0)]),
    ]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=common.ROOT / ".cache" / "autotune")
    parser.add_argument("--jobs", type=int, default=None)
    ns = parser.parse_args()
    from phobos.runtime.aot import compile_all_candidates

    failures = []
    for name, examples in plan():
        folder = ns.out / name
        shutil.rmtree(folder, ignore_errors=True)  # a cold build: the compile time is the cold one
        t0 = time.perf_counter()
        manifest = compile_all_candidates(common.KERNELS / f"{name}.ph", folder, examples=examples, jobs=ns.jobs)
        bad = [c for c in manifest["candidates"] if c["status"] != "ok"]
        failures += [f"{name} {c['config']}: {c.get('reason')}" for c in bad]
        n = len(manifest["candidates"])
        print(f"{folder}: {n} candidates in {time.perf_counter() - t0:.1f} s ({len(bad)} failed)")
    sha = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=common.ROOT, capture_output=True, text=True
    ).stdout.strip()
    (ns.out / "COMMIT").write_text(sha + "\n")
    if failures:
        print("\n".join(["", "not built:"] + failures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
