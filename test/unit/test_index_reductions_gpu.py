"""GPU test of cumsum along both axes and of the index reductions (pytest -m gpu; skipped
without a GPU).

bench/kernels/index_reductions.ph (built ahead of time by bench/aot_build.py for each
layout of VARIANTS) writes, for one [BR, BC] tile per CTA, cumsum down the rows (axis 0,
the default) and along them, argmax along the rows, rowargmin and the argmax of the
whole tile. Fresh random data with ties and NaNs, ragged shapes, poisoned outputs in
guard zones; references from numpy (float64 sums; argmax/argmin: the lowest index of
the extreme value, a NaN winning).
"""

from __future__ import annotations

import numpy as np
import pytest
from aot_folders import aot
from guarded import RNG, Guarded

pytestmark = pytest.mark.gpu

EPS = 2.0**-24
POISON = -77
# (BR, BC, W): a layout per way the tile moves (in a thread, a warp, across warps, replicas).
VARIANTS = [(32, 64, 128), (8, 128, 32), (64, 32, 256), (8, 32, 256)]


def _int_out(framework: str, shape) -> Guarded:
    return Guarded(framework, shape, dtype=np.int32, values=np.full(shape, POISON))


def _check_ints(out: Guarded, expected: np.ndarray, what: str) -> None:
    now = out.download()
    outside = ~out.region
    assert np.array_equal(now[outside], out.host[outside]), f"{what}: a write outside the output"
    got = now[out._indices()].reshape(out.shape)
    assert np.array_equal(got, expected), f"{what}: {int((got != expected).sum())} wrong, e.g. at " + str(
        np.argwhere(got != expected)[0]
    )


@pytest.mark.parametrize("br,bc,w", VARIANTS)
@pytest.mark.parametrize("ties", [False, True])
def test_index_reductions(br, bc, w, ties):
    check_index_reductions(aot("index_reductions", {"BR": br, "BC": bc, "W": w}), br, bc, ties, "torch")


def check_index_reductions(kernel, br: int, bc: int, ties: bool, framework: str) -> None:
    """index_reductions.ph's outputs against numpy (also run by the interpreter test)."""
    m, n = br * 3 - 1, bc - 3
    g = -(-m // br)
    values = RNG.integers(-3, 4, (m, n)).astype(np.float32) if ties else RNG.standard_normal((m, n))
    values = values.astype(np.float32)
    if ties:
        values[1, 2] = values[br + 1, 0] = np.nan  # a NaN wins argmax and argmin, as in numpy
    x = Guarded(framework, (m, n), values=values)
    c0, c1 = Guarded(framework, (m, n), poison=True), Guarded(framework, (m, n), poison=True)
    am, ra, t = _int_out(framework, (m,)), _int_out(framework, (m, 1)), _int_out(framework, (g,))
    kernel(x.view, c0.view, c1.view, am.view, ra.view, t.view, grid=(g,))
    tiles = np.zeros((g * br, bc), np.float32)  # the tiles as the CTAs see them (zeros outside X)
    tiles[:m, :n] = values
    t64 = tiles.astype(np.float64).reshape(g, br, bc)
    if not ties:
        c0.check(
            np.cumsum(t64, axis=1).reshape(g * br, bc)[:m, :n],
            rtol=(br + 4) * EPS,
            size=np.cumsum(np.abs(t64), axis=1).reshape(g * br, bc)[:m, :n],
        )
        c1.check(
            np.cumsum(t64, axis=2).reshape(g * br, bc)[:m, :n],
            rtol=(bc + 4) * EPS,
            size=np.cumsum(np.abs(t64), axis=2).reshape(g * br, bc)[:m, :n],
        )
    with np.errstate(invalid="ignore"):
        _check_ints(am, np.argmax(tiles, axis=1)[:m], "argmax(x, 1)")
        _check_ints(ra, np.argmin(tiles, axis=1)[:m, None], "rowargmin(x)")
        _check_ints(t, np.argmax(tiles.reshape(g, -1), axis=1), "argmax(x)")
    x.unchanged()
