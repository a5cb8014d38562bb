"""Compile example kernels to cubins and, where a GPU is present, run them and check the results.

The kernels are a saxpy (X: tensor<f32>[N], Y: tensor<f32>[N], a: f32; Y = a X + Y), by default
examples/saxpy.ph, and the seed GEMM examples/gemm_fp32.ph (C = alpha A B + beta C with
128 x 128 x 8 tiles, @pipeline and its @aligned promise).

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
        return 0 if gemm(ns.out) else 1
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
    return 0 if ok and gemm(ns.out) else 1


def gemm(out: Path) -> bool:
    """The seed GEMM: compiled, and on a GPU run on random data and checked against numpy in float64."""
    import numpy as np

    import phobos
    from phobos.runtime import driver
    from phobos.runtime.aot import like

    m, n, k = 512, 384, 256  # whole tiles: the kernel's @aligned promise holds
    source = ROOT / "examples" / "gemm_fp32.ph"
    t0 = time.perf_counter()
    kern = phobos.compile(source, cache_dir=out, defines={"TILE_M": 128, "TILE_N": 128, "TILE_K": 8})
    art = kern.warmup(like("f32", (m, k)), like("f32", (k, n)), like("f32", (m, n)), 1.5, 0.5)
    smem = art.contract.get("shared_memory", {})
    print(
        f"compiled {source.name} -> '{art.contract['kernel']}': cubin {len(art.cubin)} bytes, "
        f"{art.contract['shared_bytes']} bytes of shared memory in {len(smem.get('buffers', []))} buffers, "
        f"{time.perf_counter() - t0:.2f}s"
    )
    if not driver.available():
        return True
    rng = np.random.default_rng()
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    c = rng.standard_normal((m, n)).astype(np.float32)
    c0 = c.astype(np.float64)
    kern(a, b, c, 1.5, 0.5)
    ref = 1.5 * (a.astype(np.float64) @ b.astype(np.float64)) + 0.5 * c0
    size = 1.5 * (np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))) + 0.5 * np.abs(c0)
    err = np.max(np.abs(c - ref) / size)
    ok = bool(err <= 4 * (k + 8) * 2.0**-24)
    print(f"ran C = 1.5 A B + 0.5 C at {m}x{n}x{k}: max relative error {err:.2e}: {'OK' if ok else 'WRONG'}")
    return ok


if __name__ == "__main__":
    sys.exit(main())
