"""GPU test of the math builtins' accuracy (pytest -m gpu; skipped without a GPU).

bench/kernels/math_accuracy.ph evaluates exp, log, sqrt, tanh, abs and
division on every element of its inputs, in f32, f16 and f64;
math_accuracy_fast.ph is the same kernel under @fastmath. Both are built
ahead of time by bench/aot_build.py (math_jobs). The inputs, of a ragged
length: random bit patterns (every exponent, denormals, infinities, NaNs),
values where each function is interesting (the whole range of exp, both
sides of 1 for log, magnitudes from the smallest denormal to the largest
finite value), every f16 value, and the edge cases (0, -0, the smallest and
largest denormal and normal, the largest finite value, inf, -inf, NaN).

Each result's error is measured in ulps of its type: the number of
representable values between the GPU's result and the exact result rounded
to the type (numpy in float64 for f32 and f16, mpmath for f64's exp, log and
tanh), which is how CUDA states its bounds. The bounds held here are those
docs/language.md ("Math accuracy") states. Besides, NaN must come out
exactly where the exact result is NaN, a zero must keep the sign of the
exact zero, and every output element must be written (the outputs start
as a NaN pattern the kernel cannot produce) inside intact guard zones.
"""

from __future__ import annotations

import numpy as np
import pytest
from aot_folders import aot
from guarded import RNG, Guarded

pytestmark = pytest.mark.gpu

KERNELS = {"precise": "math_accuracy", "fast": "math_accuracy_fast"}  # bench/kernels/<name>.ph
FUNCTIONS = ("exp", "log", "sqrt", "tanh", "abs", "div")  # the rows of Y, in the kernel's order
DTYPES = {"f32": np.float32, "f16": np.float16, "f64": np.float64}
N = (1 << 20) + 37  # elements per type: 1025 CTAs of 1024, the last one ragged

# Maximum error in ulps (docs/language.md, "Math accuracy"). f16 is computed in
# f32 by the same functions and rounded once more. Under @fastmath, exp, log and
# the f32 division have bounds that depend on the operands (see `_bounds`).
BOUNDS = {
    "precise": {
        "f32": {"exp": 2, "log": 1, "sqrt": 0, "tanh": 2, "abs": 0, "div": 0},
        "f16": {"exp": 1, "log": 1, "sqrt": 1, "tanh": 1, "abs": 0, "div": 0},
        "f64": {"exp": 1, "log": 1, "sqrt": 0, "tanh": 1, "abs": 0, "div": 0},
    },
    "fast": {
        "f32": {"exp": "2 + floor(1.173 |x|)", "log": 3, "sqrt": 1, "tanh": 2, "abs": 0, "div": 2},
        "f16": {"exp": 1, "log": 1, "sqrt": 1, "tanh": 1, "abs": 0, "div": 1},
        "f64": {"exp": 1, "log": 1, "sqrt": 0, "tanh": 1, "abs": 0, "div": 0},
    },
}
FAST_LOG_ABS = 2.0**-21.41  # __logf on [0.5, 2]: an absolute error instead of ulps
FTZ_LIMIT = 2.0**-126  # @fastmath exp (ex2.approx.ftz) flushes results below it to zero

_INT = {np.float16: np.int16, np.float32: np.int32, np.float64: np.int64}
_UINT = {np.float16: np.uint16, np.float32: np.uint32, np.float64: np.uint64}
# The outputs' poison: a NaN whose payload no input carries (inputs with it are
# replaced), so an element still holding it was never written.
_POISON_BITS = {np.float16: 0x7E5B, np.float32: 0x7FBADBAD, np.float64: 0x7FF5DEADBEEF0BAD}


def _bits_to(dtype, bits) -> np.ndarray:
    return np.asarray(bits, dtype=_UINT[dtype]).view(dtype)


# ----------------------------------------------------------------------------- inputs


