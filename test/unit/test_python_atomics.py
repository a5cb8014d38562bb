"""The Python spellings of gathers, scatters and atomics (@phobos.kernel): `X[idx]`,
`X[rows, span(0, D)]`, `masked(X[idx], m)`, `atomic_add(target, v, sem="release")`; the
same tile IR as the .ph twin, and the interpreter against NumPy."""

from __future__ import annotations

import importlib.util
import textwrap

import numpy as np
import pytest

pytest.importorskip("mlir")

from phobos.frontend import CompileError, compile_to_tile_ir  # noqa: E402

HEADER = (
    "import phobos\nfrom phobos.lang import ctx, f32, i32, span, tensor, masked, atomic_add, atomic_max, arange\n\n"
)

PY = """
@phobos.kernel(launch=128)
def hist(X: tensor[i32, "N"], H: tensor[i32, "B"], W: tensor[f32, "N"], M: tensor[f32, "B"]):
    s = ctx.block.x * 128
    x = X[span(s, 128)]
    ok = arange(128) + s < N
    atomic_add(masked(H[x], ok), 1, sem="release", scope="gpu")
    atomic_max(masked(M[x], ok), W[span(s, 128)])
"""

PH = """
@launch(128)
kernel hist(X: tensor<i32>[N], H: tensor<i32>[B], W: tensor<f32>[N], M: tensor<f32>[B]) {
  let s = ctx.block.x * 128
  let x = X[s :+ 128]
  let ok = arange(128) + s < N
  atomic_add(masked(H[x], ok), 1, sem = "release", scope = "gpu")
  atomic_max(masked(M[x], ok), W[s :+ 128])
}
"""


def _load(tmp_path, body: str, name: str):
    path = tmp_path / f"{name}.py"
    path.write_text(HEADER + textwrap.dedent(body))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _strip(text: str) -> str:
    return "\n".join(line.split(" loc(")[0] for line in text.splitlines() if not line.startswith("#loc"))


def test_python_histogram_is_the_ph_kernel_and_runs(tmp_path):
    module = _load(tmp_path, PY, "pyhist")
    k = module.hist
    py_ir = str(compile_to_tile_ir(k.source_text, k.origin))
    ph_ir = str(compile_to_tile_ir(PH, "hist.ph"))
    assert "tile.atomic_rmw" in py_ir and 'sem = "release"' in py_ir
    assert _strip(py_ir) == _strip(ph_ir)
    rng = np.random.default_rng(5)
    n, b = 1000, 300
    x = rng.integers(-2, b + 3, n).astype(np.int32)
    w = rng.standard_normal(n).astype(np.float32)
    h, m = np.zeros(b, np.int32), np.full(b, -np.inf, np.float32)
    k.interpret(x, h, w, m, grid=(-(-n // 128), 1, 1))
    ok = (x >= 0) & (x < b)
    np.testing.assert_array_equal(h, np.bincount(x[ok], minlength=b))
    want = np.full(b, -np.inf)
    np.maximum.at(want, x[ok], w[ok])
    np.testing.assert_array_equal(m, want.astype(np.float32))


def test_python_bad_sem_is_located(tmp_path):
    body = PY.replace('sem="release"', 'sem="seq_cst"')
    with pytest.raises(CompileError) as e:
        _load(tmp_path, body, "badsem")
    text = str(e.value)
    assert "'sem' of 'atomic_add' must be one of" in text and "badsem.py:" in text
