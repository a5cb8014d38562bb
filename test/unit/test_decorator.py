"""@phobos.kernel and @phobos.fn: located errors for Python outside the language, keyword
arguments, with_defines, inlined functions, the chip chosen from the device, and pipeline=S."""

from __future__ import annotations

import importlib.util
import textwrap

import numpy as np
import pytest

from phobos.target import DEFAULT_CHIP, TargetError, chip_for_capability, default_chip

HEADER = "import phobos\nfrom phobos.lang import ctx, dot_t, exp, f16, f32, span, tensor, tile\n\n"


def _load(tmp_path, body: str, name: str = "kmod"):
    path = tmp_path / f"{name}.py"
    path.write_text(HEADER + textwrap.dedent(body))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, path


def _error(tmp_path, body: str) -> str:
    from phobos.frontend import CompileError

    with pytest.raises(CompileError) as e:
        _load(tmp_path, body)
    return str(e.value)


# ----------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "line, expected",
    [
        ("    Y[span(s, 256)] = X[span(s, 256)] ** 2\n", "no power operator '**'"),
        ("    Y[span(s, 256)] = [v for v in X]\n", "list comprehension"),
        ("    Y[span(s, 256)] = X[span(s, 256)] if s > 0 else 0.0\n", "where(c, a, b)"),
        ("    Y[span(s, 256)] = X[span(s, 256)] // 2\n", "'//'"),
        ("    try:\n        pass\n    finally:\n        pass\n", "'try' is not in the language"),
        ("    Y[span(s, 256)] = helper(X[span(s, 256)])\n", "'helper' is a Python function"),
        ("    Y[span(s, 256)] = X[span(s, 256)] * outside\n", "'outside' is a Python variable captured"),
        ("    print(s)\n", "'print' is Python's builtin"),
        ("    Y[s:] = X[span(s, 256)]\n", "a range needs its end"),
        ("    Y[span(s, 256)] = X[span(s, 256)] + unknown_name\n", "unknown identifier 'unknown_name'"),
    ],
)
def test_constructs_outside_the_language_are_located_errors(tmp_path, line, expected):
    body = (
        "outside = 2.0\n\ndef helper(x):\n    return x\n\n@phobos.kernel\n"
        "def k(X: tensor[f32, 'N'], Y: tensor[f32, 'N']):\n    s = ctx.block.x * 256\n" + line
    )
    text = _error(tmp_path, body)
    assert expected in text
    first = text.splitlines()[0]
    lineno = HEADER.count("\n") + body.count("\n", 0, body.index(line)) + 1
    assert f"kmod.py:{lineno}:" in first, text
    assert "^" in text.splitlines()[2]


def test_missing_annotation_names_the_parameter(tmp_path):
    text = _error(tmp_path, "@phobos.kernel\ndef k(X: tensor[f32, 'N'], alpha):\n    pass\n")
    assert "kmod.py:5:" in text and "parameter 'alpha' has no type" in text


def test_errors_from_the_checker_point_at_the_python_line(tmp_path):
    body = "@phobos.kernel\ndef k(X: tensor[f32, 'N'], Y: tensor[f32, 'N']):\n    s = ctx.block.x * 128\n"
    body += "    Y[span(s, 128)] = X[span(s, 128)] > 0.0\n"
    text = _error(tmp_path, body)
    assert "kmod.py:7:23: error: cannot store bool values into 'Y'" in text


def test_unknown_decorator_keyword(tmp_path):
    with pytest.raises(TypeError, match="unknown keyword 'unroll'"):
        _load(tmp_path, "@phobos.kernel(unroll=4)\ndef k(X: tensor[f32, 'N']):\n    pass\n")


# ----------------------------------------------------------------------------- calls


SAXPY = """
@phobos.fn
def axpy(a, x, y):
    t = a * x
    return t + y

@phobos.kernel(autotune={"BLOCK": [256, 1024]})
def saxpy(X: tensor[f32, "N"], Y: tensor[f32, "N"], a: f32):
    s = ctx.block.x * BLOCK
    Y[span(s, BLOCK)] = axpy(a, X[span(s, BLOCK)], Y[span(s, BLOCK)])

@phobos.kernel(autotune={"BLOCK": [256, 1024]})
def saxpy_inline(X: tensor[f32, "N"], Y: tensor[f32, "N"], a: f32):
    s = ctx.block.x * BLOCK
    x = X[span(s, BLOCK)]
    y = Y[span(s, BLOCK)]
    Y[span(s, BLOCK)] = a * x + y
"""


def test_keywords_with_defines_and_fn(tmp_path):
    module, _ = _load(tmp_path, SAXPY)
    rng = np.random.default_rng(7)
    x, y = rng.standard_normal(1001).astype(np.float32), rng.standard_normal(1001).astype(np.float32)
    out = y.copy()
    module.saxpy.interpret(x, a=3.0, Y=out)
    np.testing.assert_allclose(out, 3.0 * x.astype(np.float64) + y, rtol=1e-6, atol=1e-6)
    with pytest.raises(TypeError, match="unexpected keyword argument 'b'"):
        module.saxpy.interpret(x, out, b=1.0)
    with pytest.raises(TypeError, match="missing argument.* a"):
        module.saxpy.interpret(x, Y=out)
    fixed = module.saxpy.with_defines(BLOCK=1024)
    assert fixed.defines == {"BLOCK": 1024} and module.saxpy.defines == {}
    from phobos.frontend import CompileError

    with pytest.raises(CompileError, match="not in the @autotune space"):
        module.saxpy.with_defines(BLOCK=300)


