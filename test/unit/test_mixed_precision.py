"""Mixed precision as the language defines it (docs/language.md, "Types and conversions").

- The promotion table: what operands of two element types meet at, for
  scalars and tiles, checked on the checker's annotations and on the tile IR
  (which must stay one element type per op for tile-verify).
- A scalar constant meets a tile at the tile's element type where its value
  converts exactly; other scalars follow the table.
- Assignments to declared variables and stores convert to the declared or
  the tensor's type (round to nearest even, truncation toward zero, wrap).
- `dot`/`dot_t` of mixed operands: both operands converted to the type they
  meet at before tile.dot, numbers against numpy in float64.
- `@launch` values the hardware refuses: located errors.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from phobos.frontend import CompileError, ast, check_source

pytest.importorskip("mlir")

from mlir import ir  # noqa: E402

from phobos.compiler import compile_stages  # noqa: E402
from phobos.compiler.tile_program import to_program  # noqa: E402
from phobos.dialect import kernel as K  # noqa: E402
from phobos.dialect import make_context  # noqa: E402
from phobos.interpreter import run_program  # noqa: E402

RNG = np.random.default_rng(29)
ROOT = Path(__file__).resolve().parents[2]
TYPES = ("f16", "bf16", "f32", "f64", "i8", "i32", "i64")

# Row type + column type -> the type they meet at (written out, not derived).
TABLE = """
        f16   bf16  f32   f64   i8    i32   i64
f16     f16   f32   f32   f64   f16   f16   f16
bf16    f32   bf16  f32   f64   bf16  bf16  bf16
f32     f32   f32   f32   f64   f32   f32   f32
f64     f64   f64   f64   f64   f64   f64   f64
i8      f16   bf16  f32   f64   i8    i32   i64
i32     f16   bf16  f32   f64   i32   i32   i64
i64     f16   bf16  f32   f64   i64   i64   i64
"""


def _table() -> dict[tuple[str, str], str]:
    header, *rows = TABLE.strip().splitlines()
    columns = header.split()
    return {(row.split()[0], col): cell for row in rows for col, cell in zip(columns, row.split()[1:])}


PROMOTION = _table()


def tile_ir(source: str, name: str = "test.ph") -> str:
    return compile_stages(source, until="tile", source_name=name)["tile"]


def program(source: str, name: str = "test.ph") -> dict:
    text = compile_stages(source, until="tile", debug_info=True, source_name=name)["tile"]
    with make_context():
        module = ir.Module.parse(text)
        (only,) = [to_program(fn) for fn in K.kernels(module)]
        return only


def decl_types(source: str) -> dict[str, str]:
    """name -> type of every let/var of the first kernel, as the checker annotated them."""
    kernel = check_source(source).kernels[0]
    out = {}

    def visit(stmts):
        for s in stmts:
            if isinstance(s, ast.Decl):
                out[s.name] = str(s.symbol.ty)
            for block in (getattr(s, "body", None), getattr(s, "then", None), getattr(s, "orelse", None)):
                if isinstance(block, ast.Block):
                    visit(block.stmts)

    visit(kernel.body.stmts)
    return out


def error_of(source: str, name: str = "test.ph") -> str:
    with pytest.raises(CompileError) as caught:
        check_source(source, name)
    return str(caught.value)


def bf16_reference(x):
    """Rounding to bf16 (8 significant bits, ties to even), by frexp."""
    x = np.asarray(x, dtype=np.float64)
    mantissa, exponent = np.frexp(x)
    return np.ldexp(np.rint(mantissa * 2**8) / 2**8, exponent).astype(np.float32)


# ----------------------------------------------------------------------------- the promotion table


def test_table_is_symmetric():
    for a in TYPES:
        for b in TYPES:
            assert PROMOTION[a, b] == PROMOTION[b, a]


@pytest.mark.parametrize("a", TYPES)
@pytest.mark.parametrize("b", TYPES)
def test_scalars_and_tiles_meet_as_the_table_says(a, b):
    want = PROMOTION[a, b]
    source = f"""
