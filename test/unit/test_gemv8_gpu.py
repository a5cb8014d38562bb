"""GPU test of the decode GEMV kernels with 8-bit weights (issue 25, item 5; pytest -m gpu; skipped
without a GPU or the ahead-of-time folders of bench/aot_build.py, gemv8_jobs).

Every tested configuration of gemv_i8, gemv_fp8, gemv_q8_0, gemv_q8_0_rows, gemv_tc_i8 and
gemv_tc_fp8 (gemv8_cases.py) on fresh random data: T = 1, 3, 16 tokens against weights of ragged
rows and columns (4097 x 3001; for Q8_0 4097 x 3008, K whole blocks) and of 16-byte pitched rows
(the vectorised variants), every buffer inside guard zones that must come back intact, the output
poisoned, Y against float64 within the f32 accumulation bound plus the scale's rounding and one f16
rounding. The interpreter runs the same cases in CI, smaller (test_gemv8_interp.py)."""

from __future__ import annotations

import gemv8_cases as G
import pytest
from aot_folders import aot

pytestmark = pytest.mark.gpu

CASES = [(family, defines, shape) for family, defines in G.TESTED for shape in G.gpu_shapes(family)]


def _id(case) -> str:
    family, defines, shape = case
    return "-".join([family] + [f"{k}{v}" for k, v in defines.items()] + ["x".join(map(str, shape))])


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_gemv8_against_float64(case):
    family, defines, shape = case
    G.skip_without_fp8(family)
    G.run_case(aot(G.KERNEL[family], defines), family, shape)
