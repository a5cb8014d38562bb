"""GPU test of the f16 x 8-bit dots whose 8-bit operand mma.sync widens in registers (pytest -m gpu;
skipped without a GPU or the ahead-of-time folders of bench/aot_build.py, widened_jobs).

bench/kernels/widened_u8_rhs.ph (u8 B of dot_t, a cp.async ring) and widened_i8_lhs.ph (i8 A of
dot, warps' rows interleaved) on fresh random data over the 8-bit type's whole range: ragged
shapes (rows padded, byte copies), one tile, and pitched rows over several tiles and K chunks;
every buffer in guard zones, C poisoned, against float64 within the f32 accumulation bound
(widened_cases.py; the interpreter runs the same cases, smaller, in test_widened_dot.py). The
decode GEMV with int8 weights on this path is gemv_tc_i8 (test_gemv8_gpu.py).
"""

from __future__ import annotations

import pytest
import widened_cases as W
from aot_folders import aot

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("shape", W.GPU_SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("name", W.KERNELS)
def test_widened_dot_against_float64(name, shape):
    W.run_case(aot(name), name, shape)