kernel k(X: tensor<{a}>[N], Y: tensor<{b}>[N], Z: tensor<f64>[N], x: {a}, y: {b}) {{
  let s = x + y
  let t = X[0 :+ 16] * Y[0 :+ 16]
  let c = X[0 :+ 16] < Y[0 :+ 16]
  let m = tmax(X[0 :+ 16], y)
  Z[0 :+ 16] = t + s
}}
"""
    types = decl_types(source)
    assert types["s"] == want
    assert types["t"] == f"tile<{want}>[16]"
    assert types["c"] == "tile<bool>[16]"
    # The tile IR converts and verifies (tile-verify runs in the tile stage).
    text = tile_ir(source)
    mlir = {"f16": "f16", "bf16": "bf16", "f32": "f32", "f64": "f64", "i8": "i8", "i32": "i32", "i64": "i64"}[want]
    op = "arith.mulf" if want.startswith(("f", "b")) else "arith.muli"
    assert re.search(rf"{op} .* : tensor<16x{mlir}>", text), text


@pytest.mark.parametrize(
    "a, b, want",
    [("i32", "index", "index"), ("i8", "index", "index"), ("i64", "index", "i64"), ("f16", "index", "f16")],
)
def test_index_meets_integers_by_width(a, b, want):
    source = f"kernel k(X: tensor<f32>[N], x: {a}) {{\n  let s = x + ctx.block.x\n  let u = ctx.block.x * x\n}}\n"
    assert decl_types(source) == {"s": want, "u": want}
    tile_ir(source)


def test_literals_adapt_and_a_float_literal_with_an_integer_is_f32():
    source = (
        "kernel k(X: tensor<f16>[N], I: tensor<i8>[N], n: i32) {\n"
        "  let a = X[0 :+ 16] * 2\n  let b = X[0 :+ 16] + 0.5\n  let c = I[0 :+ 16] + 1\n"
        "  let d = n + 1.5\n  let e = I[0 :+ 16] * 0.5\n}\n"
    )
    assert decl_types(source) == {
        "a": "tile<f16>[16]",
        "b": "tile<f16>[16]",
        "c": "tile<i8>[16]",
        "d": "f32",
        "e": "tile<f32>[16]",
    }
    text = tile_ir(source)
    assert "arith.sitofp %arg2 : i32 to f32" in text
    assert re.search(r"arith.sitofp .* : tensor<16xi8> to tensor<16xf32>", text)


def test_scalar_constants_meet_a_tile_at_its_type_where_they_convert_exactly():
    source = """