def test_fn_is_inlined_to_the_same_tile_ir(tmp_path):
    pytest.importorskip("mlir")
    from phobos.frontend import compile_to_tile_ir

    module, _ = _load(tmp_path, SAXPY)
    ir = [str(compile_to_tile_ir(k.source_text, k.origin)) for k in (module.saxpy, module.saxpy_inline)]
    assert ir[0].replace("saxpy_inline", "saxpy") == ir[1].replace("saxpy_inline", "saxpy")


def test_fn_cannot_be_called_from_python(tmp_path):
    module, _ = _load(tmp_path, SAXPY)
    with pytest.raises(TypeError, match="inlined"):
        module.axpy(1.0, 2.0, 3.0)


# ----------------------------------------------------------------------------- the chip


def test_chip_for_capability():
    assert chip_for_capability(9, 0) == "sm_90a"  # H100, H200
    assert chip_for_capability(8, 0) == "sm_80"
    assert chip_for_capability(8, 9) == "sm_89"
    assert chip_for_capability(12, 0) == "sm_120"
    assert chip_for_capability(5, 2) == DEFAULT_CHIP  # below what the toolchain compiles for


def test_default_chip_from_the_device_and_overrides(monkeypatch):
    monkeypatch.delenv("PHOBOS_CHIP", raising=False)
    assert default_chip(lambda: (9, 0)) == "sm_90a"
    assert default_chip(lambda: None) == DEFAULT_CHIP
    monkeypatch.setenv("PHOBOS_CHIP", "sm_80")
    assert default_chip(lambda: (9, 0)) == "sm_80"
    monkeypatch.setenv("PHOBOS_CHIP", "sm_9000")
    with pytest.raises(TargetError, match="PHOBOS_CHIP=sm_9000"):
        default_chip(lambda: (9, 0))


def test_kernel_chip_follows_the_environment_and_the_argument(tmp_path, monkeypatch):
    monkeypatch.setenv("PHOBOS_CHIP", "sm_80")
    module, _ = _load(tmp_path, SAXPY)
    assert module.saxpy.chip == "sm_80"
    import phobos

    assert phobos.compile("examples/saxpy.ph").chip == "sm_80"
    assert phobos.compile("examples/saxpy.ph", chip="sm_90a").chip == "sm_90a"


_PIPELINED_BODY = """(A: tensor[f16, "M", "K"], B: tensor[f16, "N", "K"], C: tensor[f32, "M", "N"]):
    m0 = ctx.block.x * 64
    acc: tile[f32, 64, 64] = 0.0
    for k in range(0, K, 32):
        acc += dot_t(A[span(m0, 64), span(k, 32)], B[span(0, 64), span(k, 32)])
    C[span(m0, 64), span(0, 64)] = acc
"""
PIPELINED = (
    '\n@phobos.kernel(launch=128, tensorcore=True, pipeline=4)\ndef fixed' + _PIPELINED_BODY
    + '\n@phobos.kernel(autotune={"S": [4, 2]}, launch=128, tensorcore=True, pipeline="S")\ndef tuned' + _PIPELINED_BODY
)  # fmt: skip
PIPELINED_PH = """@launch(128)
@tensorcore
@pipeline(4)
kernel fixed(A: tensor<f16>[M, K], B: tensor<f16>[N, K], C: tensor<f32>[M, N]) {
  let m0 = ctx.block.x * 64
  var acc: tile<f32>[64, 64] = 0.0
  for k in range(0, K, 32) {
    acc += dot_t(A[m0 :+ 64, k :+ 32], B[0 :+ 64, k :+ 32])
  }
  C[m0 :+ 64, 0 :+ 64] = acc
}
"""


def test_pipeline_stages_keyword(tmp_path):
    """pipeline=4 and pipeline="S" (an autotune constant) are @pipeline(4) and @pipeline(S): the
    kernel records its stages, as the .ph twin does; a float is a located error."""
    pytest.importorskip("mlir")
    from phobos.dialect import kernel as K
    from phobos.frontend import attributes, compile_to_tile_ir

    # the front end (no MLIR) states the verifier's bounds again: they must agree
    bounds = (attributes.MIN_PIPELINE_DEPTH, attributes.MAX_PIPELINE_DEPTH)
    assert bounds == (K.MIN_PIPELINE_DEPTH, K.MAX_PIPELINE_DEPTH)
    module, _ = _load(tmp_path, PIPELINED)
    fixed = str(compile_to_tile_ir(module.fixed.source_text, module.fixed.origin))
    assert "tile.pipeline_depth = 4" in fixed
    assert _strip_locations(fixed) == _strip_locations(str(compile_to_tile_ir(PIPELINED_PH, "twin.ph")))
    tuned = str(compile_to_tile_ir(module.tuned.source_text, module.tuned.origin))
    assert "tile.pipeline_depth = 4" in tuned and "S = array<i64: 4, 2>" in tuned
    first = PIPELINED.split("@phobos.kernel(autotune")[0]
    assert "kmod.py:5:54: error: @pipeline expects an integer, got 2.5" in _error(
        tmp_path, first.replace("pipeline=4", "pipeline=2.5")
    )
    assert "@pipeline takes 2 to 8 stages, got 1" in _error(tmp_path, first.replace("pipeline=4", "pipeline=1"))
    text = _error(tmp_path, first.replace("pipeline=4", "pipeline=[4]"))
    assert "pipeline= takes True, False, a number of stages (4) or a constant's name" in text


def _strip_locations(text: str) -> str:
    return "\n".join(line.split(" loc(")[0] for line in text.splitlines() if not line.startswith("#loc"))
