"""GPU tests of qdot_t and qmma_t, the Q8_0 contractions (pytest -m gpu; skipped without a GPU
or the ahead-of-time folders).

bench/kernels/q8_qdot.ph (one row a program, CUDA cores), q8_qmma.ph ([64, 64] tiles, each
block's i8 dot on mma.sync m16n8k32 .s8 under @tensorcore) and q8_qmma_ring.ph ([128, 64]
tiles, the blocks through a 4-stage cp.async ring), built by bench/aot_build.py (q8_jobs).
Fresh random data (i8 over its whole range, positive f32 scales as Q8_0 makes them), ragged
M, N and K (and whole tiles), outputs poisoned between guard zones that must come back
untouched. The results must lie within the f32 bound of the float64 definition
(q8_reference.py), and match the interpreter's order rounding for rounding: the PTX rounds
the scale product, the term and the sum each once (mul.rn, add.rn), as the tile IR states.
"""

from __future__ import annotations

import numpy as np
import pytest
import q8_reference as q8
from aot_folders import aot
from test_tensorcore_8bit_gpu import RNG, Flat  # values between random guard zones on the device

pytestmark = pytest.mark.gpu

SHAPES = [(1, 1, 1), (1, 4096, 1024), (3, 100, 97), (17, 33, 5), (64, 64, 64), (130, 200, 300), (256, 384, 1056)]
RING = {"TM": 128, "TN": 64, "THREADS": 256, "S": 4}  # bench_q8_qmma.RING's first, its generic variant
SOURCES = ["q8_qdot", "q8_qmma", "q8_qmma_ring"]


def run(torch, source: str, shape):
    """(result, a, a_scales, w, w_scales [N, KB], kernel) of one launch on fresh data."""
    m, n, k = shape
    a, a_s, w, w_s = q8.operands(RNG, m, n, k)
    w_s_arg = np.ascontiguousarray(w_s.T) if source.startswith("q8_qmma") else w_s  # qmma_t: [KB, N]
    ins = [Flat(torch, x) for x in (a, a_s, w, w_s_arg)]
    out = Flat(torch, np.full((m, n), np.nan, np.float32))  # poison
    kernel = aot(source, RING if source == "q8_qmma_ring" else None)
    kernel(*(f.view for f in ins), out.view)
    for f, x in zip(ins, (a, a_s, w, w_s_arg)):
        assert f.result().tobytes() == x.tobytes(), "an input written"
    return out.result(), a, a_s, w, w_s, kernel


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_within_the_f32_bound(source, shape):
    torch = pytest.importorskip("torch")
    got, a, a_s, w, w_s, _ = run(torch, source, shape)
    assert not np.isnan(got).any(), "an output element not written"
    q8.assert_close(got, q8.reference(a, a_s, w, w_s), q8.bound(a, a_s, w, w_s))


@pytest.mark.parametrize("source", SOURCES)
def test_rounds_as_the_interpreter(source):
    torch = pytest.importorskip("torch")
    got, a, a_s, w, w_s, _ = run(torch, source, (130, 200, 300))
    np.testing.assert_array_equal(got, q8.in_f32_order(a, a_s, w, w_s))


@pytest.mark.parametrize("source", ["q8_qmma", "q8_qmma_ring"])
def test_qmma_runs_on_the_integer_tensor_cores(source):
    torch = pytest.importorskip("torch")
    *_, kernel = run(torch, source, (64, 64, 64))
    plan = kernel._last.contract.get("shared_memory", {})
    assert plan["tensor_cores"]["dots"][0]["instruction"] == "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32"
    if source == "q8_qmma_ring":
        assert [(p["applied"], p["stages"]) for p in plan["pipeline"]] == [(True, 4)]
