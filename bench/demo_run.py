"""Compile an example kernel to a cubin and, where a GPU is present, run it and check the result.

The kernel is a saxpy (X: tensor<f32>[N], Y: tensor<f32>[N], a: f32; Y = a X + Y), by default
examples/saxpy.ph.

    .venv/bin/python bench/demo_run.py [examples/saxpy.ph] [--out .cache/demo]

Compiles ahead of time into OUT (the cache layout phobos.load reads), prints
what was built, then launches the kernel on numpy arrays with random data and
compares with numpy in float64. Without a GPU it says so and exits 0 after
compiling; a wrong result exits 1.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("source", nargs="?", default=str(ROOT / "examples" / "saxpy.ph"))
    parser.add_argument("--out", type=Path, default=ROOT / ".cache" / "demo")
    parser.add_argument("-n", type=int, default=1_000_003, help="vector length (a ragged size on purpose)")
    ns = parser.parse_args()

    import numpy as np

    import phobos
    from phobos.runtime import driver
    from phobos.runtime.aot import like

    n = ns.n
    t0 = time.perf_counter()
    k = phobos.compile(ns.source, cache_dir=ns.out)
    art = k.warmup(like("f32", (n,)), like("f32", (n,)), 2.0)
    ptx = art.asm.get("ptx", "")
    print(
        f"compiled {ns.source} -> '{art.contract['kernel']}' for {art.contract['chip']}: cubin {len(art.cubin)} bytes, "
        f"key {art.contract['key'] or '(generic)'}, {time.perf_counter() - t0:.2f}s (cache: {ns.out})"
    )
    print(
        f"  grid rule {art.contract['grid']}, {art.contract['threads']} threads, "
        f"{sum('ld.global' in line for line in ptx.splitlines())} global loads in the PTX"
    )
    if not driver.available():
        print("no CUDA GPU here: compiled only (the run needs an NVIDIA GPU and its driver)")
        return 0
    rng = np.random.default_rng()
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    y0 = y.astype(np.float64)
    k(x, y, 2.0)  # numpy arrays: copied to the GPU and back
    ref = 2.0 * x.astype(np.float64) + y0
    err = np.abs(y - ref) / (np.abs(2.0 * x) + np.abs(y0))
    ok = bool(np.all(err <= 1e-6))
    print(
        f"ran on {phobos.runtime.get_device(0).name}: y = 2 x + y over {n} elements, "
        f"max relative error {err.max():.2e}: {'OK' if ok else 'WRONG'}"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
