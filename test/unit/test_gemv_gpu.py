"""GPU test of the decode GEMV / skinny GEMM kernels (issue 25, item 5; pytest -m gpu; skipped
without a GPU or the ahead-of-time folders of bench/aot_build.py, gemv_jobs).

Every tested configuration of the four families (CUDA cores, tensor cores, each whole-K and
K-split with the second-phase reduction; gemv_cases.py) on fresh random f16 data: T = 1, 3, 16
tokens against weights of ragged rows and columns (4097 x 3001: no row is 16-byte pitched) and of
16-byte pitched rows (the vectorised variants), every buffer inside guard zones that must come
back intact, outputs and split partials poisoned, Y against X W^T in float64 within the f32
accumulation bound plus one f16 rounding; the @aligned CUDA-core form (gemv_wave_f16) on shapes
that keep its promise. The interpreter runs the same cases in CI, smaller (test_gemv_interp.py).
"""

from __future__ import annotations

import gemv_cases as G
import pytest
from aot_folders import aot

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("shape", G.GPU_SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("case", G.TESTED, ids=lambda c: c[0] + "".join(f"-{k}{v}" for k, v in c[1].items()))
def test_gemv_against_float64(case, shape):
    family, defines = case
    main = aot(G.KERNEL[family], defines)
    reduce = aot(*G.REDUCE) if family.endswith("split") else None
    G.run_case((main, reduce), family, defines, shape)


@pytest.mark.parametrize("shape", G.WAVE_GPU_SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("case", G.WAVE_TESTED, ids=lambda c: c[0] + "".join(f"-{k}{v}" for k, v in c[1].items()))
def test_gemv_wave_against_float64(case, shape):
    """gemv_wave_f16 (@aligned N and K) on shapes that keep its promise."""
    family, defines = case
    G.run_case((aot(G.KERNEL[family], defines), None), family, defines, shape)
