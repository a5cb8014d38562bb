"""@persistent without a GPU (issue 23, item 5): the contract says so, the launch grid is the
resident CTA count (runtime/persistent.py, with the device's answers injected), a caller's
grid that cannot be co-resident and a kernel of which no CTA fits are refused naming the
limit, and the interpreter runs the two-phase sum of bench/kernels/persistent_sum.ph."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from phobos.runtime import persistent
from phobos.runtime.binding import Signature

ROOT = Path(__file__).resolve().parents[2]


class _Device:
    name = "Test GPU"
    handle = None


def _resident(per_sm, sms):
    return lambda device, function, threads, shared: (per_sm, sms)


def test_grid_is_the_resident_count(monkeypatch):
    monkeypatch.setattr(persistent, "resident_ctas", _resident(8, 132))
    assert persistent.grid("k", _Device(), None, 256, 0, persistent.RESIDENT) == (1056, 1, 1)
    assert persistent.grid("k", _Device(), None, 256, 0, (1000, 1, 1)) == (1000, 1, 1)
    with pytest.raises(ValueError, match=r"a grid of 1057 CTAs cannot be co-resident on Test GPU \(at most 1056: "):
        persistent.grid("k", _Device(), None, 256, 0, (1057, 1, 1))
    # capped by the kernel's grid rule where it has one (P[ctx.block.x] = ...: a CTA per element of P)
    assert persistent.grid("k", _Device(), None, 256, 0, persistent.RESIDENT, cap=300) == (300, 1, 1)
    assert persistent.grid("k", _Device(), None, 256, 0, persistent.RESIDENT, cap=5000) == (1056, 1, 1)


def test_a_kernel_of_which_no_cta_fits_is_refused(monkeypatch):
    monkeypatch.setattr(persistent, "resident_ctas", _resident(0, 132))
    monkeypatch.setattr(persistent, "_registers", lambda function: 255)
    with pytest.raises(ValueError, match="not one CTA of 1024 threads \\(255 registers per thread, 0 bytes"):
        persistent.grid("k", _Device(), None, 1024, 0, persistent.RESIDENT)


def test_signature_leaves_the_grid_to_the_device():
    sig = Signature(
        {"format": 1, "kernel": "k", "params": [], "abi": [], "grid": [None, 1, 1], "promises": [], "persistent": True}
    )
    assert sig.grid({}) == persistent.RESIDENT
    assert sig.grid({}, (7,)) == (7, 1, 1)
    assert persistent.interpreted(sig.grid({})) == (persistent.INTERPRETED_CTAS, 1, 1)
    assert persistent.interpreted(sig.grid({}), cap=2) == (2, 1, 1)
    ruled = Signature(dict(sig.contract, grid=[{"symbol": "G", "tile": 1}, 1, 1]))
    assert ruled.rule_limit({"G": 3}) == 3 and ruled.rule_limit({}) is None


@pytest.mark.parametrize(
    "n, grid, partials", [(1, None, 16), (50001, None, 16), (70000, (3,), 16), (4096 * 9, (9,), 16), (9000, None, 2)]
)
def test_persistent_sum_in_the_interpreter(n, grid, partials):
    pytest.importorskip("mlir")
    import phobos

    kernel = phobos.compile(str(ROOT / "bench" / "kernels" / "persistent_sum.ph"))
    assert kernel.artifact().contract.get("persistent") is True
    x = np.random.default_rng(n).standard_normal(n).astype(np.float32)
    p, y = np.full(partials, np.nan, np.float32), np.full(1, np.nan, np.float32)
    kernel.interpret(x, p, y, grid=grid)
    ctas = grid[0] if grid else min(persistent.INTERPRETED_CTAS, partials)  # P caps the grid
    assert np.all(np.isnan(p[ctas:]))  # only the grid's CTAs write partial sums
    np.testing.assert_allclose(y[0], x.astype(np.float64).sum(), rtol=0, atol=1e-5 * np.abs(x).sum() + 1e-6)


@pytest.mark.parametrize("g, rounds", [(1, 2), (3, 5)])
def test_persistent_rotate_in_the_interpreter(g, rounds):
    pytest.importorskip("mlir")
    import phobos

    kernel = phobos.compile(str(ROOT / "bench" / "kernels" / "persistent_rotate.ph"))
    block = 1024
    x = np.random.default_rng(g).integers(-1000, 1000, g * block).astype(np.float32)
    a, r = np.zeros_like(x), np.full_like(x, np.nan)
    kernel.interpret(x, a, r, rounds, grid=(g,))
    src = x.reshape(g, block).astype(np.float64)
    np.testing.assert_array_equal(r, np.stack([src[(b + rounds) % g] + rounds for b in range(g)]).reshape(-1))
