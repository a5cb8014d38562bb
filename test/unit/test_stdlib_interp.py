"""The standard library (std.nn, frontend/stdlib/nn.ph) in the interpreter against NumPy.

Each function is called from a kernel compiled by the real front end (calls inlined by
tile-inline) and run by the interpreter on ragged shapes with poisoned guard zones; the
references are NumPy in float64 (torch's definitions written out), and the Philox generator
is checked against Random123's known-answer vector and an independent NumPy implementation."""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("mlir")

from philox_ref import philox4x32_10  # noqa: E402
from test_interpreter import cdiv, guard_intact, guarded, program, random_tensor  # noqa: E402

from phobos.interpreter import run_program  # noqa: E402

ERF = np.vectorize(math.erf)

UNARY = """
@autotune(BR in [8], BC in [64])
kernel k(X: tensor<f32>[M, N], Y: tensor<f32>[M, N]) {
  let r = ctx.block.x * BR
  Y[r :+ BR, 0 :+ BC] = FN(LOAD)
}
"""


def _run_unary(fn: str, shape, load="X[r :+ BR, 0 :+ BC]"):
    prog = program(UNARY.replace("FN", fn).replace("LOAD", load))
    x, xbuf = random_tensor(shape)
    x[...] *= 2.0
    y, ybuf = guarded(shape)
    run_program(prog, [x, y], (cdiv(shape[0], 8), 1, 1))
    assert guard_intact(ybuf, np.nan) and guard_intact(xbuf, np.nan)
    return x.astype(np.float64), y


def _sigmoid(v):
    return 1.0 / (1.0 + np.exp(-v))


ELEMENTWISE = {
    "gelu": lambda v: 0.5 * v * (1.0 + ERF(v / math.sqrt(2.0))),
    "gelu_tanh": lambda v: 0.5 * v * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (v + 0.044715 * v**3))),
    "silu": lambda v: v * _sigmoid(v),
    "softplus": lambda v: np.log1p(np.exp(v)),
}


@pytest.mark.parametrize("name", sorted(ELEMENTWISE))
@pytest.mark.parametrize("shape", [(1, 1), (13, 50)])
def test_elementwise_activations(name, shape):
    x, y = _run_unary(name, shape)
    np.testing.assert_allclose(y, ELEMENTWISE[name](x), rtol=2e-6, atol=2e-6)


def test_softplus_keeps_relative_precision_far_below_zero():
    # log(1 + exp(x)) rounds 1 + exp(x) to 1 in f32 below x = -17 and gives 0; log1p does not
    prog = program(UNARY.replace("FN", "softplus").replace("LOAD", "X[r :+ BR, 0 :+ BC]"))
    x, xbuf = random_tensor((13, 50))
    x[...] = np.linspace(-80.0, -10.0, x.size, dtype=np.float32).reshape(x.shape)
    y, ybuf = guarded(x.shape)
    run_program(prog, [x, y], (cdiv(13, 8), 1, 1))
    want = np.log1p(np.exp(x.astype(np.float64)))
    np.testing.assert_allclose(y, want, rtol=1e-6, atol=0)
    assert guard_intact(ybuf, np.nan) and guard_intact(xbuf, np.nan)


@pytest.mark.parametrize("name", ["softmax_rows", "log_softmax_rows"])
def test_row_softmax_on_ragged_rows(name):
    shape = (13, 50)  # 50 of the 64 columns of the tile: the rest read as -inf
    x, y = _run_unary(name, shape, load="padded(X[r :+ BR, 0 :+ BC], -inf)")
    s = x - x.max(axis=1, keepdims=True)
    logsm = s - np.log(np.exp(s).sum(axis=1, keepdims=True))
    want = logsm if name == "log_softmax_rows" else np.exp(logsm)
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-6)


NORMS = """
@autotune(BR in [4], BC in [64])
kernel norms(X: tensor<f32>[M, N], W: tensor<f32>[N], B: tensor<f32>[N], L: tensor<f32>[M, N],
             Q: tensor<f32>[M, N], S: tensor<f32>[M, N], eps: f32) {
  let r = ctx.block.x * BR
  let x = X[r :+ BR, 0 :+ BC]
  let w = W[0 :+ BC]
  L[r :+ BR, 0 :+ BC] = layer_norm_rows(x, w, B[0 :+ BC], i32(N), eps)
  Q[r :+ BR, 0 :+ BC] = rms_norm_rows(x, w, i32(N), eps)
  S[r :+ BR, 0 :+ BC] = swiglu(x, X[r :+ BR, 0 :+ BC] * 0.5)
}
"""


