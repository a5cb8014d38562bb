"""GPU test of the vector reductions (issue 23; pytest -m gpu, skipped without a GPU): scatter-adds
with duplicate indices through atomic_add, which sm_90 runs as red.global.add.v4.f32 (and
.noftz.v2/.v4.f16x2) where the key proves the rows 16-byte (8-byte) aligned and scalar reds
elsewhere (vector_red_cases.py: the layouts), and a split-K GEMM adding its dot's accumulator
with v4 reds. Fresh random data, ragged update counts and row lengths (a masked tail of the last
column tile), pitched update rows, indices out of range (dropped), three hot rows, a misaligned
table; every buffer inside guard zones that must come back intact (and V's row padding with
them), the results against NumPy (add.at, the product) in float64. The kernels are built ahead
of time: bench/aot_build.py --only scatter_add_rows, then --only splitk_gemm."""

from __future__ import annotations

import gather_cases as G
import pytest
import vector_red_cases as S
from aot_folders import aot
from guarded import RNG, Guarded

pytestmark = pytest.mark.gpu

CASES = [
    (dtype, name, defines, case)
    for dtype, kernels in S.KERNELS.items()
    for name, defines in kernels
    for case in S.GPU_CASES[dtype]
]


@pytest.mark.parametrize(
    "dtype,name,defines,case", CASES, ids=[f"{n}-{'-'.join(map(str, d.values()))}-{c}" for _, n, d, c in CASES]
)
def test_scatter_add_rows(dtype, name, defines, case):
    m, d, r, pad, misalign = S.GPU_CASES[dtype][case]
    kernel = aot(name, defines)
    idx, v, y0, want, rtol, size = S.scatter_inputs(RNG, dtype, m, d, r)
    i_buf = Guarded("torch", idx.shape, dtype=idx.dtype, values=idx)
    v_buf = Guarded("torch", v.shape, pad=pad, dtype=v.dtype, values=v)
    y_buf = Guarded("torch", y0.shape, misalign=misalign, dtype=y0.dtype, values=y0)
    kernel(i_buf.view, v_buf.view, y_buf.view, grid=S.grid(m, d, defines))
    y_buf.check(want, rtol=rtol, size=size)
    i_buf.unchanged()
    v_buf.unchanged()


@pytest.mark.parametrize("shape", S.SPLITK_SHAPES)
def test_splitk_gemm_on_aligned_rows(shape):
    m, n, k = shape
    name, defines, args, grid, outputs = G.splitk_gemm(RNG, m=m, n=n, k=k)
    assert (name, defines) == S.SPLITK
    kernel = aot(name, defines)
    a, b, c = (Guarded("torch", x.shape, dtype=x.dtype, values=x) for x in args)
    kernel(a.view, b.view, c.view, grid=grid)
    want, rtol, size = outputs[2]
    c.check(want, rtol=rtol, size=size)
    a.unchanged()
    b.unchanged()
