"""fp8 (issue 25, item 1): the conversions of phobos.fp8 against a bit-level reference written here
(every code of both formats, round trips, ties to even at every midpoint, saturation, NaN,
underflow) and against ml_dtypes with the saturation applied first; the kernels of
bench/kernels/fp8_encode.ph and fp8_decode.ph in the interpreter on ragged lengths with guard
zones; the promotion and constant rules of phobos.elements."""

from __future__ import annotations

import math
import os

import numpy as np
import pytest
from fp8_cases import assert_codes, special_f32
from test_interpreter import ROOT, program

from phobos import fp8
from phobos.elements import exactly, promote, rounded
from phobos.interpreter import run_program
from phobos.interpreter.dtypes import round_bf16

RNG = np.random.default_rng()
# name: (exponent bits, mantissa bits, IEEE-like specials), as the formats define them
LAYOUT = {"f8e4m3": (4, 3, False), "f8e5m2": (5, 2, True)}
MAX_CODE = {"f8e4m3": 0x7E, "f8e5m2": 0x7B}  # the largest finite value: 448 and 57344
KERNELS = os.path.join(ROOT, "bench", "kernels")
GUARD = 16


def reference_value(code: int, name: str) -> float:
    """The value of an 8-bit code from its bit fields (written apart from phobos.fp8)."""
    e_bits, m_bits, ieee = LAYOUT[name]
    sign = -1.0 if code >> 7 else 1.0
    exponent = (code >> m_bits) & ((1 << e_bits) - 1)
    mantissa = code & ((1 << m_bits) - 1)
    bias = (1 << (e_bits - 1)) - 1
    if ieee and exponent == (1 << e_bits) - 1:
        return sign * math.inf if mantissa == 0 else math.nan
    if not ieee and exponent == (1 << e_bits) - 1 and mantissa == (1 << m_bits) - 1:
        return math.nan
    if exponent == 0:
        return sign * mantissa / (1 << m_bits) * 2.0 ** (1 - bias)
    return sign * (1 + mantissa / (1 << m_bits)) * 2.0 ** (exponent - bias)


def reference_code(x: float, name: str) -> int | None:
    """The code nearest `x` (ties to the even code), saturating; None for NaN (any NaN code will do)."""
    if math.isnan(x):
        return None
    target = min(abs(x), reference_value(MAX_CODE[name], name))
    distances = [(abs(reference_value(c, name) - target), c) for c in range(MAX_CODE[name] + 1)]
    best = min(d for d, _ in distances)
    code = min((c for d, c in distances if d == best), key=lambda c: c % 2)
    return code | (0x80 if math.copysign(1.0, x) < 0 else 0)


@pytest.mark.parametrize("name", fp8.NAMES)
def test_every_code_decodes_as_its_bits_say(name):
    values = fp8.decode(np.arange(256, dtype=np.uint8), name)
    for code in range(256):
        want = reference_value(code, name)
        assert (math.isnan(want) and np.isnan(values[code])) or values[code] == want, hex(code)
    assert fp8.MAX[name] == reference_value(MAX_CODE[name], name)
    assert np.isnan(values).sum() == (2 if name == "f8e4m3" else 6)
    if name == "f8e5m2":  # e5m2 is the top byte of an f16: an identity independent of both decoders
        halves = (np.arange(256, dtype=np.uint16) << 8).view(np.float16).astype(np.float32)
        np.testing.assert_array_equal(values, halves)


@pytest.mark.parametrize("name", fp8.NAMES)
def test_codes_round_trip(name):
    codes = np.arange(256, dtype=np.uint8)
    values = fp8.decode(codes, name)
    keep = np.isfinite(values)  # e5m2's infinities saturate (test_saturation_nan_and_underflow)
    np.testing.assert_array_equal(fp8.encode(values[keep], name), codes[keep])
    for code in codes[keep]:
        assert fp8.encode_one(float(values[code]), name) == code


