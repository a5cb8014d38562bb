"""The gather, scatter and atomic kernels of bench/kernels/ (histogram, split-K GEMM, embedding
lookup and bag, scatter-add with duplicate indices, 3x3 convolution as an implicit GEMM over
NHWC) in the interpreter, on the cases the GPU test runs (gather_cases.py), at smaller sizes."""

import os

import numpy as np
import pytest

pytest.importorskip("mlir")

import gather_cases as G  # noqa: E402
from test_interpreter import ROOT, program  # noqa: E402

from phobos.interpreter import run_program  # noqa: E402

RNG = np.random.default_rng(7023)
CASES = {
    "gather_rows": lambda: G.gather_rows(RNG, v=70, d=300, b=37),
    "scatter_add_rows": lambda: G.scatter_add_rows(RNG, m=45, d=270, r=9),
    "histogram 256": lambda: G.histogram(RNG, n=2500, bins=256),
    "histogram 4096": lambda: G.histogram(RNG, n=2500, bins=4096),
    "histogram_shared 256": lambda: G.histogram_shared(RNG, n=2500, bins=256),
    "histogram_shared 100 of 256": lambda: G.histogram_shared(RNG, n=9001, bins=100, nb=256, block=2048, steps=4),
    "histogram_shared 4096": lambda: G.histogram_shared(RNG, n=3001, bins=4096, nb=4096, block=4096, steps=4),
    "splitk_gemm": lambda: G.splitk_gemm(RNG, m=70, n=65, k=300),
    "hgemm_splitk": lambda: G.hgemm_splitk(RNG, m=70, n=136, k=2100),
    "embedding_bag": lambda: G.embedding_bag(RNG, v=50, d=150, nb=5),
    "conv3x3_nhwc": lambda: G.conv3x3_nhwc(RNG, n=1, h=7, w=10, c=20, k=33),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_kernel_in_the_interpreter(case):
    name, defines, args, grid, outputs = CASES[case]()
    with open(os.path.join(ROOT, "bench", "kernels", f"{name}.ph"), encoding="utf-8") as f:
        prog = program(f.read(), f"{name}.ph", defines or None)
    run_program(prog, args, grid)
    for i, (want, rtol, size) in outputs.items():
        G.check(args[i], want, rtol, size)
