"""qdot_t and qmma_t (frontend/quantized.py, quantized_ir.py) in the interpreter: rounding for
rounding the f32 order the tile IR states, and within the f32 bound of the float64 definition
(q8_reference.py), on ragged M, N and K; every located error of the checker; and a planted
wrong reference that the bound catches. bench/kernels/q8_qdot.ph and q8_qmma.ph are the
kernels test_quantized_gpu.py runs on the GPU.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("mlir")

import q8_reference as q8  # noqa: E402
from test_interpreter import guard_intact, guarded, program  # noqa: E402

import phobos  # noqa: E402
from phobos.compiler import CompileError  # noqa: E402
from phobos.frontend import check_source  # noqa: E402
from phobos.interpreter import run_program  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
RNG = np.random.default_rng()


def check(got, a, a_s, w, w_s) -> None:
    np.testing.assert_array_equal(got, q8.in_f32_order(a, a_s, w, w_s))
    q8.assert_close(got, q8.reference(a, a_s, w, w_s), q8.bound(a, a_s, w, w_s))


@pytest.mark.parametrize("shape", [(3, 70, 100), (1, 32, 32), (2, 5, 1)], ids=str)
def test_qdot_kernel(interpret_mode, shape):
    """bench/kernels/q8_qdot.ph: a row per program, K a runtime extent (ragged: zeros past it)."""
    m, n, k = shape
    a, a_s, w, w_s = q8.operands(RNG, m, n, k)
    c, buffer = guarded((m, n))
    phobos.compile(ROOT / "bench" / "kernels" / "q8_qdot.ph")(a, a_s, w, w_s, c)
    check(c, a, a_s, w, w_s)
    assert guard_intact(buffer, np.nan)


@pytest.mark.parametrize("source", ["q8_qmma", "q8_qmma_ring"])
@pytest.mark.parametrize("shape", [(70, 72, 100), (64, 64, 64), (130, 72, 300)], ids=str)
def test_qmma_kernel(interpret_mode, source, shape):
    """bench/kernels/q8_qmma.ph ([64, 64] tiles) and q8_qmma_ring.ph (first candidate: [128, 64]
    tiles, a 4-stage ring): the weight scales block-major [KB, N]."""
    m, n, k = shape
    a, a_s, w, w_s = q8.operands(RNG, m, n, k)
    c, buffer = guarded((m, n))
    phobos.compile(ROOT / "bench" / "kernels" / f"{source}.ph")(a, a_s, w, np.ascontiguousarray(w_s.T), c)
    check(c, a, a_s, w, w_s)
    assert guard_intact(buffer, np.nan)


SPLIT = """
@autotune(TN in [16], SLICE in [64], SB in [2])
kernel q8_split(A: tensor<i8>[M, K], AS: tensor<f32>[M, KB],
                W: tensor<i8>[N, K], WS: tensor<f32>[N, KB], P: tensor<f32>[S, N]) {
  let pn = program_id(0)
  let ps = program_id(1)
  P[ps :+ 1, pn * TN :+ TN] = qdot_t(A[0 :+ 1, ps * SLICE :+ SLICE], AS[0 :+ 1, ps * SB :+ SB],
                                     W[pn * TN :+ TN, ps * SLICE :+ SLICE], WS[pn * TN :+ TN, ps * SB :+ SB])
}
"""


def test_qdot_over_slices_of_k():
    """The original's split form: each program contracts its own 64 elements of K (and its 2
    scales), so the partial sums add up to the whole; a last slice past K reads zeros."""
    n, k, splits = 20, 160, 3
    a, a_s, w, w_s = q8.operands(RNG, 1, n, k)
    p, buffer = guarded((splits, n))
    run_program(program(SPLIT), [a, a_s, w, w_s, p], (2, splits, 1))
    for s in range(splits):
        part = slice(64 * s, 64 * s + 64)
        scales = slice(2 * s, 2 * s + 2)
        check(p[s : s + 1], a[:, part], a_s[:, scales], w[:, part], w_s[:, scales])
    assert guard_intact(buffer, np.nan)


def test_a_planted_wrong_reference_fails():
    """The bound is tight enough to see a reference that drops the last partial block, or that
    pairs each weight scale with the next block's sums."""
    a, a_s, w, w_s = q8.operands(RNG, 4, 8, 100)
    got = q8.in_f32_order(a, a_s, w, w_s)
    limit = q8.bound(a, a_s, w, w_s)
    q8.assert_close(got, q8.reference(a, a_s, w, w_s), limit)
    with pytest.raises(AssertionError):
        q8.assert_close(got, q8.reference(a[:, :96], a_s[:, :3], w[:, :96], w_s[:, :3]), limit)
    with pytest.raises(AssertionError):
        q8.assert_close(got, q8.reference(a, a_s, w, np.roll(w_s, 1, axis=1)), limit)


def errors(body: str, params: str = "") -> str:
    src = (
        "kernel k(A: tensor<i8>[M, K], AS: tensor<f32>[M, KB], W: tensor<i8>[N, K], "
        f"WS: tensor<f32>[N, KB], V: tensor<f32>[KB, N], C: tensor<f32>[M, N]{params}) {{\n  {body}\n}}\n"
    )
    with pytest.raises(CompileError) as info:
        check_source(src, "bad.ph")
    return str(info.value)


GOOD = "A[0 :+ 8, :], AS[0 :+ 8, :], W[0 :+ 8, :], WS[0 :+ 8, :]"


