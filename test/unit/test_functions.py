"""Functions and the standard library's visibility: std=False / $PHOBOS_NO_STD, `import std.nn`,
a program's function winning over the library's, unknown modules, and generic instances run in
the interpreter (one instance per element type and shape)."""

from __future__ import annotations

import numpy as np
import pytest

from phobos.frontend import CompileError, check_source

pytest.importorskip("mlir")

from test_interpreter import cdiv, guard_intact, guarded, program, random_tensor  # noqa: E402

from phobos.interpreter import run_program  # noqa: E402

USES_GELU = """
kernel k(X: tensor<f32>[M, N], Y: tensor<f32>[M, N]) {
  Y[0 :+ 4, 0 :+ 8] = gelu(X[0 :+ 4, 0 :+ 8])
}
"""


def test_no_std_leaves_the_library_out():
    with pytest.raises(CompileError) as e:
        check_source(USES_GELU, "k.ph", std=False)
    assert "unknown identifier 'gelu'" in str(e.value)
    check_source("import std.nn\n" + USES_GELU, "k.ph", std=False)  # an import brings it in
    check_source(USES_GELU, "k.ph")  # implicit by default


def test_no_std_from_the_environment(monkeypatch):
    monkeypatch.setenv("PHOBOS_NO_STD", "1")
    with pytest.raises(CompileError):
        check_source(USES_GELU, "k.ph")


def test_unknown_module_is_located():
    with pytest.raises(CompileError) as e:
        check_source("import std.magic\n" + USES_GELU, "k.ph")
    assert "k.ph:1:8: error: unknown module 'std.magic'" in str(e.value)


def test_program_function_wins_over_the_library():
    src = "fn gelu(x: tile<f32>[R, C]) -> tile<f32>[R, C] {\n  return x * 2.0\n}\n" + USES_GELU
    prog = program(src)
    x, _ = random_tensor((4, 8))
    y, ybuf = guarded((4, 8))
    run_program(prog, [x, y], (1, 1, 1))
    np.testing.assert_array_equal(y, x * 2.0)
    assert guard_intact(ybuf, np.nan)


GENERIC = """
fn mix<T>(a: tile<T>[R, C], b: tile<T>[R, C], w: f32) -> tile<T>[R, C] {
  var acc = f32(a)
  for i in range(2) {
    acc = acc * w + f32(b)
  }
  return acc
}

@autotune(BR in [8])
kernel k(A: tensor<f16>[M, N], B: tensor<f16>[M, N], X: tensor<f32>[M, 16],
         Y: tensor<f16>[M, N], Z: tensor<f32>[M, 16]) {
  let r = ctx.block.x * BR
  Y[r :+ BR, 0 :+ 32] = mix(A[r :+ BR, 0 :+ 32], B[r :+ BR, 0 :+ 32], 0.5)
  Z[r :+ BR, 0 :+ 16] = mix(X[r :+ BR, 0 :+ 16], X[r :+ BR, 0 :+ 16], 2)
}
"""


def test_generic_instances_in_the_interpreter():
    m, n = 11, 30
    prog = program(GENERIC)
    a, _ = random_tensor((m, n), np.float16)
    b, _ = random_tensor((m, n), np.float16)
    x, _ = random_tensor((m, 16))
    y, ybuf = guarded((m, n), np.float16)
    z, zbuf = guarded((m, 16))
    run_program(prog, [a, b, x, y, z], (cdiv(m, 8), 1, 1))
    a64, b64, x64 = (t.astype(np.float64) for t in (a, b, x))
    np.testing.assert_allclose(y.astype(np.float64), (a64 * 0.5 + b64) * 0.5 + b64, rtol=1e-3)
    np.testing.assert_allclose(z, (x64 * 2 + x64) * 2 + x64, rtol=1e-6)
    assert guard_intact(ybuf, np.nan) and guard_intact(zbuf, np.nan)


def test_language_page_holds_the_generated_std_reference():
    import os

    from phobos.frontend.stdlib.reference import replace_section

    path = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "language.md")
    with open(path, encoding="utf-8") as f:
        page = f.read()
    assert replace_section(page) == page, "run python -m phobos.frontend.stdlib.reference --write docs/language.md"
    assert "#### `dropout`" in page and "Philox4x32-10" in page


PYTHON_KERNEL = """
import phobos
from phobos.lang import tensor, f32, ctx, span


@phobos.kernel(autotune={"BR": [4]})
def k(X: tensor[f32, "M", "N"], Y: tensor[f32, "M", "N"]):
    r = ctx.block.x * BR
    Y[span(r, BR), span(0, 8)] = silu(X[span(r, BR), span(0, 8)])
"""


def test_python_kernels_call_the_standard_library():
    prog = program(PYTHON_KERNEL, name="k.py")
    x, _ = random_tensor((6, 8))
    y, ybuf = guarded((6, 8))
    run_program(prog, [x, y], (2, 1, 1))
    v = x.astype(np.float64)
    np.testing.assert_allclose(y, v / (1.0 + np.exp(-v)), rtol=1e-6)
    assert guard_intact(ybuf, np.nan)
