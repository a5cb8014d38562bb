"""The builtins the original Phobos specifies (joa/phobos-lang's SPEC.md, main and
inference branches), each run in the interpreter against what that specification
says it means: the rows "same" and "fixed" of docs/original.md's table
"Builtins against the original's specification".

The kernels are compiled by the real front end; references are NumPy (float64 or
exact integers), outputs start poisoned inside guard zones.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("mlir")

from test_interpreter import cdiv, guard_intact, guarded, program, random_tensor  # noqa: E402

from phobos.frontend import check_source  # noqa: E402
from phobos.interpreter import run_program  # noqa: E402

RNG = np.random.default_rng(29)

CONTRACTIONS = """
kernel contract(A: tensor<f32>[8, 16], B: tensor<f32>[16, 4], BT: tensor<f32>[4, 16],
                Q: tensor<i8>[4, 32], W: tensor<i8>[4, 32], C: tensor<f32>[8, 4], D: tensor<f32>[8, 4],
                I: tensor<i32>[4, 4]) {
  let a = A[:, :]
  C[:, :] = dot(a, B[:, :])
  D[:, :] = dot_t(a, BT[:, :])
  I[:, :] = dot_t(Q[:, :], W[:, :])
}
"""


def test_dot_and_dot_t_contract_as_the_spec_says():
    """dot(a, b) is a @ b; dot_t(a, b) is a @ b.T; over i8 operands the sums are i32
    (products of bytes that no byte holds)."""
    a, b, bt = (RNG.standard_normal(s).astype(np.float32) for s in ((8, 16), (16, 4), (4, 16)))
    q = np.full((4, 32), 127, np.int8)
    w = RNG.integers(-128, 128, (4, 32)).astype(np.int8)
    w[0] = -128
    c, cbuf = guarded((8, 4))
    d, dbuf = guarded((8, 4))
    i, ibuf = guarded((4, 4), np.int32, fill=-77)
    run_program(program(CONTRACTIONS), [a, b, bt, q, w, c, d, i], (1, 1, 1))
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(d, a.astype(np.float64) @ bt.T, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(i, q.astype(np.int64) @ w.T.astype(np.int64))
    assert i[0, 0] == 127 * -128 * 32  # far outside i8
    assert all(guard_intact(buf, fill) for buf, fill in ((cbuf, np.nan), (dbuf, np.nan), (ibuf, -77)))


QUANTIZED = """
@autotune(TN in [8], TM in [8])
@aligned(N = TN, K = 32)
kernel q8(A: tensor<i8>[M, K], AS: tensor<f32>[M, KB], W: tensor<i8>[N, K], WS: tensor<f32>[N, KB],
          WB: tensor<f32>[KB, N], C: tensor<f32>[M, N], D: tensor<f32>[M, N]) {
  let pn = program_id(0)
  C[0 :+ 1, pn * TN :+ TN] = qdot_t(A[0 :+ 1, :], AS[0 :+ 1, :], W[pn * TN :+ TN, :], WS[pn * TN :+ TN, :])
  D[0 :+ TM, pn * TN :+ TN] = qmma_t(A[0 :+ TM, :], AS[0 :+ TM, :], W[pn * TN :+ TN, :], WB[:, pn * TN :+ TN])
}
"""


def test_qdot_t_and_qmma_t_fold_the_block_scales_in():
    """The spec's Q8_0 contractions, in its examples' spelling: out[i, j] = sum_b (i8 block sum)
    * a_scales[i, b] * w_scales[j, b], with w_scales [N, K/32] for qdot_t, [K/32, N] for qmma_t."""
    import q8_reference as q8

    a, a_s, w, w_s = q8.operands(RNG, 8, 16, 96)
    c, cbuf = guarded((8, 16))
    d, dbuf = guarded((8, 16))
    run_program(program(QUANTIZED), [a, a_s, w, w_s, np.ascontiguousarray(w_s.T), c, d], (2, 1, 1))
    want, limit = q8.reference(a, a_s, w, w_s), q8.bound(a, a_s, w, w_s)
    q8.assert_close(c[:1], want[:1], limit[:1])
    q8.assert_close(d, want, limit)
    assert np.isnan(c[1:]).all() and guard_intact(cbuf, np.nan) and guard_intact(dbuf, np.nan)


ELEMENTWISE = """
kernel ew(X: tensor<f32>[N], P: tensor<f32>[N], Y: tensor<f32>[6, N]) {
  let s = ctx.block.x * 64
  let x = X[s :+ 64]
  let p = P[s :+ 64]
  Y[0, s :+ 64] = exp(x)
  Y[1, s :+ 64] = log(p)
  Y[2, s :+ 64] = sqrt(p)
  Y[3, s :+ 64] = tanh(x)
  Y[4, s :+ 64] = round(x)
  Y[5, s :+ 64] = -x
}
"""


def test_elementwise_math_round_ties_to_even_and_unary_minus():
    """exp, log, sqrt, tanh elementwise; round to the nearest integer, ties to even;
    -t negates every element of a tile."""
    n = 100
    x = RNG.uniform(-4, 4, n).astype(np.float32)
    x[:8] = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2.4999998, 3.5000002]
    p = RNG.uniform(0.01, 9, n).astype(np.float32)
    y, ybuf = guarded((6, n))
    run_program(program(ELEMENTWISE), [x, p, y], (cdiv(n, 64), 1, 1))
    x64, p64 = x.astype(np.float64), p.astype(np.float64)
    for row, ref in enumerate((np.exp(x64), np.log(p64), np.sqrt(p64), np.tanh(x64))):
        np.testing.assert_allclose(y[row], ref, rtol=1e-6, atol=1e-7, err_msg=f"row {row}")
    assert list(y[4, :8]) == [0.0, 2.0, 2.0, -0.0, -2.0, -2.0, 2.0, 4.0]
    np.testing.assert_array_equal(y[4], np.rint(x))
    np.testing.assert_array_equal(y[5], -x)
    assert guard_intact(ybuf, np.nan)


ROWS = """
@autotune(BR in [4], BC in [16])
kernel rows(X: tensor<f32>[M, N], Z: tensor<f32>[M, N], S: tensor<f32>[M, 1], T: tensor<f32>[M, N]) {
  let r = ctx.block.x * BR
  let x = X[r :+ BR, 0 :+ BC]
  Z[r :+ BR, 0 :+ BC] = x - rowmax(x)
  S[r :+ BR, 0 :+ 1] = rowsum(x)
  T[r :+ BR, 0 :+ BC] = tmax(x, rowsum(x) / 16.0)
}
"""


def test_row_reductions_keep_the_column_and_tmax_broadcasts():
    """rowmax/rowsum reduce the last dimension to a [rows, 1] column that broadcasts back
    over the columns; tmax is the elementwise maximum, broadcasting that column."""
    m, n = 10, 16
    x, _ = random_tensor((m, n))
    z, zbuf = guarded((m, n))
    s, sbuf = guarded((m, 1))
    t, tbuf = guarded((m, n))
    run_program(program(ROWS), [x, z, s, t], (cdiv(m, 4), 1, 1))
    x64 = x.astype(np.float64)
    np.testing.assert_array_equal(z, x - x.max(axis=1, keepdims=True))
    # f32 sums of n terms: n roundings of at most 2^-24 of the sum of |x| each (cancellation
    # makes a relative bound on the sum itself fail now and then)
    bound = n * 2.0**-24 * np.abs(x64).sum(axis=1, keepdims=True)
    np.testing.assert_array_less(np.abs(s - x64.sum(axis=1, keepdims=True)), bound + 1e-30)
    t_want = np.maximum(x64, x64.sum(axis=1, keepdims=True) / 16)
    assert np.all(np.abs(t - t_want) <= bound / 16 + 2.0**-24 * np.abs(t_want))  # the sum's error, one rounding
    assert all(guard_intact(buf, np.nan) for buf in (zbuf, sbuf, tbuf))


GATES = """
@autotune(C in [8], D in [4])
kernel gates(G: tensor<f32>[N, 1], X: tensor<f32>[N, D], B: tensor<f32>[N, 1], Y: tensor<f32>[N, D]) {
  for c in range(0, N, C) {
    B[c :+ C, :] = cumsum(G[c :+ C, :])
    Y[c :+ C, :] = cumsum(X[c :+ C, :])
  }
}
"""


def test_cumsum_runs_down_the_rows_by_default():
    """cumsum(t) is the inclusive prefix sum down the first dimension, out[i, j] = sum of
    t[r, j] for r <= i, chunk by chunk (the original's running gate of kda_fp32.ph; fixed in
    2e9e0c5: it used to run along the last dimension, which leaves a [C, 1] gate unchanged)."""
    n = 20  # two whole chunks and a ragged one: rows past N read as zero
    g, _ = random_tensor((n, 1))
    x, _ = random_tensor((n, 4))
    b, bbuf = guarded((n, 1))
    y, ybuf = guarded((n, 4))
    run_program(program(GATES), [g, x, b, y], (1, 1, 1))
    for start in range(0, n, 8):
        rows = slice(start, min(start + 8, n))
        np.testing.assert_allclose(b[rows], np.cumsum(g[rows].astype(np.float64), axis=0), rtol=1e-6)
        np.testing.assert_allclose(y[rows], np.cumsum(x[rows].astype(np.float64), axis=0), rtol=1e-6)
    assert not np.allclose(b, g)  # along the last dimension a [C, 1] cumsum would be the identity
    assert guard_intact(bbuf, np.nan) and guard_intact(ybuf, np.nan)


MASKS = """
kernel masks(X: tensor<f32>[4, 8], S: tensor<f32>[8, 8], L: tensor<f32>[4, 8], Q: tensor<f32>[8, 8],
             T: tensor<f32>[8, 4]) {
  let x = X[:, :]
  L[:, :] = tril(x)
  Q[:, :] = tril(S[:, :])
  T[:, :] = transpose(x)
}
"""


def test_tril_keeps_j_le_i_and_transpose_mirrors():
    """tril(t) keeps t[i, j] where j <= i and zeroes the rest (a NaN above the diagonal
    too: it is replaced, not multiplied by 0), on wide tiles as on square ones;
    transpose(t)[i, j] = t[j, i]."""
    x = RNG.standard_normal((4, 8)).astype(np.float32)
    sq = RNG.standard_normal((8, 8)).astype(np.float32)
    sq[0, 7] = np.nan
    out = [guarded(s) for s in ((4, 8), (8, 8), (8, 4))]
    run_program(program(MASKS), [x, sq] + [o for o, _ in out], (1, 1, 1))
    (low, _), (low_sq, _), (tr, _) = out
    np.testing.assert_array_equal(low, np.tril(x))
    np.testing.assert_array_equal(low_sq, np.tril(np.nan_to_num(sq)))
    np.testing.assert_array_equal(tr, x.T)
    assert all(guard_intact(buf, np.nan) for _, buf in out)


CONVERSIONS = """
kernel conv(X: tensor<f32>[N], Q: tensor<i8>[N], H: tensor<f16>[N], BF: tensor<bf16>[N], I: tensor<i32>[N],
            F: tensor<f32>[N], J: tensor<i32>[N]) {
  let s = ctx.block.x * 32
  let x = X[s :+ 32]
  H[s :+ 32] = f16(x)
  BF[s :+ 32] = bf16(x)
  I[s :+ 32] = i32(x)
  F[s :+ 32] = f32(Q[s :+ 32])
  J[s :+ 32] = i32(Q[s :+ 32]) * 1000
}
"""


def test_conversions_round_truncate_and_sign_extend():
    """Float to narrower float rounds to nearest (ties to even), float to integer truncates
    toward zero, i8 loads and integer-to-float conversions keep the sign."""
    import ml_dtypes

    n = 40
    x = RNG.uniform(-300, 300, n).astype(np.float32)
    x[:6] = [2.7, -2.7, 1.0 + 2.0**-11, 1.0 + 3 * 2.0**-11, -0.5, 65519.0]  # f16 ties, -0.5 -> 0
    q = RNG.integers(-128, 128, n).astype(np.int8)
    q[:2] = [-128, -1]
    h, _ = guarded((n,), np.float16)
    bf, _ = guarded((n,))  # bf16 tensors are float32 arrays of bf16 values
    i, _ = guarded((n,), np.int32, fill=-77)
    f, _ = guarded((n,))
    j, _ = guarded((n,), np.int32, fill=-77)
    run_program(program(CONVERSIONS), [x, q, h, bf, i, f, j], (cdiv(n, 32), 1, 1))
    np.testing.assert_array_equal(h, x.astype(np.float16))
    assert list(h[2:4]) == [1.0, 1.0 + 2.0**-9]  # ties to even
    np.testing.assert_array_equal(bf, x.astype(ml_dtypes.bfloat16).astype(np.float32))
    np.testing.assert_array_equal(i, np.trunc(x).astype(np.int32))
    assert list(i[:2]) == [2, -2]
    np.testing.assert_array_equal(f, q.astype(np.float32))
    np.testing.assert_array_equal(j, q.astype(np.int32) * 1000)
    assert f[0] == -128.0 and j[1] == -1000


MIXED = """
kernel mixed(H: tensor<f16>[16], F: tensor<f32>[16], BF: tensor<bf16>[16], I: tensor<i32>[16],
             Y: tensor<f32>[4, 16], Z: tensor<f16>[16]) {
  let h = H[:]
  Y[0, :] = h + F[:]
  Y[1, :] = h + BF[:]
  Y[2, :] = I[:] + 0.5
  Y[3, :] = I[:] / 2 + I[:] % 3
  var z: tile<f16>[16] = 0.1
  Z[:] = z
}
"""


def test_mixed_types_meet_at_the_join_and_literals_round_on_store():
    """f16 with f32 widens to f32, f16 with bf16 meets at f32, an integer meeting a float
    goes to the float; integer / and % truncate toward zero (the original's divsi and
    remsi); a float literal stored into an f16 tile is rounded to f16."""
    h = np.ones(16, np.float16)
    f = np.full(16, 2.0**-20, np.float32)  # lost in f16 and bf16, kept in f32
    bf = np.full(16, 2.0**-20, np.float32)  # a bf16 value, held as float32
    i = np.arange(-8, 8, dtype=np.int32) * 3 + 1
    y, ybuf = guarded((4, 16))
    z, _ = guarded((16,), np.float16)
    run_program(program(MIXED), [h, f, bf, i, y, z], (1, 1, 1))
    assert np.all(y[0] == np.float32(1 + 2.0**-20))
    assert np.all(y[1] == np.float32(1 + 2.0**-20))
    np.testing.assert_array_equal(y[2], i + 0.5)
    np.testing.assert_array_equal(y[3], np.trunc(i / 2) + np.fmod(i, 3))
    assert np.all(z == np.float16(0.1))
    assert guard_intact(ybuf, np.nan)


BOUNDS = """
@autotune(B in [16])
kernel bounds(X: tensor<f32>[N], Y: tensor<f32>[N], P: tensor<f32>[N], G: tensor<i32>[2]) {
  let s = program_id(0) * B
  let x = X[s :+ B]
  Y[s :+ B] = x + 1.0
  P[s :+ B] = x * 0.0 + f32(sum(x))
  G[program_id(0)] = i32(ctx.block.x) * 10
}
"""


def test_masked_slices_read_zero_and_skip_stores_and_program_id_is_the_block():
    """A slice that runs past its tensor reads zeros there (the sum sees nothing else)
    and stores nothing there; program_id(0) is the CTA's x position."""
    n = 21  # the last block has 5 elements
    x, _ = random_tensor((n,))
    y, ybuf = guarded((n,))
    p, _ = guarded((n,))
    g = np.full(2, -77, np.int32)
    run_program(program(BOUNDS), [x, y, p, g], (cdiv(n, 16), 1, 1))
    np.testing.assert_array_equal(y, x + 1)
    np.testing.assert_allclose(p[16:], x[16:].astype(np.float64).sum(), rtol=1e-6)
    assert guard_intact(ybuf, np.nan)
    assert list(g) == [0, 10]  # each CTA's program_id(0) is its ctx.block.x