@autotune(TM in [16])
kernel k(X: tensor<f16>[N], I: tensor<i32>[N], B: tensor<bf16>[N], alpha: f32) {
  let half: f32 = 0.5
  let tenth: f32 = 0.1
  let two: f32 = 2.0
  let a = X[0 :+ 16] * TM
  let b = I[0 :+ 16] + TM
  let c = X[0 :+ 16] * half
  let d = X[0 :+ 16] * tenth
  let e = X[0 :+ 16] * alpha
  let f = I[0 :+ 16] * two
  let g = B[0 :+ 16] + f16(0.5)
  let h = B[0 :+ 16] + f16(0.1)
}
"""
    assert decl_types(source) == {
        "half": "f32",
        "tenth": "f32",
        "two": "f32",
        "a": "tile<f16>[16]",  # 16 is an f16
        "b": "tile<i32>[16]",  # an index constant that fits i32
        "c": "tile<f16>[16]",  # 0.5 is an f16
        "d": "tile<f32>[16]",  # 0.1 is not: the table decides (f32)
        "e": "tile<f32>[16]",  # a runtime scalar: the table
        "f": "tile<f32>[16]",  # a float never makes an integer tile integer
        "g": "tile<bf16>[16]",  # 0.5 in f16 is a bf16 too
        "h": "tile<f32>[16]",  # f16(0.1) is not a bf16: f16 with bf16 meet at f32
    }
    text = tile_ir(source)
    # The constants that meet the tile are emitted in its type, no conversion of the tile.
    assert "arith.constant 1.600000e+01 : f16" in text
    assert "arith.constant 16 : i32" in text
    assert "arith.constant 5.000000e-01 : f16" in text


def test_bool_does_not_mix_with_numbers():
    message = error_of("kernel k(x: f32) {\n  let a = x + (x > 0.0)\n}\n")
    assert (
        "test.ph:2:13: error: operands of '+' have different types: f32 and bool (convert the bool with f32(...))"
        in (message)
    )


# ----------------------------------------------------------------------------- assignments and stores convert


STORES = """
kernel stores(S: tensor<f32>[N], H: tensor<f16>[N], B: tensor<bf16>[N], I: tensor<i32>[N], J: tensor<i8>[N],
              F: tensor<f32>[N], D: tensor<f64>[N]) {
  let s = ctx.block.x * 64
  let x = S[s :+ 64]
  H[s :+ 64] = x
  B[s :+ 64] = D[s :+ 64]
  I[s :+ 64] = x
  J[s :+ 64] = I[s :+ 64] * 3
  F[s :+ 64] = J[s :+ 64]
}
"""


def test_stores_convert_in_the_tile_ir():
    text = tile_ir(STORES)
    assert re.search(r"arith.truncf .* : tensor<64xf32> to tensor<64xf16>", text)
    assert re.search(r"arith.truncf .* : tensor<64xf64> to tensor<64xbf16>", text)
    assert re.search(r"arith.fptosi .* : tensor<64xf32> to tensor<64xi32>", text)
    assert re.search(r"arith.trunci .* : tensor<64xi32> to tensor<64xi8>", text)
    assert re.search(r"arith.sitofp .* : tensor<64xi8> to tensor<64xf32>", text)


def test_stores_round_to_nearest_even_truncate_toward_zero_and_wrap():
    n = 200
    s = RNG.uniform(-300, 300, n).astype(np.float32)
    s[:6] = [2.5, -2.5, 2.7, -2.7, 1 + 2**-11, 1 + 3 * 2**-11]  # ties of f16 at 1 + 2^-11 and 1 + 3*2^-11
    d = RNG.uniform(-8, 8, n)
    d[:2] = [1 + 2**-8, 1 + 3 * 2**-8]  # bf16 ties
    h, b = np.zeros(n, np.float16), np.zeros(n, np.float32)
    i, j = np.zeros(n, np.int32), np.zeros(n, np.int8)
    f = np.zeros(n, np.float32)
    run_program(program(STORES), [s, h, b, i, j, f, d], (4, 1, 1))
    np.testing.assert_array_equal(h, s.astype(np.float16))
    assert h[4] == 1.0 and h[5] == 1 + 2**-9
    np.testing.assert_array_equal(b, bf16_reference(d))
    assert b[0] == 1.0 and b[1] == 1 + 2**-6
    np.testing.assert_array_equal(i, np.trunc(s).astype(np.int32))
    assert list(i[:4]) == [2, -2, 2, -2]
    np.testing.assert_array_equal(j, (i.astype(np.int64) * 3).astype(np.int8))  # wraps at 8 bits
    np.testing.assert_array_equal(f, j.astype(np.float32))


def test_declared_variables_convert():
    source = """
