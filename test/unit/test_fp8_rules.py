"""fp8 (issue 25, item 1) beyond the conversions themselves: the checker's located errors (arithmetic,
builtins, dot, f64 sources, scalar parameters, constants out of range), the builder (conversions in
one op where they can be, through f32 otherwise; arithmetic refused), tile-verify's rule on tile IR
written by hand, the lowering's chip requirement, and the runtime's reading of fp8 arrays (ml_dtypes,
DLPack codes, aot.like) and contracts."""

from __future__ import annotations

import os
import re

import numpy as np
import pytest

pytest.importorskip("mlir")

from fp8_cases import assert_codes, special_f32  # noqa: E402
from test_fp8 import KERNELS  # noqa: E402

from phobos import builder as tb  # noqa: E402
from phobos import fp8  # noqa: E402
from phobos.compiler import CompileError, compile_stages  # noqa: E402
from phobos.runtime import arrays  # noqa: E402
from phobos.runtime.aot import like, parse_args_text  # noqa: E402

BAD = """kernel bad(X: tensor<f8e4m3>[N], Y: tensor<f8e5m2>[N], D: tensor<f64>[N], C: tensor<f32>[N, N], s: f8e4m3) {
  let x = X[0 :+ 64]
  Y[0 :+ 64] = x + x
  Y[0 :+ 64] = -x
  Y[0 :+ 64] = exp(x)
  let t = sum(x)
  X[0 :+ 64] = D[0 :+ 64]
  let z = f8e5m2(D[0 :+ 64])
  let c: f8e4m3 = 500.0
  let m = X[0 :+ 16]
  C[0 :+ 4, 0 :+ 4] = dot(Y[0 :+ 4], Y[0 :+ 4]) + where(x > x, 1.0, 0.0)
}
"""


def _errors(source: str) -> list[tuple[int, int, str]]:
    with pytest.raises(CompileError) as caught:
        compile_stages(source, until="tile", source_name="bad.ph")
    return [(d[1], d[2], d[4]) for d in caught.value.diagnostics]


def test_located_errors():
    got = _errors(BAD)
    hint = "fp8 types are for storage and conversion; convert to f32 first, as in f32(x)"
    scalar = "kernel parameter 's' cannot be an f8e4m3 scalar; pass an f32 and convert it, as in f8e4m3(x)"
    assert (1, BAD.index("f8e4m3)") + 1, scalar) in got  # at its type
    assert (3, 18, f"'+' is not defined on f8e4m3 values: {hint}") in got
    assert (4, 16, f"'-' is not defined on f8e4m3 values: {hint}") in got
    assert (5, 16, f"'exp' does not take f8e4m3 values: {hint}") in got
    assert (6, 11, f"'sum' does not take f8e4m3 values: {hint}") in got
    why = "the GPU converts from f32, and f64 through f32 would round twice"
    assert any(line == 7 and msg.startswith("cannot store f64 values into 'X'") and why in msg for line, _, msg in got)
    assert any(line == 8 and msg.startswith("cannot convert tile<f64>[64] to f8e5m2") for line, _, msg in got)
    assert (9, 19, "the constant 500.0 is out of range for f8e4m3 (its largest value is 448)") in got
    assert any(line == 11 and "'>' is not defined on f8e4m3 values" in msg for line, _, msg in got)


def test_dot_takes_one_fp8_type():
    ok = "kernel d(A: tensor<f8e4m3>[16, 16], C: tensor<f32>[16, 16]) {\n  C[:, :] = dot(A[:, :], A[:, :])\n}\n"
    tile = compile_stages(ok, until="tile", source_name="k.ph")["tile"]
    assert "tensor<16x16xf8E4M3FN>, tensor<16x16xf8E4M3FN>, tensor<16x16xf32>) -> tensor<16x16xf32>" in tile
    mixed = (
        "kernel d(A: tensor<f8e4m3>[16, 16], B: tensor<f8e5m2>[16, 16], H: tensor<f16>[16, 16], "
        "C: tensor<f32>[16, 16]) {\n  C[:, :] = dot(A[:, :], B[:, :])\n  C[:, :] = dot_t(H[:, :], A[:, :])\n}\n"
    )
    assert _errors(mixed) == [
        (
            2,
            13,
            "'dot' takes f8e4m3 operands only with each other (both f8e4m3): convert the other operand to its "
            "type, or both to f16, as in f16(a)",
        ),
        (
            3,
            13,
            "'dot_t' takes f8e4m3 operands only with each other (both f8e4m3): convert the other operand to its "
            "type, or both to f16, as in f16(a)",
        ),
    ]


