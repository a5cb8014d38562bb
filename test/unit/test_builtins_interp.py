"""The builtins of issue 29 (cumsum's axis, math, argmax, iota, bit operations) in the
interpreter against NumPy, on ragged shapes with poisoned outputs in guard zones.

Each kernel is compiled by the real front end to tile IR and run by the interpreter;
the references are NumPy in float64 (or exact integers)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("mlir")

from test_interpreter import cdiv, guard_intact, guarded, program, random_tensor  # noqa: E402

from phobos.interpreter import run_program  # noqa: E402

CUMSUM = """
@autotune(BR in [16], BC in [32])
kernel cs(X: tensor<f32>[M, N], Y0: tensor<f32>[M, N], Y1: tensor<f32>[M, N], YD: tensor<f32>[M, N]) {
  let r = ctx.block.x * BR
  let c = ctx.block.y * BC
  let x = X[r :+ BR, c :+ BC]
  Y0[r :+ BR, c :+ BC] = cumsum(x, 0)
  Y1[r :+ BR, c :+ BC] = cumsum(x, 1)
  YD[r :+ BR, c :+ BC] = cumsum(x)
}
"""


def _tile_cumsum(x: np.ndarray, axis: int, br: int, bc: int) -> np.ndarray:
    """cumsum of each [br, bc] tile of x along `axis` (elements outside x read as zero)."""
    m, n = x.shape
    pad = np.zeros((cdiv(m, br) * br, cdiv(n, bc) * bc))
    pad[:m, :n] = x
    tiles = pad.reshape(cdiv(m, br), br, cdiv(n, bc), bc)
    return np.cumsum(tiles, axis=1 + 2 * axis).reshape(pad.shape)[:m, :n]


@pytest.mark.parametrize("shape", [(1, 1), (17, 33), (40, 70)])
def test_cumsum_axes_against_numpy(shape):
    prog = program(CUMSUM)
    x, xbuf = random_tensor(shape)
    outs = [guarded(shape) for _ in range(3)]
    run_program(prog, [x] + [o for o, _ in outs], (cdiv(shape[0], 16), cdiv(shape[1], 32), 1))
    x64 = x.astype(np.float64)
    for (out, buf), axis in zip(outs, (0, 1, 0)):
        np.testing.assert_allclose(out, _tile_cumsum(x64, axis, 16, 32), rtol=1e-5, atol=1e-5)
        assert guard_intact(buf, np.nan)
    assert not np.allclose(outs[0][0], outs[1][0]) or shape == (1, 1)  # the two axes differ
    assert guard_intact(xbuf, np.nan)


MATH = """
@autotune(B in [64])
kernel mf(X: tensor<f32>[N], Z: tensor<f32>[N], W: tensor<f32>[N], Y: tensor<f32>[18, N]) {
  let s = ctx.block.x * B
  let x = X[s :+ B]
  let z = Z[s :+ B]
  let w = W[s :+ B]
  Y[0, s :+ B] = erf(x)
  Y[1, s :+ B] = exp2(x)
  Y[2, s :+ B] = log2(x)
  Y[3, s :+ B] = rsqrt(x)
  Y[4, s :+ B] = sigmoid(x)
  Y[5, s :+ B] = floor(x)
  Y[6, s :+ B] = ceil(x)
  Y[7, s :+ B] = round(x)
  Y[8, s :+ B] = sin(x)
  Y[9, s :+ B] = cos(x)
  Y[10, s :+ B] = pow(x, z)
  Y[11, s :+ B] = fma(x, z, w)
  Y[12, s :+ B] = clamp(x, z, w)
  Y[13, s :+ B] = where(isnan(x), 1.0, 0.0) + where(isinf(x), 2.0, 0.0)
  Y[14, s :+ B] = max(x, z) - min(x, 0.5)
  Y[15, s :+ B] = f32(iota(B) + i32(s))
  Y[16, s :+ B] = log1p(x)
  Y[17, s :+ B] = expm1(x)
}
"""


def _sigmoid(x):
    with np.errstate(over="ignore"):
        return 1.0 / (1.0 + np.exp(-x))


MATH_REFERENCES = [
    np.vectorize(__import__("math").erf, otypes=[np.float64]),
    np.exp2,
    np.log2,
    lambda x: 1 / np.sqrt(x),
    _sigmoid,
    np.floor,
    np.ceil,
    np.rint,
    np.sin,
    np.cos,
]


def _math_inputs(n):
    rng = np.random.default_rng(29)
    x = rng.uniform(-6, 6, n)
    edges = [0.5, 1.5, 2.5, -0.5, -2.5, np.nan, np.inf, -np.inf, 0.0, -0.0, 100.0, -100.0]  # ties to even, edges
    x[: min(n, 12)] = edges[:n]
    z = rng.uniform(-3, 3, n)
    w = z + rng.uniform(0, 3, n)  # clamp's hi >= lo
    return x.astype(np.float32), z.astype(np.float32), w.astype(np.float32)


@pytest.mark.parametrize("n", [1, 100, 201])
def test_math_functions_against_numpy(n):
    prog = program(MATH)
    x, z, w = _math_inputs(n)
    y, ybuf = guarded((18, n))
    run_program(prog, [x, z, w, y], (cdiv(n, 64), 1, 1))
    x64, z64, w64 = (a.astype(np.float64) for a in (x, z, w))
    with np.errstate(all="ignore"):
        refs = [f(x64) for f in MATH_REFERENCES]
        refs += [np.power(x64, z64), x64 * z64 + w64, np.clip(x64, z64, w64)]
        refs += [np.isnan(x64) + 2.0 * np.isinf(x64), np.maximum(x64, z64) - np.minimum(x64, 0.5)]
        refs += [np.arange(n, dtype=np.float64), np.log1p(x64), np.expm1(x64)]
    for k, ref in enumerate(refs):
        np.testing.assert_allclose(y[k], ref.astype(np.float32), rtol=4e-7, atol=1e-37, err_msg=f"row {k}")
    assert guard_intact(ybuf, np.nan)
    if n > 12:
        assert list(y[7, :5]) == [0.0, 2.0, 2.0, -0.0, -2.0]  # round: ties to even
        assert y[4, 11] > 0 and y[4, 11] < 1e-43  # sigmoid(-100) is subnormal, not 0


ARGMAX = """
kernel am(X: tensor<f32>[R, 32], I: tensor<i32>[R], J: tensor<i32>[R, 1], K: tensor<i32>[32], T: tensor<i32>[2],
          A: tensor<i32>[R, 32], P: tensor<i32>[R, 32]) {
  let x = X[0 :+ 16, :]
  I[0 :+ 16] = argmax(x, 1)
  J[0 :+ 16, 0 :+ 1] = rowargmin(x)
  K[:] = argmax(x, 0)
  T[0] = argmax(x)
  T[1] = argmin(x)
  let a = A[0 :+ 16, :]
  P[0 :+ 16, :] = popcount(a) + where(rowargmax(a) == 3, 100, 0)
}
"""


def _first(x, axis, pick):
    """numpy's argmax/argmin, whose ties go to the lowest index and whose NaN wins."""
    return (np.argmax if pick == "max" else np.argmin)(x, axis=axis)


