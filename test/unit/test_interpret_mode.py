"""Interpreter mode's surfaces: PHOBOS_INTERPRET=1, Kernel.interpret, `phobos run --interpret`.

The same call runs on the CPU: the runtime's argument checks and grid rule,
results written into numpy arrays (and torch tensors) in place, errors inside
a kernel at their `.ph` line. Every test uses random data, ragged sizes,
poisoned outputs and compares with numpy in float64.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("mlir")

import phobos  # noqa: E402
from phobos.interpreter import InterpreterError  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SAXPY = ROOT / "examples" / "saxpy.ph"
SCALE = ROOT / "examples" / "scale.ph"
GEMM = ROOT / "examples" / "gemm_fp32.ph"
BIN = Path(sys.executable).parent
RNG = np.random.default_rng(7)


def _vector(n):
    return RNG.standard_normal(n).astype(np.float32)


@pytest.fixture
def interpret_mode(monkeypatch, tmp_path):
    monkeypatch.setenv("PHOBOS_INTERPRET", "1")
    monkeypatch.setenv("PHOBOS_CACHE_DIR", str(tmp_path / "cache"))


@pytest.mark.parametrize("n", [1, 255, 1000003])
def test_phobos_interpret_runs_the_same_call_on_the_cpu(interpret_mode, n):
    k = phobos.compile(SAXPY)
    x, y = _vector(n), _vector(n)
    expected = 2.5 * x.astype(np.float64) + y.astype(np.float64)
    k(x, y, 2.5)
    np.testing.assert_allclose(y, expected, rtol=1e-6, atol=1e-6)


def test_interpret_mode_needs_no_gpu_code(interpret_mode, tmp_path):
    # dot does not lower to the GPU yet; the interpreter runs its tile program all the same
    m, k_, n = 65, 36, 97
    a, b = RNG.standard_normal((m, k_)).astype(np.float32), RNG.standard_normal((k_, n)).astype(np.float32)
    c = RNG.standard_normal((m, n)).astype(np.float32)
    expected = 1.5 * (a.astype(np.float64) @ b.astype(np.float64)) - 0.5 * c.astype(np.float64)
    gemm = phobos.compile(GEMM, defines={"TILE_M": 32, "TILE_N": 32, "TILE_K": 4})
    with pytest.raises(ValueError, match=r"@aligned\(.*\) is broken"):  # the promise is checked as for a launch
        gemm(a, b, c, 1.5, -0.5)
    aligned = (64, 32, 96)
    a, b, c = a[: aligned[0], : aligned[1]].copy(), b[: aligned[1], : aligned[2]].copy(), c[:64, :96].copy()
    expected = 1.5 * (a.astype(np.float64) @ b.astype(np.float64)) - 0.5 * c.astype(np.float64)
    gemm(a, b, c, 1.5, -0.5)
    np.testing.assert_allclose(c, expected, rtol=1e-4, atol=1e-4 * np.sqrt(aligned[1]))
    assert not list((tmp_path / "cache").glob("**/kernel.cubin"))  # nothing was compiled for the GPU


def test_explicit_grid_and_poisoned_output(interpret_mode):
    k = phobos.compile(SCALE)
    x = RNG.standard_normal((64, 256)).astype(np.float32)
    y = np.full_like(x, np.nan)
    k[(1, 1)](x, y, -2.0)  # one CTA: only its 32 x 128 tile is written
    np.testing.assert_allclose(y[:32, :128], -2.0 * x[:32, :128].astype(np.float64), rtol=1e-6)
    assert np.isnan(y[32:, :]).all() and np.isnan(y[:, 128:]).all()
    k(x, y, -2.0)  # the grid rule covers the whole tensor
    np.testing.assert_allclose(y, -2.0 * x.astype(np.float64), rtol=1e-6)


def test_arguments_are_checked_as_for_a_launch(interpret_mode):
    k = phobos.compile(SAXPY)
    with pytest.raises(TypeError, match="takes 3 arguments"):
        k(_vector(8), 2.0)
    with pytest.raises(TypeError, match="f32"):
        k(_vector(8).astype(np.float64), _vector(8), 2.0)


def test_interpret_without_the_mode_and_a_broken_promise_at_its_line(tmp_path):
    k = phobos.compile(SCALE, cache_dir=tmp_path)
    x = RNG.standard_normal((33, 128)).astype(np.float32)  # M = 33 breaks @aligned(M = TM)
    y = np.zeros_like(x)
    with pytest.raises(ValueError, match=r"@aligned\(M = 32\) is broken"):
        k.interpret(x, y, 2.0)
    with pytest.raises(InterpreterError) as e:
        k.interpret(x, y, 2.0, check=False)  # the kernel's own entry check, at its .ph line
    assert str(e.value).startswith(f"{SCALE}:") and "M" in str(e.value)


def test_trace_sees_the_values_of_a_line(interpret_mode):
    k = phobos.compile(SAXPY)
    seen = []
    k.interpret(_vector(300), _vector(300), 2.0, trace=lambda loc, op, value: seen.append((loc, op)))
    lines = {loc[1] for loc, _ in seen if loc is not None}
    assert seen and lines <= set(range(1, 40)) and any(op == "tile.load_slice" for _, op in seen)


def test_torch_cpu_tensors_are_updated_in_place(interpret_mode):
    torch = pytest.importorskip("torch")
    k = phobos.compile(SAXPY)
    x, y = torch.randn(777), torch.randn(777)
    expected = 0.5 * x.double() + y.double()
    k(x, y, 0.5)
    assert torch.allclose(y.double(), expected, rtol=1e-6, atol=1e-6)


def _phobos(*args):
    return subprocess.run([str(BIN / "phobos"), *map(str, args)], capture_output=True, text=True)


def test_phobos_run_interpret_summarises_the_tensors(tmp_path):
    r = _phobos("run", SAXPY, "--interpret", "--args", "f32[1000] f32[1000] 2.0", "--save", tmp_path)
    assert r.returncode == 0, r.stderr
    assert "ran saxpy in the interpreter" in r.stdout and "  Y: float32[1000]" in r.stdout
    x, y = np.load(tmp_path / "X.npy"), np.load(tmp_path / "Y.npy")
    assert x.shape == y.shape == (1000,) and np.isfinite(y).all() and not np.array_equal(x, y)


def test_phobos_run_trace_prints_the_line():
    r = _phobos("run", SAXPY, "--interpret", "--args", "f32[100] f32[100] 2.0", "--trace", "11", "--trace-limit", "3")
    assert r.returncode == 0, r.stderr
    traced = [line for line in r.stdout.splitlines() if f"{SAXPY}:11:" in line]
    assert 1 <= len(traced) <= 3


@pytest.mark.parametrize(
    "args, message",
    [
        (["--args", "f32[10] 2.0"], "phobos: error: saxpy() takes 3 arguments"),
        (["--args", "f32[10] f32[10] 2.0", "--grid", "0"], "phobos: error: --grid expects"),
        (["--args", "q32[10] f32[10] 2.0"], "phobos: error: --args:"),
        (["--args", "f32[10] f32[10] 2.0", "--trace", "3"], "phobos: error: --trace needs --interpret"),
    ],
)
def test_phobos_run_errors_are_one_line(args, message):
    extra = [] if "--trace" in args else ["--interpret"]
    r = _phobos("run", SAXPY, *extra, *args)
    assert r.returncode == 1 and message in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_phobos_run_interpret_needs_no_gpu_lowering():
    # dot does not lower to the GPU yet: --interpret builds the tile stage only
    r = _phobos("run", GEMM, "--interpret", "--args", "f32[64,32] f32[32,96] f32[64,96] 1.5 0.5")
    assert r.returncode == 0, r.stderr
    assert "ran gemm in the interpreter" in r.stdout and "  C: float32[64, 96]" in r.stdout


def test_phobos_run_on_a_file_that_is_not_utf8(tmp_path):
    bad = tmp_path / "bad.ph"
    bad.write_bytes(b"kernel k(X: tensor<f32>[N]) {\n \xff }\n")
    r = _phobos("run", bad, "--interpret", "--args", "f32[4]")
    assert r.returncode == 1 and "phobos: error: cannot read" in r.stderr and "Traceback" not in r.stderr