@pytest.mark.parametrize("name", fp8.NAMES)
def test_midpoints_round_to_the_even_code(name):
    for code in range(MAX_CODE[name]):
        lo, hi = reference_value(code, name), reference_value(code + 1, name)
        mid = np.float32((lo + hi) / 2)
        assert float(mid) == (lo + hi) / 2  # exact in f32: the GPU's input
        even = code if code % 2 == 0 else code + 1
        for sign, bit in ((1, 0), (-1, 0x80)):
            x = np.array([mid, np.nextafter(mid, np.float32(0)), np.nextafter(mid, np.float32(np.inf))]) * sign
            assert fp8.encode(x.astype(np.float32), name).tolist() == [even | bit, code | bit, (code + 1) | bit]
            assert fp8.encode_one(float(x[0]), name) == even | bit


@pytest.mark.parametrize("name", fp8.NAMES)
def test_saturation_nan_and_underflow(name):
    top = fp8.MAX[name]
    big = np.array([top, np.nextafter(top, np.inf), top * 1.07, top * 1.5, 1e30, np.inf], np.float32)
    assert fp8.encode(big, name).tolist() == [MAX_CODE[name]] * len(big)
    assert fp8.encode(-big, name).tolist() == [MAX_CODE[name] | 0x80] * len(big)
    nan = fp8.decode(fp8.encode(np.array([np.nan, -np.nan], np.float32), name), name)
    assert np.isnan(nan).all()
    tiny = reference_value(1, name)  # the smallest subnormal
    cases = [tiny / 2, np.nextafter(tiny / 2, 1.0), tiny * 0.75, tiny * 1.5, 1e-30, 0.0]
    assert fp8.encode(np.array(cases), name).tolist() == [0, 1, 1, 2, 0, 0]
    assert fp8.encode(-np.array(cases), name).tolist() == [0x80, 0x81, 0x81, 0x82, 0x80, 0x80]


@pytest.mark.parametrize("name", fp8.NAMES)
def test_against_the_reference_search(name):
    """Random values (every f32 binade the formats reach, and beyond) against the exhaustive search."""
    x = np.ldexp(RNG.uniform(-2, 2, 3000), RNG.integers(-20, 19, 3000)).astype(np.float32)
    got = fp8.encode(x, name)
    for value, code in zip(x.tolist(), got.tolist()):
        assert code == reference_code(value, name), value


@pytest.mark.parametrize("name", fp8.NAMES)
def test_agrees_with_ml_dtypes_after_saturation(name):
    ml_dtypes = pytest.importorskip("ml_dtypes")
    target = {"f8e4m3": ml_dtypes.float8_e4m3fn, "f8e5m2": ml_dtypes.float8_e5m2}[name]
    x = np.ldexp(RNG.uniform(-2, 2, 200_000), RNG.integers(-150, 40, 200_000)).astype(np.float32)
    x[:6] = [np.inf, -np.inf, 0.0, -0.0, np.float32(1e-45), fp8.MAX[name] * 1.0625]
    top = fp8.MAX[name]
    want = np.clip(x, -top, top).astype(target).view(np.uint8)  # ml_dtypes overflows to NaN/inf: clip first
    np.testing.assert_array_equal(fp8.encode(x, name), want)
    halves = np.arange(65536, dtype=np.uint16).view(np.float16)
    finite = ~np.isnan(halves)
    want = np.clip(halves[finite], -top, top).astype(target).view(np.uint8)
    np.testing.assert_array_equal(fp8.encode(halves[finite], name), want)


def test_elements_rules():
    assert promote("f8e4m3", "f32") is None and promote("f8e5m2", "f8e5m2") == "f8e5m2"
    assert rounded(1000.0, "f8e4m3") == 448.0 and rounded(-1e9, "f8e5m2") == -57344.0
    assert rounded(0.1, "f8e4m3") == 0.1015625
    assert exactly(0.5, "f8e4m3") and not exactly(0.1, "f8e4m3") and not exactly(1000.0, "f8e4m3")
    assert exactly(math.inf, "f8e5m2") and not exactly(math.inf, "f8e4m3")


# ----------------------------------------------------------------------------- the kernels in the interpreter


def _kernel(name: str) -> dict:
    with open(os.path.join(KERNELS, name + ".ph"), encoding="utf-8") as f:
        return program(f.read(), name + ".ph")


