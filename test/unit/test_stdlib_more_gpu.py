"""GPU test of the std.nn functions that test_stdlib_gpu.py does not benchmark (pytest -m gpu;
skipped without a GPU or its ahead-of-time folders).

The kernels bench/kernels/stdnn_*.ph (built by bench/aot_build.py, stdnn_jobs) call std.nn's
silu, swiglu, softplus, log_softmax_rows, cross_entropy_rows, philox, rand, randn, dropout and the
Q8_0 helpers, in f32 and f16 where the function takes both, on ragged shapes, fresh random data
every run, outputs poisoned inside guard zones (the first shape, 37 x 4096, is laid out densely
so that it launches the variant specialised for it; the others are padded and misaligned).
References are NumPy: float64 with torch's definitions for the float functions, at bounds
derived below from the f32 arithmetic; the library's exact integer and rounding steps (the
Philox words, rand's mapping, dropout's kept/dropped pattern, Q8_0's scales and quants) bit for
bit. test_stdlib_more_interp.py runs the same cases in the interpreter on every CI run.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pytest
from aot_folders import aot
from guarded import RNG, Guarded
from philox_ref import philox4x32_10

pytestmark = pytest.mark.gpu

SHAPES = [(37, 4096), (5, 3001), (1, 1)]  # rows: at most 4096 columns (stdnn_rows: one row per CTA)
Q8_SHAPES = [(37, 4096), (5, 3008), (1, 32)]  # whole 32-element blocks: 128, 94 and 1 per row
DTYPE = {"f32": np.float32, "f16": np.float16}
# f32 results: a few ulps of f32 (2^-23 relative each at most); f16 results: f32 values rounded
# once more (2^-11), from inputs that f32 holds exactly.
RTOL = {"f32": 1e-6, "f16": 1e-3}
# Below the smallest normal number the spacing is fixed, so every size gets it added.
FLOOR = {"f32": 2.0**-126, "f16": 2.0**-14}
# The row sums of the softmaxes: exp's 2 ulps and up to 16 sequential additions per thread and
# 13 levels of shuffles and warps, each 2^-24 relative; 64 roundings bounds them.
SUM_ABS = 64 * 2.0**-24
# randn: 2 pi rounded to f32 and the product 2 pi u2 (5.5e-7 of cos's argument), cos's and log's
# ulps: 8.5e-7 of sqrt(-2 log u1), the radius; twice that.
RANDN_RTOL = 2e-6
SOFTPLUS_THRESHOLD = 20.0  # torch's softplus returns x above it
MASK = 0xFFFFFFFF
POISON_I64 = -0x5A5A5A5A5A5A5A5B  # never-written int64 outputs; any word could hide, this one won't
POISON_I8 = -128  # Q8_0 quants lie in [-127, 127]

# (op, type) per kernel; None: the kernel has one type
CASES = [(op, t) for op in ("act", "rows", "dropout", "q8_quantize") for t in ("f32", "f16")]
CASES += [("rng", None), ("q8_dequantize", None)]


def kernel_name(op: str, t: str | None) -> str:
    """The source in bench/kernels/ and its ahead-of-time folder."""
    return f"stdnn_{op}" + (f"_{t}" if t else "")


def shapes(op: str):
    return Q8_SHAPES if op.startswith("q8") else SHAPES


# ----------------------------------------------------------------------------- buffers


@dataclass
class Case:
    """A launch's arguments (views and scalars, in the kernel's order) and what to check after it."""

    args: list = field(default_factory=list)
    inputs: list = field(default_factory=list)  # Guarded buffers the kernel must leave unchanged
    outputs: list = field(default_factory=list)  # Guarded buffers it writes
    checks: list = field(default_factory=list)  # callables

    def launch(self, kernel) -> None:
        kernel(*self.args)

    def check(self) -> None:
        for check in self.checks:
            check()
        for g in self.inputs:
            g.unchanged()


class Layout:
    """The buffers of one launch: dense for the first shape (the specialised variant), else each
    with its own row padding and misalignment."""

    def __init__(self, framework: str, dense: bool):
        self.framework, self.dense, self.count = framework, dense, 0

    def buffer(self, shape, dtype, **kw) -> Guarded:
        self.count += 1
        if not self.dense:
            kw.setdefault("pad", 2 * self.count + 1)
            kw.setdefault("misalign", self.count % 2)
        return Guarded(self.framework, shape, dtype=dtype, **kw)


def layout(framework: str, op: str, shape, dense: bool | None = None) -> Layout:
    return Layout(framework, tuple(shape) == shapes(op)[0] if dense is None else dense)


def blocks(g: Guarded, extra: int = 32):
    """An [M, K] buffer's view as [M, K / extra, extra] (extra = 1: an [M, NB] one as [M, NB, 1])."""
    m, k = g.shape
    if g.framework == "numpy":
        ld, item = g.strides[0] * g.view.itemsize, g.view.itemsize
        return np.lib.stride_tricks.as_strided(g.view, (m, k // extra, extra), (ld, extra * item, item))
    return g.view.unflatten(1, (k // extra, extra))


def exact(g: Guarded, want: np.ndarray):
    """A check: the region holds `want` bit for bit, and nothing outside it changed."""

    def check():
        now = g.download()
        outside = ~g.region
        assert np.array_equal(now[outside].view(np.uint8), g.host[outside].view(np.uint8)), (
            "a kernel wrote outside its output (guard zone or row padding changed)"
        )
        got = now[g._indices()].reshape(g.shape)
        bits = f"u{got.itemsize}"  # compare the bits: -0 is not +0, a NaN is never right
        wrong = got.view(bits) != np.asarray(want, got.dtype).view(bits)
        assert not wrong.any(), f"{int(wrong.sum())} of {wrong.size} differ, the first at {np.argwhere(wrong)[0]}"

    return check


def near(g: Guarded, want, rtol, size):
    return lambda: g.check(want, rtol=rtol, size=size)


def nonzero_normal(shape, dtype):
    """Standard normal draws in `dtype`, none of them zero (dropout's pattern reads zeros as
    dropped)."""
    v = RNG.standard_normal(shape).astype(dtype)
    v[v == 0] = 1
    return v


# ----------------------------------------------------------------------------- references


def sigmoid(v):
    e = np.exp(-np.abs(v))
    return np.where(v >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def philox_words(seed: int, offsets: np.ndarray):
    """std.nn's philox(seed, offsets): words 0 and 1 of Philox4x32-10 at the counter (low 32
    bits of the offset, 0, 0, 0) with the key (low, high 32 bits of the seed)."""
    counters = offsets.astype(np.int64).astype(np.uint64) & np.uint64(MASK)
    w = philox4x32_10([counters, 0, 0, 0], (seed & MASK, (seed >> 32) & MASK))
    return w[0], w[1]


def uniform(w0: np.ndarray) -> np.ndarray:
    """rand: the top 24 bits of word 0 times 2^-24, exact in f32."""
    return ((w0 >> np.uint64(8)).astype(np.float64) * 2.0**-24).astype(np.float32)


def q8_0(x: np.ndarray):
    """The library's Q8_0 in f32 as it writes it (x: [M, NB, 32]): scale = max|x| / 127, quants
    round(x * (1 / scale)) with ties to even (rint), 0 where the scale is 0."""
    x32 = x.astype(np.float32)
    scale = np.abs(x32).max(axis=2, keepdims=True) / np.float32(127.0)
    with np.errstate(divide="ignore"):
        inv = np.where(scale == 0, np.float32(0), np.float32(1) / scale).astype(np.float32)
    q = np.rint(x32 * inv)
    assert np.abs(q).max() <= 127
    return scale, q.astype(np.int8)


# ----------------------------------------------------------------------------- cases


def case(op: str, t: str | None, shape, framework: str = "torch", dense: bool | None = None) -> Case:
    """The arguments and checks of kernel_name(op, t) on `shape` (also used by the interpreter
    test with framework="numpy"); dense: one buffer after the other, no padding (default: for
    the first shape only)."""
    lay = layout(framework, op, shape, dense)
    return BUILDERS[op](lay, t, *shape)


def _act(lay: Layout, t: str, m: int, n: int) -> Case:
    dt = DTYPE[t]
    x = lay.buffer((m, n), dt, values=RNG.standard_normal((m, n)) * 6.0)  # both tails and the threshold
    g = lay.buffer((m, n), dt)
    outs = [lay.buffer((m, n), dt, poison=True) for _ in range(3)]
    v, gv = x.values.astype(np.float64), g.values.astype(np.float64)
    silu = v * sigmoid(v)
    with np.errstate(over="ignore"):
        softplus = np.where(v > SOFTPLUS_THRESHOLD, v, np.log1p(np.exp(v)))
    c = Case([x.view, g.view] + [o.view for o in outs], [x, g], outs)
    c.checks.append(near(outs[0], silu, RTOL[t], np.abs(silu) + FLOOR[t]))
    c.checks.append(near(outs[1], silu * gv, RTOL[t], np.abs(silu * gv) + FLOOR[t]))
    c.checks.append(near(outs[2], softplus, RTOL[t], np.abs(softplus) + FLOOR[t]))  # relative: log1p
    return c


def _rows(lay: Layout, t: str, m: int, n: int) -> Case:
    dt = DTYPE[t]
    x = lay.buffer((m, n), dt, values=RNG.standard_normal((m, n)) * 3.0)
    target = lay.buffer((m, 1), np.int32, values=RNG.integers(0, n, (m, 1)))
    y = lay.buffer((m, n), dt, poison=True)
    loss = lay.buffer((m, 1), np.float32, poison=True)
    v = x.values.astype(np.float64)
    mx = v.max(axis=1, keepdims=True)
    s = v - mx
    lse = np.log(np.exp(s).sum(axis=1, keepdims=True))
    picked = np.take_along_axis(v, target.values.astype(np.int64), axis=1)
    c = Case([x.view, target.view, y.view, loss.view], [x, target], [y, loss])
    # the error is a few roundings of the terms s and lse, and the sum's (SUM_ABS, absolute)
    c.checks.append(near(y, s - lse, RTOL[t], np.abs(s) + lse + FLOOR[t] + SUM_ABS / RTOL[t]))
    ce_size = np.abs(mx) + lse + np.abs(picked) + SUM_ABS / RTOL["f32"]  # computed and stored in f32
    c.checks.append(near(loss, mx + lse - picked, RTOL["f32"], ce_size))
    return c


def _dropout(lay: Layout, t: str, m: int, n: int) -> Case:
    dt = DTYPE[t]
    x = lay.buffer((m, n), dt, values=nonzero_normal((m, n), dt))
    offsets = lay.buffer((m, n), np.int32, values=RNG.integers(-(2**31), 2**31, (m, n)))
    y = lay.buffer((m, n), dt, poison=True)
    p = float(np.float32(RNG.uniform(0.05, 0.95)))
    seed = int(RNG.integers(-(2**63), 2**63 - 1, dtype=np.int64))
    w0, _ = philox_words(seed, offsets.values)
    keep = uniform(w0) >= np.float32(p)
    scale = 1.0 / (1.0 - p)
    want = np.where(keep, x.values.astype(np.float64) * scale, 0.0)
    c = Case([x.view, offsets.view, y.view, p, seed], [x, offsets], [y])
    # kept: x / (1 - p), 1 - p and the quotient rounded in f32 (and once more to f16)
    c.checks.append(near(y, want, RTOL[t], np.abs(want) + FLOOR[t]))

    def pattern():
        got = y.download()[y._indices()].reshape(m, n)
        assert np.array_equal(got != 0, keep), "the kept/dropped pattern differs from the reference"
        assert not np.signbit(got[~keep]).any(), "dropped elements must be +0"

    c.checks.append(pattern)
    return c


def _rng(lay: Layout, t: None, m: int, n: int) -> Case:
    o = lay.buffer((m, n), np.int32, values=RNG.integers(-(2**31), 2**31, (m, n)))
    o64 = lay.buffer((m, n), np.int64, values=RNG.integers(-(2**63), 2**63 - 1, (m, n), dtype=np.int64))
    w, w64 = (lay.buffer((m, n), np.int64, values=np.full((m, n), POISON_I64)) for _ in range(2))
    u, z = (lay.buffer((m, n), np.float32, poison=True) for _ in range(2))
    seed = int(RNG.integers(-(2**63), 2**63 - 1, dtype=np.int64))
    w0, w1 = philox_words(seed, o.values)
    h0, h1 = philox_words(seed, o64.values)  # only the offsets' low 32 bits count
    c = Case([o.view, o64.view, w.view, w64.view, u.view, z.view, seed], [o, o64], [w, w64, u, z])
    c.checks.append(exact(w, (w0 | (w1 << np.uint64(32))).view(np.int64)))
    c.checks.append(exact(w64, (h0 | (h1 << np.uint64(32))).view(np.int64)))
    c.checks.append(exact(u, uniform(w0)))
    # randn: Box-Muller on u1 in (0, 1] (word 0) and u2 in [0, 1) (word 1), both exact in f32
    u1 = ((w0 >> np.uint64(8)).astype(np.float64) + 1.0) * 2.0**-24
    u2 = (w1 >> np.uint64(8)).astype(np.float64) * 2.0**-24
    radius = np.sqrt(-2.0 * np.log(u1))
    c.checks.append(near(z, radius * np.cos(2.0 * np.pi * u2), RANDN_RTOL, radius))
    return c


def _q8_quantize(lay: Layout, t: str, m: int, n: int) -> Case:
    nb = n // 32
    magnitude = np.repeat(2.0 ** RNG.uniform(-8, 8, (m, nb)), 32, axis=1)  # blocks of every size
    values = RNG.standard_normal((m, n)) * magnitude
    if m * nb > 2:
        values[0, :32] = 0.0  # a block of zeros: scale 0, quants 0 (the edge case, once)
        # a block of ties: its maximum 127 * 2^k makes the scale exactly 2^k, so the halves stay
        # halves and the rounding rule (ties to even) decides them
        ties = RNG.integers(-253, 254, 32) / 2.0
        ties[RNG.integers(0, 32)] = 127.0
        values[0, 32:64] = ties * 2.0 ** RNG.integers(-4, 5)
    x = lay.buffer((m, n), DTYPE[t], values=values)
    s = lay.buffer((m, nb), np.float32, poison=True)
    q = lay.buffer((m, n), np.int8, values=np.full((m, n), POISON_I8))
    scale, quants = q8_0(x.values.reshape(m, nb, 32))
    c = Case([blocks(x), blocks(s, 1), blocks(q)], [x], [s, q])
    c.checks.append(exact(s, scale.reshape(m, nb)))
    c.checks.append(exact(q, quants.reshape(m, n)))
    # what Q8_0 promises: each value within half a step (and the rounding of 1 / scale) of x
    back = quants.astype(np.float64) * scale.astype(np.float64)
    err = np.abs(back - x.values.astype(np.float64).reshape(m, nb, 32))
    assert (err <= scale * (0.5 + 1e-5)).all()
    return c


def _q8_dequantize(lay: Layout, t: None, m: int, n: int) -> Case:
    nb = n // 32
    q = lay.buffer((m, n), np.int8, values=RNG.integers(-128, 128, (m, n)))
    scales = RNG.uniform(0.5, 1.0, (m, nb)) * 2.0 ** RNG.integers(-20, 5, (m, nb))
    s = lay.buffer((m, nb), np.float32, values=scales)
    y = lay.buffer((m, n), np.float32, poison=True)
    want = (q.values.astype(np.float64).reshape(m, nb, 32) * s.values.astype(np.float64)[..., None]).reshape(m, n)
    c = Case([blocks(q), blocks(s, 1), blocks(y)], [q, s], [y])
    c.checks.append(near(y, want, 2.0**-24, np.abs(want)))  # one f32 rounding of the product
    return c


BUILDERS = {
    "act": _act,
    "rows": _rows,
    "dropout": _dropout,
    "rng": _rng,
    "q8_quantize": _q8_quantize,
    "q8_dequantize": _q8_dequantize,
}


def example_args(op: str, t: str | None, like) -> tuple:
    """The dense layout of the first shape (for bench/aot_build.py: the variant it launches)."""
    m, n = shapes(op)[0]
    t = t or "f32"
    rows, nb = like(t, (m, n)), n // 32
    if op == "act":
        return (rows,) * 5
    if op == "rows":
        return (rows, like("i32", (m, 1)), rows, like("f32", (m, 1)))
    if op == "dropout":
        return (rows, like("i32", (m, n)), rows, 0.5, 1)  # seed 1: no divisibility fact
    if op == "rng":
        i64 = like("i64", (m, n))
        return (like("i32", (m, n)), i64, i64, i64, rows, rows, 1)
    scales = like("f32", (m, nb, 1))
    if op == "q8_quantize":
        return (like(t, (m, nb, 32)), scales, like("i8", (m, nb, 32)))
    return (like("i8", (m, nb, 32)), scales, like("f32", (m, nb, 32)))


@pytest.mark.parametrize("op,t", CASES)
@pytest.mark.parametrize("index", range(3))
def test_std_function_against_numpy(op, t, index):
    kernel = aot(kernel_name(op, t))
    c = case(op, t, shapes(op)[index])
    c.launch(kernel)
    c.check()
