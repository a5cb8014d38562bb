"""The interpreter (phobos.interpreter) against NumPy float64 references.

Programs come from the real compiler: .ph snippets written here, the kernels of
examples/ and bench/kernels/, and builder kernels, each compiled to the tile
stage, parsed and turned into the portable form (compiler/tile_program.py).
Outputs start poisoned (NaN or a sentinel) inside guard zones: each tensor is a
view into a larger buffer whose border must stay untouched.
"""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("mlir")

from mlir import ir  # noqa: E402

from phobos.compiler import compile_stages  # noqa: E402
from phobos.compiler.tile_program import to_program  # noqa: E402
from phobos.dialect import kernel as K  # noqa: E402
from phobos.dialect import make_context  # noqa: E402
from phobos.interpreter import InterpreterError, run_program  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RNG = np.random.default_rng(13)


def programs(source, name: str = "test.ph", defines: dict | None = None) -> dict:
    """kernel name -> portable program of every kernel of `source` (.ph or MLIR text, or a builder module)."""
    text = compile_stages(source, until="tile", debug_info=True, source_name=name, defines=defines)["tile"]
    with make_context():
        module = ir.Module.parse(text)
        return {K.kernel_name(fn): to_program(fn) for fn in K.kernels(module)}


def program(source, name: str = "test.ph", defines: dict | None = None) -> dict:
    (only,) = programs(source, name, defines).values()
    return only


def example(path: str, defines: dict | None = None, drop: str | None = None) -> dict:
    """The program of a kernel file of the repository; `drop` removes the lines that start with it."""
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        text = f.read()
    if drop:
        text = "\n".join("" if line.startswith(drop) else line for line in text.splitlines())
    return program(text, os.path.basename(path), defines)


GUARD = 3


def guarded(shape, dtype=np.float32, fill=np.nan):
    """(view, buffer): a tensor of `shape` inside a buffer GUARD elements larger on every side, all `fill`."""
    buffer = np.full([n + 2 * GUARD for n in shape], fill, dtype=dtype)
    return buffer[tuple(slice(GUARD, GUARD + n) for n in shape)], buffer


def guard_intact(buffer, fill) -> bool:
    inner = np.ones(buffer.shape, dtype=bool)
    inner[tuple(slice(GUARD, n - GUARD) for n in buffer.shape)] = False
    border = buffer[inner]
    if isinstance(fill, float) and np.isnan(fill):
        return bool(np.all(np.isnan(border)))
    return bool(np.all(border == fill))


def random_tensor(shape, dtype=np.float32):
    """Random values in a guarded buffer, never zero (a kernel that reads nothing must show)."""
    view, buffer = guarded(shape, dtype, fill=np.nan if np.dtype(dtype).kind == "f" else -77)
    view[...] = (RNG.uniform(0.5, 2.0, shape) * RNG.choice([-1, 1], shape)).astype(dtype)
    return view, buffer


