"""Blocked layouts, the kernel ABI, targets and grid inference (pure Python, fast)."""

import itertools

import pytest

from phobos.analysis.abi import ScalarParam, TensorParam, abi_entries
from phobos.lowering.layout import Blocked, choose_blocked
from phobos.target import TargetError, check_chip, check_target, check_target_attrs

SHAPES = [(32, 128), (16, 64), (64, 64), (8, 256), (1, 128), (128, 1), (4, 4), (1024,), (16,), (2, 8, 64), (4096,)]


@pytest.mark.parametrize("shape, threads, width", list(itertools.product(SHAPES, (32, 128, 256, 512), (1, 2, 4, 8))))
def test_every_element_is_held_and_owned_once(shape, threads, width):
    """Each thread's registers are coordinates of the tile; together the
    threads hold every element, and the owners (threads whose start is below
    the extent along every replicated dimension, as the store guard checks)
    hold each element exactly once."""
    L = choose_blocked(shape, threads, width)
    assert L.threads == threads
    assert L.size_per_thread[-1] == min(width, shape[-1])
    owned = {}
    held = set()
    for tid in range(threads):
        per_dim = [L.coordinates(d, s, tid) for d, s in enumerate(shape)]
        assert [len(c) for c in per_dim] == L.counts(shape)
        coords = list(itertools.product(*per_dim))
        assert len(coords) == L.registers(shape)
        held.update(coords)
        owner = all(
            L.thread_index(d, tid) * L.size_per_thread[d] < s for d, s in enumerate(shape) if L.replicated(d, s)
        )
        if owner:
            for c in coords:
                assert c not in owned, f"{c} owned by threads {owned[c]} and {tid}"
                owned[c] = tid
    every = set(itertools.product(*(range(s) for s in shape)))
    assert held == every
    assert set(owned) == every


def test_runs_along_the_last_dimension_are_contiguous_registers():
    L = choose_blocked((32, 128), 256, 4)
    assert (L.size_per_thread, L.threads_per_warp, L.warps_per_cta, L.order) == ((1, 4), (1, 32), (8, 1), (1, 0))
    assert L.counts((32, 128)) == [4, 4]
    assert L.offsets(0, 32) == [0, 8, 16, 24] and L.offsets(1, 128) == [0, 1, 2, 3]
    # lane l of warp w holds row w (+8k) and columns 4l..4l+3
    assert L.coordinates(1, 128, 37) == [20, 21, 22, 23] and L.coordinates(0, 32, 37) == [1, 9, 17, 25]


def test_broadcast_map():
    L = choose_blocked((16, 64), 128, 4)
    counts = L.counts((16, 64))
    mapping = L.broadcast_map((16, 1), (16, 64))
    assert len(mapping) == counts[0] * counts[1]
    assert mapping == [k0 for k0 in range(counts[0]) for _ in range(counts[1])]
    assert L.broadcast_map((1, 64), (16, 64)) == [k1 for _ in range(counts[0]) for k1 in range(counts[1])]


def test_layout_text_round_trip_and_checks():
    L = choose_blocked((32, 128), 256, 4)
    assert L.to_text() == "#tile.blocked<array<i64: 1, 4>, array<i64: 1, 32>, array<i64: 8, 1>, array<i64: 1, 0>>"
    assert Blocked.from_text(L.to_text()) == L
    with pytest.raises(ValueError, match="multiply to 32"):
        Blocked.from_text("#tile.blocked<array<i64: 1>, array<i64: 16>, array<i64: 8>, array<i64: 0>>")
    with pytest.raises(ValueError, match="not a permutation"):
        Blocked.from_text("#tile.blocked<array<i64: 1, 1>, array<i64: 1, 32>, array<i64: 8, 1>, array<i64: 1, 1>>")


def test_abi_passes_each_symbol_once_and_leading_strides():
    params = [
        TensorParam("A", "f32", ["M", "K"], [None, None]),
        TensorParam("B", "f32", ["K", "N"], [None, 64]),
        ScalarParam("alpha", "f32"),
        TensorParam("C", "f16", ["M", "N"], [None, None]),
    ]
    assert abi_entries(params) == [
        {"kind": "ptr", "param": 0},
        {"kind": "extent", "param": 0, "axis": 0},
        {"kind": "extent", "param": 0, "axis": 1},
        {"kind": "stride", "param": 0, "axis": 0},
        {"kind": "ptr", "param": 1},
        {"kind": "stride", "param": 1, "axis": 0},  # N is static (64) in B
        {"kind": "scalar", "param": 2},
        {"kind": "ptr", "param": 3},
        {"kind": "stride", "param": 3, "axis": 0},
    ]


def test_targets():
    assert check_target("sm_90") == "+ptx80"
    assert check_target("sm_70") == "+ptx80"
    assert check_target("sm_70", "+ptx60") == "+ptx60"
    assert check_target("sm_120") == "+ptx87"
    for chip in ("sm_50", "sm_65", "compute_90", "sm90", ""):
        with pytest.raises(TargetError):
            check_chip(chip)
    with pytest.raises(TargetError, match="too old for sm_90"):
        check_target("sm_90", "+ptx78")
    check_target_attrs('[#nvvm.target<chip = "sm_90", features = "+ptx80">]')
    with pytest.raises(TargetError, match="has no features"):
        check_target_attrs('[#nvvm.target<chip = "sm_90">]')
    with pytest.raises(TargetError, match="sm_70 or newer"):
        check_target_attrs("[#nvvm.target]")
