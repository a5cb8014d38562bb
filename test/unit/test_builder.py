"""The builder API (phobos.builder) agrees with the language: promotion and
conversion rules, index-to-float casts, if/while helpers, verification on
print, and the RMSNorm example of docs/builder.md run in the interpreter
against NumPy in float64."""

import itertools
import os
import re

import numpy as np
import pytest

pytest.importorskip("mlir")

from mlir import ir  # noqa: E402
from mlir.dialects import arith  # noqa: E402

from phobos import builder as tb  # noqa: E402
from phobos.compiler import compile_stages  # noqa: E402
from phobos.compiler.tile_program import to_program  # noqa: E402
from phobos.dialect import kernel as K  # noqa: E402
from phobos.dialect import make_context  # noqa: E402
from phobos.elements import promote  # noqa: E402
from phobos.frontend import compile_to_tile_ir  # noqa: E402
from phobos.interpreter import run_program  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RNG = np.random.default_rng(24)


def build(params, body, **options) -> str:
    """The printed (so verified) module of one kernel."""
    with tb.context(), tb.Location.unknown():
        module = tb.Module.create()
        with tb.InsertionPoint(module.body):
            tb.build_kernel("k", params, body, **options)
        return str(module)


def program(text: str) -> dict:
    tile = compile_stages(text, until="tile", debug_info=True, source_name="k.mlir")["tile"]
    with make_context():
        module = ir.Module.parse(tile)
        (fn,) = K.kernels(module)
        return to_program(fn)


CONVERSIONS = r"arith\.(?:extf|truncf|fptosi|sitofp|extsi|trunci|index_cast|uitofp|extui) .*"


def ops_of(text: str) -> list[str]:
    """The conversion ops of `text`, with their types (SSA names dropped)."""
    return [re.sub(r"%\w+", "%", op) for op in re.findall(CONVERSIONS, text)]


# ----------------------------------------------------------------------------- the bugs


def test_cast_of_an_index_to_float_goes_through_i64():
    def body(Y):
        tb.store_slice(Y, [0], tb.cast(tb.block_id(0), tb.f32), shape=[1])

    text = build([("Y", tb.Tensor(tb.f32, "N"))], body)
    assert "arith.index_cast %0 : index to i64" in text
    assert "arith.sitofp %1 : i64 to f32" in text


def test_cast_of_a_float_to_index_goes_through_i64():
    def body(X, Y, s):
        tb.store_slice(Y, [tb.cast(s, tb.index)], tb.load_slice(X, [0], [4]))

    text = build([("X", tb.Tensor(tb.f32, "N")), ("Y", tb.Tensor(tb.f32, "N")), ("s", tb.f32)], body)
    assert re.search(r"arith.fptosi %arg2 : f32 to i64", text)
    assert re.search(r"arith.index_cast %\w+ : i64 to index", text)


def test_a_tile_divided_by_an_extent_is_a_float_division():
    def body(X, Y, extents):
        x = tb.load_slice(X, [0], [64])
        tb.store_slice(Y, [0], x / extents["N"])

    text = build([("X", tb.Tensor(tb.f32, "N")), ("Y", tb.Tensor(tb.f32, "N"))], body)
    assert re.search(r"arith.index_cast %dim : index to i64", text)
    assert re.search(r"arith.sitofp %\w+ : i64 to f32", text)
    assert re.search(r"arith.divf %\w+, %\w+ : tensor<64xf32>", text)
    x = RNG.standard_normal(50).astype(np.float32)
    y = np.full(50, np.nan, np.float32)
    run_program(program(text), [x, y], (1, 1, 1))
    np.testing.assert_allclose(y, x / 50, rtol=1e-6)


def test_storing_f32_into_an_f16_tensor_rounds_to_f16():
    def body(X, Y):
        x = tb.load_slice(X, [0], [64])
        tb.store_slice(Y, [0], x * 3.0)
        tb.store(Y, tb.arange(0, 8), 1.5)

    text = build([("X", tb.Tensor(tb.f16, "N")), ("Y", tb.Tensor(tb.f16, "N"))], body)
    # f16 * a Python float stays f16 (the number takes the tile's type), so build an f32 product explicitly too.
    assert "arith.mulf" in text and "tensor<64xf16>" in text
    text = build(
        [("X", tb.Tensor(tb.f32, "N")), ("Y", tb.Tensor(tb.f16, "N"))],
        lambda X, Y: tb.store_slice(Y, [0], tb.load_slice(X, [0], [64]) * 3.0),
    )
    assert re.search(r"arith.truncf %\w+ : tensor<64xf32> to tensor<64xf16>", text)
    x = (RNG.standard_normal(64) * 100).astype(np.float32)
    y = np.zeros(64, np.float16)
    run_program(program(text), [x, y], (1, 1, 1))
    np.testing.assert_array_equal(y, (x.astype(np.float64) * 3).astype(np.float16))


