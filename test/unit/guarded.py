"""Device buffers with guard zones for the GPU tests.

A `Guarded` buffer is GUARD random elements, a (possibly padded, strided)
region and GUARD more; `check` compares the region with a float64 reference
and requires every element outside it (guards and row padding) to come back
bit-identical.
"""

from __future__ import annotations

import numpy as np

GUARD = 64  # elements of guard zone before and after each buffer (256 bytes: keeps 16-byte alignment)
RNG = np.random.default_rng()


class Guarded:
    """A flat buffer: GUARD random elements, a (possibly padded, strided) region, GUARD more.

    `view` is the region as the framework's array; `host` the initial contents;
    the region holds `values` (default: standard normal draws)."""

    def __init__(
        self,
        framework: str,
        shape,
        *,
        pad: int = 0,
        misalign: int = 0,
        poison: bool = False,
        dtype=np.float32,
        values: np.ndarray | None = None,
    ):
        self.framework = framework
        self.shape = tuple(shape)
        ld = (self.shape[-1] + pad) if len(self.shape) == 2 else 1
        span = (self.shape[0] - 1) * ld + self.shape[-1] if len(self.shape) == 2 else self.shape[0]
        self.offset = GUARD + misalign
        total = self.offset + max(span, 0) + GUARD
        self.host = RNG.standard_normal(total).astype(dtype)
        self.strides = (ld, 1) if len(self.shape) == 2 else (1,)
        self.region = np.zeros(total, bool)
        idx = self._indices()
        self.region[idx] = True
        self.values = (RNG.standard_normal(self.shape) if values is None else values).astype(dtype)
        self.host[idx] = np.nan if poison else self.values.reshape(-1)
        self.flat = self._upload(self.host.copy())
        self.view = self._view(self.flat)

    def _indices(self):
        if len(self.shape) == 1:
            return self.offset + np.arange(self.shape[0])
        r, c = np.meshgrid(np.arange(self.shape[0]), np.arange(self.shape[1]), indexing="ij")
        return (self.offset + r * self.strides[0] + c).reshape(-1)

    def _upload(self, host):
        if self.framework == "numpy":
            return host
        if self.framework == "torch":
            import torch

            return torch.from_numpy(host).cuda()
        import cupy

        return cupy.asarray(host)

    def _view(self, flat):
        if self.framework == "numpy":
            item = flat.itemsize
            return np.lib.stride_tricks.as_strided(
                flat[self.offset :], self.shape, tuple(s * item for s in self.strides)
            )
        if self.framework == "torch":
            import torch

            return torch.as_strided(flat, self.shape, self.strides, self.offset)
        import cupy

        item = flat.itemsize
        return cupy.lib.stride_tricks.as_strided(flat[self.offset :], self.shape, tuple(s * item for s in self.strides))

    def download(self) -> np.ndarray:
        if self.framework == "numpy":
            return self.flat.copy()
        if self.framework == "torch":
            import torch

            torch.cuda.synchronize()
            return self.flat.cpu().numpy()
        import cupy

        cupy.cuda.Device().synchronize()
        return cupy.asnumpy(self.flat)

    def check(self, expected: np.ndarray, *, rtol: float = 1e-6, size=None):
        """The region holds `expected` (float64 reference) within `rtol` of the terms' size
        (default |expected|), and every other element is untouched."""
        now = self.download()
        outside = ~self.region
        assert np.array_equal(now[outside].view(np.uint8), self.host[outside].view(np.uint8)), (
            "a kernel wrote outside its output (guard zone or row padding changed)"
        )
        got = now[self._indices()].reshape(self.shape).astype(np.float64)
        assert not np.isnan(got).any(), "some output elements were never written (poison left)"
        err = np.abs(got - expected)
        size = np.abs(expected) if size is None else size
        assert (err <= rtol * size).all(), f"max error {err.max()} (relative {np.max(err / (size + 1e-300))})"

    def unchanged(self):
        now = self.download()
        assert np.array_equal(now.view(np.uint8), self.host.view(np.uint8)), "a buffer changed"
