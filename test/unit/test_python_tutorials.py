"""Triton's tutorials ported to @phobos.kernel (examples/python/0*.py), run in the interpreter at
small, ragged sizes against NumPy in float64. Each run() fills its outputs with NaN first, so
an element a kernel does not write fails the comparison."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("mlir")

import phobos  # noqa: E402
from phobos.target import toolkit_dir  # noqa: E402

ROOT = Path(__file__).resolve().parents[2] / "examples" / "python"


def _tutorial(name: str):
    spec = importlib.util.spec_from_file_location(f"phobos_tutorial_{name}", ROOT / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("n", [1, 1000, 3001])
def test_vector_add(n):
    assert _tutorial("01_vector_add").run(n=n, interpret=True, seed=n) <= 2.0**-22 * 8


@pytest.mark.parametrize("m, n", [(7, 300), (3, 9000), (5, 1)])
def test_fused_softmax(m, n):
    # one tile per row (N <= BN), and the online two-pass form (N > the largest tile)
    assert _tutorial("02_fused_softmax").run(m=m, n=n, interpret=True, seed=m * n) < 1e-6


def test_matmul_f16():
    # ragged M, N, K (not multiples of the tiles): masked edges
    assert _tutorial("03_matmul").run(m=100, n=72, k=80, interpret=True) < 1.0


@pytest.mark.parametrize("m, n", [(37, 300), (5, 64), (3, 9000)])  # 9000: backward() takes the two kernels
def test_layer_norm_forward_and_backward(m, n):
    errors = _tutorial("05_layer_norm").run(m=m, n=n, interpret=True, seed=m)
    assert max(errors.values()) < 1e-5, errors


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("h, d", [(2, 32), (1, 256)])
def test_fused_attention(causal, h, d):
    # S = 70: the last query and key blocks are partial
    assert _tutorial("06_fused_attention").run(h=h, s=70, d=d, causal=causal, interpret=True) < 4.0


@pytest.mark.parametrize("bm, bn, s", [(32, 32, 70), (64, 32, 150), (32, 64, 70), (32, 128, 100)])
def test_fused_attention_causal_tilings(bm, bn, s):
    # the causal kernel's two loops (unmasked blocks, then the masked diagonal band) at BN below,
    # at and above BM: the band starts at the last BN boundary at or below the query block
    t = _tutorial("06_fused_attention")
    rng = np.random.default_rng(s)
    q, k, v = (rng.standard_normal((2, s, 32)).astype(np.float16) for _ in range(3))
    o = np.full((2, s, 32), np.nan, np.float16)
    t.attention_fwd_causal.with_defines(BM=bm, BN=bn, D=32, W=128).interpret(q, k, v, o, 32**-0.5)
    assert np.max(np.abs(o - t.reference(q, k, v, 32**-0.5, causal=True))) < 4 * 2.0**-11


def _attention_sm90a(kernel: str, cache: Path):
    """The sm_90a artifact of a tutorial 06 kernel at the bench's tiling for D = 64 (aligned heads)."""
    from phobos.runtime.aot import like

    k = phobos.compile(
        ROOT / "06_fused_attention.py",
        kernel=kernel,
        chip="sm_90a",
        defines={"BM": 128, "BN": 64, "D": 64, "W": 256},
        cache_dir=cache,
    )
    return k.warmup(*(like("f16", (128, 4096, 64)),) * 4, 0.125)


@pytest.mark.skipif(toolkit_dir() is None, reason="ptxas (nvidia-cuda-nvcc-cu12) is not installed")
def test_fused_attention_causal_runs_the_full_kernels_schedule(tmp_path):
    # Issue 24/26: the causal kernel took longer than the full one for half the work. It held a
    # BM x BM f32 mask tile across its loop and masked every block (223 registers at BM = 128:
    # one CTA per SM, against 125 and two for the full kernel). Its two loops now each stream K
    # and V through a TMA ring into wgmma, the first without a mask, at the full kernel's registers.
    from phobos.runtime.autotune.resources import cubin_resources

    # (The full kernel's one ring runs under warp roles, a producer warpgroup issuing its copies;
    # the causal kernel's two rings keep the plain schedule, two CTAs per SM.)
    full, causal = (_attention_sm90a(name, tmp_path) for name in ("attention_fwd", "attention_fwd_causal"))
    full_ptx, causal_ptx = full.asm["ptx"], causal.asm["ptx"]
    assert causal_ptx.count("wgmma.mma_async") == 2 * full_ptx.count("wgmma.mma_async") > 0
    # each ring: the copies of its prologue's S - 1 = 2 stages and of its refill, two tiles each
    assert causal_ptx.count("cp.async.bulk.tensor") == 2 * 3 * 2
    assert causal_ptx.count("mbarrier.try_wait") == 2 and "setmaxnreg" not in causal_ptx
    assert "setp.gt.f32" not in causal_ptx  # no f32 mask tile compared with 0.5
    assert "ld.local" not in causal_ptx and "st.local" not in causal_ptx
    # hardware launch order, not the grouped order of GEMMs: Q, K and V all read head block_id(1)
    # (analysis/grid.dot_operands_shared_across_y), so one head's query blocks run together
    assert "nctaid" not in full_ptx and "nctaid" not in causal_ptx
    regs = cubin_resources(causal.cubin, causal.contract["kernel"]).registers
    assert regs <= 128, regs  # 256 threads: two CTAs per SM fit in 128 registers