def _edges(dtype) -> np.ndarray:
    fi = np.finfo(dtype)
    tiny = _bits_to(dtype, 1)[()]  # the smallest denormal
    big_denormal = _bits_to(dtype, (1 << (fi.nmant)) - 1)[()]
    one = dtype(1)
    vals = [0.0, -0.0, tiny, -tiny, big_denormal, -big_denormal, fi.smallest_normal, -fi.smallest_normal]
    vals += [one, -one, 0.5, 2.0, np.nextafter(one, dtype(2)), np.nextafter(one, dtype(0)), fi.max, -fi.max]
    vals += [np.inf, -np.inf, np.nan, -np.nan, 1e-3, 10.0, -10.0, 0.6, -0.6, 9.0, -9.0]
    if dtype == np.float16:
        vals += [11.09, 11.1, -17.3, -18.0, 65504.0, 60000.0]
    elif dtype == np.float32:
        vals += [88.72, 88.73, 89.0, -87.33, -103.9, -104.0, -200.0, 1e30, -1e30, 1e-30, 2.0**126, 2.0**127]
    else:
        vals += [709.78, 709.79, -708.4, -745.1, -746.0, 1e300, 1e-300, 2.0**1022, 2.0**1023]
    return np.array(vals, dtype=np.float64).astype(dtype)


def _random_bits(dtype, n) -> np.ndarray:
    width = np.dtype(dtype).itemsize * 8
    return RNG.integers(0, 1 << width, n, dtype=np.uint64 if width == 64 else np.int64).astype(_UINT[dtype]).view(dtype)


def _log_uniform(dtype, n, lo_exp, hi_exp) -> np.ndarray:
    mag = np.exp2(RNG.uniform(lo_exp, hi_exp, n))
    return (mag * RNG.choice([-1.0, 1.0], n)).astype(dtype)


