"""Splitting pass pipelines between Phobos (Python) and upstream passes."""

import pytest
from mlir import ir

from phobos.compiler.pass_manager import PipelineError, build_pass_manager, split_elements
from phobos.dialect import make_context


def test_split_respects_nesting_and_quotes():
    assert split_elements('a, b{x=1 y=2}, func.func(c, d{e="1,2"}), f') == [
        "a",
        "b{x=1 y=2}",
        'func.func(c, d{e="1,2"})',
        "f",
    ]
    assert split_elements("") == []


def _run(pipeline, text):
    with make_context() as ctx:
        module = ir.Module.parse(text)
        build_pass_manager(pipeline, ctx).run(module.operation)
        return str(module)


def test_mixed_pipeline_runs_in_order():
    text = (
        "func.func @f(%a: i32) -> i32 {\n"
        " %c0 = arith.constant 0 : i32\n"
        " %0 = arith.addi %a, %c0 : i32\n"
        " return %0 : i32\n"
        "}"
    )
    out = _run("builtin.module(tile-verify, canonicalize, tile-verify)", text)
    assert "arith.addi" not in out


@pytest.mark.parametrize(
    "pipeline, message",
    [
        ("canonicalize", "expected pass pipeline to be wrapped"),
        ("builtin.module(func.func(tile-verify))", "runs on the top-level module only"),
        ("builtin.module(tile-verify{nope=1})", "has no option 'nope'"),
        ("func.func(tile-verify)", "anchored on 'func.func'"),
        (
            "builtin.module(gpu-lower-to-nvvm-pipeline{cubin-chip=sm_90 cubin-features=+ptx60})",
            "PTX 6.0 does not support sm_90",
        ),
        ("builtin.module(no-such-pass)", "does not refer to a registered pass"),
        ("nope.op(cse)", "not a registered operation"),
    ],
)
def test_bad_pipelines_raise_pipeline_error(pipeline, message):
    with make_context() as ctx:
        with pytest.raises(PipelineError, match=message.replace("(", r"\(").replace(")", r"\)")):
            build_pass_manager(pipeline, ctx)