def test_constants_fold_saturating():
    src = (
        "kernel k(Y: tensor<f8e4m3>[N], Z: tensor<f8e5m2>[N]) {\n"
        "  Y[0 :+ 4] = f8e4m3(1000.0)\n  Z[0 :+ 4] = f8e5m2(-inf)\n  Z[4 :+ 4] = 0.1\n}\n"
    )
    tile = compile_stages(src, until="tile", source_name="k.ph")["tile"]
    assert "4.480000e+02 : f8E4M3FN" in tile  # the conversion saturates, at compile time too
    assert "-5.734400e+04 : f8E5M2" in tile
    assert "dense<9.375000e-02> : tensor<4xf8E5M2>" in tile  # 0.1 rounded to the nearest e5m2 value
    src = "kernel k(Y: tensor<i32>[N]) {\n  let q: f8e4m3 = 300.7\n  Y[0 :+ 4] = i32(q)\n}\n"
    tile = compile_stages(src, until="tile", source_name="k.ph")["tile"]
    assert "arith.constant 288 : i32" in tile  # q holds 288, the nearest e4m3 value, and i32(q) folds that


# ----------------------------------------------------------------------------- builder


def test_builder_conversions():
    def body(X, Y, Z, K, F):
        x = tb.load_slice(X, [0], [64])
        tb.store_slice(Y, [0], tb.cast(x, tb.f8e4m3))
        tb.store_slice(Z, [0], tb.load_slice(K, [0], [64]))  # a store converts: i32 through f32
        tb.store_slice(F, [0], tb.cast(tb.load_slice(Y, [0], [64]), tb.f64))

    params = [
        ("X", tb.Tensor(tb.f16, "N")),
        ("Y", tb.Tensor(tb.f8e4m3, "N")),
        ("Z", tb.Tensor(tb.f8e5m2, "N")),
        ("K", tb.Tensor(tb.i32, "N")),
        ("F", tb.Tensor(tb.f64, "N")),
    ]
    with tb.context(), tb.Location.unknown():
        module = tb.Module.create()
        with tb.InsertionPoint(module.body):
            tb.build_kernel("k", params, body)
        text = str(module)
    ops = [re.sub(r"%\w+", "%", op) for op in re.findall(r"arith\.(?:extf|truncf|sitofp) .*", text)]
    assert ops == [
        "arith.truncf % : tensor<64xf16> to tensor<64xf8E4M3FN>",
        "arith.sitofp % : tensor<64xi32> to tensor<64xf32>",
        "arith.truncf % : tensor<64xf32> to tensor<64xf8E5M2>",
        "arith.extf % : tensor<64xf8E4M3FN> to tensor<64xf64>",
    ]


@pytest.mark.parametrize(
    "use, message",
    [
        (lambda x, d: x + x, "arithmetic is not defined on f8e4m3 values"),
        (lambda x, d: -x, "negation is not defined on f8e4m3 values"),
        (lambda x, d: tb.exp(x), "exp is not defined on f8e4m3 values"),
        (lambda x, d: tb.reduce(x, "sum", 0), "reduce sum is not defined on f8e4m3 values"),
        (lambda x, d: tb.cast(d, tb.f8e4m3), "cannot convert f64 to f8e4m3 directly"),
    ],
)
def test_builder_refuses_arithmetic(use, message):
    def body(X, D):
        use(tb.load_slice(X, [0], [64]), tb.load_slice(D, [0], [64]))

    with tb.context(), tb.Location.unknown():
        module = tb.Module.create()
        with tb.InsertionPoint(module.body), pytest.raises(TypeError, match=message):
            tb.build_kernel("k", [("X", tb.Tensor(tb.f8e4m3, "N")), ("D", tb.Tensor(tb.f64, "N"))], body)


# ----------------------------------------------------------------------------- tile IR and the GPU stage

HAND_WRITTEN = """func.func @k(%a: memref<?xf8E4M3FN> {tile.dims = ["N"], tile.name = "A"}) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %x = "tile.load_slice"(%a, %c0) : (memref<?xf8E4M3FN>, index) -> tensor<64xf8E4M3FN>
  %y = arith.addf %x, %x : tensor<64xf8E4M3FN>
  "tile.store_slice"(%y, %a, %c0) : (tensor<64xf8E4M3FN>, memref<?xf8E4M3FN>, index) -> ()
  return
}
"""


def test_tile_verify_refuses_arithmetic_on_fp8():
    with pytest.raises(CompileError) as caught:
        compile_stages(HAND_WRITTEN, until="tile", source_name="k.mlir")
    messages = [d[4] for d in caught.value.diagnostics]
    assert any("'arith.addf' op computes on f8E4M3FN values" in m for m in messages), messages


@pytest.mark.parametrize(
    "chip, features, wanted",
    [
        ("sm_80", None, "needs cvt.rn.satfinite.e4m3x2.f32, which needs sm_89 or later; the target is sm_80"),
        ("sm_89", None, "which sm_89 has from PTX ISA 8.1: compile with the features +ptx81"),
        ("sm_89", "+ptx81", None),
        ("sm_90", None, None),
    ],
)
def test_conversions_need_sm89(chip, features, wanted):
    with open(os.path.join(KERNELS, "fp8_encode.ph"), encoding="utf-8") as f:
        source = f.read()
    options = {"chip": chip} | ({"options": {"features": features}} if features else {})
    if wanted is None:
        ptx = compile_stages(source, until="ptx", source_name="fp8_encode.ph", **options)["ptx"]
        assert "cvt.rn.satfinite.e4m3x2.f32" in ptx and "cvt.rn.satfinite.e5m2x2.f32" in ptx
        return
    with pytest.raises(CompileError) as caught:
        compile_stages(source, until="ptx", source_name="fp8_encode.ph", **options)
    (diag,) = caught.value.diagnostics
    assert wanted in diag[4] and diag[1] == 7  # the first conversion: `A[...] = x`


