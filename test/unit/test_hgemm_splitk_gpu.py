"""GPU test of the split-K f16 GEMM on sm_90a's tensor cores (issue 26, item 2; pytest -m gpu):
bench/kernels/hgemm_splitk.ph, whose CTAs each multiply one output tile over a slice of K on the
TMA + wgmma ring and add their f32 partial into C with vector reductions. Built ahead of time by
bench/aot_build.py (--only hgemm_splitk) for the layouts below. Fresh random f16 operands, C
starting at random values inside guard zones (the result must be C + A B, and nothing outside C
may change), K ragged against both the tile and the split, rows TMA cannot read (the runtime
repacks A and B), against NumPy in float64."""

from __future__ import annotations

import gather_cases as G
import pytest
from aot_folders import aot
from guarded import RNG, Guarded

pytestmark = pytest.mark.gpu

# (TM, TN, KS, W): bench_hopper_gemm.py's split-K variants (TK = 64)
VARIANTS = [
    (128, 256, 1024, 256),
    (128, 128, 2048, 256),
    (128, 128, 1024, 256),  # 512 x 512 x 16384: 256 CTAs, two per SM (96 KB of ring each)
    (64, 256, 2048, 128),
    (64, 128, 4096, 128),
    (64, 128, 2048, 128),  # 64 x 4096 x 14336: 224 CTAs, up to three per SM
]
# M, N, K: N and K multiples of 16 (the key's 16-element row pitch TMA needs); M any, N and K
# ragged against the tiles and K against the split
PITCHED = [(1000, 1008, 5008), (17, 64, 16), (512, 512, 16384), (64, 4096, 14336)]
# rows of other lengths (odd, or 8 elements past a multiple of 16): the launch copies A and B
# into 16-element pitched rows and runs the TMA variant on the copies
REPACKED = [(255, 257, 3001), (129, 392, 2056)]


def defines_of(variant) -> dict:
    tm, tn, ks, w = variant
    return {"TM": tm, "TN": tn, "TK": 64, "KS": ks, "W": w}


@pytest.mark.parametrize("variant", VARIANTS, ids=str)
@pytest.mark.parametrize("shape", PITCHED + REPACKED, ids=str)
def test_hgemm_splitk(variant, shape):
    m, n, k = shape
    name, defines, args, grid, outputs = G.hgemm_splitk(RNG, m=m, n=n, k=k, defines=defines_of(variant))
    kernel = aot(name, defines, chip="sm_90a")
    a, b, c = (Guarded("torch", x.shape, dtype=x.dtype, values=x) for x in args)
    kernel(a.view, b.view, c.view, grid=grid)
    path = kernel._last.contract.get("shared_memory", {}).get("tensor_cores", {})
    assert path.get("instruction") == "wgmma", path
    want, rtol, size = outputs[2]
    c.check(want, rtol=rtol, size=size)
    a.unchanged()
    b.unchanged()
