"""Triton's tutorials ported to @phobos.kernel (examples/python/0*.py), run in the interpreter at
small, ragged sizes against NumPy in float64. Each run() fills its outputs with NaN first, so
an element a kernel does not write fails the comparison."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

pytest.importorskip("mlir")

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


@pytest.mark.parametrize("m, n", [(37, 300), (5, 64)])
def test_layer_norm_forward_and_backward(m, n):
    errors = _tutorial("05_layer_norm").run(m=m, n=n, interpret=True, seed=m)
    assert max(errors.values()) < 1e-5, errors


@pytest.mark.parametrize("causal", [False, True])
def test_fused_attention(causal):
    # S = 70: the last query and key blocks are partial
    assert _tutorial("06_fused_attention").run(h=2, s=70, d=32, causal=causal, interpret=True) < 4.0
