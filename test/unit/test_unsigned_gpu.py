"""GPU test of u8 and u32 (pytest -m gpu; skipped without a GPU).

bench/kernels/unsigned_ops.ph and unsigned_reductions.ph (the kernels of
test/Frontend/Inputs/unsigned-*.ph), built ahead of time by bench/aot_build.py
(unsigned_jobs), launched on torch.uint8 / torch.uint32 tensors: fresh random
values over the whole range (0, 255, 2^31, 2^32 - 1 included), ragged lengths,
outputs poisoned and surrounded by guard zones, compared exactly with NumPy's
unsigned arithmetic (the same references as test_unsigned.py's interpreter
tests).
"""

from __future__ import annotations

import numpy as np
import pytest
from aot_folders import aot

pytestmark = pytest.mark.gpu

RNG = np.random.default_rng()
GUARD = 64


def _device(values: np.ndarray):
    """(flat device buffer with GUARD poison elements each side, the view of `values` in it, the host copy)."""
    import torch

    host = np.concatenate([RNG.integers(0, 200, GUARD).astype(values.dtype), values.reshape(-1)])
    host = np.concatenate([host, RNG.integers(0, 200, GUARD).astype(values.dtype)])
    flat = torch.from_numpy(host.copy()).cuda()
    return flat, flat[GUARD : GUARD + values.size].view(values.shape), host


def _result(flat, host, shape):
    got = flat.cpu().numpy()
    assert np.array_equal(got[:GUARD], host[:GUARD]) and np.array_equal(got[-GUARD:], host[-GUARD:]), (
        "guard zone written"
    )
    return got[GUARD:-GUARD].reshape(shape)


def _u32(*shape):
    return RNG.integers(0, 2**32, shape, dtype=np.uint64).astype(np.uint32)


@pytest.mark.parametrize("n", [1, 63, 64, 1000, 4097])
@pytest.mark.parametrize("s", [3, 3_000_000_000])
def test_unsigned_ops(n, s):
    x = RNG.integers(0, 256, n, dtype=np.uint8)
    y = _u32(n)
    x[: min(n, 4)], y[: min(n, 4)] = [0, 255, 128, 127][: min(n, 4)], [0, 2**32 - 1, 2**31, 2**31 - 1][: min(n, 4)]
    f = RNG.uniform(-10, 5e9, n).astype(np.float32)
    bufs = [_device(a) for a in (x, y, f)]
    outs = [_device(np.full(n, 0xAB, dt)) for dt in (np.uint8, np.uint32, np.float32, np.int32)]
    aot("unsigned_ops")(*(b[1] for b in bufs), *(o[1] for o in outs), s)
    q, r, g, b = (_result(o[0], o[2], (n,)) for o in outs)
    np.testing.assert_array_equal(q, (x // 3 + (x >> 1) % 7).astype(np.uint8))
    fu = np.clip(np.trunc(f.astype(np.float64)), 0, 2**32 - 1).astype(np.uint64)
    want = (np.maximum(y // s, x.astype(np.uint32)).astype(np.uint64) + (y >> 3) + fu) % 2**32
    np.testing.assert_array_equal(r, want.astype(np.uint32))
    np.testing.assert_array_equal(g, y.astype(np.float32) + x.astype(np.float32))
    np.testing.assert_array_equal(b, np.where(y > 2**31, 1, 0) + np.where(x >= 200, 10, 0))


@pytest.mark.parametrize("m", [4, 9, 64])
def test_unsigned_reductions(m):
    x = RNG.integers(0, 256, (m, 32), dtype=np.uint8)
    y = _u32(m, 32)
    x[0, :], x[0, 5] = 1, 200
    y[1, :], y[1, 9] = 2**31 + 5, 3
    bufs = [_device(a) for a in (x, y)]
    outs = [
        _device(np.full(shape, 0xAB, dt))
        for shape, dt in (((m, 1), np.uint8), ((m, 1), np.uint32), ((m, 1), np.int32), ((m, 32), np.uint8))
    ]
    aot("unsigned_reductions")(*(b[1] for b in bufs), *(o[1] for o in outs))
    a, b, c, d = (_result(o[0], o[2], sh) for o, sh in zip(outs, ((m, 1), (m, 1), (m, 1), (m, 32))))
    np.testing.assert_array_equal(a[:, 0], x.max(axis=1))
    np.testing.assert_array_equal(b[:, 0], y.min(axis=1))
    np.testing.assert_array_equal(c[:, 0], y.argmax(axis=1))
    np.testing.assert_array_equal(d, ((np.clip(x, 10, 200).astype(np.int64) + 100) % 256).astype(np.uint8))
