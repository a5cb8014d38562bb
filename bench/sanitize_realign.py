"""Launch the realigned 2-D scale (tile-realign-rows) on odd-pitch tensors whose last element ends
their allocation, for compute-sanitizer runs on the device: an access past a tensor's end is an
access past its allocation. Run with the caching allocator off, so each tensor is its own
allocation:

    PYTORCH_NO_CUDA_MEMORY_CACHING=1 compute-sanitizer --tool memcheck python bench/sanitize_realign.py
"""

from __future__ import annotations

import sys

import common  # noqa: F401  (puts python/ on the path)
import torch

import phobos

TILES = [{"TM": 32, "TN": 128}, {"TM": 16, "TN": 256}, {"TM": 8, "TN": 512}]
SHAPES = [(1, 1), (1, 3), (3, 5), (7, 129), (33, 515), (65, 1021)]


def exact(shape, misalign: int) -> torch.Tensor:
    """A contiguous tensor `misalign` elements past its allocation's start, ending with it."""
    m, n = shape
    flat = torch.randn(misalign + m * n, device="cuda")
    return flat[misalign:].view(m, n)


def main():
    names = sys.argv[1:] or ["scale"]
    for name in names:
        for tile in TILES:
            k = phobos.load(common.aot_folder(name, tile))
            for shape in SHAPES:
                for misalign in (0, 1, 3):
                    x, y = exact(shape, misalign), exact(shape, (misalign + 2) % 4)
                    k(x, y, 1.5)
                    torch.cuda.synchronize()
                    assert torch.equal(y, 1.5 * x), (name, tile, shape, misalign)
            print(name, tile, "ok")


if __name__ == "__main__":
    main()
