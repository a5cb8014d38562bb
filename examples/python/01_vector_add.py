# ruff: noqa: F821
"""Triton's tutorial 01 (vector addition) as a Phobos kernel: out = x + y.

python examples/python/01_vector_add.py          # on the GPU, or in the interpreter with PHOBOS_INTERPRET=1
"""

import numpy as np

import phobos
from phobos.lang import ctx, f32, span, tensor


@phobos.kernel(autotune={"BLOCK": [1024, 256]})
def add(X: tensor[f32, "N"], Y: tensor[f32, "N"], Out: tensor[f32, "N"]):
    start = ctx.block.x * BLOCK
    Out[span(start, BLOCK)] = X[span(start, BLOCK)] + Y[span(start, BLOCK)]


def run(n: int = 98432, interpret: bool = False, seed: int = 0) -> float:
    """Adds two random vectors of `n` elements; returns the largest error against numpy (float64)."""
    rng = np.random.default_rng(seed)
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    out = np.full(n, np.nan, np.float32)
    (add.interpret if interpret else add)(x, y, Out=out)
    return float(np.max(np.abs(out - (x.astype(np.float64) + y))))


if __name__ == "__main__":
    print(f"vector add: max error {run():.3g}")
