"""GPU tests of `dot` on CUDA cores (pytest -m gpu; skipped without a GPU).

The GEMM kernels of bench/kernels (masked with a cp.async ring, masked with
synchronous copies, the seed's @aligned form, dot_t, f16 operands) come
compiled ahead of time by bench/aot_build.py. Every test draws fresh random
data, surrounds each matrix with guard zones (and pads rows where the test
says so) that must come back bit-identical, and compares with numpy in
float64: |got - ref| <= rtol * (|alpha| |A| |B| + |beta| |C|), rtol growing
with K as fp32 accumulation error does.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from guarded import RNG, Guarded

import phobos

pytestmark = pytest.mark.gpu

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(os.environ.get("PHOBOS_GPU_ARTIFACTS", ROOT / ".cache" / "gpu"))

# (M, N, K): single elements, ragged everywhere, one under a tile, the bench's ragged size, whole tiles.
RAGGED = [(1, 1, 1), (17, 33, 5), (255, 257, 129), (4095, 4097, 4093)]
WHOLE = [(256, 512, 128), (4096, 4096, 4096)]


def gemm(name: str, **defines):
    suffix = "".join(f"-{k}{v}" for k, v in sorted(defines.items()))
    folder = ARTIFACTS / "aot" / f"{name}{suffix}"
    if not folder.is_dir():
        pytest.skip(f"no ahead-of-time folder {folder}; run bench/aot_build.py")
    return phobos.load(folder)


def _rtol(k: int, dtype=np.float32) -> float:
    eps = 2.0**-24 if dtype == np.float32 else 2.0**-11
    return 4 * (k + 8) * 2.0**-24 + (4 * eps if dtype != np.float32 else 0)


def _check_gemm(kernel, m, n, k, *, pads=(0, 0, 0), alpha=None, beta=None):
    a = Guarded("torch", (m, k), pad=pads[0])
    b = Guarded("torch", (k, n), pad=pads[1])
    c = Guarded("torch", (m, n), pad=pads[2])
    alpha = float(RNG.uniform(0.5, 2.0)) if alpha is None else alpha
    beta = float(RNG.uniform(-1.0, 1.0)) if beta is None else beta
    kernel(a.view, b.view, c.view, alpha, beta)
    av, bv, cv = (x.values.astype(np.float64) for x in (a, b, c))
    ref = alpha * (av @ bv) + beta * cv
    size = abs(alpha) * (np.abs(av) @ np.abs(bv)) + abs(beta) * np.abs(cv)
    c.check(ref, rtol=_rtol(k), size=size)
    a.check(av, rtol=0)
    b.check(bv, rtol=0)


@pytest.mark.parametrize("shape", RAGGED + WHOLE)
@pytest.mark.parametrize("name", ["gemm", "gemm_sync"])
def test_masked_gemm(name, shape):
    _check_gemm(gemm(name), *shape)


@pytest.mark.parametrize("shape", [(255, 257, 129), (64, 64, 64)])
@pytest.mark.parametrize("pads", [(3, 1, 5), (1, 0, 0), (0, 2, 0), (0, 0, 3)])
def test_masked_gemm_padded_rows(shape, pads):
    """Row strides that are not the row length (and not 16-byte multiples): other variants, same answers."""
    _check_gemm(gemm("gemm"), *shape, pads=pads)


@pytest.mark.parametrize("alpha,beta", [(1.0, 0.0), (0.0, 1.0), (-1.5, 2.0)])
def test_alpha_beta(alpha, beta):
    _check_gemm(gemm("gemm"), 255, 257, 129, alpha=alpha, beta=beta)


@pytest.mark.parametrize("shape", WHOLE)
def test_aligned_gemm(shape):
    _check_gemm(gemm("gemm_aligned"), *shape)


@pytest.mark.parametrize("shape", [(255, 256, 128), (256, 257, 128), (256, 256, 129)])
def test_aligned_gemm_broken_promise_raises_before_launch(shape):
    m, n, k = shape
    a, b = Guarded("torch", (m, k)), Guarded("torch", (k, n))
    c = Guarded("torch", (m, n))
    with pytest.raises(ValueError, match=r"@aligned\(.*\) is broken"):
        gemm("gemm_aligned")(a.view, b.view, c.view, 1.0, 0.0)
    c.unchanged()


@pytest.mark.parametrize("shape", [(1, 1, 1), (255, 257, 129), (4096, 4096, 4096)])
def test_dot_t(shape):
    m, n, k = shape
    a, b = Guarded("torch", (m, k)), Guarded("torch", (n, k))
    c = Guarded("torch", (m, n), poison=True)
    gemm("gemm_nt")(a.view, b.view, c.view)
    av, bv = a.values.astype(np.float64), b.values.astype(np.float64)
    c.check(av @ bv.T, rtol=_rtol(k), size=np.abs(av) @ np.abs(bv).T)


@pytest.mark.parametrize("shape", [(1, 1, 1), (255, 257, 129), (4096, 4096, 4096)])
def test_f16_operands_accumulate_in_f32(shape):
    m, n, k = shape
    a = Guarded("torch", (m, k), dtype=np.float16)
    b = Guarded("torch", (k, n), dtype=np.float16)
    c = Guarded("torch", (m, n), poison=True)
    gemm("gemm_f16")(a.view, b.view, c.view)
    av, bv = a.values.astype(np.float64), b.values.astype(np.float64)
    # the products of f16 values are exact in f32: only the f32 sums round
    c.check(av @ bv, rtol=_rtol(k), size=np.abs(av) @ np.abs(bv))