SHADOWED = """
kernel shadow(X: tensor<f32>[8], Y: tensor<f32>[8]) {
  let exp = 3.0
  let tile_ = X[:]
  Y[:] = tile_ * exp
}
"""


def test_builtin_names_are_ordinary_identifiers():
    """The builtins are contextual identifiers: a declaration of the same name hides one."""
    x, _ = random_tensor((8,))
    y, _ = guarded((8,))
    run_program(program(SHADOWED), [x, y], (1, 1, 1))
    np.testing.assert_array_equal(y, x * 3)


def test_autotune_two_values_double_from_the_first_which_seeds_the_shape():
    """@autotune(X in [lo, hi]) searches lo, 2 lo, ... hi; three or more values are the
    list; [hi, lo] is two values; the first choice is the one a compile binds."""
    source = """
@autotune(A in [16, 256], B in [256, 16], C in [8, 24, 4])
kernel k(X: tensor<f32>[N]) {
  X[0 :+ 8] = 0.0
}
"""
    (kernel,) = check_source(source).kernels
    assert kernel.info.space == {"A": [16, 32, 64, 128, 256], "B": [256, 16], "C": [8, 24, 4]}
    assert kernel.info.bindings == {"A": 16, "B": 256, "C": 8}


@pytest.mark.parametrize(
    ("declaration", "warns"),
    [("let s = dot(a, a)", True), ("let s: tile<f32>[16, 16] = dot(a, a)", False), ("let s = dot(f32(a), a)", False)],
)
def test_half_dot_bound_without_a_type_warns_of_the_original_meaning(declaration, warns):
    """A dot of two f16 tiles is an f32 tile here and an f16 tile in the original: bound
    without a type, the front end warns at the dot (the "warned" row of the table)."""
    source = f"""
kernel k(A: tensor<f16>[16, 16], C: tensor<f32>[16, 16]) {{
  let a = A[:, :]
  {declaration}
  C[:, :] = s
}}
"""
    text = check_source(source, "half.ph").warnings
    assert ("half.ph:4:" in text and "in the original Phobos it is an f16 tile" in text) == warns
    assert text.count("warning:") == int(warns)
