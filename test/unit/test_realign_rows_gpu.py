"""GPU tests of realigned rows (pytest -m gpu; skipped without a GPU): the 2-D scale kernel of
bench/kernels/scale.ph on rows of every pitch residue mod 4 and bases at every element
alignment, where tile-realign-rows gives the aligned middle of each row 16-byte accesses
(docs/realigned-rows.md). Kernels come from bench/aot_build.py (`--only scale`); a launch
whose key has no variant of its own runs the folder's generic variant, which realigns too.

Every test poisons the output, surrounds both buffers with guard zones and row padding that
must come back bit-identical, and compares against numpy in float64.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from guarded import RNG, Guarded

import phobos

pytestmark = pytest.mark.gpu

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(os.environ.get("PHOBOS_GPU_ARTIFACTS", ROOT / ".cache" / "gpu"))
TILES = ["scale-TM32-TN128", "scale-TM16-TN256", "scale-TM8-TN512"]


def _kernel(folder_name: str):
    folder = ARTIFACTS / "aot" / folder_name
    if not folder.is_dir():
        pytest.skip(f"no ahead-of-time folder {folder}; run bench/aot_build.py --only scale")
    return phobos.load(folder)


def _scale(k, shape, pads, misaligns, framework="torch"):
    """Runs Y = alpha X on guarded buffers; checks Y, X and every guard zone."""
    if framework != "numpy":
        pytest.importorskip(framework)
    x = Guarded(framework, shape, pad=pads[0], misalign=misaligns[0])
    y = Guarded(framework, shape, pad=pads[1], misalign=misaligns[1], poison=True)
    alpha = float(RNG.uniform(-2.0, 2.0))
    k(x.view, y.view, alpha, sync=True)
    y.check(alpha * x.values.astype(np.float64))
    x.check(x.values.astype(np.float64), rtol=0)


@pytest.mark.parametrize("tile", TILES)
@pytest.mark.parametrize("pad", range(8))
def test_every_pitch_residue(tile, pad):
    """Pitches N + 0..7 with N = 1021: every residue mod 4, interior and edge tiles."""
    _scale(_kernel(tile), (67, 1021), (pad, pad), (0, 0))


@pytest.mark.parametrize("tile", TILES)
@pytest.mark.parametrize("misaligns", [(1, 1), (2, 2), (3, 3), (0, 1), (3, 2)])
def test_bases_at_every_alignment(tile, misaligns):
    """Bases 0 to 3 elements past a 16-byte boundary, alike and unlike (unlike: the rows of Y
    misaligned differently from X's fall back to elements)."""
    _scale(_kernel(tile), (45, 777), (1, 1), misaligns)


@pytest.mark.parametrize("tile", TILES)
@pytest.mark.parametrize("shape", [(1, 1), (1, 3), (3, 5), (2, 7), (9, 129), (33, 513)])
def test_tiny_and_ragged_shapes(tile, shape):
    _scale(_kernel(tile), shape, (0, 3), (1, 2), framework="numpy")


@pytest.mark.parametrize("tile", TILES)
def test_different_pitches(tile):
    _scale(_kernel(tile), (129, 2049), (2, 5), (0, 0))


@pytest.mark.parametrize("tile", TILES)
def test_odd_pitch_variant_has_16_byte_accesses(tile):
    """The variant a 16381-wide contiguous tensor gets (odd pitch, 16-byte bases) uses 16-byte
    accesses, and computes the right elements."""
    k = _kernel(tile)
    _scale(k, (131, 16381), (0, 0), (0, 0))
    ptx = k.asm["ptx"] if "ptx" in k.asm else ""
    if not ptx:
        pytest.skip("the ahead-of-time folder keeps no stage texts")
    assert "ld.global.nc.v4.b32" in ptx and "st.global.v4.b32" in ptx
