"""GPU test of the math builtins of issue 29 (pytest -m gpu; skipped without a GPU).

bench/kernels/math_functions.ph (built ahead of time by bench/aot_build.py) evaluates
erf, exp2, log2, rsqrt, sigmoid, floor, ceil, round, sin, cos, pow, fma, clamp,
isnan/isinf, log1p and expm1 on the inputs of test_math_gpu.py (random bit patterns, every f16 value,
the interesting ranges and the edge cases, in f32, f16 and f64; ragged length, outputs
poisoned inside guard zones). Each result's error is measured in ulps of its type
against the exact result rounded to the type (numpy in float64 for f32 and f16, mpmath
for f64) and held to the bounds of docs/language.md ("Math accuracy"); NaN must come
out exactly where the exact result is NaN and zeros keep their sign.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from aot_folders import aot
from guarded import RNG, Guarded
from test_math_gpu import _POISON_BITS, _UINT, DTYPES, N, _bits_to, _inputs, ulps

pytestmark = pytest.mark.gpu

FUNCTIONS = ("erf", "exp2", "log2", "rsqrt", "sigmoid", "floor", "ceil", "round", "sin", "cos", "pow", "fma", "clamp")
FUNCTIONS += ("classify", "log1p", "expm1")  # classify: isnan(x) + 2 isinf(x); the rows of Y, in the kernel's order
# Maximum error in ulps (docs/language.md). f16 is computed in f32 and rounded once.
LOG1P_EXPM1 = {"log1p": 1, "expm1": 1}  # CUDA's bound for both in every type
BOUNDS = {
    "f32": {**LOG1P_EXPM1, "erf": 2, "exp2": 2, "log2": 1, "rsqrt": 2, "sigmoid": 3, "sin": 2, "cos": 2, "pow": 4},
    "f16": {**LOG1P_EXPM1, "erf": 1, "exp2": 1, "log2": 1, "rsqrt": 1, "sigmoid": 1, "sin": 1, "cos": 1, "pow": 1},
    "f64": {**LOG1P_EXPM1, "erf": 2, "exp2": 1, "log2": 1, "rsqrt": 2, "sigmoid": 2, "sin": 2, "cos": 2, "pow": 2},
}  # any other function: 0 (exact, or correctly rounded)
BOUNDS["f16"]["fma"] = 1  # the f32 fma rounded to f16


def _third(x: np.ndarray, z: np.ndarray) -> np.ndarray:
    """W: fma's addend and clamp's upper bound (at least z where both are ordered)."""
    return np.where(np.isnan(z), z, np.abs(np.roll(x, 7)) + z).astype(x.dtype)


@pytest.fixture(autouse=True)
def _quiet_numpy():
    with np.errstate(all="ignore"):
        yield


@pytest.fixture(scope="module")
def results():
    kernel = aot("math_functions")
    buffers, host = [], {}
    with np.errstate(all="ignore"):
        for name, dtype in DTYPES.items():
            x, z, _ = _inputs(dtype)
            w = _third(x, z)
            poison = np.full((len(FUNCTIONS), N), _bits_to(dtype, _POISON_BITS[dtype])[()], dtype)
            gs = [Guarded("torch", (N,), dtype=dtype, values=v, misalign=i) for i, v in enumerate((x, z, w))]
            gy = Guarded("torch", (len(FUNCTIONS), N), dtype=dtype, values=poison, pad=3)
            buffers += gs + [gy]
            host[name] = (x, z, w, gy)
        kernel(*(b.view for b in buffers))
    out = {}
    for name, (x, z, w, gy) in host.items():
        now = gy.download()
        assert np.array_equal(now[~gy.region].view(np.uint8), gy.host[~gy.region].view(np.uint8)), name
        y = now[gy._indices()].reshape(gy.shape)
        never = y.view(_UINT[DTYPES[name]]) == _UINT[DTYPES[name]](_POISON_BITS[DTYPES[name]])
        assert not never.any(), f"{name}: {int(never.sum())} outputs never written"
        out[name] = (x, z, w, y)
    return out


def _sigmoid(x):
    return np.where(x >= 0, 1 / (1 + np.exp(-np.abs(x))), np.exp(-np.abs(x)) / (1 + np.exp(-np.abs(x))))


def _ieee(kind: str, a, b):
    """IEEE 754-2019 maximum/minimum (arith.maximumf): NaN propagates, +0 > -0."""
    pick = np.maximum(a, b) if kind == "max" else np.minimum(a, b)
    zeros = (a == 0) & (b == 0)
    signed = np.where(kind == "max", np.signbit(a) & np.signbit(b), np.signbit(a) | np.signbit(b))
    return np.where(zeros, np.where(signed, -0.0, 0.0), pick)


def reference64(fn: str, x, z, w) -> np.ndarray:
    x, z, w = (a.astype(np.float64) for a in (x, z, w))
    erf = np.vectorize(math.erf, otypes=[np.float64])
    table = {
        "erf": lambda: erf(x),
        "exp2": lambda: np.exp2(x),
        "log2": lambda: np.log2(x),
        "log1p": lambda: np.log1p(x),
        "expm1": lambda: np.expm1(x),
        "rsqrt": lambda: 1 / np.sqrt(x),
        "sigmoid": lambda: _sigmoid(x),
        "floor": lambda: np.floor(x),
        "ceil": lambda: np.ceil(x),
        "round": lambda: np.rint(x),
        "sin": lambda: np.sin(x),
        "cos": lambda: np.cos(x),
        "pow": lambda: np.power(x, z),
        "fma": lambda: x * z + w,  # exact in float64 for f16 operands; f32/f64 see _fma_exact
        "clamp": lambda: _ieee("min", _ieee("max", x, z), w),
        "classify": lambda: np.isnan(x) + 2.0 * np.isinf(x),
    }
    return table[fn]()


def _mp(fn: str, x, z, w, idx) -> np.ndarray:
    """The correctly rounded f64 results of fn at x[idx] (mpmath at 160 bits)."""
    mpmath = pytest.importorskip("mpmath", reason="f64 is measured against mpmath")
    f = {
        "erf": lambda a, b, c: mpmath.erf(a),
        "exp2": lambda a, b, c: mpmath.power(2, a),
        "log2": lambda a, b, c: mpmath.log(a, 2),
        "log1p": lambda a, b, c: mpmath.log1p(a),
        "expm1": lambda a, b, c: mpmath.expm1(a),
        "rsqrt": lambda a, b, c: 1 / mpmath.sqrt(a),
        "sigmoid": lambda a, b, c: 1 / (1 + mpmath.exp(-a)),
        "sin": lambda a, b, c: mpmath.sin(a),
        "cos": lambda a, b, c: mpmath.cos(a),
        "pow": lambda a, b, c: mpmath.power(a, b),
        "fma": lambda a, b, c: a * b + c,
    }[fn]
    with mpmath.workprec(160):
        return np.array([float(f(*(mpmath.mpf(float(v[i])) for v in (x, z, w)))) for i in idx])


def _sample(x, z, fn) -> np.ndarray:
    ok = np.isfinite(x) & np.isfinite(z) & (x != 0)
    if fn in ("log2", "rsqrt"):
        ok &= x > 0
    if fn == "pow":
        ok &= (x > 0) & (np.abs(z * np.log2(np.abs(x) + 1e-300)) < 1000)
    if fn == "exp2":
        ok &= np.abs(x) < 1000
    if fn == "log1p":
        ok &= x > -1
    if fn == "expm1":
        ok &= x < 700
    if fn in ("sin", "cos"):
        ok &= np.abs(x) < 1e6
    cand = np.flatnonzero(ok)
    return np.unique(np.concatenate([cand[:64], RNG.choice(cand, min(3000, len(cand)), replace=False)]))


@pytest.mark.parametrize("dname", sorted(DTYPES))
@pytest.mark.parametrize("fn", FUNCTIONS)
def test_accuracy(results, dname, fn):
    x, z, w, y = results[dname]
    dtype = DTYPES[dname]
    got = y[FUNCTIONS.index(fn)]
    ref = reference64(fn, x, z, w).astype(dtype)
    measured = np.ones(x.shape, bool)
    if (dname == "f64" and fn in BOUNDS["f64"]) or (fn == "fma" and dname != "f16"):
        idx = _sample(x, z, fn)
        ref = ref.copy()
        ref[idx] = _mp(fn, x, z, w, idx).astype(dtype)
        measured[:] = ~np.isfinite(x) | (x == 0)  # the special values, where numpy follows C99
        measured[idx] = True
    nan_ref, nan_got = np.isnan(ref), np.isnan(got)
    wrong_nan = measured & (nan_ref != nan_got)
    assert not wrong_nan.any(), (
        f"{fn} {dname}: NaN where the exact result is not, or the reverse, e.g. x={x[wrong_nan][0]!r} "
        f"z={z[wrong_nan][0]!r}: got {got[wrong_nan][0]!r}, exact {ref[wrong_nan][0]!r}"
    )
    use = measured & ~nan_ref
    err = np.where(use, ulps(np.where(nan_got, ref, got), ref), 0)
    bound = BOUNDS[dname].get(fn, 0)
    worst = int(np.argmax(err))
    print(f"{fn:8} {dname}: max {int(err.max())} ulps (bound {bound}) over {int(use.sum())} inputs")
    assert err.max() <= bound, (
        f"{fn} {dname}: {int((err > bound).sum())} results beyond {bound} ulps, worst x={x[worst]!r} "
        f"z={z[worst]!r} w={w[worst]!r}: got {got[worst]!r}, exact {ref[worst]!r} ({err[worst]} ulps)"
    )
    zero = use & (ref == 0) & (got == 0)
    assert not (zero & (np.signbit(ref) != np.signbit(got))).any(), f"{fn} {dname}: a zero of the wrong sign"
