"""GPU tests of issue 23's control flow (items 1, 2, 5, 7; pytest -m gpu; skipped without a GPU).

Kernels from bench/kernels/, built ahead of time by bench/aot_build.py (persistent_jobs):

- topk_rows.ph: a row top-k with `while` and `break` and single-element stores, on ragged
  rows (fewer elements than k: the loop breaks and the rest of the row stays poisoned);
- persistent_sum.ph: a two-phase sum with `grid_barrier()` on the resident grid (the count
  of partial sums written is the resident CTA count, a multiple of the multiprocessors),
  launched many times in a row (the barrier's counters survive launches), on a smaller
  grid given at the launch, and refused before launch on a grid that cannot be co-resident;
- persistent_rotate.ph: 2 barriers per round over many rounds, each round reading the
  neighbour CTA's block written before the barrier.

Fresh random data, guard zones and poisoned outputs; references in float64 NumPy.
"""

from __future__ import annotations

import numpy as np
import pytest
from aot_folders import aot
from guarded import RNG, Guarded

pytestmark = pytest.mark.gpu

POISON = -77


def _download_region(g: Guarded) -> np.ndarray:
    now = g.download()
    outside = ~g.region
    assert np.array_equal(now[outside].view(np.uint8), g.host[outside].view(np.uint8)), "a write outside the output"
    return now[g._indices()].reshape(g.shape)


@pytest.mark.parametrize("m,n,k", [(1, 1, 3), (37, 1000, 16), (129, 5, 8), (64, 1024, 64), (5, 300, 1)])
def test_topk_rows(m, n, k):
    kernel = aot("topk_rows")
    x = Guarded("torch", (m, n), pad=3)
    v = Guarded("torch", (m, k), poison=True)
    i = Guarded("torch", (m, k), dtype=np.int32, values=np.full((m, k), POISON))
    kernel(x.view, v.view, i.view)
    got = min(n, k)
    order = np.argsort(-x.values.astype(np.float64), axis=1, kind="stable")[:, :got]
    values, indices = _download_region(v), _download_region(i)
    np.testing.assert_array_equal(indices[:, :got], order)
    np.testing.assert_array_equal(values[:, :got], np.take_along_axis(x.values, order, axis=1))
    assert np.all(np.isnan(values[:, got:])) and np.all(indices[:, got:] == POISON), "written past the break"


def _sum_reference(x: np.ndarray) -> tuple[float, float]:
    x64 = x.astype(np.float64)
    return float(x64.sum()), 1e-5 * float(np.abs(x64).sum()) + 1e-30


def _multiprocessors() -> int:
    import torch

    return torch.cuda.get_device_properties(0).multi_processor_count


@pytest.mark.parametrize("n", [1, 1000, 1000003, (1 << 24) + 5])
def test_persistent_sum_on_the_resident_grid(n):
    kernel = aot("persistent_sum")
    x = Guarded("torch", (n,))
    p = Guarded("torch", (1 << 14,), poison=True)
    y = Guarded("torch", (1,), poison=True)
    kernel(x.view, p.view, y.view)
    want, tol = _sum_reference(x.values)
    got = float(_download_region(y)[0])
    assert abs(got - want) <= tol, (got, want)
    written = int((~np.isnan(_download_region(p))).sum())
    assert written > 0 and written % _multiprocessors() == 0, f"{written} CTAs: not the resident count"
    assert np.all(~np.isnan(_download_region(p)[:written])), "the partial sums are not CTAs 0 .. G-1"


def test_persistent_sum_many_launches_in_a_row():
    """100 launches without synchronising: the barrier's counters come back to zero each time."""
    import torch

    kernel = aot("persistent_sum")
    n = 300007
    xs = [Guarded("torch", (n,)) for _ in range(4)]
    p = torch.zeros(1 << 14, device="cuda")
    ys = torch.full((100,), float("nan"), device="cuda")
    for j in range(100):
        kernel(xs[j % 4].view, p, ys[j : j + 1])
    got = ys.cpu().numpy().astype(np.float64)
    for j in range(100):
        want, tol = _sum_reference(xs[j % 4].values)
        assert abs(got[j] - want) <= tol, (j, got[j], want)


@pytest.mark.parametrize("g", [1, 2, 7, 132])
def test_persistent_sum_on_a_given_grid(g):
    kernel = aot("persistent_sum")
    x = Guarded("torch", (777777,))
    p = Guarded("torch", (1 << 14,), poison=True)
    y = Guarded("torch", (1,), poison=True)
    kernel(x.view, p.view, y.view, grid=(g,))
    want, tol = _sum_reference(x.values)
    assert abs(float(_download_region(y)[0]) - want) <= tol
    partial = _download_region(p)
    assert np.all(~np.isnan(partial[:g])) and np.all(np.isnan(partial[g:]))


def test_a_grid_that_cannot_be_co_resident_is_refused():
    import torch

    kernel = aot("persistent_sum")
    x, p, y = (torch.zeros(s, device="cuda") for s in (1000, 1 << 20, 1))
    with pytest.raises(ValueError, match=r"cannot be co-resident .* \(at most \d+: \d+ per multiprocessor x \d+\)"):
        kernel(x, p, y, grid=(1 << 20,))
    torch.cuda.synchronize()  # nothing was launched: no hang


@pytest.mark.parametrize("g,rounds", [(1, 3), (2, 1), (64, 9), (132, 40)])
def test_persistent_rotate_many_barriers(g, rounds):
    import torch

    kernel = aot("persistent_rotate")
    block = 1024
    x = Guarded("torch", (g * block,), values=RNG.integers(-1000, 1000, g * block).astype(np.float32))
    a = torch.zeros(g * block, device="cuda")
    r = Guarded("torch", (g * block,), poison=True)
    kernel(x.view, a, r.view, rounds, grid=(g,))
    src = x.values.reshape(g, block).astype(np.float64)
    want = np.stack([src[(b + rounds) % g] + rounds for b in range(g)]).reshape(-1)
    np.testing.assert_array_equal(_download_region(r), want)
