"""phobos.compile checks .ph source when it is called: located errors for broken files, the GPU's
rules on tiles (for every @autotune value it may tune over) and the choice of kernel; no
`<unknown>:0:` (issue 28, item 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

import phobos
from phobos.diagnostics import Diagnostic
from phobos.frontend import CompileError

ROOT = Path(__file__).resolve().parents[2]
TWO = """kernel first(X: tensor<f32>[N]) {
  X[0 :+ 128] = X[0 :+ 128] * 2.0
}

kernel second(X: tensor<f32>[N]) {
  X[0 :+ 128] = X[0 :+ 128] + 1.0
}
"""

TUNED = """@autotune(B in [128, 100, 64])
kernel copy(X: tensor<f32>[N], Y: tensor<f32>[N]) {
  let i = ctx.block.x * B
  Y[i :+ B] = X[i :+ B]
}
"""


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_a_broken_file_fails_at_compile_not_at_the_first_call(tmp_path):
    path = _write(tmp_path, "broken.ph", "kernel k(X: tensor<f32>[N]) {\n  X[0 :+ 128] = nope\n}\n")
    with pytest.raises(CompileError, match=r"broken.ph:2:17: error: unknown identifier 'nope'"):
        phobos.compile(path, cache_dir=tmp_path / "cache")


def test_several_kernels_without_a_choice_is_located(tmp_path):
    path = _write(tmp_path, "two.ph", TWO)
    with pytest.raises(CompileError) as info:
        phobos.compile(path, cache_dir=tmp_path / "cache")
    text = str(info.value)
    assert "two.ph:5:8: error:" in text and "several kernels (first, second); choose one with kernel=NAME" in text
    assert "<unknown>" not in text
    with pytest.raises(CompileError, match=r"two.ph:1:8: error: .* has no kernel 'third' \(it has first, second\)"):
        phobos.compile(path, kernel="third", cache_dir=tmp_path / "cache")
    assert phobos.compile(path, kernel="second", cache_dir=tmp_path / "cache").kernel_name == "second"


def test_a_tile_extent_that_is_not_a_power_of_two_is_reported_at_compile(tmp_path, monkeypatch):
    monkeypatch.delenv("PHOBOS_INTERPRET", raising=False)
    path = _write(tmp_path, "tuned.ph", TUNED)
    with pytest.raises(CompileError) as info:
        phobos.compile(path, cache_dir=tmp_path / "cache")
    text = str(info.value)
    assert "tuned.ph:1:22: error: with B = 100, kernel 'copy' cannot run on the GPU" in text
    assert "tuned.ph:4:10: note: the tile is made here" in text
    phobos.compile(path, defines={"B": 64}, cache_dir=tmp_path / "cache")  # B fixed: no other value is tried


def test_the_interpreter_still_takes_tiles_the_gpu_cannot_hold(tmp_path, monkeypatch):
    import numpy as np

    monkeypatch.setenv("PHOBOS_INTERPRET", "1")
    path = _write(tmp_path, "tuned.ph", TUNED)
    k = phobos.compile(path, defines={"B": 100}, cache_dir=tmp_path / "cache")
    x = np.arange(300, dtype=np.float32)
    y = np.zeros_like(x)
    k(x, y)
    np.testing.assert_array_equal(y, x)


def test_an_error_without_a_place_does_not_pretend_to_have_one():
    assert str(CompileError([Diagnostic("error", "the input has no kernel")])) == "error: the input has no kernel\n"


def test_tile_ir_is_verified_at_compile(tmp_path):
    good = (ROOT / "examples/scale.mlir").read_text()
    bad = tmp_path / "bad.mlir"
    bad.write_text(good.replace('"tile.load_slice"', '"tile.bogus"'))
    with pytest.raises(CompileError, match=r"bad.mlir:\d+:\d+: error: unregistered operation 'tile.bogus'"):
        phobos.compile(bad, cache_dir=tmp_path / "cache")
    two = ROOT / "test/Target/Inputs/two-kernels.mlir"
    with pytest.raises(CompileError, match="several kernels"):
        phobos.compile(two, cache_dir=tmp_path / "cache")
    assert phobos.compile(two, kernel="first", cache_dir=tmp_path / "cache").kernel_name == "first"