@pytest.mark.parametrize(
    "line, column, message",
    [
        ("  let y = f8e4m3(X[s :+ 256])", 11, "converting f32 to f8e4m3 needs cvt.rn.satfinite.e4m3x2.f32"),
        ("  let y = f32(B[s :+ 256])", 11, "converting f8e5m2 to f32 needs cvt.rn.f16x2.e5m2x2"),
        ("  let y = f16(B[s])", 11, "converting f8e5m2 to f16 needs cvt.rn.f16x2.e5m2x2"),
    ],
)
def test_conversions_before_sm89_are_refused_in_the_language_words(line, column, message):
    """`f8e4m3(x)`, `f32(b)` of fp8 on sm_80: the conversion and the types, at the call, not an arith op."""
    source = (
        "kernel k(X: tensor<f32>[N], B: tensor<f8e5m2>[N], Y: tensor<f32>[N]) {\n"
        "  let s = ctx.block.x * 256\n"
        f"{line}\n"
        "  Y[s :+ 256] = f32(y)\n"
        "}\n"
    )
    with pytest.raises(CompileError) as caught:
        compile_stages(source, until="ptx", chip="sm_80", source_name="bad.ph")
    text = str(caught.value)
    wanted = f"bad.ph:3:{column}: error: {message}, which needs sm_89 or later; the target is sm_80"
    assert text.startswith(wanted), text
    assert "' op" not in text and "arith." not in text, text
    assert text.splitlines()[1] == line and text.splitlines()[2] == " " * (column - 1) + "^", text


# ----------------------------------------------------------------------------- runtime


def test_arrays_name_fp8():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    assert arrays.describe(np.zeros(4, ml_dtypes.float8_e4m3fn)).dtype == "f8e4m3"
    assert arrays.describe(np.zeros((2, 3), ml_dtypes.float8_e5m2)).dtype == "f8e5m2"
    assert arrays.describe(like("f8e4m3", (4, 8))).dtype == "f8e4m3"
    assert arrays.describe(like("f8e5m2", (64,))).strides == (1,)
    assert arrays._DL_DTYPES[(10, 8)] == "f8e4m3" and arrays._DL_DTYPES[(12, 8)] == "f8e5m2"
    (a,) = parse_args_text("f8e5m2[16,32]@a1")
    assert a.dtype == "f8e5m2" and a.align == 1


ROUND_TRIP = """// f32 -> f8e4m3 -> f32, and f32 -> f8e5m2
kernel round_trip(X: tensor<f32>[N], A: tensor<f8e4m3>[N], B: tensor<f8e5m2>[N], XA: tensor<f32>[N]) {
  let s = ctx.block.x * 256
  A[s :+ 256] = X[s :+ 256]
  B[s :+ 256] = X[s :+ 256]
  XA[s :+ 256] = f32(f8e4m3(X[s :+ 256]))
}
"""


def test_ahead_of_time_folder_interprets_fp8(tmp_path):
    """An fp8 kernel built ahead of time: its contract names the dtypes, and the loaded kernel runs in
    the interpreter on ml_dtypes arrays (as phobos.load does on a machine without MLIR)."""
    ml_dtypes = pytest.importorskip("ml_dtypes")
    import json

    import phobos

    source = tmp_path / "round_trip.ph"
    source.write_text(ROUND_TRIP)
    folder = tmp_path / "aot"
    phobos.compile_ahead(
        str(source), folder, examples=[parse_args_text("f32[4096] f8e4m3[4096] f8e5m2[4096] f32[4096]")]
    )
    contracts = [json.loads(p.read_text()) for p in folder.rglob("contract.json")]
    assert len(contracts) == 2 and all(
        [p["dtype"] for p in c["params"]] == ["f32", "f8e4m3", "f8e5m2", "f32"] for c in contracts
    )
    k = phobos.load(folder)
    n = 777
    x = special_f32(n, np.random.default_rng())
    a, b, xa = np.zeros(n, ml_dtypes.float8_e4m3fn), np.zeros(n, ml_dtypes.float8_e5m2), np.zeros(n, np.float32)
    k.interpret(x, a, b, xa)
    assert_codes(a.view(np.uint8), x, "f8e4m3")
    assert_codes(b.view(np.uint8), x, "f8e5m2")
    np.testing.assert_array_equal(xa, fp8.decode(fp8.encode(x, "f8e4m3"), "f8e4m3"))
    with pytest.raises(TypeError, match="f8e4m3"):
        k.interpret(x, np.zeros(n, np.uint8), b, xa)