def _guarded(n: int, dtype) -> tuple[np.ndarray, np.ndarray]:
    """(a poisoned buffer with GUARD elements each side, the view of its middle n)."""
    buf = np.full(n + 2 * GUARD, 0x5A if np.dtype(dtype).itemsize == 1 else 7, dtype)
    return buf, buf[GUARD : GUARD + n]


def _check_guards(buf: np.ndarray) -> None:
    edges = np.concatenate([buf[:GUARD], buf[-GUARD:]])
    assert (edges == buf.dtype.type(0x5A if buf.dtype.itemsize == 1 else 7)).all(), "guard zone written"


@pytest.mark.parametrize("n", [1, 15, 512, 1000, 4097])
def test_encode_kernel(n):
    x = special_f32(n, RNG)
    with np.errstate(over="ignore"):
        h = x.astype(np.float16)  # beyond f16: infinity, which saturates
    g = round_bf16(x)  # the interpreter holds bf16 as f32 values that are bf16 numbers
    outs = [_guarded(n, np.uint8) for _ in range(6)]
    run_program(_kernel("fp8_encode"), [x, h, g, *(view for _, view in outs)], ((n + 511) // 512, 1, 1))
    for buf, _ in outs:
        _check_guards(buf)
    a, b, ha, hb, ga, gb = (view for _, view in outs)
    assert_codes(a, x, "f8e4m3")
    assert_codes(b, x, "f8e5m2")
    assert_codes(ha, h, "f8e4m3")
    assert_codes(hb, h, "f8e5m2")
    assert_codes(ga, g, "f8e4m3")
    assert_codes(gb, g, "f8e5m2")


@pytest.mark.parametrize("n", [1, 3, 256, 1000, 4097])
def test_decode_kernel(n):
    a = np.resize(RNG.permutation(256).astype(np.uint8), n)
    b = np.resize(RNG.permutation(256).astype(np.uint8), n)
    bufs = [_guarded(n, dt) for dt in (np.float32, np.float32, np.float16, np.float32, np.uint8, np.uint8)]
    run_program(_kernel("fp8_decode"), [a, b, *(view for _, view in bufs)], ((n + 511) // 512, 1, 1))
    for buf, _ in bufs:
        _check_guards(buf)
    af, bf, ah, bg, ab, ba = (view for _, view in bufs)
    va, vb = fp8.decode(a, "f8e4m3"), fp8.decode(b, "f8e5m2")
    np.testing.assert_array_equal(af, va)  # assert_array_equal takes NaN == NaN
    np.testing.assert_array_equal(bf, vb)
    np.testing.assert_array_equal(ah, va.astype(np.float16))
    np.testing.assert_array_equal(bg, vb)
    assert_codes(ab, va, "f8e5m2")
    assert_codes(ba, vb, "f8e4m3")


def test_ml_dtypes_arrays_are_read_and_written_through():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    n = 1000
    a = fp8.decode(np.resize(np.arange(256, dtype=np.uint8), n), "f8e4m3").astype(ml_dtypes.float8_e4m3fn)
    b = np.zeros(n, ml_dtypes.float8_e5m2)
    outs = [np.zeros(n, dt) for dt in (np.float32, np.float32, np.float16, np.float32)]
    ab, ba = np.zeros(n, ml_dtypes.float8_e5m2), np.zeros(n, ml_dtypes.float8_e4m3fn)
    run_program(_kernel("fp8_decode"), [a, b, *outs, ab, ba], (2, 1, 1))
    np.testing.assert_array_equal(outs[0], a.astype(np.float32))
    finite = np.isfinite(a.astype(np.float32))
    want = a[finite].astype(np.float32).astype(ml_dtypes.float8_e5m2)  # e4m3 values stay within e5m2's range
    np.testing.assert_array_equal(ab[finite].view(np.uint8), want.view(np.uint8))
    with pytest.raises(Exception, match="must have dtype uint8 \\(the f8e4m3 codes\\) or ml_dtypes.float8_e4m3fn"):
        run_program(_kernel("fp8_decode"), [np.zeros(n, np.int8), b, *outs, ab, ba], (2, 1, 1))
