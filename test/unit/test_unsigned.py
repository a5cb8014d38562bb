"""u8 and u32 (issue 29, item 2): the kernels of test/Frontend/Inputs/unsigned-*.ph in the
interpreter against NumPy's unsigned arithmetic (fresh random data over the whole range, guard
zones), the promotion table, and the located errors."""

from __future__ import annotations

import os

import numpy as np
import pytest
from test_interpreter import ROOT, program

from phobos.compiler import CompileError, compile_stages
from phobos.elements import int_range, promote
from phobos.interpreter import run_program

RNG = np.random.default_rng()
INPUTS = os.path.join(ROOT, "test", "Frontend", "Inputs")


def _program(name: str):
    with open(os.path.join(INPUTS, name), encoding="utf-8") as f:
        return program(f.read(), name)


def _u32(n):
    return RNG.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)


def _u8(*shape):
    return RNG.integers(0, 256, shape, dtype=np.uint8)


def test_promotion_table():
    assert promote("u8", "i8") == "u8" and promote("i8", "u8") == "u8"
    assert promote("u32", "i32") == "u32" and promote("i32", "u32") == "u32"
    assert promote("u8", "i32") == "i32" and promote("u8", "u32") == "u32"
    assert promote("u32", "i64") == "i64" and promote("u32", "index") == "index"
    assert promote("u8", "f16") == "f16"
    assert int_range("u8") == (0, 255) and int_range("u32") == (0, 2**32 - 1)


@pytest.mark.parametrize("s", [3, 3_000_000_000, 1])
def test_elementwise_unsigned_ops(s):
    n = 128
    x, y = _u8(n), _u32(n)
    x[:4], y[:4] = [0, 255, 128, 127], [0, 2**32 - 1, 2**31, 2**31 - 1]
    f = RNG.uniform(-10, 5e9, n).astype(np.float32)
    f[:3] = [np.nan, -1.0, 1e20]
    q, r = np.zeros(n + 2, np.uint8), np.zeros(n + 2, np.uint32)
    g, b = np.zeros(n, np.float32), np.zeros(n, np.int32)
    q[-2:], r[-2:] = 77, 77  # guard: the kernel writes [0, N) of a view
    run_program(_program("unsigned-ops.ph"), [x, y, f, q[:n], r[:n], g, b, s], (2, 1, 1))
    np.testing.assert_array_equal(q[:n], (x // 3 + (x >> 1) % 7).astype(np.uint8))
    fu = np.where(np.isnan(f), 0, np.clip(np.trunc(f.astype(np.float64)), 0, 2**32 - 1)).astype(np.uint64)
    want = (np.maximum(y // s, x.astype(np.uint32)).astype(np.uint64) + (y >> 3) + fu) % 2**32
    np.testing.assert_array_equal(r[:n], want.astype(np.uint32))
    np.testing.assert_array_equal(g, (y.astype(np.float64).astype(np.float32) + x.astype(np.float32)))
    np.testing.assert_array_equal(b, np.where(y > 2**31, 1, 0) + np.where(x >= 200, 10, 0))
    assert (q[-2:] == 77).all() and (r[-2:] == 77).all()


def test_reductions_in_unsigned_order():
    m = 8
    x, y = _u8(m, 32), _u32(m * 32).reshape(m, 32)
    x[0, :] = 1
    x[0, 5] = 200  # above 127: the signed order would pick another
    y[1, :] = 2**31 + 5
    y[1, 9] = 3  # below every value read unsigned, the largest read signed
    a, b, c = np.zeros((m, 1), np.uint8), np.zeros((m, 1), np.uint32), np.zeros((m, 1), np.int32)
    d = np.zeros((m, 32), np.uint8)
    run_program(_program("unsigned-reductions.ph"), [x, y, a, b, c, d], (2, 1, 1))
    np.testing.assert_array_equal(a[:, 0], x.max(axis=1))
    np.testing.assert_array_equal(b[:, 0], y.min(axis=1))
    np.testing.assert_array_equal(c[:, 0], y.argmax(axis=1))
    np.testing.assert_array_equal(d, ((np.clip(x, 10, 200).astype(np.int64) + 100) % 256).astype(np.uint8))


def test_promotion_in_kernels():
    n = 64
    x, y = _u8(n), RNG.integers(-128, 128, n, dtype=np.int8)
    z, w = _u32(n), RNG.integers(-(2**31), 2**31, n, dtype=np.int64).astype(np.int32)
    f = RNG.uniform(-50, 400, n).astype(np.float32)
    f[:2] = [np.nan, 255.9]
    o1, o2, o3, o4 = np.zeros(n, np.uint8), np.zeros(n, np.uint32), np.zeros(n, np.int32), np.zeros(n, np.uint8)
    run_program(_program("unsigned-promotion.ph"), [x, y, z, w, f, o1, o2, o3, o4], (2, 1, 1))
    u8_sum = (x.astype(np.int64) + y.view(np.uint8)) % 256  # y's bits read as u8
    np.testing.assert_array_equal(o1, ((u8_sum // 16 + 250) % 256).astype(np.uint8))
    np.testing.assert_array_equal(o2, (((z.astype(np.int64) + w.view(np.uint32)) % 2**32) >> 28).astype(np.uint32))
    np.testing.assert_array_equal(o3, (x.astype(np.int64) + w).astype(np.int32))
    np.testing.assert_array_equal(o4, np.where(np.isnan(f), 0, np.clip(np.trunc(f), 0, 255)).astype(np.uint8))


def test_arguments_are_unsigned_arrays():
    with pytest.raises(Exception, match="must have dtype uint8, got int8"):
        run_program(_program("unsigned-promotion.ph"), [np.zeros(4, np.int8)] + [None] * 8, (1, 1, 1))


BAD = """kernel bad(X: tensor<u8>[N, N], C: tensor<u32>[N, N]) {
  let a: u8 = 300
  let b: u8 = -1
  C[0 :+ 16, 0 :+ 16] = dot(C[0 :+ 16, 0 :+ 16], C[0 :+ 16, 0 :+ 16])
}
"""


def test_located_errors():
    with pytest.raises(CompileError) as caught:
        compile_stages(BAD, until="tile", source_name="bad.ph")
    got = [(d[1], d[2], d[4]) for d in caught.value.diagnostics]
    assert (2, 15, "integer constant 300 does not fit in u8") in got
    assert (3, 15, "integer constant -1 does not fit in u8") in got
    assert (4, 29, "'dot' is not defined on u32 tiles") in got  # u8 dots are (test_u8_dot.py)
