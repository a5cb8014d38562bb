"""Time of the interpreter (phobos.interpreter) on two kernels; runs on the CPU, without a GPU.

- scale: examples/scale.ph, Y = alpha * X on 4096 x 4096 f32 (32 x 128 tiles, 4096 CTAs);
- gemm: examples/gemm_fp32.ph, C = alpha * A @ B + beta * C at 512^3 (32 x 32 x 4 tiles, 256 CTAs).

Each is checked against NumPy and timed as the best of a few runs (compiling to
the portable program is not timed).

    .venv/bin/python bench/bench_interpreter.py
"""

from __future__ import annotations

import os
import time

import numpy as np

from phobos.compiler import compile_program
from phobos.interpreter import run_program

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPEATS = 3


def best_time(fn) -> float:
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def scale() -> float:
    program, _ = compile_program(os.path.join(ROOT, "examples/scale.ph"))
    x = np.random.default_rng(0).uniform(-1, 1, (4096, 4096)).astype(np.float32)
    y = np.zeros_like(x)
    seconds = best_time(lambda: run_program(program, [x, y, 2.0], (4096 // 32, 4096 // 128, 1)))
    assert np.array_equal(y, 2 * x)
    return seconds


def gemm() -> float:
    program, _ = compile_program(os.path.join(ROOT, "examples/gemm_fp32.ph"))
    rng = np.random.default_rng(0)
    a, b, c0 = (rng.uniform(-1, 1, (512, 512)).astype(np.float32) for _ in range(3))
    c = c0.copy()

    def once():
        c[...] = c0
        run_program(program, [a, b, c, 1.5, 0.5], (512 // 32, 512 // 32, 1))

    seconds = best_time(once)
    expected = 1.5 * (a.astype(np.float64) @ b) + 0.5 * c0
    assert np.allclose(c, expected, rtol=1e-4, atol=1e-4)
    return seconds


def main():
    print(f"scale 4096x4096 f32 (4096 CTAs): {scale():.3f} s")
    print(f"gemm 512x512x512 f32 (256 CTAs, 128 k-steps each): {gemm():.3f} s")


if __name__ == "__main__":
    main()
