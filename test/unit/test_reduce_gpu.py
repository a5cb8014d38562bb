"""GPU tests of reductions, scans, transposes and layout conversions (pytest -m gpu; skipped without a GPU).

bench/kernels/reduce2d.ph moves one [BR, BC] tile per CTA between threads
every way the lowering knows (row and column sums, row maxima broadcast back,
running sums, the transpose, the scalar total); its @autotune space, built
ahead of time by bench/aot_build.py, spans layouts that reduce inside a
thread, inside a warp, across warps and over replicas. Fresh random data,
ragged shapes, poisoned outputs with guard zones, numpy float64 references.
bench/kernels/convert2d.ph uses 1-D tiles in two placements of its layout
(tile.convert_layout through shared memory), f32 and bool.
"""

from __future__ import annotations

import numpy as np
import pytest
from aot_folders import aot
from guarded import Guarded

pytestmark = pytest.mark.gpu

EPS = 2.0**-24

# (BR, BC, W): the layouts the tests cover (bench/aot_build.py builds the same list).
REDUCE2D = [
    (8, 128, 128),
    (1, 32, 256),
    (1, 512, 128),
    (32, 32, 32),
    (32, 512, 256),
    (8, 32, 32),
    (1, 128, 32),
    (32, 128, 256),
]


# (B, W): the layout-conversion kernel's variants: replicas (B = 16 on 256 threads), one warp per
# row of lanes, tiles wider than the CTA.
CONVERT2D = [(32, 128), (16, 256), (64, 32), (128, 256), (32, 32)]


def _within(got, ref, size, rtol):
    err = np.abs(got - ref)
    assert (err <= rtol * size + 1e-30).all(), f"max error {err.max()} (allowed {rtol} x size)"


@pytest.mark.parametrize("br,bc,w", REDUCE2D)
def test_reduce2d(br, bc, w):
    kernel = aot("reduce2d", {"BR": br, "BC": bc, "W": w})
    for m, n in ((br * 3 - 1 if br > 1 else 5, bc - 3 if bc > 4 else bc), (br * 2, bc)):
        g = -(-m // br)
        x = Guarded("torch", (m, n))
        outs = {
            "RS": Guarded("torch", (m,), poison=True),
            "RX": Guarded("torch", (m, 1), poison=True),
            "CS": Guarded("torch", (g, n), poison=True),
            "D": Guarded("torch", (m, n), poison=True),
            "P": Guarded("torch", (m, n), poison=True),
            "T": Guarded("torch", (n, m), poison=True),
            "TOT": Guarded("torch", (g,), poison=True),
        }
        kernel(x.view, *(o.view for o in outs.values()), grid=(g,))
        xv = x.values.astype(np.float64)
        # the tile as the CTA sees it: rows past M and columns past N read as zero
        tiles = np.zeros((g * br, bc))
        tiles[:m, :n] = xv
        rowmax = tiles.max(axis=1)[:m]
        outs["RS"].check(xv.sum(axis=1), rtol=(n + 4) * EPS, size=np.abs(xv).sum(axis=1))
        outs["RX"].check(rowmax[:, None], rtol=0)
        cs = tiles.reshape(g, br, bc).sum(axis=1)[:, :n]
        outs["CS"].check(cs, rtol=(br + 4) * EPS, size=np.abs(tiles).reshape(g, br, bc).sum(axis=1)[:, :n])
        outs["D"].check(xv - rowmax[:, None], rtol=EPS, size=np.abs(xv) + np.abs(rowmax[:, None]))
        outs["P"].check(np.cumsum(xv, axis=1), rtol=(n + 4) * EPS, size=np.cumsum(np.abs(xv), axis=1))
        outs["T"].check(xv.T, rtol=0)
        tot = tiles.reshape(g, -1).sum(axis=1)
        outs["TOT"].check(tot, rtol=(br * bc + 8) * EPS, size=np.abs(tiles).reshape(g, -1).sum(axis=1))
        x.check(xv, rtol=0)


def minmax_reference(xv: np.ndarray, br: int, bc: int) -> dict:
    """minmax2d's outputs for X = xv (float64), one [br, bc] tile per CTA."""
    m, n = xv.shape
    g = -(-m // br)
    hi = np.full((g * br, bc), -np.inf)
    lo = np.full((g * br, bc), np.inf)
    hi[:m, :n] = xv
    lo[:m, :n] = xv
    return {
        "RN": xv.min(axis=1)[:, None],
        "CX": hi.reshape(g, br, bc).max(axis=1)[:, :n],
        "CN": lo.reshape(g, br, bc).min(axis=1)[:, :n],
        "TX": hi.reshape(g, -1).max(axis=1),
        "TN": lo.reshape(g, -1).min(axis=1),
    }


@pytest.mark.parametrize("br,bc,w", REDUCE2D)
def test_minmax2d(br, bc, w):
    """max, min and rowmin on the same layouts; the tile's elements past X are
    the fill values (-inf for the maxima, inf for the minima), so they never win."""
    kernel = aot("minmax2d", {"BR": br, "BC": bc, "W": w})
    for m, n in ((br * 3 - 1 if br > 1 else 5, bc - 3 if bc > 4 else bc), (br * 2, bc)):
        g = -(-m // br)
        x = Guarded("torch", (m, n))
        outs = {
            "RN": Guarded("torch", (m, 1), poison=True),
            "CX": Guarded("torch", (g, n), poison=True),
            "CN": Guarded("torch", (g, n), poison=True),
            "TX": Guarded("torch", (g,), poison=True),
            "TN": Guarded("torch", (g,), poison=True),
        }
        kernel(x.view, *(o.view for o in outs.values()), grid=(g,))
        xv = x.values.astype(np.float64)
        for name, ref in minmax_reference(xv, br, bc).items():
            outs[name].check(ref, rtol=0)
        x.check(xv, rtol=0)


@pytest.mark.parametrize("b,w", CONVERT2D)
def test_convert2d(b, w):
    """A column of the tile used as a row, row sums stored as a row, the column's signs
    as a row of a `where`: each a tile.convert_layout. Exact but for the sums' order."""
    check_convert2d(aot("convert2d", {"B": b, "W": w}), b, "torch")


def check_convert2d(kernel, b: int, framework: str) -> None:
    """convert2d.ph's outputs on a ragged and a whole shape (also run by the interpreter test)."""
    for m, n in ((b * 3 - 1, b - 3), (b * 2, b)):
        g = -(-m // b)
        x = Guarded(framework, (m, n))
        outs = {
            "A": Guarded(framework, (m, n), poison=True),
            "S": Guarded(framework, (g, n), poison=True),
            "P": Guarded(framework, (m, n), poison=True),
        }
        kernel(x.view, *(o.view for o in outs.values()), grid=(g,))
        xv = x.values.astype(np.float64)
        tiles = np.zeros((g * b, b))  # what the CTAs read: zero past the tensor
        tiles[:m, :n] = xv
        t = tiles.reshape(g, b, b)
        col = t[:, :, 0]  # each CTA's column 0, used as a row
        a = (t + col[:, None, :]).reshape(g * b, b)[:m, :n]
        p = np.where(col[:, None, :] > 0, t, -t).reshape(g * b, b)[:m, :n]
        outs["A"].check(a, rtol=2**-24, size=np.abs(xv) + np.abs(a))
        outs["P"].check(p, rtol=0)
        outs["S"].check(t.sum(axis=2)[:, :n], rtol=(b + 4) * 2**-24, size=np.abs(t).sum(axis=2)[:, :n])
        x.check(xv, rtol=0)
