"""Every attribute a check reads from user IR is read through dialect/attributes.py
(issue 30: the fuzzer found casts of mistyped arrays failing inside Python).

The sweep below puts attributes of every wrong kind on every op of
test/Dialect/ops.mlir (the tile ops, the kernel and its parameters), bypassing
IRDL (set after parsing), and runs tile-verify's checks: they must report each
one as a located error or accept it, never raise."""

from __future__ import annotations

from pathlib import Path

import pytest
from mlir import ir

from phobos.dialect import attributes as A
from phobos.dialect import kernel as K
from phobos.dialect import make_context
from phobos.dialect import tile as T
from phobos.dialect.verify import verify_tile_ir

OPS_FILE = Path(__file__).parents[1] / "Dialect" / "ops.mlir"

WRONG_KINDS = (
    "array<i1: true>",
    "array<i1: true, false>",
    "array<f32: 1.0, 0.0>",
    "array<i32: 1, 0>",
    "array<i64: 1>",
    '"x"',
    "1.5 : f32",
    "true",
    "36893488147419103232 : i128",
    "[1, 0]",
    "unit",
    "{a = 1 : i64}",
    "{a = 36893488147419103232 : i128}",
    "{a = array<f32: 1.0>}",
)

# Attributes the checks read besides the declared ones.
OP_EXTRAS = (
    K.IN_BOUNDS,
    K.VECTOR_WIDTH,
    K.PADDING,
    *T.HINT_NAMES,
    "operandSegmentSizes",
    "resultSegmentSizes",
)
# The first parameter of ops.mlir is a 2-D memref: one stride fact is right for it, any string a name.
WELL_FORMED_ARGUMENT_ATTRIBUTES = {(K.ARG_STRIDE_DIVISIBILITY, "array<i64: 1>"), (K.ARG_NAME, '"x"')}
KERNEL_ATTRIBUTES = (K.KERNEL, K.LAUNCH, K.ALIGNED, K.AUTOTUNE, K.BINDINGS, *K.FLAGS, K.LAYOUT)
ARG_ATTRIBUTES = (K.ARG_NAME, K.ARG_DIMS, K.ARG_DIVISIBILITY, K.ARG_STRIDE_DIVISIBILITY, K.ARG_PTR_ALIGN)


def _verify(module: ir.Module) -> tuple[bool, list[str]]:
    messages: list[str] = []

    def handler(d):
        messages.append(str(d.message))
        return True

    handle = module.context.attach_diagnostic_handler(handler)
    try:
        ok = verify_tile_ir(module.operation)
    finally:
        handle.detach()
    return ok, messages


def _walk(module: ir.Module) -> list[ir.Operation]:
    ops: list[ir.Operation] = []

    def visit(op):
        ops.append(op)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return ops


def _targets(module: ir.Module):
    """(index of an op in walk order, attribute name) for every attribute a check reads."""
    for index, op in enumerate(_walk(module)):
        if op.name in T.TILE_OPS:
            for attr in (*T.TILE_OPS[op.name].attributes, *OP_EXTRAS):
                yield index, attr
        elif op.name == "func.func":
            for attr in KERNEL_ATTRIBUTES:
                yield index, attr


def _op_at(module: ir.Module, index: int) -> ir.Operation:
    return _walk(module)[index]


@pytest.fixture(scope="module")
def text():
    return OPS_FILE.read_text()


def test_the_seed_kernel_verifies(text):
    with make_context() as context, ir.Location.unknown(context):
        assert _verify(ir.Module.parse(text))[0]


@pytest.mark.parametrize("wrong", WRONG_KINDS)
def test_op_and_kernel_attributes_of_every_wrong_kind_are_reported(text, wrong):
    with make_context() as context, ir.Location.unknown(context):
        targets = list(_targets(ir.Module.parse(text)))
        assert targets
        for index, name in targets:
            module = ir.Module.parse(text)
            _op_at(module, index).attributes[name] = ir.Attribute.parse(wrong)
            ok, messages = _verify(module)  # raises nothing
            op_name = _op_at(module, index).name
            if op_name in T.TILE_OPS and name in T.TILE_OPS[op_name].attributes and not ok:
                assert any(name in m for m in messages), (name, wrong, messages)