@pytest.mark.parametrize(
    "body, message",
    [
        (
            "let x = qdot_t(A[0 :+ 8, :], AS[0 :+ 8, :], W[0 :+ 8, :])",
            "2:11: error: 'qdot_t' expects 4 arguments, got 3",
        ),
        (f"let x = qdot_t({GOOD}, sem = 1)", "2:76: error: 'qdot_t' takes no keyword arguments"),
        (
            "let t = AS[0 :+ 8, 0 :+ 1]\n  let x = qdot_t(A[0 :+ 8, :], t, W[0 :+ 8, :], WS[0 :+ 8, :])",
            "3:32: error: the a_scales of 'qdot_t' must be a slice of a tensor<f32> parameter, [rows, K/32], "
            "such as 'X[r :+ 8, :]'",
        ),
        (
            "let x = qdot_t(AS[0 :+ 8, :], AS[0 :+ 8, :], W[0 :+ 8, :], WS[0 :+ 8, :])",
            "2:18: error: the a of 'qdot_t' must be a slice of a tensor<i8> parameter, [rows, K]; "
            "'AS' is tensor<f32>[M, KB]",
        ),
        (
            "let x = qdot_t(A[0 :+ 8, :], A[0 :+ 8, :], W[0 :+ 8, :], WS[0 :+ 8, :])",
            "2:32: error: the a_scales of 'qdot_t' must be a slice of a tensor<f32> parameter",
        ),
        (
            "let x = qdot_t(A[0, :], AS[0 :+ 8, :], W[0 :+ 8, :], WS[0 :+ 8, :])",
            "2:18: error: the a of 'qdot_t' must be a slice of a tensor<i8> parameter, [rows, K]: "
            "a span, range or ':' in both dimensions",
        ),
        (
            "let x = qdot_t(A[0 :+ 8, :], AS[0 :+ 4, :], W[0 :+ 8, :], WS[0 :+ 8, :])",
            "2:35: error: the a_scales of 'qdot_t' cover 4 rows of its output, but a has 8",
        ),
        (
            "let x = qdot_t(A[0 :+ 8, :], AS[0 :+ 8, :], W[0 :+ 8, 0 :+ 64], WS[0 :+ 8, :])",
            "2:57: error: the K extents of 'qdot_t' do not agree: a has the runtime extent 'K', w has 64",
        ),
        (
            "let x = qdot_t(A[0 :+ 8, 0 :+ 48], AS[0 :+ 8, 0 :+ 2], W[0 :+ 8, 0 :+ 48], WS[0 :+ 8, 0 :+ 2])",
            "2:33: error: a K slice of 'qdot_t' must be a whole number of 32-element Q8_0 blocks; "
            "the a slice has 48 elements",
        ),
        (
            "let x = qdot_t(A[0 :+ 8, 0 :+ 64], AS[0 :+ 8, 0 :+ 1], W[0 :+ 8, 0 :+ 64], WS[0 :+ 8, 0 :+ 2])",
            "2:49: error: the a_scales of 'qdot_t' hold 1 blocks along K, but K = 64 is 2 blocks of 32",
        ),
        (
            "let x = qmma_t(A[0 :+ 4, :], AS[0 :+ 4, :], W[0 :+ 8, :], V[:, 0 :+ 8])",
            "2:20: error: 'qmma_t' needs M and N multiples of 8; the a slice has 4 rows",
        ),
        (
            "let x = qdot_t(A[0 :+ 8, :], AS[:, :], W[0 :+ 8, :], WS[0 :+ 8, :])",
            "2:35: error: ':' takes the whole dimension, which needs a compile-time extent",
        ),
    ],
)
def test_located_errors(body, message):
    text = errors(body)
    assert "bad.ph:" + message in text
    assert "errors generated" not in text  # one error, no echo of the others


def test_good_calls_check():
    for call in (
        f"C[0 :+ 8, 0 :+ 8] = qdot_t({GOOD})",
        "C[0 :+ 8, 0 :+ 8] = qmma_t(A[0 :+ 8, :], AS[0 :+ 8, :], W[0 :+ 8, :], V[:, 0 :+ 8])",
        f"C[0 :+ 8, 0 :+ 8] += qdot_t({GOOD})",
    ):
        src = (
            "kernel k(A: tensor<i8>[M, K], AS: tensor<f32>[M, KB], W: tensor<i8>[N, K], "
            f"WS: tensor<f32>[N, KB], V: tensor<f32>[KB, N], C: tensor<f32>[M, N]) {{\n  {call}\n}}\n"
        )
        check_source(src, "good.ph")


@pytest.mark.parametrize("source", ["q8_qdot", "q8_qmma"])
@pytest.mark.parametrize("blocks", [3, 5])
def test_scales_that_do_not_count_the_blocks_of_k_are_refused(interpret_mode, source, blocks):
    """With K a runtime extent, the scale tensors' block dimension (KB) must be ceil(K / 32): the
    kernel records it (tile.extent_blocks, the contract's extent_blocks) and the launch refuses
    other extents naming the parameter, instead of reading zero scales past the end (too few) or
    leaving some unread (too many). K = 100 is 4 blocks."""
    m, n, k = 64, 64, 100
    a, a_s, w, w_s = q8.operands(RNG, m, n, k)
    a_s = np.ones((m, blocks), np.float32)
    w_s = np.ones((n, blocks), np.float32)
    kernel = phobos.compile(ROOT / "bench" / "kernels" / f"{source}.ph")
    assert kernel.contract["extent_blocks"] == [{"symbol": "KB", "of": "K", "block": 32}]
    ws_arg = np.ascontiguousarray(w_s.T) if source == "q8_qmma" else w_s
    c = np.full((m, n), np.nan, np.float32)
    with pytest.raises(ValueError, match=rf"AS\.shape\[1\] is {blocks}, but it counts the 32-element blocks of K = 100 "
                       r"\(A\.shape\[1\]\): it must be 4"):  # fmt: skip
        kernel(a, a_s, w, ws_arg, c)
    assert np.isnan(c).all()  # nothing ran
