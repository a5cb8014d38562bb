"""GPU test of gathers, scatters and atomics (issue 23, item 7; pytest -m gpu; skipped without a
GPU): a histogram with atomics (256 and 4096 bins, skewed data), split-K GEMM accumulating with
atomic_add, an embedding lookup and an embedding bag (gathers), a scatter-add with duplicate
indices through atomic_add, and a 3x3 convolution over NHWC as an implicit GEMM (gathered input
rows feeding dot). The kernels are bench/kernels/*.ph, built ahead of time by bench/aot_build.py
(gather_jobs); cases and float64 references are gather_cases.py (the interpreter runs the same
ones in CI, smaller). Fresh random data, ragged shapes, indices out of bounds, outputs poisoned
where the kernel writes every element, every buffer inside guard zones that must come back intact.
"""

from __future__ import annotations

import gather_cases as G
import numpy as np
import pytest
from aot_folders import aot
from guarded import RNG, Guarded

pytestmark = pytest.mark.gpu

CASES = {
    "gather_rows": lambda: G.gather_rows(RNG, v=4099, d=1000, b=3001),
    "gather_rows 8x512": lambda: G.gather_rows(RNG, v=513, d=4096, b=777, bb=8, bd=512),
    "scatter_add_rows": lambda: G.scatter_add_rows(RNG, m=5003, d=1030, r=129),
    "histogram 256": lambda: G.histogram(RNG, n=(1 << 22) + 37, bins=256),
    "histogram 4096": lambda: G.histogram(RNG, n=(1 << 22) + 37, bins=4096, block=4096),
    "histogram_shared 256": lambda: G.histogram_shared(RNG, n=(1 << 22) + 37, bins=256),
    "histogram_shared 4096": lambda: G.histogram_shared(RNG, n=(1 << 22) + 37, bins=4096, nb=4096, block=4096),
    "splitk_gemm": lambda: G.splitk_gemm(RNG, m=1000, n=515, k=4097),
    "embedding_bag": lambda: G.embedding_bag(RNG, v=10007, d=999, nb=301),
    "conv3x3_nhwc": lambda: G.conv3x3_nhwc(RNG, n=3, h=33, w=29, c=67, k=131),
}


def _buffers(args, outputs):
    """A Guarded buffer per array argument: outputs written everywhere start poisoned (NaN);
    accumulated outputs and inputs start with their values."""
    out = []
    for i, a in enumerate(args):
        if not isinstance(a, np.ndarray):
            out.append(a)
            continue
        poison = i in outputs and np.isnan(a).all() if a.dtype.kind == "f" else False
        values = None if poison else a
        out.append(Guarded("torch", a.shape, dtype=a.dtype, poison=poison, values=values))
    return out


@pytest.mark.parametrize("case", sorted(CASES))
def test_gather_scatter_atomic_kernels(case):
    name, defines, args, grid, outputs = CASES[case]()
    kernel = aot(name, defines)
    bufs = _buffers(args, outputs)
    kernel(*(b.view if isinstance(b, Guarded) else b for b in bufs), grid=grid)
    for i, b in enumerate(bufs):
        if not isinstance(b, Guarded):
            continue
        if i in outputs:
            want, rtol, size = outputs[i]
            b.check(want, rtol=rtol, size=size)
        else:
            b.unchanged()
