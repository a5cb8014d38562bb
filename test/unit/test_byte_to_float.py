"""8-bit integers to f32 and f16 through the exponent bits (lowering/byte_to_float.py): every
byte value, signed and unsigned, in the aligned (16-byte vectors) and generic variants, run
through the lowering on the CPU (phobos.lowering.emulate) and compared bit for bit with NumPy's
conversion; ragged extents, poisoned outputs and guard zones. The PTX has no `cvt` from s8/u8."""

from __future__ import annotations

import re

import numpy as np
import pytest

pytest.importorskip("mlir")

from test_gemv8_lowering import Buffer, launch  # noqa: E402

from phobos.compiler import compile_stages  # noqa: E402

RNG = np.random.default_rng()
SOURCE = """
@launch(32)
kernel widen(X: tensor<{src}>[N], Y: tensor<f32>[N], Z: tensor<f16>[N]) {{
  let o = ctx.block.x * 512
  let x = X[o :+ 512]
  Y[o :+ 512] = f32(x)
  Z[o :+ 512] = f16(x)
}}
"""
DTYPES = {"i8": np.int8, "u8": np.uint8}


def _bytes(n: int, dtype) -> np.ndarray:
    """Every byte value at least once (the extremes among them), the rest random, shuffled."""
    info = np.iinfo(dtype)
    every = np.arange(info.min, info.max + 1)
    return RNG.permutation(np.concatenate([every, RNG.integers(info.min, info.max + 1, n - every.size)])).astype(dtype)


@pytest.mark.parametrize("src", ["i8", "u8"])
@pytest.mark.parametrize("aligned, n", [(True, 1024), (True, 1300), (False, 1027)])
def test_every_byte_converts_exactly(src, aligned, n):
    dtype = DTYPES[src]
    x = Buffer((n,), dtype, _bytes(n, dtype), fill=5)
    y = Buffer((n,), np.float32, np.nan, fill=7)
    z = Buffer((n,), np.float16, np.nan, fill=7)
    gpu = launch(SOURCE.format(src=src), (-(-n // 512),), [x, y, z], aligned)
    if aligned and n % 16 == 0:
        assert re.search(r"vector\.load .*: memref<\?xi8>, vector<16xi8>", gpu)
    np.testing.assert_array_equal(y.view.view(np.int32), x.view.astype(np.float32).view(np.int32))
    np.testing.assert_array_equal(z.view.view(np.int16), x.view.astype(np.float16).view(np.int16))
    assert all(b.guards_intact() for b in (x, y, z))


@pytest.mark.parametrize("src", ["i8", "u8"])
def test_no_conversion_instruction_from_bytes(src):
    ptx = compile_stages(SOURCE.format(src=src), until="ptx")["ptx"]
    assert not re.search(r"cvt\.\w+\.f(32|16)\.[su]8", ptx)
    assert re.search(r"add\.rn\.f32", ptx) and re.search(r"add\.rn\.f16x2", ptx)  # the subtraction, f16 in pairs
