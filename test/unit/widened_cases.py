"""The f16 x 8-bit dots whose 8-bit operand mma.sync widens in registers (lowering/
widened_fragments.py): bench/kernels/widened_u8_rhs.ph (C = A f16(B)^T, B u8 [N, K]) and
widened_i8_lhs.ph (C = f16(A) B, A i8 [M, K]). Shared by test_widened_dot_gpu.py (the GPU) and
test_widened_dot.py (the interpreter, and the PTX), and bench/aot_build.py (widened_jobs).
"""

from __future__ import annotations

import numpy as np
from gemv_cases import bound

KERNELS = ("widened_u8_rhs", "widened_i8_lhs")
# (M, N, K): ragged everywhere (rows not 16-byte pitched: byte copies, no ring), one tile, pitched
# rows over several tiles and K chunks (16-byte copies; widened_u8_rhs's cp.async ring).
GPU_SHAPES = [(100, 77, 130), (64, 64, 64), (192, 160, 1024), (130, 96, 4096)]
INTERP_SHAPES = [(37, 45, 70), (64, 32, 96)]


def operands(rng, kernel: str, m: int, n: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(A, B) as the kernel takes them, the 8-bit one over its whole range (0 and 255, -128 and 127 included)."""
    if kernel == "widened_u8_rhs":
        b = rng.integers(0, 256, (n, k)).astype(np.uint8)
        b.flat[:4] = [0, 255, 128, 127][: b.size]
        return rng.standard_normal((m, k)).astype(np.float16), b
    a = rng.integers(-128, 128, (m, k)).astype(np.int8)
    a.flat[:4] = [-128, 127, 0, -1][: a.size]
    return a, rng.standard_normal((k, n)).astype(np.float16)


def reference(kernel: str, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(C in float64, the size of its terms: sum_k |a| |b|)."""
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    if kernel == "widened_u8_rhs":
        b64 = b64.T
    return a64 @ b64, np.abs(a64) @ np.abs(b64)


def error_bound(want: np.ndarray, size: np.ndarray, k: int) -> np.ndarray:
    """Every f16 x 8-bit product is exact in f32, each f32 addition rounds; f32 out."""
    return bound(want, size, k, f16_out=False)


def layouts(kernel: str, shape, like) -> list:
    """The kernel's arguments at (M, N, K), contiguous and 16-byte aligned (bench/aot_build.py)."""
    m, n, k = shape
    if kernel == "widened_u8_rhs":
        return [like("f16", (m, k)), like("u8", (n, k)), like("f32", (m, n))]
    return [like("i8", (m, k)), like("f16", (k, n)), like("f32", (m, n))]


def pitched(shape) -> bool:
    """Rows of every operand 16-byte pitched (the vectorised variant)."""
    m, n, k = shape
    return k % 16 == 0 and n % 16 == 0


def run_case(kernel, name: str, shape, framework: str = "torch", plant: bool = False) -> None:
    """One launch on fresh random data inside guard zones (C poisoned; rows padded where ragged),
    C against float64 and the inputs unchanged. `plant` checks against a reference with one
    element of the 8-bit operand changed, which must fail."""
    from guarded import RNG, Guarded

    m, n, k = shape
    pad = 0 if pitched(shape) else 3
    a, b = operands(RNG, name, m, n, k)
    ga = Guarded(framework, a.shape, dtype=a.dtype, pad=pad, values=a)
    gb = Guarded(framework, b.shape, dtype=b.dtype, pad=pad, values=b)
    c = Guarded(framework, (m, n), dtype=np.float32, pad=pad, poison=True)
    kernel(ga.view, gb.view, c.view)
    if plant:
        a, b = a.copy(), b.copy()
        eight = b if name == "widened_u8_rhs" else a
        eight[0, 0] = 100 if eight[0, 0] != 100 else 7
    want, size = reference(name, a, b)
    c.check(want, rtol=1.0, size=error_bound(want, size, k))
    ga.unchanged()
    gb.unchanged()