@pytest.mark.parametrize("shape", [(1, 1), (9, 37), (6, 64)])
def test_norms_and_swiglu(shape):
    prog = program(NORMS)
    x, _ = random_tensor(shape)
    x[...] += 0.75  # a mean away from zero
    w, _ = random_tensor((shape[1],))
    b, _ = random_tensor((shape[1],))
    outs = [guarded(shape) for _ in range(3)]
    eps = 1e-5
    run_program(prog, [x, w, b] + [o for o, _ in outs] + [eps], (cdiv(shape[0], 4), 1, 1))
    v = x.astype(np.float64)
    mean = v.mean(axis=1, keepdims=True)
    var = v.var(axis=1, keepdims=True)
    ln = (v - mean) / np.sqrt(var + eps) * w + b
    rms = v / np.sqrt((v * v).mean(axis=1, keepdims=True) + eps) * w
    sw = v * _sigmoid(v) * (0.5 * v)
    for (out, buf), want in zip(outs, (ln, rms, sw)):
        np.testing.assert_allclose(out, want, rtol=2e-5, atol=2e-5)
        assert guard_intact(buf, np.nan)


CE = """
@autotune(BR in [4], BC in [64])
kernel ce(X: tensor<f32>[M, N], T: tensor<i32>[M, 1], L: tensor<f32>[M, 1]) {
  let r = ctx.block.x * BR
  L[r :+ BR, 0 :+ 1] = cross_entropy_rows(X[r :+ BR, 0 :+ BC], T[r :+ BR, 0 :+ 1], i32(N))
}
"""


@pytest.mark.parametrize("shape", [(1, 3), (10, 45)])
def test_cross_entropy_rows(shape):
    prog = program(CE)
    x, _ = random_tensor(shape)
    x[...] *= 3.0
    t = np.random.default_rng(5).integers(0, shape[1], (shape[0], 1)).astype(np.int32)
    loss, buf = guarded((shape[0], 1))
    run_program(prog, [x, t, loss], (cdiv(shape[0], 4), 1, 1))
    v = x.astype(np.float64)
    m = v.max(axis=1, keepdims=True)
    lse = m + np.log(np.exp(v - m).sum(axis=1, keepdims=True))
    want = lse - np.take_along_axis(v, t.astype(np.int64), axis=1)
    np.testing.assert_allclose(loss, want, rtol=1e-5, atol=1e-5)
    assert guard_intact(buf, np.nan)


ROTARY = """
@autotune(BR in [8], H in [16])
kernel rope(X: tensor<f16>[M, D], C: tensor<f32>[M, H2], S: tensor<f32>[M, H2], Y: tensor<f16>[M, D]) {
  let r = ctx.block.x * BR
  let x1 = X[r :+ BR, 0 :+ H]
  let x2 = X[r :+ BR, H :+ H]
  let c = C[r :+ BR, 0 :+ H]
  let s = S[r :+ BR, 0 :+ H]
  Y[r :+ BR, 0 :+ H] = rotary_first(x1, x2, c, s)
  Y[r :+ BR, H :+ H] = rotary_second(x1, x2, c, s)
}
"""


def test_rotary_embedding_f16():
    m, h = 19, 16
    prog = program(ROTARY)
    x, _ = random_tensor((m, 2 * h), np.float16)
    theta = np.random.default_rng(3).uniform(0, 2 * np.pi, (m, h))
    c, s = np.cos(theta).astype(np.float32), np.sin(theta).astype(np.float32)
    y, buf = guarded((m, 2 * h), np.float16)
    run_program(prog, [x, c, s, y], (cdiv(m, 8), 1, 1))
    v = x.astype(np.float64)
    x1, x2 = v[:, :h], v[:, h:]
    want = np.concatenate([x1 * c - x2 * s, x2 * c + x1 * s], axis=1)
    np.testing.assert_allclose(y.astype(np.float64), want, rtol=2e-3, atol=2e-3)  # f16 rounding
    assert guard_intact(buf, np.nan)


# ----------------------------------------------------------------------------- Philox


def test_reference_philox_matches_random123_known_answers():
    zero = philox4x32_10([0, 0, 0, 0], (0, 0))
    assert [int(w) for w in zero] == [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]
    ones = philox4x32_10([0xFFFFFFFF] * 4, (0xFFFFFFFF, 0xFFFFFFFF))
    assert [int(w) for w in ones] == [0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD]
    pi = philox4x32_10([0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344], (0xA4093822, 0x299F31D0))
    assert [int(w) for w in pi] == [0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1]
    # the GPU test checks std.nn's philox against this same reference (philox_ref.py), not a copy
    import test_stdlib_more_gpu

    assert test_stdlib_more_gpu.philox4x32_10 is philox4x32_10


