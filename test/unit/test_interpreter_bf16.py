"""bf16 tensors in the interpreter, as ml_dtypes.bfloat16 numpy arrays: kernel.interpret,
PHOBOS_INTERPRET=1 and `phobos run --interpret`. Loads widen exactly, stores round to
nearest even into the caller's array, the launch's checks and buffer sharing hold as on
the GPU, and unsupported dtypes are refused naming the parameter."""

from __future__ import annotations

import numpy as np
import pytest

ml_dtypes = pytest.importorskip("ml_dtypes")
pytest.importorskip("mlir")

import phobos  # noqa: E402
from phobos.cli.driver import main  # noqa: E402
from phobos.cli.run import random_arguments  # noqa: E402

BF16 = ml_dtypes.bfloat16
RNG = np.random.default_rng(11)

SCALE = """
kernel scale_bf16(X: tensor<bf16>[N], Y: tensor<bf16>[N]) {
  let s = ctx.block.x * 128
  Y[s :+ 128] = X[s :+ 128] * 2.0
}
"""

CONVERT = """
kernel convert(X: tensor<bf16>[N], Y: tensor<f32>[N], W: tensor<f32>[N], V: tensor<bf16>[N]) {
  let s = ctx.block.x * 128
  Y[s :+ 128] = f32(X[s :+ 128])
  V[s :+ 128] = bf16(W[s :+ 128])
}
"""

# Both tensors are written, so a launch lets them be the very same view (one device buffer)
BOTH = """
kernel both(A: tensor<bf16>[N], B: tensor<bf16>[N]) {
  let s = ctx.block.x * 128
  A[s :+ 128] = A[s :+ 128] + 1.0
  B[s :+ 128] = B[s :+ 128] * 2.0
}
"""


def bf16_reference(x):
    """Rounding to bf16 (8 significant bits, ties to even) by frexp, independent of ml_dtypes."""
    mantissa, exponent = np.frexp(np.asarray(x, dtype=np.float64))
    return np.ldexp(np.rint(mantissa * 2**8) / 2**8, exponent).astype(np.float32)


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bf16")
    paths = {}
    for name, text in (("scale", SCALE), ("convert", CONVERT), ("both", BOTH)):
        paths[name] = folder / f"{name}.ph"
        paths[name].write_text(text)
    return paths


def test_phobos_run_interpret_takes_bf16_tensors(kernels, tmp_path, capsys):
    code = main(
        ["run", str(kernels["scale"]), "--interpret", "--args", "bf16[1000] bf16[1000]", "--save", str(tmp_path)]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "ran scale_bf16 in the interpreter" in out and "  Y: bfloat16[1000]" in out
    x, y = np.load(tmp_path / "X.npy"), np.load(tmp_path / "Y.npy")  # saved as float32 values: np.load reads them
    assert x.dtype == y.dtype == np.float32 and np.array_equal(x, bf16_reference(x))
    assert np.abs(x).max() > 0 and np.array_equal(y, 2 * x)


def test_phobos_run_interpret_converts_bf16_to_f32(kernels, capsys):
    args = "bf16[300] f32[300] f32[300] bf16[300]"
    assert main(["run", str(kernels["convert"]), "--interpret", "--args", args]) == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    assert "  Y: float32[300]" in out and "  V: bfloat16[300]" in out


def test_random_bf16_arguments_are_ml_dtypes_arrays():
    x, y, a = random_arguments("bf16[7,5] f32[3] 2.0", seed=0)
    assert x.dtype == BF16 and x.shape == (7, 5) and y.dtype == np.float32 and a == 2.0


def test_interpret_widens_exactly_and_rounds_stores_to_nearest_even(kernels):
    k = phobos.compile(str(kernels["convert"]))
    n = 300
    x = RNG.uniform(-1e3, 1e3, n).astype(BF16)
    x.flags.writeable = False  # read only: never copied back
    w = RNG.uniform(-1e4, 1e4, n).astype(np.float32)
    w[:6] = [1 + 2**-8, 1 + 3 * 2**-8, -(1 + 2**-8), np.inf, -0.0, np.nan]  # ties go to the even neighbour
    y, v = np.full(n, 7, np.float32), np.full(n, 7, BF16)
    k.interpret(x, y, w, v)
    np.testing.assert_array_equal(y, x.astype(np.float64).astype(np.float32))  # the same values, widened
    v32 = v.astype(np.float32)
    assert v32[:5].tolist() == [1.0, 1 + 2**-6, -1.0, np.inf, 0.0] and np.signbit(v32[4]) and np.isnan(v32[5])
    np.testing.assert_array_equal(v32[6:], bf16_reference(w[6:]))  # in the caller's array, in place


def test_interpret_mode_writes_into_the_callers_bf16_array(kernels, monkeypatch, tmp_path):
    monkeypatch.setenv("PHOBOS_INTERPRET", "1")
    monkeypatch.setenv("PHOBOS_CACHE_DIR", str(tmp_path / "cache"))
    k = phobos.compile(str(kernels["scale"]))
    x = RNG.uniform(-4, 4, (2, 700))[1].astype(BF16)  # 700: a ragged last tile
    y = np.zeros(1400, BF16)[::2]  # a strided view: written through
    k(x, y)
    np.testing.assert_array_equal(y.astype(np.float32), 2 * x.astype(np.float32))


def test_a_negative_stride_is_refused_as_by_a_launch(kernels):
    k = phobos.compile(str(kernels["scale"]))
    x, y = np.ones(300, BF16), np.zeros(300, BF16)
    with pytest.raises(ValueError, match=r"scale_bf16: argument X has a negative stride \(strides \(-1,\)"):
        k.interpret(x[::-1], y)


def test_one_array_in_two_places_is_one_tensor_as_on_the_gpu(kernels):
    # a launch copies each distinct host array to one device buffer: B sees A's stores
    k = phobos.compile(str(kernels["both"]))
    x = (np.arange(300) % 50).astype(BF16)
    expected = (x.astype(np.float32) + 1) * 2  # small integers: exact in bf16
    k.interpret(x, x)
    np.testing.assert_array_equal(x.astype(np.float32), expected)


@pytest.mark.parametrize(
    "dtype, got",
    [(np.float32, "f32"), (np.float16, "f16"), (np.int16, "int16"), (ml_dtypes.float8_e4m3fn, "f8e4m3")],
)
def test_other_dtypes_are_refused_naming_the_parameter(kernels, dtype, got):
    k = phobos.compile(str(kernels["scale"]))
    message = rf"scale_bf16: argument X must have bf16 elements \(X: tensor<bf16>\[N\]\), got {got}$"
    with pytest.raises(TypeError, match=message):
        k.interpret(np.zeros(300, dtype), np.zeros(300, BF16))


def test_phobos_run_refuses_a_wrong_dtype_in_one_line(kernels, capsys):
    code = main(["run", str(kernels["scale"]), "--interpret", "--args", "f32[300] bf16[300]"])
    err = capsys.readouterr().err
    assert code == 1 and "argument X must have bf16 elements" in err and "Traceback" not in err