def cdiv(a, b):
    return -(-a // b)


# ----------------------------------------------------------------------------- examples and bench kernels


@pytest.mark.parametrize("shape", [(1, 1), (17, 33), (255, 257)])
def test_masked_scale_on_ragged_shapes(shape):
    prog = example("bench/kernels/scale.ph", {"TM": 16, "TN": 128})
    x, xbuf = random_tensor(shape)
    y, ybuf = guarded(shape)
    run_program(prog, [x, y, 1.5], (cdiv(shape[0], 16), cdiv(shape[1], 128), 1))
    np.testing.assert_array_equal(y, (1.5 * x.astype(np.float64)).astype(np.float32))
    assert guard_intact(ybuf, np.nan) and guard_intact(xbuf, np.nan)


def test_aligned_scale_on_whole_tiles():
    prog = example("examples/scale.ph")
    x, _ = random_tensor((64, 256))
    y, ybuf = guarded((64, 256))
    run_program(prog, [x, y, -2.0], (2, 2, 1))
    np.testing.assert_array_equal(y, -2 * x)
    assert guard_intact(ybuf, np.nan)


def gemm_reference(a, b, c, alpha, beta):
    return alpha * (a.astype(np.float64) @ b.astype(np.float64)) + beta * c.astype(np.float64)


@pytest.mark.parametrize("m, n, k", [(1, 1, 1), (17, 33, 9), (70, 40, 37)])
def test_unaligned_gemm_on_ragged_sizes(m, n, k):
    prog = example("examples/gemm_fp32.ph", drop="@aligned")
    a, _ = random_tensor((m, k))
    b, _ = random_tensor((k, n))
    c, cbuf = random_tensor((m, n))
    expected = gemm_reference(a, b, c, 0.75, -1.25)
    run_program(prog, [a, b, c, 0.75, -1.25], (cdiv(m, 32), cdiv(n, 32), 1))
    np.testing.assert_allclose(c, expected, rtol=1e-5, atol=1e-5 * k)
    assert guard_intact(cbuf, np.nan)


def test_aligned_gemm():
    prog = example("examples/gemm_fp32.ph")
    a, _ = random_tensor((64, 12))
    b, _ = random_tensor((12, 96))
    c, _ = random_tensor((64, 96))
    expected = gemm_reference(a, b, c, 2.0, 0.5)
    run_program(prog, [a, b, c, 2.0, 0.5], (2, 3, 1))
    np.testing.assert_allclose(c, expected, rtol=1e-5, atol=1e-5)


def test_broken_aligned_promise_names_the_extent_and_the_source_line():
    prog = example("examples/gemm_fp32.ph")
    a, b, c = (np.ones(s, np.float32) for s in [(100, 4), (4, 32), (100, 32)])
    with pytest.raises(InterpreterError) as caught:
        run_program(prog, [a, b, c, 1.0, 0.0], (4, 1, 1))
    with open(os.path.join(ROOT, "examples/gemm_fp32.ph"), encoding="utf-8") as f:  # at the promise M = TILE_M
        line, col = next((i, text.index("M =") + 1) for i, text in enumerate(f, 1) if text.startswith("@aligned"))
    assert caught.value.message == "the @aligned promise M = 32 is broken: M = 100 is not a multiple of 32"
    assert str(caught.value).startswith(f"gemm_fp32.ph:{line}:{col}:")
    assert not np.any(c != 1.0)  # nothing ran


@pytest.mark.parametrize("kernel", ["saxpy_offsets", "saxpy_offsets_aligned"])
def test_offset_form_saxpy(kernel):
    with open(os.path.join(ROOT, f"bench/kernels/{kernel}.mlir"), encoding="utf-8") as f:
        prog = program(f.read(), f"{kernel}.mlir")
    n = 1024 if kernel.endswith("aligned") else 1000
    x, _ = random_tensor((n,))
    y, ybuf = random_tensor((n,))
    expected = 3.0 * x.astype(np.float64) + y
    run_program(prog, [x, y, 3.0], (cdiv(n, 256), 1, 1))
    np.testing.assert_allclose(y, expected, rtol=1e-6, atol=1e-6)
    assert guard_intact(ybuf, np.nan)


def test_offset_form_scale_2d_masked():
    with open(os.path.join(ROOT, "bench/kernels/scale_offsets.mlir"), encoding="utf-8") as f:
        prog = program(f.read(), "scale_offsets.mlir")
    x = RNG.uniform(1, 2, (40, 130)).astype(np.float32)
    y = np.full_like(x, np.nan)
    run_program(prog, [x, y, 0.5], (2, 2, 1))
    np.testing.assert_array_equal(y, 0.5 * x)


# ----------------------------------------------------------------------------- slices and offsets

WINDOW = """
kernel read_at(X: tensor<f32>[M, N], Y: tensor<f32>[8, 16], r: i32, c: i32) {
  Y[0 :+ 8, 0 :+ 16] = X[r :+ 8, c :+ 16]
}
kernel write_at(X: tensor<f32>[8, 16], Y: tensor<f32>[M, N], r: i32, c: i32) {
  Y[r :+ 8, c :+ 16] = X[0 :+ 8, 0 :+ 16]
}
"""

STARTS = [(0, 0), (-3, -5), (-8, 0), (6, 20), (9, 2), (2, 31), (-20, 40), (3, 4)]


def window_reference(shape, r, c):
    """Index pairs (tensor, tile) of the part of an 8 x 16 window at (r, c) inside a tensor of `shape`."""
    rows = [(i, i - r) for i in range(max(r, 0), min(r + 8, shape[0]))]
    cols = [(j, j - c) for j in range(max(c, 0), min(c + 16, shape[1]))]
    return rows, cols


@pytest.mark.parametrize("r, c", STARTS)
def test_slice_reads_outside_the_tensor_as_zero(r, c):
    prog = programs(WINDOW)["read_at"]
    x, _ = random_tensor((15, 35))
    y, ybuf = guarded((8, 16))
    run_program(prog, [x, y, r, c], (1, 1, 1))
    expected = np.zeros((8, 16), np.float32)
    rows, cols = window_reference(x.shape, r, c)
    for i, ti in rows:
        for j, tj in cols:
            expected[ti, tj] = x[i, j]
    np.testing.assert_array_equal(y, expected)
    assert guard_intact(ybuf, np.nan)


@pytest.mark.parametrize("r, c", STARTS)
def test_slice_writes_only_inside_the_tensor(r, c):
    prog = programs(WINDOW)["write_at"]
    x, _ = random_tensor((8, 16))
    y, ybuf = guarded((15, 35), fill=-1.0)
    run_program(prog, [x, y, r, c], (1, 1, 1))
    expected = np.full((15, 35), -1.0, np.float32)
    rows, cols = window_reference(y.shape, r, c)
    for i, ti in rows:
        for j, tj in cols:
            expected[i, j] = x[ti, tj]
    np.testing.assert_array_equal(y, expected)
    assert guard_intact(ybuf, -1.0)


def gather_module(masked: bool):
    from phobos import builder as tb

    with tb.context(), tb.Location.unknown():
        module = tb.Module.create()
        with tb.InsertionPoint(module.body):

            @tb.kernel()
            def gather(X: tb.Tensor(tb.f32, "N"), Y: tb.Tensor(tb.f32, 64), shift: tb.i32):
                lanes = tb.arange(0, 64)
                offsets = lanes + shift
                mask = (offsets < tb.cast(tb.dim(X, 0), tb.i32)) if masked else None
                tb.store(Y, lanes, tb.load(X, offsets, mask))

        return module.operation.get_asm(enable_debug_info=True)


def test_masked_offsets_read_zero_where_masked_off():
    prog = program(gather_module(masked=True), "gather.mlir")
    x, _ = random_tensor((50,))
    y, _ = guarded((64,))
    run_program(prog, [x, y, 10], (1, 1, 1))
    np.testing.assert_array_equal(y, np.concatenate([x[10:], np.zeros(24, np.float32)]))


def test_unmasked_offset_outside_the_tensor_is_an_error():
    prog = program(gather_module(masked=False), "gather.mlir")
    x, _ = random_tensor((50,))
    y, _ = guarded((64,))
    with pytest.raises(InterpreterError, match="offset 50, outside the tensor of 50 elements") as caught:
        run_program(prog, [x, y, 0], (1, 1, 1))
    assert caught.value.loc is not None and caught.value.loc[0].endswith("test_interpreter.py")
    run_program(prog, [np.ones(64, np.float32), y, 0], (1, 1, 1))  # in bounds: fine
    np.testing.assert_array_equal(y, 1.0)


# ----------------------------------------------------------------------------- fill values (padded)

ROW_MAX = """
@autotune(BR in [4], BN in [64])
kernel row_max(X: tensor<{t}>[M, N], P: tensor<{t}>[M, 1], Z: tensor<{t}>[M, 1]) {{
  let r = ctx.block.x * BR
  P[r :+ BR, 0 :+ 1] = rowmax(padded(X[r :+ BR, 0 :+ BN], {fill}))
  Z[r :+ BR, 0 :+ 1] = rowmax(X[r :+ BR, 0 :+ BN])
}}
"""


@pytest.mark.parametrize(
    "dtype, t, fill",
    [(np.float32, "f32", "-inf"), (np.float16, "f16", "-inf"), (np.int32, "i32", "-2147483648")],
)
@pytest.mark.parametrize("shape", [(10, 37), (4, 64), (1, 1)])
def test_padded_rowmax_of_a_ragged_slice_is_the_max_of_the_valid_part(dtype, t, fill, shape):
    """Negative data: a max over the masked slice that saw a zero would be wrong."""
    prog = program(ROW_MAX.format(t=t, fill=fill))
    x, _ = guarded(shape, dtype, fill=0)
    x[...] = -RNG.integers(1, 1000, shape).astype(dtype)
    outs = [guarded((shape[0], 1), dtype, fill=7) for _ in range(2)]
    (p, pbuf), (z, zbuf) = outs
    run_program(prog, [x, p, z], (cdiv(shape[0], 4), 1, 1))
    np.testing.assert_array_equal(p[:, 0], x.max(axis=1))
    # The default fill is zero, and a max sees it where the slice leaves the tensor.
    expected_default = np.maximum(x.max(axis=1), 0) if shape[1] < 64 else x.max(axis=1)
    np.testing.assert_array_equal(z[:, 0], expected_default)
    assert guard_intact(pbuf, 7) and guard_intact(zbuf, 7)


FILLED_SUM = """
kernel filled_sum(X: tensor<f32>[M, N], S: tensor<f32>[M, 1], T: tensor<f32>[M, 1]) {
  S[0 :+ 8, 0 :+ 1] = rowsum(padded(X[0 :+ 8, 0 :+ 32], 0.5))
  T[0 :+ 8, 0 :+ 1] = rowsum(X[0 :+ 8, 0 :+ 32])
}
"""


def test_a_sum_sees_the_fill_value_and_the_default_zero():
    prog = program(FILLED_SUM)
    x, _ = random_tensor((8, 20))
    s, _ = guarded((8, 1))
    t, _ = guarded((8, 1))
    run_program(prog, [x, s, t], (1, 1, 1))
    valid = x.astype(np.float64).sum(axis=1)
    np.testing.assert_allclose(s[:, 0], valid + 0.5 * 12, rtol=1e-5)
    np.testing.assert_allclose(t[:, 0], valid, rtol=1e-5)


def test_padded_slice_outside_the_tensor_reads_the_fill_everywhere():
    source = """
kernel outside(X: tensor<f32>[M, N], Y: tensor<f32>[4, 8], r: i32, c: i32) {
  Y[0 :+ 4, 0 :+ 8] = padded(X[r :+ 4, c :+ 8], -1.5)
}
"""
    prog = program(source)
    x, _ = random_tensor((6, 10))
    y, _ = guarded((4, 8))
    run_program(prog, [x, y, 4, 5], (1, 1, 1))
    expected = np.full((4, 8), -1.5, np.float32)
    expected[:2, :5] = x[4:, 5:]
    np.testing.assert_array_equal(y, expected)
    run_program(prog, [x, y, 100, 0], (1, 1, 1))
    np.testing.assert_array_equal(y, -1.5)


def padded_gather_module(padding):
    from phobos import builder as tb

    with tb.context(), tb.Location.unknown():
        module = tb.Module.create()
        with tb.InsertionPoint(module.body):

            @tb.kernel()
            def gather(X: tb.Tensor(tb.f32, "N"), Y: tb.Tensor(tb.f32, 64), shift: tb.i32):
                lanes = tb.arange(0, 64)
                offsets = lanes + shift
                mask = offsets < tb.cast(tb.dim(X, 0), tb.i32)
                tb.store(Y, lanes, tb.load(X, offsets, mask, padding=padding))

        return module.operation.get_asm(enable_debug_info=True)


def test_masked_offsets_read_the_padding_where_masked_off():
    prog = program(padded_gather_module(float("-inf")), "gather.mlir")
    x, _ = random_tensor((50,))
    y, _ = guarded((64,))
    run_program(prog, [x, y, 10], (1, 1, 1))
    np.testing.assert_array_equal(y, np.concatenate([x[10:], np.full(24, -np.inf, np.float32)]))


# ----------------------------------------------------------------------------- integers and floats

INTEGERS = """
kernel ints(A: tensor<i32>[N], B: tensor<i32>[N], S: tensor<i32>[N], Q: tensor<i32>[N], R: tensor<i32>[N],
            P: tensor<i8>[N]) {
  let s = ctx.block.x * 64
  let a = A[s :+ 64]
  let b = B[s :+ 64]
  S[s :+ 64] = a + b
  Q[s :+ 64] = a / b
  R[s :+ 64] = a % b
  P[s :+ 64] = i8(a) * i8(b)
}
"""


def test_integer_arithmetic_wraps_and_divides_toward_zero():
    prog = program(INTEGERS)
    n = 128  # whole tiles: the zeros a masked slice reads past the end would be divisors
    a = RNG.integers(-(2**31), 2**31, n, dtype=np.int64)
    b = RNG.integers(-50, 50, n, dtype=np.int64)
    b[b == 0] = 7
    a[:4], b[:4] = [2**31 - 1, -(2**31), -7, 7], [1, -1, 2, -2]
    outs = [guarded((n,), np.int32, fill=-77) for _ in range(3)] + [guarded((n,), np.int8, fill=-77)]
    run_program(prog, [a.astype(np.int32), b.astype(np.int32)] + [v for v, _ in outs], (2, 1, 1))
    s, q, r, p = (v for v, _ in outs)

    def wrap(x, bits):
        return ((x + 2 ** (bits - 1)) % 2**bits - 2 ** (bits - 1)).astype(np.int64)

    np.testing.assert_array_equal(s, wrap(a + b, 32))
    assert s[0] == -(2**31)
    quotient = np.array([int(x / y) if abs(x) < 2**52 else wrap(np.int64(x) // y, 32) for x, y in zip(a, b)])
    np.testing.assert_array_equal(q, wrap(quotient, 32))
    np.testing.assert_array_equal(r, wrap(a - wrap(quotient, 32) * b, 32))
    assert list(q[2:4]) == [-3, -3] and list(r[2:4]) == [-1, 1]
    np.testing.assert_array_equal(p, wrap(wrap(a, 8) * wrap(b, 8), 8))
    assert all(guard_intact(buf, -77) for _, buf in outs)


def test_integer_division_by_zero_in_a_tile_gives_all_ones_in_its_lane():
    prog = program(INTEGERS)
    n = 100  # ragged: the masked-off lanes of the last tile divide by the zeros they read, as on the GPU
    a = RNG.integers(-1000, 1000, n).astype(np.int32)
    b = RNG.integers(1, 50, n).astype(np.int32)
    b[5] = 0
    outs = [guarded((n,), np.int32, fill=-77) for _ in range(3)] + [guarded((n,), np.int8, fill=-77)]
    run_program(prog, [a, b] + [v for v, _ in outs], (2, 1, 1))
    _, q, r, _ = (v for v, _ in outs)
    assert q[5] == -1 and r[5] == -1  # the lane with a zero divisor: all ones, like PTX's div
    keep = np.arange(n) != 5
    np.testing.assert_array_equal(q[keep], np.trunc(a[keep] / b[keep]).astype(np.int32))
    assert all(guard_intact(buf, -77) for _, buf in outs)


SCALAR_DIVISION = """
kernel sdiv(Q: tensor<i32>[N], a: i32, b: i32) {
  let s = ctx.block.x * 64
  Q[s :+ 64] = Q[s :+ 64] + a / b
}
"""


def test_scalar_division_by_zero_is_an_error_at_its_line():
    prog = program(SCALAR_DIVISION)
    q = np.ones(64, np.int32)
    run_program(prog, [q, 7, 2], (1, 1, 1))
    assert (q == 4).all()
    with pytest.raises(InterpreterError, match="division by zero") as caught:
        run_program(prog, [q, 7, 0], (1, 1, 1))
    assert caught.value.loc[:2] == ["test.ph", 4]


HALVES = """
kernel halves(A: tensor<f16>[N], B: tensor<f16>[N], C: tensor<f16>[N],
              X: tensor<bf16>[N], Y: tensor<bf16>[N], Z: tensor<bf16>[N], W: tensor<f32>[N], V: tensor<bf16>[N],
              U: tensor<f16>[N]) {
  let s = ctx.block.x * 128
  let a = A[s :+ 128]
  C[s :+ 128] = a * B[s :+ 128] + a
  let x = X[s :+ 128]
  Z[s :+ 128] = x * Y[s :+ 128] + x
  V[s :+ 128] = bf16(W[s :+ 128])
  U[s :+ 128] = f16(W[s :+ 128])
}
"""


def bf16_reference(x):
    """Rounding to bf16 (8 significant bits, ties to even) by frexp, independent of the bit trick."""
    x = np.asarray(x, dtype=np.float64)
    mantissa, exponent = np.frexp(x)
    return np.ldexp(np.rint(mantissa * 2**8) / 2**8, exponent).astype(np.float32)


def test_bf16_reference_rounds_ties_to_even():
    # bf16 steps by 2^-7 at 1: both are halfway, and go to the neighbour with an even last bit
    assert bf16_reference(1 + 2**-8) == 1.0 and bf16_reference(1 + 3 * 2**-8) == 1 + 2**-6


def test_f16_and_bf16_round_every_result():
    prog = program(HALVES)
    n = 300
    a, b = (RNG.uniform(-4, 4, n).astype(np.float16) for _ in range(2))
    x, y = (bf16_reference(RNG.uniform(-4, 4, n)) for _ in range(2))
    w = RNG.uniform(-1e4, 1e4, n).astype(np.float32)
    w[:3] = [np.nan, np.inf, 1 + 2**-8]
    c, z, v, u = np.zeros(n, np.float16), np.zeros(n, np.float32), np.zeros(n, np.float32), np.zeros(n, np.float16)
    run_program(prog, [a, b, c, x, y, z, w, v, u], (3, 1, 1))
    np.testing.assert_array_equal(c, a * b + a)  # numpy's float16 arithmetic rounds each step
    np.testing.assert_array_equal(z, bf16_reference(bf16_reference(x.astype(np.float64) * y) + x))
    np.testing.assert_array_equal(v[1:], bf16_reference(w[1:]))
    assert np.isnan(v[0]) and v[2] == 1.0
    np.testing.assert_array_equal(u, w.astype(np.float16))


# ----------------------------------------------------------------------------- single ops, hand-written programs


def elementwise(op_name: str, dtypes: tuple, out: str, attrs: dict | None = None, n: int = 64) -> dict:
    """A program that loads one tile per operand, applies `op_name` and stores the result."""
    args = [{"id": i, "name": f"x{i}", "type": {"dtype": d, "memref": [n]}} for i, d in enumerate(dtypes)]
    args.append({"id": len(dtypes), "name": "out", "type": {"dtype": out, "memref": [n]}})
    zero = len(args)
    body = [
        {
            "name": "arith.constant",
            "operands": [],
            "results": [zero],
            "types": [{"dtype": "index"}],
            "attrs": {"value": 0},
            "regions": [],
            "loc": ["ops.mlir", 1, 1],
        }
    ]
    loaded = []
    for i, d in enumerate(dtypes):
        loaded.append(zero + 1 + i)
        body.append(
            {
                "name": "tile.load_slice",
                "operands": [i, zero],
                "results": [loaded[-1]],
                "types": [{"dtype": d, "shape": [n]}],
                "attrs": {},
                "regions": [],
                "loc": ["ops.mlir", 2, 1],
            }
        )
    result = loaded[-1] + 1
    body.append(
        {
            "name": op_name,
            "operands": loaded,
            "results": [result],
            "types": [{"dtype": out, "shape": [n]}],
            "attrs": attrs or {},
            "regions": [],
            "loc": ["ops.mlir", 3, 1],
        }
    )
    body.append(
        {
            "name": "tile.store_slice",
            "operands": [result, len(dtypes), zero],
            "results": [],
            "types": [],
            "attrs": {},
            "regions": [],
            "loc": ["ops.mlir", 4, 1],
        }
    )
    return {"format": 1, "kernel": "op", "args": args, "attrs": {"flags": []}, "body": body, "loc": None}


def apply(op_name, inputs, out_dtype, out: str, attrs=None):
    n = len(inputs[0])
    result = np.zeros(n, out_dtype)
    dtypes = tuple(
        {np.int8: "i8", np.int32: "i32", np.int64: "i64", np.float32: "f32", np.float64: "f64", np.bool_: "i1"}[
            x.dtype.type
        ]
        for x in inputs
    )
    run_program(elementwise(op_name, dtypes, out, attrs, n), [*inputs, result], (1, 1, 1))
    return result


INT32_EDGES = np.array([0, 1, -1, 2, -2, 7, -7, 2**31 - 1, -(2**31), 2**30, 12345, -12345], np.int32)


def int_pairs():
    a = np.repeat(INT32_EDGES, len(INT32_EDGES))
    b = np.tile(INT32_EDGES, len(INT32_EDGES))
    return a, b


@pytest.mark.parametrize(
    "predicate, compare", list(enumerate(["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"]))
)
def test_cmpi_predicates(predicate, compare):
    a, b = int_pairs()
    ua, ub = a.view(np.uint32), b.view(np.uint32)
    expected = {
        "eq": a == b,
        "ne": a != b,
        "slt": a < b,
        "sle": a <= b,
        "sgt": a > b,
        "sge": a >= b,
        "ult": ua < ub,
        "ule": ua <= ub,
        "ugt": ua > ub,
        "uge": ua >= ub,
    }[compare]
    np.testing.assert_array_equal(apply("arith.cmpi", [a, b], np.bool_, "i1", {"predicate": predicate}), expected)


CMPF = [
    "false",
    "oeq",
    "ogt",
    "oge",
    "olt",
    "ole",
    "one",
    "ord",
    "ueq",
    "ugt",
    "uge",
    "ult",
    "ule",
    "une",
    "uno",
    "true",
]


@pytest.mark.parametrize("predicate, compare", list(enumerate(CMPF)))
def test_cmpf_predicates(predicate, compare):
    edges = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 2.5], np.float32)
    a, b = np.repeat(edges, len(edges)), np.tile(edges, len(edges))
    unordered = np.isnan(a) | np.isnan(b)
    relation = {"eq": a == b, "gt": a > b, "ge": a >= b, "lt": a < b, "le": a <= b, "ne": (a < b) | (a > b)}
    if compare in ("false", "true"):
        expected = np.full(a.shape, compare == "true")
    elif compare in ("ord", "uno"):
        expected = ~unordered if compare == "ord" else unordered
    elif compare[0] == "o":
        expected = ~unordered & relation[compare[1:]]
    else:
        expected = unordered | relation[compare[1:]]
    np.testing.assert_array_equal(apply("arith.cmpf", [a, b], np.bool_, "i1", {"predicate": predicate}), expected)


def test_division_and_shifts_by_their_definitions():
    a, b = int_pairs()
    nonzero = b != 0
    a, b = a[nonzero], b[nonzero]
    wide_a, wide_b = a.astype(np.int64), b.astype(np.int64)
    truncated = (np.abs(wide_a) // np.abs(wide_b)) * np.sign(wide_a) * np.sign(wide_b)
    np.testing.assert_array_equal(apply("arith.divsi", [a, b], np.int32, "i32"), truncated.astype(np.int32))
    np.testing.assert_array_equal(
        apply("arith.remsi", [a, b], np.int32, "i32"), (wide_a - truncated * wide_b).astype(np.int32)
    )
    np.testing.assert_array_equal(
        apply("arith.floordivsi", [a, b], np.int32, "i32"), (wide_a // wide_b).astype(np.int32)
    )
    np.testing.assert_array_equal(
        apply("arith.ceildivsi", [a, b], np.int32, "i32"), (-(-wide_a // wide_b)).astype(np.int32)
    )
    ua, ub = a.view(np.uint32), b.view(np.uint32)
    np.testing.assert_array_equal(apply("arith.divui", [a, b], np.int32, "i32"), (ua // ub).view(np.int32))
    np.testing.assert_array_equal(apply("arith.remui", [a, b], np.int32, "i32"), (ua % ub).view(np.int32))
    np.testing.assert_array_equal(apply("arith.maxui", [a, b], np.int32, "i32"), np.maximum(ua, ub).view(np.int32))
    amounts = np.arange(len(a), dtype=np.int32) % 40  # past 31: every bit shifted out
    bits = a.view(np.uint32).astype(np.uint64)
    shl = np.where(amounts < 32, (bits << np.minimum(amounts, 31).astype(np.uint64)) & 0xFFFFFFFF, 0)
    np.testing.assert_array_equal(
        apply("arith.shli", [a, amounts], np.int32, "i32"), shl.astype(np.uint32).view(np.int32)
    )
    np.testing.assert_array_equal(
        apply("arith.shrui", [a, amounts], np.int32, "i32"),
        np.where(amounts < 32, bits >> np.minimum(amounts, 31).astype(np.uint64), 0).astype(np.uint32).view(np.int32),
    )
    np.testing.assert_array_equal(apply("arith.shrsi", [a, amounts], np.int32, "i32"), a >> np.minimum(amounts, 31))


def test_conversions():
    x = np.array([0.5, -0.5, 1.9, -1.9, 3e9, -3e9, np.nan, np.inf, -np.inf, 100.0], np.float32)
    np.testing.assert_array_equal(
        apply("arith.fptosi", [x], np.int32, "i32"), [0, 0, 1, -1, 2**31 - 1, -(2**31), 0, 2**31 - 1, -(2**31), 100]
    )
    ints = np.array([-1, 1, 127, -128, 2**31 - 1], np.int32)
    np.testing.assert_array_equal(
        apply("arith.extui", [ints.astype(np.int8)], np.int32, "i32"), ints.astype(np.int8).view(np.uint8)
    )
    np.testing.assert_array_equal(apply("arith.trunci", [ints], np.int8, "i8"), ints.astype(np.int8))
    np.testing.assert_array_equal(
        apply("arith.uitofp", [ints], np.float32, "f32"), ints.view(np.uint32).astype(np.float32)
    )
    flags = np.array([True, False, True])
    np.testing.assert_array_equal(apply("arith.extsi", [flags], np.int32, "i32"), [-1, 0, -1])
    np.testing.assert_array_equal(apply("arith.extui", [flags], np.int32, "i32"), [1, 0, 1])


def test_float_math_in_the_ops_precision():
    x = RNG.uniform(0.1, 3, 64).astype(np.float32)
    for name, fn in [
        ("math.exp", np.exp),
        ("math.log", np.log),
        ("math.sqrt", np.sqrt),
        ("math.tanh", np.tanh),
        ("math.rsqrt", lambda v: 1 / np.sqrt(v)),
        ("math.floor", np.floor),
    ]:
        np.testing.assert_allclose(apply(name, [x], np.float32, "f32"), fn(x.astype(np.float64)), rtol=2e-7)
    halves = np.array([0.5, 1.5, 2.5, -0.5, -2.5, 0.49999997], np.float32)
    np.testing.assert_array_equal(apply("math.round", [halves], np.float32, "f32"), [1, 2, 3, -1, -3, 0])
    np.testing.assert_array_equal(apply("math.roundeven", [halves], np.float32, "f32"), [0, 2, 2, -0.0, -2, 0])
    nan = np.array([np.nan, 1.0], np.float32)
    one = np.array([1.0, np.nan], np.float32)
    assert np.isnan(apply("arith.maximumf", [nan, one], np.float32, "f32")).all()
    np.testing.assert_array_equal(apply("arith.maxnumf", [nan, one], np.float32, "f32"), [1.0, 1.0])
    np.testing.assert_array_equal(
        apply("arith.remf", [np.float32([7.5, -7.5]), np.float32([2, 2])], np.float32, "f32"), [1.5, -1.5]
    )


def test_unknown_op_is_an_error_at_its_location():
    prog = elementwise("arith.frobnicate", ("f32",), "f32")
    with pytest.raises(InterpreterError) as caught:
        run_program(prog, [np.ones(64, np.float32), np.ones(64, np.float32)], (1, 1, 1))
    assert str(caught.value) == "ops.mlir:3:1: error: the interpreter does not support 'arith.frobnicate'"


def test_arguments_are_checked():
    prog = elementwise("arith.negf", ("f32",), "f32")
    x = np.ones(64, np.float32)
    with pytest.raises(InterpreterError, match="takes 2 arguments"):
        run_program(prog, [x], (1, 1, 1))
    with pytest.raises(InterpreterError, match="argument 'out' must have dtype float32, got float64"):
        run_program(prog, [x, np.ones(64)], (1, 1, 1))
    with pytest.raises(InterpreterError, match="extent 64 in dimension 0, got 63"):
        run_program(prog, [x, np.ones(63, np.float32)], (1, 1, 1))


# ----------------------------------------------------------------------------- control flow, trace, grid barriers

CONTROL = """
kernel flow(X: tensor<f32>[M, 32], Y: tensor<f32>[M, 32], steps: i32, t: f32, C: tensor<i32>[4]) {
  let start = ctx.block.x * 4
  var acc: tile<f32>[4, 32] = 0.0
  for i in range(0, steps) {
    acc += X[start :+ 4, :]
  }
  if t > 0.0 {
    Y[start :+ 4, :] = acc * t
  } else if t < 0.0 {
    Y[start :+ 4, :] = -acc
  } else {
    Y[start :+ 4, :] = acc
  }
  var n = steps
  var halvings: i32 = 0
  while n > 1 {
    n = n / 2
    halvings += 1
  }
  if ctx.block.x == 0 {                  // one CTA: from several it would be a race
    C[0 :+ 4] = C[0 :+ 4] * 0 + halvings
  }
}
"""


@pytest.mark.parametrize("steps, t", [(3, 2.0), (0, 2.0), (5, -1.0), (1, 0.0)])
def test_loops_branches_and_while(steps, t):
    prog = program(CONTROL)
    x, _ = random_tensor((10, 32))
    y, ybuf = guarded((10, 32))
    c = np.full(4, -5, np.int32)
    run_program(prog, [x, y, steps, t, c], (3, 1, 1))
    acc = steps * x.astype(np.float64)
    expected = acc * t if t > 0 else (-acc if t < 0 else acc)
    np.testing.assert_allclose(y, expected, rtol=1e-6)
    assert guard_intact(ybuf, np.nan)
    assert list(c) == [max(steps, 1).bit_length() - 1] * 4


def test_trace_sees_every_value_with_its_source_location():
    prog = example("examples/scale.ph")
    seen = []
    x, _ = random_tensor((32, 128))
    y = np.zeros_like(x)
    run_program(prog, [x, y, 3.0], (1, 1, 1), trace=lambda loc, name, value: seen.append((loc, name, value)))
    loads = [(loc, value) for loc, name, value in seen if name == "tile.load_slice"]
    assert len(loads) == 1 and loads[0][0][:2] == ["scale.ph", 12]
    np.testing.assert_array_equal(loads[0][1], x)
    assert [int(v) for _, name, v in seen if name == "tile.block_id"] == [0, 0]
    assert all(name != "tile.store_slice" for _, name, _ in seen)  # it defines no value


PERSISTENT = """
@persistent
kernel rotate(X: tensor<f32>[N], Y: tensor<f32>[N], rounds: i32) {
  let b = ctx.block.x
  let g = ctx.grid.x
  for r in range(0, rounds) {
    X[b * 64 :+ 64] = X[b * 64 :+ 64] + 1.0
    grid_barrier()
  }
  Y[b * 64 :+ 64] = X[((b + 1) % g) * 64 :+ 64]
}
"""


def test_grid_barrier_runs_ctas_in_lockstep():
    prog = program(PERSISTENT)
    x, _ = random_tensor((256,))
    before = x.copy()
    y, _ = guarded((256,))
    run_program(prog, [x, y, 3], (4, 1, 1))
    np.testing.assert_array_equal(x, before + 3)
    np.testing.assert_array_equal(y, np.roll(before + 3, -64))  # CTA 3 reads CTA 0's tile after all rounds


def test_grid_barrier_outside_a_persistent_kernel_is_an_error():
    prog = program(PERSISTENT)
    prog["attrs"]["flags"] = []
    with pytest.raises(InterpreterError, match="needs a @persistent kernel") as caught:
        run_program(prog, [np.ones(128, np.float32), np.ones(128, np.float32), 1], (2, 1, 1))
    assert caught.value.loc[:2] == ["test.ph", 8]


# ----------------------------------------------------------------------------- the program as JSON


@pytest.mark.parametrize("case", ["gemm", "flow", "halves"])
def test_json_round_trip_runs_identically(case):
    if case == "gemm":
        prog = example("examples/gemm_fp32.ph", drop="@aligned")
        inputs = [random_tensor(s)[0] for s in [(40, 9), (9, 50), (40, 50)]] + [1.5, 0.25]
        grid = (2, 2, 1)
    elif case == "flow":
        prog = program(CONTROL)
        inputs = [random_tensor((10, 32))[0], np.zeros((10, 32), np.float32), 3, -1.0, np.zeros(4, np.int32)]
        grid = (3, 1, 1)
    else:
        prog = program(HALVES)
        inputs = [RNG.uniform(-2, 2, 128).astype(d) for d in [np.float16] * 3 + [np.float32] * 5 + [np.float16]]
        inputs[3:6] = [bf16_reference(v) for v in inputs[3:6]]
        grid = (1, 1, 1)
    copies = [np.copy(v) if isinstance(v, np.ndarray) else v for v in inputs]
    run_program(prog, inputs, grid)
    run_program(json.loads(json.dumps(prog)), copies, grid)
    for a, b in zip(inputs, copies):
        np.testing.assert_array_equal(a, b)


def test_runs_without_mlir():
    prog = example("bench/kernels/scale.ph", {"TM": 8, "TN": 128})
    script = f"""
import json, sys
import numpy as np
sys.modules["mlir"] = None  # any import of MLIR fails
from phobos.interpreter import run_program
x = np.arange(1, 9 * 130 + 1, dtype=np.float32).reshape(9, 130)
y = np.zeros_like(x)
run_program(json.loads({json.dumps(json.dumps(prog))}), [x, y, 2.0], (2, 2, 1))
assert (y == 2 * x).all()
assert not any(name.startswith("mlir") for name in sys.modules if sys.modules[name] is not None)
print("ok")
"""
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert done.stdout.strip() == "ok", done.stderr


def test_interpreted_launch_takes_ml_dtypes_bf16_arrays():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    import phobos

    k = phobos.compile(HALVES, kernel="halves")
    n = 300
    a, b = (RNG.uniform(-4, 4, n).astype(np.float16) for _ in range(2))
    x, y = (bf16_reference(RNG.uniform(-4, 4, n)).astype(ml_dtypes.bfloat16) for _ in range(2))
    w = RNG.uniform(-1e4, 1e4, n).astype(np.float32)
    c, u = np.full(n, 7, np.float16), np.full(n, 7, np.float16)
    z, v = np.full(n, 7, ml_dtypes.bfloat16), np.full(n, 7, ml_dtypes.bfloat16)
    x.flags.writeable = False  # an input is read, never written back
    k.interpret(a, b, c, x, y, z, w, v, u)
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    np.testing.assert_array_equal(z.astype(np.float32), bf16_reference(bf16_reference(x64 * y64) + x64))
    np.testing.assert_array_equal(v.astype(np.float32), bf16_reference(w))  # written back rounded, in place
    np.testing.assert_array_equal(x.astype(np.float32), bf16_reference(x.astype(np.float32)))  # inputs untouched
