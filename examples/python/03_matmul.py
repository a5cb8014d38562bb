# ruff: noqa: F821
"""Triton's tutorial 03 (matrix multiplication) as a Phobos kernel: C = A @ B in f16 with f32
accumulation on the tensor cores (wgmma on sm_90a, mma.sync before), the operand loads
pipelined. The fp8 variant waits for the low-precision types."""

import numpy as np

import phobos
from phobos.lang import ctx, dot, f16, f32, span, tensor, tile


@phobos.kernel(
    autotune={"TM": [128, 64], "TN": [128, 256, 64], "TK": [64, 32], "W": [256, 128]},
    launch="W",
    tensorcore=True,
    pipeline=True,
)
def matmul(A: tensor[f16, "M", "K"], B: tensor[f16, "K", "N"], C: tensor[f16, "M", "N"]):
    pm = ctx.block.x
    pn = ctx.block.y
    acc: tile[f32, TM, TN] = 0.0
    for k in range(0, K, TK):
        acc += dot(A[span(pm * TM, TM), span(k, TK)], B[span(k, TK), span(pn * TN, TN)])
    C[span(pm * TM, TM), span(pn * TN, TN)] = acc  # rounded to f16 by the store


def run(m: int = 512, n: int = 512, k: int = 512, interpret: bool = False, seed: int = 0) -> float:
    """Returns the largest error against numpy in float64, in units of the f16 result's rounding."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = np.full((m, n), np.nan, np.float16)
    kernel = matmul.with_defines(TM=64, TN=64, TK=32, W=128) if interpret else matmul
    (kernel.interpret if interpret else kernel)(a, b, c)
    exact = a.astype(np.float64) @ b.astype(np.float64)
    return float(np.max(np.abs(c - exact) / (np.abs(exact) * 2.0**-10 + np.sqrt(k) * 2.0**-14)))


if __name__ == "__main__":
    print(f"matmul: max error {run():.3g} (f16 rounding units)")
