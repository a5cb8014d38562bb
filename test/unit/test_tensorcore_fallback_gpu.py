"""GPU tests of @tensorcore GEMMs in the original Phobos's shapes (pytest -m gpu; skipped without a GPU).

bench/kernels/tc_small_f16.ph (f16 operands into an f16 accumulator) and
tc_small_tf32.ph (f32 operands on tf32) run 32 x 32 x 16 tiles on 256
threads: one m16 x n8 accumulator tile per warp, as the original's
gemm_fp16.ph and gemm_fp16tc_fp32acc.ph (which failed with an internal error
before). bench/kernels/tc_fallback.ph has @tensorcore dots the tensor cores
cannot run (k steps of 8, a [64, 4] accumulator): they run on CUDA cores
(fma), and the contract says so. Built ahead of time by bench/aot_build.py
(fallback_jobs). Fresh random data, ragged shapes, poisoned outputs with
guard zones, float64 numpy references at bounds that fit each accumulator's
precision.
"""

from __future__ import annotations

import numpy as np
import pytest
from aot_folders import aot
from guarded import Guarded

pytestmark = pytest.mark.gpu

SHAPES = [(1, 1, 1), (17, 33, 5), (32, 32, 16), (100, 70, 49), (255, 257, 129)]
CHIPS = [None, "sm_90a"]  # None: the default chip's variant (sm_90)


def _instruction(kernel) -> str:
    return kernel._last.contract.get("shared_memory", {}).get("tensor_cores", {}).get("instruction")


def _gemm(kernel, m, n, k, dtype, framework="torch", alpha=1.5, beta=-0.5):
    a = Guarded(framework, (m, k), dtype=dtype)
    b = Guarded(framework, (k, n), dtype=dtype, pad=3)
    c = Guarded(framework, (m, n), dtype=dtype)
    kernel(a.view, b.view, c.view, alpha, beta)
    av, bv, cv = (g.values.astype(np.float64) for g in (a, b, c))
    ref = alpha * (av @ bv) + beta * cv
    size = abs(alpha) * (np.abs(av) @ np.abs(bv)) + abs(beta) * np.abs(cv)
    return c, ref, size


@pytest.mark.parametrize("chip", CHIPS, ids=str)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_small_f16_accumulator(chip, shape):
    """f16 accumulation: each of the k additions and the epilogue round to f16 (2^-11 relative)."""
    kernel = aot("tc_small_f16", {}, chip=chip)
    check_small_f16(kernel, *shape, "torch")
    assert _instruction(kernel) == "mma.sync"


def check_small_f16(kernel, m, n, k, framework):
    c, ref, size = _gemm(kernel, m, n, k, np.float16, framework)
    c.check(ref, rtol=(k + 4) * 2.0**-10, size=size)


@pytest.mark.parametrize("chip", CHIPS, ids=str)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_small_tf32(chip, shape):
    """tf32 operands (rounded to 10 mantissa bits, 2^-11 relative each) into f32."""
    kernel = aot("tc_small_tf32", {}, chip=chip)
    check_small_tf32(kernel, *shape, "torch")
    assert _instruction(kernel) == "mma.sync"


def check_small_tf32(kernel, m, n, k, framework):
    c, ref, size = _gemm(kernel, m, n, k, np.float32, framework)
    c.check(ref, rtol=2.0**-9 + 4 * (k + 8) * 2.0**-24, size=size)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_fallback_runs_on_cuda_cores(shape):
    """The dots the tensor cores cannot take run as FMAs: f16 products are exact in f32."""
    kernel = aot("tc_fallback", {})
    check_fallback(kernel, *shape, "torch")
    assert _instruction(kernel) == "fma"
    assert "the reduced extent 8" in kernel._last.contract["shared_memory"]["tensor_cores"]["why not mma.sync"]


def check_fallback(kernel, m, n, k, framework):
    a = Guarded(framework, (m, k), dtype=np.float16)
    b = Guarded(framework, (k, n), dtype=np.float16)
    e = Guarded(framework, (8, 4), dtype=np.float16)
    c = Guarded(framework, (m, n), poison=True)
    d = Guarded(framework, (m, 4), poison=True)
    kernel(a.view, b.view, c.view, e.view, d.view)
    av, bv, ev = (g.values.astype(np.float64) for g in (a, b, e))
    c.check(av @ bv, rtol=4 * (k + 8) * 2.0**-24, size=np.abs(av) @ np.abs(bv))
    a8 = np.zeros((m, 8))
    a8[:, : min(k, 8)] = av[:, :8]
    d.check(a8 @ ev, rtol=4 * 16 * 2.0**-24, size=np.abs(a8) @ np.abs(ev))