kernel k(X: tensor<f32>[N], Y: tensor<f16>[N], alpha: f32, n: i32) {
  let s = ctx.block.x * 32
  let x: f16 = alpha
  var t: tile<f16>[32] = X[s :+ 32]
  t += X[s :+ 32] * x
  var c: i32 = ctx.block.x
  c = c + n
  Y[s :+ 32] = t + c
}
"""
    assert decl_types(source) == {"s": "index", "x": "f16", "t": "tile<f16>[32]", "c": "i32"}
    text = tile_ir(source)
    assert "arith.truncf %arg2 : f32 to f16" in text
    assert re.search(r"arith.index_cast .* : index to i32", text)
    x = RNG.uniform(-2, 2, 64).astype(np.float32)
    y = np.zeros(64, np.float16)
    run_program(program(source), [x, y, 1.5, 3], (2, 1, 1))
    t = x.astype(np.float16)
    # t += X * x: f16 with f32 meet at f32, then the sum goes back into the f16 `t`
    t = (t.astype(np.float32) + x * np.float32(np.float16(1.5))).astype(np.float16)
    c = np.repeat([3, 4], 32).astype(np.float16)
    np.testing.assert_array_equal(y, (t + c).astype(np.float16))


def test_a_converted_constant_stays_a_constant_only_where_exact():
    source = "kernel k(X: tensor<f32>[N]) {\n  let a: i8 = i32(64)\n  let t: tile<f32>[a] = X[0 :+ 64]\n}\n"
    assert decl_types(source)["t"] == "tile<f32>[64]"
    message = error_of("kernel k(X: tensor<f32>[N]) {\n  let a: i8 = i32(300)\n  let t: tile<f32>[a] = 0.0\n}\n")
    assert "test.ph:3:20: error: tile dimension 'a' is not a compile-time constant" in message


def test_bool_and_numbers_do_not_convert_on_store_or_assignment():
    message = error_of("kernel k(B: tensor<bool>[N], X: tensor<f32>[N]) {\n  B[0 :+ 4] = X[0 :+ 4]\n}\n")
    assert "test.ph:2:15: error: cannot store f32 values into 'B', a tensor of bool" in message
    message = error_of("kernel k(X: tensor<f32>[N]) {\n  X[0 :+ 4] = X[0 :+ 4] > 0.0\n}\n")
    assert "cannot store bool values into 'X', a tensor of f32 (convert with f32(...))" in message
    message = error_of("kernel k(x: f32) {\n  let a: i32 = x > 0.0\n}\n")
    assert (
        "test.ph:2:16: error: cannot initialize 'a' of type i32 with a value of type bool (convert with i32(...))"
        in (message)
    )


# ----------------------------------------------------------------------------- dot of mixed operands


def dot_source(a: str, b: str, transposed: bool = False, acc: str = "f32") -> str:
    b_dims = "[N, K]" if transposed else "[K, N]"
    b_slice = "B[pn * 16 :+ 16, k :+ 8]" if transposed else "B[k :+ 8, pn * 16 :+ 16]"
    call = "dot_t" if transposed else "dot"
    return f"""