@pytest.mark.parametrize("case", ["random", "ties", "nan"])
def test_argmax_against_numpy(case):
    rng = np.random.default_rng(7)
    x = rng.integers(-3, 4, (16, 32)).astype(np.float32) if case != "random" else rng.normal(size=(16, 32))
    x = x.astype(np.float32)
    if case == "nan":
        x[2, 5] = x[2, 9] = x[7, 0] = np.nan
    a = rng.integers(-(2**31), 2**31 - 1, (16, 32)).astype(np.int32)
    a[4, 3] = 2**31 - 1  # row 4's maximum at column 3
    outs = {"I": (16,), "J": (16, 1), "K": (32,), "T": (2,), "P": (16, 32)}
    bufs = {k: guarded(s, np.int32, fill=-77) for k, s in outs.items()}
    v = {k: b[0] for k, b in bufs.items()}
    run_program(program(ARGMAX), [x, v["I"], v["J"], v["K"], v["T"], a, v["P"]], (1, 1, 1))
    np.testing.assert_array_equal(v["I"], _first(x, 1, "max"))
    np.testing.assert_array_equal(v["J"][:, 0], _first(x, 1, "min"))
    np.testing.assert_array_equal(v["K"], _first(x, 0, "max"))
    np.testing.assert_array_equal(v["T"], [_first(x, None, "max"), _first(x, None, "min")])
    bits = np.array([bin(int(u)).count("1") for u in a.view(np.uint32).ravel()]).reshape(a.shape)
    np.testing.assert_array_equal(v["P"], bits + 100 * (np.argmax(a, axis=1) == 3)[:, None])
    assert all(guard_intact(b[1], -77) for b in bufs.values())
    if case == "nan":
        assert v["I"][2] == 5 and v["T"][0] == 2 * 32 + 5


BITS = """
kernel b(A: tensor<i32>[N], B: tensor<i32>[N], Y: tensor<i32>[7, N], k: i32) {
  let s = ctx.block.x * 64
  let a = A[s :+ 64]
  let c = B[s :+ 64]
  Y[0, s :+ 64] = a & c
  Y[1, s :+ 64] = a | c ^ 5
  Y[2, s :+ 64] = a << 3
  Y[3, s :+ 64] = a >> k
  Y[4, s :+ 64] = ~a + 1
  Y[5, s :+ 64] = where(a & 1 == 0, 1 << 4, 0) + (7 & 3 | 8)
  Y[6, s :+ 64] = a + c << 1
}
"""


@pytest.mark.parametrize("n", [1, 100])
def test_bit_operations_against_numpy(n):
    rng = np.random.default_rng(3)
    a = rng.integers(-(2**31), 2**31 - 1, n).astype(np.int32)
    c = rng.integers(-(2**31), 2**31 - 1, n).astype(np.int32)
    y, ybuf = guarded((7, n), np.int32, fill=-77)
    run_program(program(BITS), [a, c, y, 5], (cdiv(n, 64), 1, 1))
    with np.errstate(over="ignore"):
        expected = [a & c, a | (c ^ 5), a << 3, a >> 5, ~a + np.int32(1)]
        expected += [np.where((a & 1) == 0, 16, 0) + 11, (a + c) << 1]  # Python's precedence
    for k, ref in enumerate(expected):
        np.testing.assert_array_equal(y[k], ref.astype(np.int32), err_msg=f"row {k}")
    assert guard_intact(ybuf, -77)