def _inputs(dtype) -> tuple[np.ndarray, np.ndarray, int]:
    """(x, z, n_edges): x / z starts with the edge cases, each on its own and every pair of them
    (n_edges elements), then every f16 value (f16), samples of the interesting ranges and random
    bit patterns."""
    fi = np.finfo(dtype)
    emin, emax = int(np.log2(float(fi.smallest_normal))) - fi.nmant, int(np.log2(float(fi.max))) + 1
    big = {np.float16: 12.0, np.float32: 110.0, np.float64: 750.0}[dtype]
    edges = _edges(dtype)
    e = len(edges)
    x_parts, z_parts = [edges, np.repeat(edges, e)], [edges[::-1], np.tile(edges, e)]
    if dtype == np.float16:
        x_parts.append(np.arange(1 << 16, dtype=np.uint16).view(np.float16))
    m = N // 8
    with np.errstate(over="ignore"):
        x_parts += [
            RNG.uniform(-big, big, m).astype(dtype),  # exp's whole range, tanh's saturation
            RNG.uniform(-1.0, 1.0, m // 2).astype(dtype),
            (1.0 + RNG.uniform(-(2.0**-8), 2.0**-8, m // 2)).astype(dtype),  # log near 1
            _log_uniform(dtype, m, emin, emax),  # every magnitude (sqrt, log, division)
        ]
        z_parts.append(_log_uniform(dtype, N // 2, emin, emax))
    x_parts.append(_random_bits(dtype, N - sum(len(p) for p in x_parts)))
    z_parts.append(_random_bits(dtype, N - sum(len(p) for p in z_parts)))
    x, z = np.concatenate(x_parts), np.concatenate(z_parts)
    assert len(x) == len(z) == N
    return _no_poison(x), _no_poison(z), e + e * e


def _no_poison(a: np.ndarray) -> np.ndarray:
    """a with every NaN that could turn into the poison (the same payload, whatever its sign and
    quiet bit: abs clears the sign, arithmetic may quieten it) replaced by 1."""
    t = a.dtype.type
    sign_and_quiet = (1 << (8 * a.itemsize - 1)) | (1 << (np.finfo(t).nmant - 1))
    mask = _UINT[t](np.iinfo(_UINT[t]).max ^ sign_and_quiet)
    hit = (a.view(_UINT[t]) & mask) == (_UINT[t](_POISON_BITS[t]) & mask)
    a = a.copy()
    a[hit] = t(1)
    return a


# ----------------------------------------------------------------------------- one launch per kernel


@pytest.fixture(autouse=True)
def _quiet_numpy():
    with np.errstate(all="ignore"):  # overflow, NaN and inf are the point here
        yield


@pytest.fixture(scope="module", params=sorted(KERNELS))
def results(request):
    """{"variant": ..., dtype name: (x, z, y)} with y[k] the GPU's results of FUNCTIONS[k]."""
    kernel = aot(KERNELS[request.param])
    with np.errstate(all="ignore"):
        return _launch(kernel, request.param)


def _launch(kernel, variant: str) -> dict:
    buffers, host = [], {}
    for name, dtype in DTYPES.items():
        x, z, n_edges = _inputs(dtype)
        poison = np.full((len(FUNCTIONS), N), _bits_to(dtype, _POISON_BITS[dtype])[()], dtype)
        gx = Guarded("torch", (N,), dtype=dtype, values=x)
        gz = Guarded("torch", (N,), dtype=dtype, values=z, misalign=1)
        gy = Guarded("torch", (len(FUNCTIONS), N), dtype=dtype, values=poison, pad=3)
        buffers += [gx, gz, gy]
        host[name] = (x, z, gy, n_edges)
    kernel(*(b.view for b in buffers))
    out = {"variant": variant}
    for name, (x, z, gy, n_edges) in host.items():
        now = gy.download()
        outside = ~gy.region
        assert np.array_equal(now[outside].view(np.uint8), gy.host[outside].view(np.uint8)), (
            f"{name}: the kernel wrote outside Y (guard zone or row padding changed)"
        )
        y = now[gy._indices()].reshape(gy.shape)
        dtype = DTYPES[name]
        never = y.view(_UINT[dtype]) == _UINT[dtype](_POISON_BITS[dtype])
        assert not never.any(), f"{name}: {int(never.sum())} output elements were never written"
        out[name] = (x, z, y, n_edges)
    for b in buffers[0::3] + buffers[1::3]:
        b.unchanged()
    return out


# ----------------------------------------------------------------------------- references and bounds


def _reference64(fn: str, x: np.ndarray, z: np.ndarray) -> np.ndarray:
    x, z = x.astype(np.float64), z.astype(np.float64)
    with np.errstate(all="ignore"):
        if fn == "div":
            return x / z
        return {"exp": np.exp, "log": np.log, "sqrt": np.sqrt, "tanh": np.tanh, "abs": np.abs}[fn](x)


def _mp_reference(fn: str, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(indices, correctly rounded f64 results) of a sample of x where mpmath computes fn."""
    mpmath = pytest.importorskip("mpmath", reason="f64 exp/log/tanh are measured against mpmath")
    finite = np.isfinite(x) & (x != 0)
    if fn == "exp":
        finite &= np.abs(x) <= 700  # results stay normal: float() of an mpf rounds once there
    if fn == "log":
        finite &= x > 0
    candidates = np.flatnonzero(finite)
    idx = np.concatenate([candidates[candidates < 64], RNG.choice(candidates, 4000, replace=False)])
    idx = np.unique(idx)
    f = {"exp": mpmath.exp, "log": mpmath.log, "tanh": mpmath.tanh}[fn]
    with mpmath.workprec(160):
        ref = np.array([float(f(mpmath.mpf(float(v)))) for v in x[idx]])
    return idx, ref


def _ordered(a: np.ndarray) -> np.ndarray:
    """Integers in the order of the floats, consecutive for neighbours; -0 and +0 are both 0."""
    t = a.dtype.type
    bits = a.view(_INT[t]).astype(np.int64)
    mag = bits & np.int64(np.iinfo(_INT[t]).max)
    return np.where(bits < 0, -mag, mag)


def ulps(got: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """|got - ref| in ulps of their type: how many representable values lie between them."""
    a, b = _ordered(got), _ordered(ref)
    cap = np.int64(1 << 40)  # opposite signs: far apart anyway, and the sum must not overflow
    same = (a >= 0) == (b >= 0)
    return np.where(same, np.abs(a - b), np.minimum(np.abs(a), cap) + np.minimum(np.abs(b), cap))


def _bounds(variant: str, dname: str, fn: str, x: np.ndarray, z: np.ndarray):
    """(checked, ulp bound, (where, absolute bound) or None) per element: where an
    absolute bound applies it replaces the ulp one."""
    bound = BOUNDS[variant][dname][fn]
    checked = np.ones(x.shape, bool)
    absolute = None
    if variant == "fast" and dname == "f32":
        x64 = x.astype(np.float64)
        if fn == "exp":
            bound = 2 + np.floor(1.173 * np.nan_to_num(np.abs(x64), posinf=1e300))
            # ex2.approx.ftz: results below 2^-126 are flushed to +0 (the margin: the
            # approximation's own error, far below 2^-10, near the limit)
            edge = FTZ_LIMIT * (1 + 2.0**-10)
            absolute = (np.exp(x64) < edge, edge)
        elif fn == "log":
            absolute = ((x64 >= 0.5) & (x64 <= 2.0), FAST_LOG_ABS)
        elif fn == "div":
            az = np.abs(z.astype(np.float64))
            # div.approx.f32 is x * (1 / z): within its bound for these divisors only
            checked = ((az >= 2.0**-126) & (az <= 2.0**126)) | (az == 0) | np.isinf(az) | np.isnan(az)
    return checked, np.broadcast_to(np.asarray(bound, np.float64), x.shape), absolute


def _describe(x, z, got, ref, err, fn, i) -> str:
    operands = f"x={x[i]!r}" + (f", z={z[i]!r}" if fn == "div" else "")
    return f"{operands}: got {got[i]!r}, exact {ref[i]!r} ({err[i]} ulps)"


# ----------------------------------------------------------------------------- the tests


@pytest.mark.parametrize("dname", sorted(DTYPES))
@pytest.mark.parametrize("fn", FUNCTIONS)
def test_accuracy(results, dname, fn):
    variant = results["variant"]
    x, z, y, n_edges = results[dname]
    dtype = DTYPES[dname]
    got = y[FUNCTIONS.index(fn)]
    exact = _reference64(fn, x, z)
    ref = exact.astype(dtype)  # rounded to nearest: the correctly rounded result (f32, f16)
    checked, bound, absolute = _bounds(variant, dname, fn, x, z)
    measured = np.ones(x.shape, bool)
    if dname == "f64" and fn in ("exp", "log", "tanh"):
        # numpy's float64 is not exact enough to measure f64 in ulps: a sample against mpmath,
        # and everywhere the special values (numpy follows C99 there), i.e. NaN, inf and zero
        idx, mp = _mp_reference(fn, x)
        measured[:] = False
        measured[idx] = True
        ref = ref.copy()
        ref[idx] = mp
        special = ~np.isfinite(x) | (x == 0)
        measured |= special
    nan_ref, nan_got = np.isnan(ref), np.isnan(got)
    wrong_nan = checked & (nan_ref != nan_got)
    assert not wrong_nan.any(), (
        f"{variant} {fn} {dname}: NaN where the exact result is not, or the reverse, for "
        f"{int(wrong_nan.sum())} inputs, e.g. "
        + _describe(x, z, got, ref, np.zeros(x.shape, int), fn, np.flatnonzero(wrong_nan)[0])
    )
    use = checked & measured & ~nan_ref
    err = np.where(use, ulps(np.where(nan_got, ref, got), ref), 0)
    over = use & (err > bound)
    if absolute is not None:
        where, limit = absolute
        abs_err = np.abs(got.astype(np.float64) - exact)
        over = np.where(where, use & ~(abs_err <= limit), over)
        err = np.where(where, 0, err)
    zero = use & (ref == 0) & (got == 0)
    wrong_sign = zero & (np.signbit(ref) != np.signbit(got))
    worst = int(np.argmax(err))
    print(
        f"{variant:7} {fn:4} {dname}: max {int(err.max())} ulps (bound {BOUNDS[variant][dname][fn]}) "
        f"over {int(use.sum())} inputs, worst {_describe(x, z, got, ref, err, fn, worst)}"
    )
    assert not wrong_sign.any(), f"{variant} {fn} {dname}: a zero of the wrong sign for " + _describe(
        x, z, got, ref, err, fn, np.flatnonzero(wrong_sign)[0]
    )
    assert not over.any(), (
        f"{variant} {fn} {dname}: {int(over.sum())} results beyond the bound "
        f"({BOUNDS[variant][dname][fn]} ulps"
        + (f"; {absolute[1]:.3g} absolute where it applies" if absolute is not None else "")
        + "), e.g. "
        + _describe(x, z, got, ref, err, fn, np.flatnonzero(over)[np.argmax(err[over])])
    )
    assert checked[:n_edges].any() and use[:n_edges].any(), "the edge cases were not measured"


def test_fastmath_takes_effect(results):
    """Under @fastmath, f32 exp is __expf (ex2.approx of x * log2(e)): for large |x| its error
    passes expf's 2 ulps, which the precise kernel's never does (test_accuracy)."""
    if results["variant"] != "fast":
        pytest.skip("about the @fastmath kernel")
    x, z, y, _ = results["f32"]
    exact = _reference64("exp", x, z).astype(np.float32)
    large = np.isfinite(exact) & (np.abs(x) > 40)
    assert (ulps(y[FUNCTIONS.index("exp")], exact)[large] > 2).any(), "exp under @fastmath looks like expf"
