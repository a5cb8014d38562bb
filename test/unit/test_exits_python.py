"""Python `while`, `break`, `continue` and `return` in @phobos.kernel (issue 23, item 1): the
same tile IR as the .ph spelling, and the same located errors (at the .py line)."""

from __future__ import annotations

import importlib.util
import textwrap

import pytest

pytest.importorskip("mlir")

from phobos.frontend import CompileError, compile_to_tile_ir  # noqa: E402

HEADER = "import phobos\nfrom phobos.lang import ctx, f32, grid_barrier, i32, tensor\n\n"

PH = """
kernel nested(X: tensor<f32>[N], C: tensor<i32>[R], n: i32) {
  let r = ctx.block.x
  if r >= R {
    return
  }
  var count: i32 = 0
  var k = 0
  while k < N {
    if X[k] < 0.0 {
      break
    }
    k = k + 1
  }
  for i in range(0, n) {
    for j in range(0, n) {
      if j > i {
        break
      }
      if (i + j) % 3 == 0 {
        continue
      }
      count = count + 1
    }
  }
  C[r] = count + i32(k)
}
"""

PY = """
@phobos.kernel
def nested(X: tensor[f32, "N"], C: tensor[i32, "R"], n: i32):
    r = ctx.block.x
    if r >= R:
        return
    count: i32 = 0
    k = 0
    while k < N:
        if X[k] < 0.0:
            break
        k = k + 1
    for i in range(0, n):
        for j in range(0, n):
            if j > i:
                break
            if (i + j) % 3 == 0:
                continue
            count = count + 1
    C[r] = count + i32(k)
"""


def _load(tmp_path, body: str, name: str = "exits_kmod"):
    path = tmp_path / f"{name}.py"
    path.write_text(HEADER + textwrap.dedent(body))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_python_exits_give_the_ph_tile_ir(tmp_path):
    kernel = _load(tmp_path, PY).nested
    python = str(compile_to_tile_ir(kernel.source_text, kernel.origin))
    assert python == str(compile_to_tile_ir(PH, "nested.ph"))
    assert "scf.while" in python


@pytest.mark.parametrize(
    "decorator, body, expected, line",
    [
        ("@phobos.kernel", "    return s\n", "a kernel returns no value", 0),
        (
            "@phobos.kernel(persistent=True)",
            "    if s > 3:\n        return\n    grid_barrier()\n",
            "grid_barrier() that some CTAs may not reach",
            2,
        ),
    ],
)
def test_python_exit_errors_are_located(tmp_path, decorator, body, expected, line):
    source = decorator + "\ndef k(X: tensor[f32, 'N']):\n    s = ctx.block.x\n" + body
    with pytest.raises(CompileError) as e:
        _load(tmp_path, source, "exits_bad")
    text = str(e.value)
    assert expected in text
    lineno = HEADER.count("\n") + 4 + line
    assert f"exits_bad.py:{lineno}:" in text.splitlines()[0]