kernel mm(A: tensor<{a}>[M, K], B: tensor<{b}>{b_dims}, C: tensor<f32>[M, N]) {{
  let pm = ctx.block.x
  let pn = ctx.block.y
  var acc: tile<{acc}>[16, 16] = {"0" if acc.startswith("i") else "0.0"}
  for k in range(0, K, 8) {{
    acc += {call}(A[pm * 16 :+ 16, k :+ 8], {b_slice})
  }}
  C[pm * 16 :+ 16, pn * 16 :+ 16] = acc
}}
"""


def dot_line(text: str) -> str:
    (line,) = [line for line in text.splitlines() if '"tile.dot"' in line]
    return line


@pytest.mark.parametrize(
    "a, b, operand, converted",
    [
        ("f16", "bf16", "f32", ("16x8xf16", "8x16xbf16")),
        ("f16", "f32", "f32", ("16x8xf16",)),
        ("bf16", "f64", "f64", ("16x8xbf16",)),
        ("i8", "f16", "f16", ("16x8xi8",)),
        ("i8", "i32", "i32", ("16x8xi8",)),
        ("f16", "f16", "f16", ()),
    ],
)
def test_dot_converts_mixed_operands_before_tile_dot(a, b, operand, converted):
    acc = "i32" if operand.startswith("i") else ("f64" if operand == "f64" else "f32")
    text = tile_ir(dot_source(a, b, acc=acc))
    assert f"(tensor<16x8x{operand}>, tensor<8x16x{operand}>, tensor<16x16x{acc}>) -> tensor<16x16x{acc}>" in (
        dot_line(text)
    )
    for src in converted:
        assert re.search(
            rf"arith\.(extf|sitofp|extsi) .* : tensor<{src}> to tensor<{src.rsplit('x', 1)[0]}x{operand}>", text
        ), (
            src,
            text,
        )
    if not converted:
        assert not re.search(r"arith\.(extf|sitofp|extsi)", text)


@pytest.mark.parametrize("a, b", [("f16", "bf16"), ("f16", "f32"), ("bf16", "f32"), ("i8", "f16")])
@pytest.mark.parametrize("transposed", [False, True])
def test_mixed_dots_match_numpy_in_float64(a, b, transposed):
    m, k, n = 37, 21, 29  # ragged on every dimension
    a_vals = RNG.uniform(-2, 2, (m, k))
    b_vals = RNG.uniform(-2, 2, (n, k) if transposed else (k, n))

    def host(values, elem):
        if elem == "f16":
            return values.astype(np.float16)
        if elem == "bf16":
            return bf16_reference(values)
        if elem == "i8":
            return np.rint(values * 10).astype(np.int8)
        return values.astype(np.float32)

    ha, hb = host(a_vals, a), host(b_vals, b)
    c = np.full((m, n), np.nan, np.float32)
    run_program(program(dot_source(a, b, transposed)), [ha, hb, c], (3, 2, 1))
    rhs = hb.astype(np.float64).T if transposed else hb.astype(np.float64)
    want = ha.astype(np.float64) @ rhs
    # i8 with f16 meets at f16 (the i8 values here are exact in f16); products accumulate in f32.
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-5 * np.abs(want).max())


def test_f16_accumulator_accumulates_in_the_dot_in_f16():
    source = dot_source("f16", "f16", acc="f16")
    line = dot_line(tile_ir(source))
    assert "(tensor<16x8xf16>, tensor<8x16xf16>, tensor<16x16xf16>) -> tensor<16x16xf16>" in line
    # With an f32 operand the operands meet at f32; the accumulator keeps its type.
    line = dot_line(tile_ir(dot_source("f16", "f32", acc="f16")))
    assert "(tensor<16x8xf32>, tensor<8x16xf32>, tensor<16x16xf16>) -> tensor<16x16xf16>" in line
    m, k, n = 16, 24, 16
    a = RNG.uniform(-1, 1, (m, k)).astype(np.float16)
    b = RNG.uniform(-1, 1, (k, n)).astype(np.float16)
    c = np.zeros((m, n), np.float32)
    run_program(program(source), [a, b, c], (1, 1, 1))
    # Each step of the loop over K rounds the running sum to f16.
    acc = np.zeros((m, n), np.float16)
    for k0 in range(0, k, 8):
        step = a[:, k0 : k0 + 8].astype(np.float64) @ b[k0 : k0 + 8].astype(np.float64)
        acc = (acc.astype(np.float64) + step).astype(np.float16)
    np.testing.assert_allclose(c, acc.astype(np.float32), rtol=2e-3, atol=2e-3)


# The original Phobos style: f16 inputs, an f32 accumulator, an f16 output stored as `O[...] = acc`.
HGEMM = """
@autotune(TM in [32], TN in [32], TK in [16])
@launch(128)
kernel hgemm(A: tensor<f16>[M, K], B: tensor<f16>[K, N], O: tensor<f16>[M, N], alpha: f32, beta: f32) {
  let pm = ctx.block.x
  let pn = ctx.block.y
  var acc: tile<f32>[TM, TN] = 0.0
  for k in range(0, K, TK) {
    acc += dot(A[pm * TM :+ TM, k :+ TK], B[k :+ TK, pn * TN :+ TN])
  }
  let o = O[pm * TM :+ TM, pn * TN :+ TN]
  O[pm * TM :+ TM, pn * TN :+ TN] = alpha * acc + beta * o
}
"""


def test_original_style_half_gemm_checks_compiles_and_runs():
    text = tile_ir(HGEMM, "hgemm.ph")
    assert "(tensor<32x16xf16>, tensor<16x32xf16>, tensor<32x32xf32>) -> tensor<32x32xf32>" in dot_line(text)
    assert re.search(r"arith.extf .* : tensor<32x32xf16> to tensor<32x32xf32>", text)  # beta * o
    assert re.search(r"arith.truncf .* : tensor<32x32xf32> to tensor<32x32xf16>", text)  # the store
    m, k, n = 70, 45, 33
    a = RNG.uniform(-1, 1, (m, k)).astype(np.float16)
    b = RNG.uniform(-1, 1, (k, n)).astype(np.float16)
    o = RNG.uniform(-1, 1, (m, n)).astype(np.float16)
    want = 1.5 * (a.astype(np.float64) @ b.astype(np.float64)) + 0.25 * o.astype(np.float64)
    run_program(program(HGEMM, "hgemm.ph"), [a, b, o, 1.5, 0.25], (3, 2, 1))
    # f32 accumulation, then one rounding to f16 (half an f16 ulp, 2^-11 relative)
    np.testing.assert_allclose(o.astype(np.float64), want, rtol=2**-10, atol=1e-3)


# ----------------------------------------------------------------------------- @launch limits


@pytest.mark.parametrize(
    "attribute, where, message",
    [
        ("@launch(256, 33)", "1:14", "@launch minBlocks must be at most 32 (the CTAs an sm_90 multiprocessor holds)"),
        ("@launch(256, 0)", "1:14", "@launch minBlocks must be positive, got 0"),
        ("@launch(256, 1, 15)", "1:17", "@launch maxRegs must be between 16 and 255 registers per thread"),
        ("@launch(maxRegs = 256, threads = 64)", "1:19", "(PTX .maxnreg), got 256"),
        ("@launch(512, 1, 192)", "1:17", "needs 98304 registers per CTA, more than the 65536 of a multiprocessor"),
        ("@launch(1024, 3)", "1:15", "asks for 3072 resident threads, more than the 2048 of an sm_90 multiprocessor"),
        ("@launch(256, 2, 160)", "1:17", "81920 registers, more than the 65536 of a multiprocessor"),
        ("@launch(1056)", "1:9", "@launch threads must be at most 1024, got 1056"),
    ],
)
def test_launch_values_the_hardware_refuses_are_located_errors(attribute, where, message):
    source = f"{attribute}\nkernel k() {{\n}}\n"
    text = error_of(source, "launch.ph")
    assert f"launch.ph:{where}" in text and message in text, text


@pytest.mark.parametrize(
    "attribute",
    [
        "@launch(1024, 2, 32)",  # 2048 threads and 65536 registers: both limits exactly
        "@launch(256, 8, 32)",
        "@launch(512, 1, 128)",  # 65536 registers per CTA
        "@launch(32, 32)",  # 32 CTAs
        "@launch(256, 1, 255)",
        "@launch(threads = 64, maxRegs = 16)",
        "@launch(64)",
    ],
)
def test_launch_values_within_the_limits_are_accepted(attribute):
    text = tile_ir(f"{attribute}\nkernel k(X: tensor<f32>[N]) {{\n  X[0 :+ 32] = 1.0\n}}\n")
    assert "tile.kernel" in text


# ----------------------------------------------------------------------------- the reference's examples


def test_every_example_of_the_language_reference_compiles():
    with open(ROOT / "docs" / "language.md", encoding="utf-8") as f:
        blocks = re.findall(r"```ph\n(.*?)```", f.read(), re.S)
    assert len(blocks) >= 10
    for block in blocks:
        assert "tile.kernel" in tile_ir(block, "language.md")
