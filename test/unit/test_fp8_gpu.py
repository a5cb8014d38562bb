"""GPU test of fp8 (pytest -m gpu; skipped without a GPU of sm_89 or later, torch's float8 dtypes or
the ahead-of-time folders).

bench/kernels/fp8_encode.ph and fp8_decode.ph, built ahead of time by bench/aot_build.py
(fp8_jobs), launched on torch tensors (float8_e4m3fn, float8_e5m2, f32, f16, bf16). The encoder
gets fresh random f32 values across both formats' ranges and beyond, with the fixed cases of
fp8_cases.SPECIALS (values past the largest finite one, infinities, ties, NaN, subnormals), and
their f16 and bf16 roundings; the decoder gets every code of both formats. Ragged lengths run the
generic variant, n = 4096 the 16-byte aligned one (16 one-byte elements per access). Outputs are
poisoned and surrounded by guard zones that must come back untouched. The codes must equal
phobos.fp8's, the interpreter's conversion (checked against a bit-level reference and ml_dtypes in
test_fp8.py), bit for bit, except that a NaN input may give any NaN code; the decoded values must
be exact, to the sign of zero. The interpreter also runs the loaded kernel on CPU copies and must
agree with the GPU.
"""

from __future__ import annotations

import numpy as np
import pytest
from aot_folders import aot
from fp8_cases import assert_codes, special_f32

from phobos import fp8
from phobos.interpreter.dtypes import round_bf16

pytestmark = pytest.mark.gpu

RNG = np.random.default_rng()
GUARD = 64  # elements each side: every view stays 16-byte aligned (64 bytes of fp8, 256 of f32)
SIZES = [1, 2, 15, 511, 1000, 4097, 4096]  # 4096: the aligned variant (contiguous, extents of 16s)
BITS = {"f32": np.int32, "f16": np.int16, "bf16": np.int16, "f8e4m3": np.uint8, "f8e5m2": np.uint8}
ENCODE = ("f32", "f16", "bf16") + ("f8e4m3", "f8e5m2") * 3  # fp8_encode's parameters
DECODE = ("f8e4m3", "f8e5m2", "f32", "f32", "f16", "bf16", "f8e5m2", "f8e4m3")  # fp8_decode's


def _torch():
    torch = pytest.importorskip("torch")
    if not hasattr(torch, "float8_e4m3fn"):
        pytest.skip(f"torch {torch.__version__} has no float8 dtypes")
    if torch.cuda.get_device_capability() < (8, 9):
        pytest.skip("fp8 conversions need sm_89 or later")
    return torch


def _torch_dtype(torch, dtype: str):
    names = {"f32": "float32", "f16": "float16", "bf16": "bfloat16", "f8e4m3": "float8_e4m3fn"}
    return getattr(torch, names.get(dtype, "float8_e5m2"))


def aligned_examples(like):
    """(source, the argument layout its folder is built for besides the generic variant), for
    bench/aot_build.py's fp8_jobs."""
    return [
        (name, [like(d, (4096,)) for d in params]) for name, params in (("fp8_encode", ENCODE), ("fp8_decode", DECODE))
    ]


class Buffer:
    """A device buffer of `bits` (an integer view of the elements) with GUARD random elements each side."""

    def __init__(self, torch, bits: np.ndarray, dtype: str):
        guards = [RNG.integers(0, 256, GUARD * bits.itemsize, np.uint8).view(bits.dtype) for _ in range(2)]
        self.host = np.concatenate([guards[0], bits, guards[1]])
        self.n = bits.size
        self.flat = torch.from_numpy(self.host.copy()).cuda().view(_torch_dtype(torch, dtype))
        self.view = self.flat[GUARD : GUARD + self.n]
        self.torch, self.int_dtype = torch, {1: torch.uint8, 2: torch.int16, 4: torch.int32}[bits.itemsize]

    def bits(self) -> np.ndarray:
        got = self.flat.view(self.int_dtype).cpu().numpy()
        edges = np.concatenate([got[:GUARD], got[-GUARD:]])
        assert np.array_equal(edges, np.concatenate([self.host[:GUARD], self.host[-GUARD:]])), "guard zone written"
        return got[GUARD:-GUARD]