def test_a_bool_stored_into_numbers_is_refused():
    def body(X, Y):
        x = tb.load_slice(X, [0], [64])
        tb.store_slice(Y, [0], x > 0)

    with pytest.raises(TypeError, match="cannot store bool values into a tensor of f32"):
        build([("X", tb.Tensor(tb.f32, "N")), ("Y", tb.Tensor(tb.f32, "N"))], body)


# ----------------------------------------------------------------------------- the language's rules

TYPES = ["f16", "bf16", "f32", "f64", "i8", "i32", "i64", "index"]


def test_operands_meet_where_the_language_promotes():
    """Every pair of element types: the builder's sum has the element type
    `promote` gives, and each operand converted by the ops the front end uses."""
    for a, b in itertools.product(TYPES, TYPES):
        with tb.context(), tb.Location.unknown():
            module = tb.Module.create()
            with tb.InsertionPoint(module.body):
                seen = {}

                def body(x, y, a=a, b=b, seen=seen):
                    seen["sum"] = (x + y).element_type

                tb.build_kernel("k", [("x", tb.ScalarType(a)), ("y", tb.ScalarType(b))], body)
            assert tb.element_name(seen["sum"]) == promote(a, b), (a, b)
            str(module)  # verifies


def test_conversions_match_the_front_end():
    """`tb.cast` emits the ops the `.ph` conversion builtins lower to, for every pair."""
    for src, dst in itertools.product(["f16", "bf16", "f32", "f64", "i8", "i32", "i64"], repeat=2):
        ph = f"kernel k(X: tensor<{src}>[16], Y: tensor<{dst}>[16]) {{\n  Y[0 :+ 16] = {dst}(X[0 :+ 16])\n}}\n"
        with make_context():
            expected = ops_of(str(compile_to_tile_ir(ph, "k.ph")))

        def body(X, Y, dst=dst):
            tb.store_slice(Y, [0], tb.cast(tb.load_slice(X, [0], [16]), tb.ScalarType(dst)))

        text = build([("X", tb.Tensor(tb.ScalarType(src), 16)), ("Y", tb.Tensor(tb.ScalarType(dst), 16))], body)
        assert ops_of(text) == expected and (expected or src == dst), (src, dst)


def test_numbers_take_the_other_operands_type():
    seen = {}

    def body(X):
        i = tb.arange(0, 16, tb.i8)
        seen["int"] = tb.element_name((i + 3).type)
        seen["float"] = tb.element_name((i * 0.5).type)
        h = tb.cast(tb.load_slice(X, [0], [16]), tb.f16)
        seen["f16"] = tb.element_name((h * 2).type)
        seen["const"] = tb.element_name((h * tb.constant(2, tb.i32.mlir())).type)
        seen["extent"] = tb.element_name((i + tb.block_id(0)).type)

    build([("X", tb.Tensor(tb.f32, 16))], body)
    assert seen == {"int": "i8", "float": "f32", "f16": "f16", "const": "f16", "extent": "index"}


# ----------------------------------------------------------------------------- control flow


def test_if_else_and_while_run_in_the_interpreter():
    def body(Y, n, extents):
        x = tb.cast(tb.block_id(0), tb.f32)
        with tb.if_(tb.block_id(0) < 2, carry=[x]) as branch:
            branch.yield_(x + 100.0)
        with branch.else_():
            branch.yield_(x * -1.0)
        (x,) = branch.results
        with tb.if_(n > 5):  # no results, no else: a plain conditional store
            tb.store_slice(Y, [tb.block_id(0) * 2 + 1], -7.0, shape=[1])
        i0 = tb.constant(0, tb.i32.mlir())
        with tb.while_(lambda i, acc: i < n, carry=[i0, x]) as loop:
            i, acc = loop.carried
            loop.yield_(i + 1, acc + 0.5)
        _, total = loop.results
        tb.store_slice(Y, [tb.block_id(0) * 2], total, shape=[1])

    text = build([("Y", tb.Tensor(tb.f32, "N")), ("n", tb.i32)], body)
    assert "scf.if" in text and "scf.while" in text
    for n in (3, 9):
        y = np.full(8, np.nan, np.float32)
        run_program(program(text), [y, n], (4, 1, 1))
        base = np.array([100.0, 101.0, -2.0, -3.0]) + 0.5 * n
        np.testing.assert_array_equal(y[0::2], base)
        np.testing.assert_array_equal(y[1::2], -7.0 if n > 5 else np.nan)


