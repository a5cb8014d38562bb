"""Atomics (issue 23, item 4) in the interpreter, against NumPy: histograms with duplicate
bins, scatter-adds with duplicate indices, float max/min on negative values, exchange and
compare-and-swap returning old values, single-element atomics across CTAs (applied in CTA
order), and the located errors of the front end."""

import numpy as np
import pytest

pytest.importorskip("mlir")

from test_interpreter import programs  # noqa: E402

from phobos.compiler import CompileError, compile_stages  # noqa: E402
from phobos.frontend import check_source  # noqa: E402
from phobos.interpreter import run_program  # noqa: E402

RNG = np.random.default_rng(424242)

KERNELS = """
kernel hist(X: tensor<i32>[N], H: tensor<i32>[B]) {
  let s = ctx.block.x * 256
  let ok = arange(256) + s < N
  atomic_add(masked(H[X[s :+ 256]], ok), 1)
}

kernel scatter_add(I: tensor<i64>[M], V: tensor<f32>[M, D], Y: tensor<f32>[R, D]) {
  let s = ctx.block.x * 16
  let rows = I[s :+ 16]
  atomic_add(masked(Y[rows, 0 :+ 32], rows >= 0), V[s :+ 16, 0 :+ 32])
}

kernel extremes(X: tensor<f32>[N], I: tensor<i32>[N], HI: tensor<f32>[B], LO: tensor<f32>[B]) {
  let s = ctx.block.x * 128
  let ok = arange(128) + s < N
  let i = I[s :+ 128]
  let x = X[s :+ 128]
  atomic_max(masked(HI[i], ok), x)
  atomic_min(masked(LO[i], ok), x)
}

kernel ticket(T: tensor<i32>[1], O: tensor<i32>[G]) {
  let old = atomic_add(T[0], 1)
  O[ctx.block.x] = old
}

kernel swap(X: tensor<f32>[N], V: tensor<f32>[N], O: tensor<f32>[N], C: tensor<i32>[N]) {
  let s = ctx.block.x * 64
  O[s :+ 64] = atomic_xchg(X[s :+ 64], V[s :+ 64], sem = "acq_rel")
  C[s :+ 64] = atomic_cas(C[s :+ 64], 0, ctx.block.x + 1, scope = "sys")
}
"""

PROGRAMS = programs(KERNELS)