def _poisoned(torch, n: int, dtype: str) -> Buffer:
    return Buffer(torch, np.full(n, 0x7A, np.uint8).repeat(np.dtype(BITS[dtype]).itemsize).view(BITS[dtype]), dtype)


def _interpreted(torch, kernel, inputs: list[Buffer], dtypes) -> list[np.ndarray]:
    """The kernel's outputs (integer bits) from the interpreter, on CPU copies of the inputs."""
    args = [b.view.cpu() for b in inputs]
    for d in dtypes[len(inputs) :]:  # zeros, made as bytes (torch fills few fp8 tensors itself)
        args.append(
            torch.zeros(inputs[0].n * np.dtype(BITS[d]).itemsize, dtype=torch.uint8).view(_torch_dtype(torch, d))
        )
    kernel.interpret(*args)
    return [
        a.view({1: torch.uint8, 2: torch.int16, 4: torch.int32}[a.element_size()]).numpy() for a in args[len(inputs) :]
    ]


def _same_bits(gpu: np.ndarray, interp: np.ndarray, dtype: str) -> None:
    """Bit for bit, where the value is not NaN (the NaN's payload is the hardware's)."""
    values = {"f32": np.float32, "f16": np.float16}.get(dtype)
    if values is not None:
        nan = np.isnan(gpu.view(values)) & np.isnan(interp.view(values))
    elif dtype == "bf16":  # the high half of an f32
        nan = np.isnan((gpu.astype(np.int32) << 16).view(np.float32))
        nan &= np.isnan((interp.astype(np.int32) << 16).view(np.float32))
    else:
        nan = np.isnan(fp8.decode(gpu, dtype)) & np.isnan(fp8.decode(interp, dtype))
    np.testing.assert_array_equal(gpu[~nan], interp[~nan])


@pytest.mark.parametrize("n", SIZES)
def test_encode(n):
    torch = _torch()
    kernel = aot("fp8_encode")
    x = special_f32(n, RNG)
    with np.errstate(over="ignore"):
        h = x.astype(np.float16)  # beyond f16: infinity, which saturates
    g = round_bf16(x)  # bf16 values, as f32
    inputs = [Buffer(torch, x.view(np.int32), "f32"), Buffer(torch, h.view(np.int16), "f16")]
    inputs.append(Buffer(torch, (g.view(np.int32) >> 16).astype(np.int16), "bf16"))
    outs = [_poisoned(torch, n, d) for d in ENCODE[3:]]
    kernel(*(b.view for b in inputs + outs))
    got = [o.bits() for o in outs]
    for codes, source, name in zip(got, (x, x, h, h, g, g), ENCODE[3:]):
        assert_codes(codes, source, name)
    for gpu, interp, name in zip(got, _interpreted(torch, kernel, inputs, ENCODE), ENCODE[3:]):
        _same_bits(gpu, interp, name)


@pytest.mark.parametrize("n", SIZES)
def test_decode(n):
    torch = _torch()
    kernel = aot("fp8_decode")
    a = np.resize(RNG.permutation(256).astype(np.uint8), n)  # every code of each format
    b = np.resize(RNG.permutation(256).astype(np.uint8), n)
    inputs = [Buffer(torch, a, "f8e4m3"), Buffer(torch, b, "f8e5m2")]
    outs = [_poisoned(torch, n, d) for d in DECODE[2:]]
    kernel(*(buf.view for buf in inputs + outs))
    af, bf, ah, bg, ab, ba = (o.bits() for o in outs)
    va, vb = fp8.decode(a, "f8e4m3"), fp8.decode(b, "f8e5m2")
    _same_bits(af, va.view(np.int32), "f32")
    _same_bits(bf, vb.view(np.int32), "f32")
    _same_bits(ah, va.astype(np.float16).view(np.int16), "f16")
    _same_bits(bg, (vb.view(np.int32) >> 16).astype(np.int16), "bf16")  # every e5m2 value is a bf16 one
    assert_codes(ab, va, "f8e5m2")
    assert_codes(ba, vb, "f8e4m3")
    for gpu, interp, name in zip((af, bf, ah, bg, ab, ba), _interpreted(torch, kernel, inputs, DECODE), DECODE[2:]):
        _same_bits(gpu, interp, name)
