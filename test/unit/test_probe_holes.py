"""Holes a probe of the newer constructs found: programs that `phobos check` accepts but the
later stages crashed on (an internal compiler error), compiled by the real front end and run
by the interpreter."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("mlir")

from test_interpreter import program  # noqa: E402

from phobos.interpreter import run_program  # noqa: E402

SCALAR_WHERE = """
kernel k(X: tensor<f32>[N], I: tensor<i32>[N], s: f32) {
  X[0] = where(s > 0.0, s, 0.0)
  let v = where(I[0] > 0, 2.5, -1.0)
  X[1] = v + 1.0
  I[1] = where(s > 0.0, 7, 9)
  if where(s > 0.0, true, false) { X[2] = 1.0 }
}
"""


@pytest.mark.parametrize("s", [3.0, -2.0])
def test_where_of_scalars_is_a_scalar(s):
    # where() of three scalars lowered to a rank-0 tile, which a single-element store
    # could not take ("IndexError", an internal compiler error).
    prog = program(SCALAR_WHERE)
    x = np.zeros(4, np.float32)
    i = np.array([1, 0, 0, 0], np.int32)
    run_program(prog, [x, i, s], (1, 1, 1))
    assert x[0] == max(s, 0.0)
    assert x[1] == 3.5
    assert i[1] == (7 if s > 0 else 9)
    assert x[2] == (1.0 if s > 0 else 0.0)


BOOL_TENSOR = """
kernel k(W: tensor<bool>[N], X: tensor<f32>[N]) {
  X[0 :+ 4] = where(W[0 :+ 4], 1.0, 0.0)
}
"""


def test_bool_tensors_are_spelled_bool_at_the_launch(tmp_path):
    # The contract's dtype of a bool tensor is i1; messages and --args spell it as the language does.
    import phobos
    from phobos.runtime.aot import like, parse_args_text

    path = tmp_path / "bool.ph"
    path.write_text(BOOL_TENSOR)
    k = phobos.compile(str(path))
    with pytest.raises(TypeError, match=r"argument W must have bool elements \(W: tensor<bool>\[N\]\), got f32"):
        k.interpret(np.zeros(4, np.float32), np.zeros(4, np.float32), grid=(1,))
    with pytest.raises(TypeError, match=r"takes 2 arguments \(W: tensor<bool>\[N\], X: tensor<f32>\[N\]\)"):
        k.interpret(np.zeros(4, bool), grid=(1,))
    (w,) = parse_args_text("bool[4]")
    assert isinstance(w, like) and w.dtype == "i1"
    with pytest.raises(ValueError, match=r"one of f16, bf16, f32, f64, bool, i8"):
        like("i2", [4])


FP8_AND_BOOL_LOADS = """
kernel k(Q: tensor<f8e4m3>[N], W: tensor<bool>[N], X: tensor<f32>[N]) {
  X[0 :+ 256] = where(W[0 :+ 256], f32(Q[0 :+ 256]), 0.0)
}
"""


def test_explain_spells_elements_as_the_language():
    # `phobos explain` named the accesses' elements as MLIR does ('tile 256 x f8E4M3FN', 'x i1').
    from phobos.compiler.explain import explain_source, render_text

    report = explain_source(FP8_AND_BOOL_LOADS, chip="sm_90")
    text = render_text(report)
    assert "tile 256 x f8e4m3)" in text and "tile 256 x bool)" in text
    assert "f8E4M3FN" not in text and " i1)" not in text