def test_histogram_counts_duplicate_bins():
    for bins in (256, 4096):
        n = 3000
        x = np.minimum(RNG.zipf(1.3, n), bins + 5).astype(np.int32) - 1  # skewed, a few past the end
        x[::97] = -1
        h = np.zeros(bins, np.int32)
        run_program(PROGRAMS["hist"], [x, h], (-(-n // 256), 1, 1))
        ok = x[(x >= 0) & (x < bins)]
        np.testing.assert_array_equal(h, np.bincount(ok, minlength=bins))


def test_scatter_add_with_duplicate_rows():
    m, d, r = 40, 32, 7
    idx = RNG.integers(-1, r, m).astype(np.int64)
    v = RNG.standard_normal((m, d)).astype(np.float32)
    y = RNG.standard_normal((r, d)).astype(np.float32)
    want = y.astype(np.float64)
    ok = idx >= 0
    np.add.at(want, idx[ok], v[ok].astype(np.float64))
    run_program(PROGRAMS["scatter_add"], [idx, v, y], (-(-m // 16), 1, 1))
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-5)


def test_float_max_and_min_over_negative_values():
    n, b = 500, 9
    x = RNG.standard_normal(n).astype(np.float32) * 10
    i = RNG.integers(0, b, n).astype(np.int32)
    hi, lo = np.full(b, -np.inf, np.float32), np.full(b, np.inf, np.float32)
    run_program(PROGRAMS["extremes"], [x, i, hi, lo], (-(-n // 128), 1, 1))
    want_hi, want_lo = np.full(b, -np.inf), np.full(b, np.inf)
    np.maximum.at(want_hi, i, x)
    np.minimum.at(want_lo, i, x)
    np.testing.assert_array_equal(hi, want_hi.astype(np.float32))
    np.testing.assert_array_equal(lo, want_lo.astype(np.float32))


def test_single_element_atomic_returns_old_values_in_cta_order():
    t, o = np.array([5], np.int32), np.full(6, -1, np.int32)
    run_program(PROGRAMS["ticket"], [t, o], (6, 1, 1))
    assert t[0] == 11
    np.testing.assert_array_equal(o, 5 + np.arange(6))


def test_exchange_and_compare_and_swap_return_old_values():
    n = 100
    x, v = RNG.standard_normal(n).astype(np.float32), RNG.standard_normal(n).astype(np.float32)
    c = np.where(RNG.random(n) < 0.5, 0, 7).astype(np.int32)
    x0, c0 = x.copy(), c.copy()
    o = np.zeros(n, np.float32)
    run_program(PROGRAMS["swap"], [x, v, o, c], (2, 1, 1))
    np.testing.assert_array_equal(o, x0)
    np.testing.assert_array_equal(x, v)
    # C[s :+ 64] = old: where the swap happened old was 0 (and the store writes 0 back), else 7.
    np.testing.assert_array_equal(c, c0)


def errors(src):
    with pytest.raises(CompileError) as info:
        check_source(src, "bad.ph")
    return str(info.value)


@pytest.mark.parametrize(
    "decl,call,message",
    [
        ("tensor<i8>[N]", "atomic_add(X[0 :+ 32], 1)", "the GPU has no atomic_add on i8"),
        ("tensor<bool>[N]", "atomic_xchg(X[0 :+ 32], true)", "the GPU has no atomic_xchg on bool"),
        (
            "tensor<f16>[N]",
            "atomic_max(X[0 :+ 32], 1.0)",
            "the GPU has no atomic_max on f16 (it has i32, i64, f32, f64)",
        ),
        ("tensor<f32>[N]", 'atomic_add(X[0 :+ 32], 1.0, sem = "seq_cst")', "'sem' of 'atomic_add' must be one of"),
        ("tensor<f32>[N]", 'atomic_add(X[0 :+ 32], 1.0, order = "relaxed")', "'atomic_add' has no keyword 'order'"),
        ("tensor<f32>[N]", "atomic_add(X[0 :+ 32] * 2.0, 1.0)", "the target of 'atomic_add' must be an element"),
        ("tensor<f32>[N]", "atomic_cas(X[0 :+ 32], 1.0)", "'atomic_cas' expects 3 arguments, got 2"),
        ("tensor<f32>[N]", 'let y = exp(X[0 :+ 32], sem = "relaxed")', "'exp' takes no keyword arguments"),
        ("tensor<f32>[N]", 'let y = "relaxed"', "a string can only be the value of a keyword argument"),
    ],
)
def test_atomic_errors_are_located(decl, call, message):
    text = errors(f"kernel k(X: {decl}) {{\n  {call}\n}}\n")
    assert "bad.ph:2:" in text and message in text, text


def test_vectorised_integer_adds_equal_the_sequence_of_single_atomics():
    """The interpreter's fast path (distinct offsets, or integer adds with running sums) gives
    exactly what applying the elements one by one in row-major order gives."""
    from types import SimpleNamespace

    import phobos.interpreter.atomics as A

    for _ in range(100):
        n = int(RNG.integers(1, 60))
        base = RNG.integers(-5, 5, 25).astype(np.int32)
        offsets, mask = RNG.integers(0, 25, n), RNG.random(n) < 0.7
        values = RNG.integers(-100, 100, n).astype(np.int32)
        op, cta = SimpleNamespace(name="tile.atomic_rmw", attrs={"kind": "add"}), SimpleNamespace(coverage=None)
        one, fast = base.copy(), base.copy()
        want = A._run(op, cta, one, offsets, mask, lambda i, old, v=values: A._apply("add", old, v[i]))
        got = A._vectorised(op, cta, fast, offsets, mask, "add", values)
        np.testing.assert_array_equal(fast, one)
        np.testing.assert_array_equal(got, want)


def gpu_errors(src, chip="sm_90"):
    with pytest.raises(CompileError) as info:
        compile_stages(src, until="ptx", chip=chip, source_name="bad.ph")
    return str(info.value)


@pytest.mark.parametrize(
    "decl,call,chip,where,message",
    [
        (
            "tensor<bf16>[N]",
            "atomic_add(X[0 :+ 256], V[0 :+ 256])",
            "sm_80",
            "bad.ph:2:3:",
            "'atomic_add' on bf16 needs sm_90 or later (atom/red .add.noftz.bf16); the target is sm_80",
        ),
        (
            "tensor<f32>[N]",
            "V[0 :+ 128] = atomic_add(X[0 :+ 128], V[0 :+ 128])",
            "sm_90",
            "bad.ph:2:17:",
            "the old values of 'atomic_add' on a tile of [128] are not available on the GPU yet: the tile is "
            "smaller than the CTA's layout (256 threads)",
        ),
        (
            "tensor<i32>[N]",
            "V[0] = atomic_max(X[0], 1)",
            "sm_80",
            "bad.ph:2:10:",
            "the old value of 'atomic_max' on a single element is not available on the GPU yet",
        ),
        (
            "tensor<i32>[N]",
            "V[0 :+ 64] = atomic_cas(X[0 :+ 64], 0, 1)",
            "sm_90",
            "bad.ph:2:16:",
            "the old values of 'atomic_cas' on a tile of [64]",
        ),
    ],
)
def test_gpu_atomic_errors_name_the_call(decl, call, chip, where, message):
    """What only the GPU lowering refuses is said in the language's words, at the call, not as a
    tile.atomic_rmw / tile.atomic_cas op."""
    text = gpu_errors(f"kernel k(X: {decl}, V: {decl}) {{\n  {call}\n}}\n", chip)
    assert where in text and message in text, text
    assert "' op" not in text and "tile.atomic" not in text, text
    assert text.splitlines()[1].strip() == call and text.splitlines()[2].strip() == "^", text
