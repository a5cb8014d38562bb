"""u8 dots (issue 25, item 3): `dot`/`dot_t` of u8 tiles accumulate in i32, their products unsigned.

The IR's i8 is signless, so the front end marks such a tile.dot `tile.unsigned` (the builder's
`dot(..., unsigned=True)` too) and every path reads it: the interpreter (the reference: exact
int64 sums wrapped to i32), mma.sync `.s32.u8.u8.s32`, wgmma `.s32.u8.u8` on sm_90a and the
CUDA-core dot (zero extension). GPU tests: tc_u8_nt in test_tensorcore_8bit_gpu.py, wgmma_u8 in
test_wgmma8_gpu.py.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import phobos

pytest.importorskip("mlir")

ROOT = Path(__file__).resolve().parents[2]
KERNELS = ROOT / "bench" / "kernels"
RNG = np.random.default_rng()

_FMA = """
@launch(128)
kernel u8_fma(A: tensor<u8>[M, K], B: tensor<u8>[K, N], C: tensor<i32>[M, N]) {
  var acc: tile<i32>[32, 32] = 0
  for k in range(0, K, 16) {
    acc += dot(A[ctx.block.x * 32 :+ 32, k :+ 16], B[k :+ 16, ctx.block.y * 32 :+ 32])
  }
  C[ctx.block.x * 32 :+ 32, ctx.block.y * 32 :+ 32] = acc
}
"""


@pytest.mark.parametrize("source", ["tc_u8_nt", "wgmma_u8"])
@pytest.mark.parametrize("shape", [(130, 129, 97), (128, 128, 64)], ids=str)
def test_u8_dot_is_exact_in_the_interpreter(interpret_mode, source, shape):
    m, n, k = shape
    kernel = phobos.compile(KERNELS / f"{source}.ph")
    a = RNG.integers(0, 256, (m, k)).astype(np.uint8)
    b = RNG.integers(0, 256, (n, k)).astype(np.uint8)
    a[0, :4], b[0, :4] = 255, 255  # the high bit set: read as i8 these would be -1
    c = np.full((m, n), -1, np.int32)
    kernel(a, b, c)
    want = a.astype(np.int64) @ b.astype(np.int64).T
    signed = a.view(np.int8).astype(np.int64) @ b.view(np.int8).astype(np.int64).T
    assert (want != signed).all(), "every sum must differ from a signed reading of the bytes"
    np.testing.assert_array_equal(c, want.astype(np.int32))


def test_the_front_end_marks_u8_dots():
    from phobos.compiler import compile_stages

    tile = compile_stages(str(KERNELS / "tc_u8_nt.ph"), until="tile")["tile"]
    assert re.search(r'"tile.dot"\([^)]*\) \{tile.unsigned\}', tile), tile
    tile_i8 = compile_stages(str(KERNELS / "tc_i8_nt.ph"), until="tile")["tile"]
    assert "tile.unsigned}" not in tile_i8


def _ptx(source, chip, args=None):
    from phobos.compiler import compile_stages

    key = None
    if args is not None:
        key = phobos.compile(source).key(*args).to_text()
    return compile_stages(str(source) if isinstance(source, Path) else source, key=key, chip=chip, until="ptx")["ptx"]


@pytest.mark.parametrize("chip", ["sm_80", "sm_90"])
def test_u8_dot_runs_mma_sync_u8(chip):
    ptx = _ptx(KERNELS / "tc_u8_nt.ph", chip)
    assert "mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32" in ptx
    assert ".s8" not in ptx


def test_u8_dot_runs_wgmma_u8_on_sm_90a(monkeypatch, tmp_path):
    from phobos.runtime.aot import like

    monkeypatch.setenv("PHOBOS_CACHE_DIR", str(tmp_path))
    args = (like("u8", (256, 512)), like("u8", (256, 512)), like("i32", (256, 256)))
    ptx = _ptx(KERNELS / "wgmma_u8.ph", "sm_90a", args)
    assert re.search(r"wgmma\.mma_async\.sync\.aligned\.m64n128k32\.s32\.u8\.u8", ptx)
    assert ".s8" not in ptx


def test_u8_dot_on_cuda_cores_zero_extends():
    """The CUDA-core dot widens u8 by zero extension (and.b32 255 / cvt.u32.u8), never sign extension."""
    ptx = _ptx(_FMA, "sm_80")
    assert not re.search(r"cvt\.[su](16|32)\.s8|cvt\.s32\.s8|prmt\.b32[^;]*0x8880", ptx)
    assert re.search(r"and\.b32\s+%r\d+, %r\d+, 255;|cvt\.u32\.u8", ptx)
    assert "mul.lo.s32" in ptx or "mad.lo.s32" in ptx


def test_the_builder_marks_u8_dots():
    from phobos import builder as tb

    def body(A, B, C):
        a, b = tb.load_slice(A, [0, 0], [16, 16]), tb.load_slice(B, [0, 0], [16, 16])
        tb.store_slice(C, [0, 0], tb.dot(a, b, unsigned=True))
        with pytest.raises(TypeError, match="u8"):
            tb.dot(tb.cast(a, tb.f16), tb.cast(b, tb.f16), unsigned=True)

    with tb.context(), tb.Location.unknown():
        module = tb.Module.create()
        with tb.InsertionPoint(module.body):
            params = [(n, tb.Tensor(t, 16, 16)) for n, t in (("A", tb.i8), ("B", tb.i8), ("C", tb.i32))]
            tb.build_kernel("k", params, body, launch=128)
        assert "{tile.unsigned}" in str(module)


def test_tma_takes_u8_tensors():
    """wgmma_u8's operands travel by TMA: a u8 parameter needs a tensor map element type (the H100
    run of f17a1c1 failed every wgmma_u8 launch without it)."""
    from phobos.runtime import tensor_maps

    assert tensor_maps._ELEMENT["u8"] == tensor_maps._ELEMENT["i8"] == ("UINT8", 1)