RNG_KERNEL = """
@autotune(BR in [16], BC in [32])
kernel rng(O: tensor<i32>[M, N], X: tensor<f32>[M, N], W: tensor<i64>[M, N], U: tensor<f32>[M, N],
           Z: tensor<f32>[M, N], D: tensor<f32>[M, N], seed: i64, p: f32) {
  let r = ctx.block.x * BR
  let c = ctx.block.y * BC
  let o = O[r :+ BR, c :+ BC]
  W[r :+ BR, c :+ BC] = philox(seed, o)
  U[r :+ BR, c :+ BC] = rand(seed, o)
  Z[r :+ BR, c :+ BC] = randn(seed, o)
  D[r :+ BR, c :+ BC] = dropout(X[r :+ BR, c :+ BC], p, seed, o)
}
"""


@pytest.mark.parametrize("seed", [0, 0x123456789ABCDEF, -5])
def test_philox_rand_randn_dropout(seed):
    shape, p = (40, 70), 0.3
    prog = program(RNG_KERNEL)
    offs = np.arange(shape[0] * shape[1], dtype=np.int32).reshape(shape) * 7 + 3
    x, _ = random_tensor(shape)
    w, wbuf = guarded(shape, np.int64, fill=-77)
    u, z, d = (guarded(shape)[0] for _ in range(3))
    run_program(prog, [offs, x, w, u, z, d, seed, p], (cdiv(shape[0], 16), cdiv(shape[1], 32), 1))
    key = (seed & 0xFFFFFFFF, (seed >> 32) & 0xFFFFFFFF)
    w0, w1, _, _ = philox4x32_10([offs.astype(np.int64), 0, 0, 0], key)
    packed = (w0 | (w1 << np.uint64(32))).view(np.int64)
    np.testing.assert_array_equal(w, packed)
    assert guard_intact(wbuf, -77)
    uniform = (w0 >> np.uint64(8)).astype(np.float64) * 2.0**-24
    np.testing.assert_array_equal(u, uniform.astype(np.float32))
    assert 0.0 <= u.min() and u.max() < 1.0 and abs(u.mean() - 0.5) < 0.03
    u1 = ((w0 >> np.uint64(8)).astype(np.float64) + 1.0) * 2.0**-24
    u2 = (w1 >> np.uint64(8)).astype(np.float64) * 2.0**-24
    normal = np.sqrt(-2.0 * np.log(u1)) * np.cos(2.0 * np.pi * u2)
    np.testing.assert_allclose(z, normal, rtol=1e-4, atol=1e-4)
    assert abs(z.mean()) < 0.08 and abs(z.std() - 1.0) < 0.08
    keep = uniform.astype(np.float32) >= np.float32(p)
    np.testing.assert_allclose(d, np.where(keep, x.astype(np.float64) / (1.0 - p), 0.0), rtol=1e-6)
    assert abs(keep.mean() - (1.0 - p)) < 0.05


# ----------------------------------------------------------------------------- Q8_0

Q8 = """
@autotune(BR in [4])
kernel q8(X: tensor<f32>[M, 32], S: tensor<f32>[M, 1], Q: tensor<i8>[M, 32], Y: tensor<f32>[M, 32]) {
  let r = ctx.block.x * BR
  let x = X[r :+ BR, 0 :+ 32]
  let s = q8_0_scale(x)
  let q = q8_0_quantize(x, s)
  S[r :+ BR, 0 :+ 1] = s
  Q[r :+ BR, 0 :+ 32] = q
  Y[r :+ BR, 0 :+ 32] = q8_0_dequantize(q, s)
}
"""


def test_q8_0_round_trip():
    m = 11
    prog = program(Q8)
    x, _ = random_tensor((m, 32))
    x[3] = 0.0  # a block of zeros: scale 0, quants 0
    s, sbuf = guarded((m, 1))
    q, qbuf = guarded((m, 32), np.int8, fill=-77)
    y, ybuf = guarded((m, 32))
    run_program(prog, [x, s, q, y], (cdiv(m, 4), 1, 1))
    v = x.astype(np.float64)
    scale = np.abs(v).max(axis=1, keepdims=True) / 127.0
    np.testing.assert_allclose(s, scale, rtol=1e-6)
    with np.errstate(divide="ignore"):
        inv = np.where(s == 0, 0.0, 1.0 / s.astype(np.float32)).astype(np.float32)
    quants = np.round(x * inv)  # NumPy rounds ties to even, as round() does
    np.testing.assert_array_equal(q, quants.astype(np.int8))
    np.testing.assert_allclose(y, q.astype(np.float64) * s, rtol=1e-6)
    assert np.abs(y - v).max() <= scale.max() / 2 + 1e-6
    assert guard_intact(sbuf, np.nan) and guard_intact(qbuf, -77) and guard_intact(ybuf, np.nan)
