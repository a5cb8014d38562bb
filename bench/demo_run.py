"""Compile example kernels to cubins, run them and check the results against numpy.

The kernels are a saxpy (X: tensor<f32>[N], Y: tensor<f32>[N], a: f32; Y = a X + Y), by default
examples/saxpy.ph, and the seed GEMM examples/gemm_fp32.ph (C = alpha A B + beta C with
128 x 128 x 8 tiles, @pipeline and its @aligned promise).

    .venv/bin/python bench/demo_run.py [examples/saxpy.ph] [--out .cache/demo] [--interpret]

Compiles ahead of time into OUT (the cache layout phobos.load reads; a variant
found there is reported as cached, not as compiled in no time), prints what
was built, then runs each kernel on random data and compares with numpy in
float64: on the GPU where one is present, else (or with --interpret) in the
interpreter, on the CPU, so that every machine ends with a checked result. A
wrong result exits 1.
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
    parser.add_argument("-n", type=int, default=None, help="vector length (default: ragged, 1000003; 100003 on CPU)")
    parser.add_argument("--interpret", action="store_true", help="run in the interpreter even where a GPU is present")
    ns = parser.parse_args()

    from phobos.runtime import driver

    on_gpu = not ns.interpret and driver.available()
    if not on_gpu:
        why = "--interpret" if ns.interpret else "no CUDA GPU here"
        print(f"({why}: the compiled kernels run in the interpreter, on the CPU, and are checked the same way)")
    n = ns.n or (1_000_003 if on_gpu else 100_003)
    return 0 if saxpy(ns.source, ns.out, n, on_gpu) and gemm(ns.out, on_gpu) else 1


def compile_variant(source, out: Path, defines: dict | None, example: tuple):
    """(kernel, artifact, what to say about the time): compiled now, or found in the cache."""
    import phobos

    t0 = time.perf_counter()
    kernel = phobos.compile(source, cache_dir=out, defines=defines)
    cached = kernel.cache.get(kernel.family, kernel.key(*example).to_text()) is not None
    art = kernel.warmup(*example)
    return kernel, art, "found in the cache" if cached else f"compiled in {time.perf_counter() - t0:.2f}s"


def _shown(path) -> str:
    """A path as the user would type it here: relative to the current directory when inside it."""
    import os

    relative = os.path.relpath(path)
    return str(path) if relative.startswith("..") else relative


def run(kernel, args, on_gpu: bool) -> str:
    """Runs `kernel` on `args` (numpy arrays, updated in place); where it ran."""
    if on_gpu:
        import phobos

        kernel(*args)  # numpy arrays: copied to the GPU and back
        return f"ran on {phobos.runtime.get_device(0).name}"
    kernel.interpret(*args)
    return "ran in the interpreter"


def saxpy(source: str, out: Path, n: int, on_gpu: bool) -> bool:
    import numpy as np

    from phobos.runtime.aot import like

    k, art, took = compile_variant(source, out, None, (like("f32", (n,)), like("f32", (n,)), 2.0))
    ptx = art.asm.get("ptx", "")
    print(
        f"{_shown(source)} -> '{art.contract['kernel']}' for {art.contract['chip']}: cubin {len(art.cubin)} bytes, "
        f"key {art.contract['key'] or '(generic)'}, {took} (cache: {_shown(out)})"
    )
    print(
        f"  grid rule {art.contract['grid']}, {art.contract['threads']} threads, "
        f"{sum('ld.global' in line for line in ptx.splitlines())} global loads in the PTX"
    )
    rng = np.random.default_rng()
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    y0 = y.astype(np.float64)
    where = run(k, (x, y, 2.0), on_gpu)
    ref = 2.0 * x.astype(np.float64) + y0
    err = np.abs(y - ref) / (np.abs(2.0 * x) + np.abs(y0))
    ok = bool(np.all(err <= 1e-6))
    print(
        f"{where}: y = 2 x + y over {n} elements, checked against numpy (float64): "
        f"max relative error {err.max():.2e}: {'OK' if ok else 'WRONG'}"
    )
    return ok


def gemm(out: Path, on_gpu: bool) -> bool:
    """The seed GEMM: compiled, run on random data and checked against numpy in float64."""
    import numpy as np

    from phobos.runtime.aot import like

    m, n, k = 512, 384, 256  # whole tiles: the kernel's @aligned promise holds
    source = ROOT / "examples" / "gemm_fp32.ph"
    defines = {"TILE_M": 128, "TILE_N": 128, "TILE_K": 8}
    example = (like("f32", (m, k)), like("f32", (k, n)), like("f32", (m, n)), 1.5, 0.5)
    kern, art, took = compile_variant(source, out, defines, example)
    smem = art.contract.get("shared_memory", {})
    print(
        f"{_shown(source)} -> '{art.contract['kernel']}': cubin {len(art.cubin)} bytes, "
        f"{art.contract['shared_bytes']} bytes of shared memory in {len(smem.get('buffers', []))} buffers, {took}"
    )
    rng = np.random.default_rng()
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    c = rng.standard_normal((m, n)).astype(np.float32)
    c0 = c.astype(np.float64)
    where = run(kern, (a, b, c, 1.5, 0.5), on_gpu)
    ref = 1.5 * (a.astype(np.float64) @ b.astype(np.float64)) + 0.5 * c0
    size = 1.5 * (np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))) + 0.5 * np.abs(c0)
    err = np.max(np.abs(c - ref) / size)
    ok = bool(err <= 4 * (k + 8) * 2.0**-24)
    print(
        f"{where}: C = 1.5 A B + 0.5 C at {m}x{n}x{k}, checked against numpy (float64): "
        f"max relative error {err:.2e}: {'OK' if ok else 'WRONG'}"
    )
    return ok


if __name__ == "__main__":
    sys.exit(main())