def test_control_flow_misuse_is_refused():
    def python_if(Y):
        if tb.block_id(0) < 1:
            pass

    with pytest.raises(TypeError, match="an IR value has no Python truth value .* use tb.if_"):
        build([("Y", tb.Tensor(tb.f32, "N"))], python_if)

    def yields_wrong_type(Y):
        x = tb.constant(1.0, tb.f32.mlir())
        with tb.if_(tb.block_id(0) < 1, carry=[x]) as branch:
            branch.yield_(tb.constant(1, tb.i32.mlir()))

    with pytest.raises(TypeError, match="yielded value 0 is i32, the carried value is f32"):
        build([("Y", tb.Tensor(tb.f32, "N"))], yields_wrong_type)

    def tile_condition(Y):
        with tb.if_(tb.arange(0, 4) < 2):
            pass

    with pytest.raises(TypeError, match="if_ needs a bool scalar condition"):
        build([("Y", tb.Tensor(tb.f32, "N"))], tile_condition)

    def carried_without_yield(Y):
        with tb.while_(lambda i: i < 4, carry=[tb.constant(0, tb.i32.mlir())]):
            pass

    with pytest.raises(ValueError, match="a while_ loop with carried values must end with yield_"):
        build([("Y", tb.Tensor(tb.f32, "N"))], carried_without_yield)


# ----------------------------------------------------------------------------- verification on print


def test_printing_an_invalid_module_raises_at_the_users_line():
    with tb.context(), tb.Location.unknown():
        module = tb.Module.create()
        assert isinstance(module, ir.Module)
        with tb.InsertionPoint(module.body):

            @tb.kernel
            def bad(Y: tb.Tensor(tb.f32, "N")):
                pid = tb.block_id(0)
                arith.SIToFPOp(tb.f32.mlir(), pid.value, loc=tb.caller_location())  # invalid: sitofp of index

        with pytest.raises(tb.VerificationError) as caught:
            print(module)
    message = str(caught.value)
    assert "the module does not verify" in message
    assert re.search(r"test_builder.py:\d+:\d+: error: 'arith.sitofp' op operand #0 must be", message)
    assert "arith.SIToFPOp(tb.f32.mlir()" in message and "^" in message  # the line and a caret


def test_printing_checks_the_tile_rules_too():
    with tb.context(), tb.Location.unknown():
        module = tb.Module.create()
        with tb.InsertionPoint(module.body):

            @tb.kernel
            def bad(X: tb.Tensor(tb.f32, "M", "N")):
                tb.load_slice(X, [0], [4, 4])  # one start for a 2-D tensor

        with pytest.raises(tb.VerificationError, match=r"test_builder.py:\d+:\d+: error: .*expects 2 start indices"):
            str(module)
        assert module.operation.get_asm()  # the raw printer is still there


# ----------------------------------------------------------------------------- docs/builder.md


def doc_blocks() -> list[str]:
    with open(os.path.join(ROOT, "docs", "builder.md"), encoding="utf-8") as f:
        return re.findall(r"```python\n(.*?)```", f.read(), re.S)


@pytest.mark.parametrize("shape", [(13, 300), (4, 128), (9, 37)])
def test_the_rmsnorm_example_of_the_docs(shape):
    scope: dict = {}
    exec(compile(doc_blocks()[0], "docs/builder.md", "exec"), scope)
    prog = program(scope["text"])
    m, n = shape
    x = RNG.standard_normal(shape).astype(np.float16)
    w = RNG.standard_normal(n).astype(np.float16)
    y = np.full(shape, np.nan, np.float16)
    eps = 1e-5
    run_program(prog, [x, w, y, eps], (-(-m // scope["BR"]), 1, 1))
    x64 = x.astype(np.float64)
    expected = x64 / np.sqrt((x64 * x64).mean(axis=1, keepdims=True) + eps) * w.astype(np.float64)
    np.testing.assert_allclose(y.astype(np.float64), expected, rtol=2e-3, atol=2e-3)


def test_the_control_flow_example_of_the_docs_builds():
    scope = {"tb": tb}
    exec(compile(doc_blocks()[1], "docs/builder.md", "exec"), scope)

    def body(Y, n):
        x = tb.constant(0, tb.index.mlir())
        y = tb.constant(1.0, tb.f32.mlir())
        i, acc = scope["control_flow_examples"](tb.cast(n, tb.index), x, y)
        tb.store_slice(Y, [0], acc, shape=[1])

    text = build([("Y", tb.Tensor(tb.f32, "N")), ("n", tb.i32)], body)
    for n in (0, 4):
        y = np.full(1, np.nan, np.float32)
        run_program(program(text), [y, n], (1, 1, 1))
        x = sum(range(n))
        yy = 2.0 if x > 0 else 0.0
        assert y[0] == yy + (n - x if x < n else 0), (n, y)