@pytest.mark.parametrize("wrong", WRONG_KINDS)
def test_argument_attributes_of_every_wrong_kind_are_reported(text, wrong):
    with make_context() as context, ir.Location.unknown(context):
        for name in ARG_ATTRIBUTES:
            module = ir.Module.parse(text)
            fn = next(op for op in module.body.operations if op.operation.name == "func.func").operation
            arg_attrs = list(ir.ArrayAttr(fn.attributes["arg_attrs"]))
            first = {n.name: n.attr for n in ir.DictAttr(arg_attrs[0])}
            first[name] = ir.Attribute.parse(wrong)
            fn.attributes["arg_attrs"] = ir.ArrayAttr.get([ir.DictAttr.get(first), *arg_attrs[1:]])
            ok, messages = _verify(module)
            if (name, wrong) in WELL_FORMED_ARGUMENT_ATTRIBUTES:
                assert ok, (name, wrong, messages)
                continue
            assert not ok, (name, wrong)
            assert any(name in m for m in messages), (name, wrong, messages)


def test_a_declared_attribute_names_the_kind_expected():
    with make_context() as context, ir.Location.unknown(context):
        module = ir.Module.parse(
            'func.func @k(%t: tensor<2x4xf32>) {\n  %0 = "tile.transpose"(%t) {permutation = array<i64: 1, 0>}'
            " : (tensor<2x4xf32>) -> tensor<4x2xf32>\n  return\n}"
        )
        transpose = next(op for op in _walk(module) if op.name == "tile.transpose")
        assert transpose.opview.permutation == [1, 0]
        transpose.attributes["permutation"] = ir.Attribute.parse("array<i1: true, false>")
        with pytest.raises(A.AttributeKindError, match="'permutation' must be an array<i64>"):
            _ = transpose.opview.permutation
        ok, messages = _verify(module)
        assert not ok
        assert messages == ["'tile.transpose' op expects permutation to be an array<i64>, got array<i1: true, false>"]


@pytest.mark.parametrize(
    ("kind", "text", "value"),
    [
        (A.INTEGER, "7 : i64", 7),
        (A.INTEGER, "-3 : index", -3),
        (A.STRING, '"x"', "x"),
        (A.I32_ARRAY, "array<i32: 1, 2>", [1, 2]),
        (A.I64_ARRAY, "array<i64: 4>", [4]),
        (A.BOOL_ARRAY, "array<i1: true, false>", [True, False]),
        (A.STRING_ARRAY, '["M", "N"]', ["M", "N"]),
        (A.UNIT, "unit", True),
        (A.INTEGER_DICT, "{a = 1 : i64}", {"a": 1}),
        (A.I64_ARRAY_DICT, "{a = array<i64: 2>}", {"a": [2]}),
    ],
)
def test_read_gives_python_data(kind, text, value):
    with make_context():
        assert A.read(ir.Attribute.parse(text), "a", kind) == value


@pytest.mark.parametrize(
    ("kind", "text", "expected"),
    [
        (A.INTEGER, "36893488147419103232 : i128", "an integer of at most 64 bits"),
        (A.INTEGER, "true", "an integer"),
        (A.I32_ARRAY, "array<i1: true>", "an array<i32>"),
        (A.I64_ARRAY, "array<f64: 1.0>", "an array<i64>"),
        (A.BOOL_ARRAY, "array<i64: 1>", "an array<i1>"),
        (A.STRING_ARRAY, "[1]", "an array of strings"),
        (A.INTEGER_DICT, "{a = 36893488147419103232 : i128}", "an integer of at most 64 bits"),
    ],
)
def test_read_refuses_other_kinds(kind, text, expected):
    with make_context():
        with pytest.raises(A.AttributeKindError) as caught:
            A.read(ir.Attribute.parse(text), "a", kind)
        assert caught.value.expected == expected


def test_a_malformed_entry_check_is_reported_at_the_check_not_by_the_kernel():
    text = (
        'func.func @k(%X: memref<?xf32> {tile.name = "X", tile.dims = ["N"]}, %n: index)'
        " attributes {tile.kernel, tile.aligned = {N = 16 : i64}} {\n"
        '  %0 = "tile.check_multiple"(%n) {divisor = 36893488147419103232 : i128, symbol = "N"} : (index) -> index\n'
        "  return\n}"
    )
    with make_context() as context, ir.Location.unknown(context):
        ok, messages = _verify(ir.Module.parse(text))
    assert not ok
    assert "'tile.check_multiple' op expects divisor to be an integer of at most 64 bits" in messages[0]
    assert any("does not check it at entry" in m for m in messages)
