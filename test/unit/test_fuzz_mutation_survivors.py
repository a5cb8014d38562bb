"""Tests that kill the survivors of `scripts/mutate.py` on the lowering's plan modules (issue 30):
each names the mutant it kills. Pure Python: no MLIR, no GPU."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from phobos.lowering.exchange_plan import Exchange, exchange
from phobos.lowering.layout import Blocked
from phobos.lowering.linear_layout import LinearLayout


@pytest.mark.parametrize("extent", [0, -4, 3, 12])
def test_an_extent_that_is_no_power_of_two_is_refused(extent):
    # kills linear_layout.py `if x <= 0 or x & (x - 1):` -> `x < 0` (0 would pass as 2**-1)
    with pytest.raises(ValueError, match=f"extent 1 must be a power of two, got {extent}"):
        LinearLayout.build((4, extent), register=[])


def test_free_bits_are_the_bits_with_a_zero_basis():
    # kills linear_layout.py free_bits `if not any(b)` -> `if any(b)`
    layout = LinearLayout.build(
        (4, 8),
        register=[(0, 1), (0, 0), (0, 2)],  # bit 1 repeats the element: a free bit
        lane=[(0, 0), (1, 0), (2, 0), (0, 4), (0, 0)],
    )
    assert layout.free_bits("register") == [1]
    assert layout.free_bits("lane") == [0, 4]
    assert LinearLayout.build((2,), register=[(1,)]).free_bits("register") == []


DOT_IN_A_3D_KERNEL = """\
func.func @k(%A: memref<?x?xf32> {tile.name = "A", tile.dims = ["M", "N"]},
             %V: memref<?x?x?xf32> {tile.name = "V", tile.dims = ["P", "Q", "R"]}) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %a = "tile.load_slice"(%A, %c0, %c0) : (memref<?x?xf32>, index, index) -> tensor<16x16xf32>
  %z = arith.constant dense<0.0> : tensor<16x16xf32>
  %d = "tile.dot"(%a, %a, %z) : (tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  "tile.store_slice"(%d, %A, %c0, %c0) : (tensor<16x16xf32>, memref<?x?xf32>, index, index) -> ()
  %v = "tile.load_slice"(%V, %c0, %c0, %c0) : (memref<?x?x?xf32>, index, index, index) -> tensor<2x4x8xf32>
  "tile.store_slice"(%v, %V, %c0, %c0, %c0) : (tensor<2x4x8xf32>, memref<?x?x?xf32>, index, index, index) -> ()
  return
}
"""


def test_a_dot_in_a_kernel_with_3d_tiles_is_refused_at_the_dot(tmp_path):
    # kills shared_plan.py `if dots and (layout is None or layout.rank != 2):` -> `... and ...`
    path = tmp_path / "dot3.mlir"
    path.write_text(DOT_IN_A_3D_KERNEL)
    tool = Path(sys.executable).parent / "phobos-opt"
    p = subprocess.run(
        [str(tool), str(path), "--pass-pipeline=builtin.module(tile-assign-layout,tile-lower-to-gpu)"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 1
    assert f"{path}:6:8: error: tile-lower-to-gpu lowers 'tile.dot' only in kernels whose tiles are at most 2-D" in (
        p.stderr
    )


def test_an_exchange_crosses_warps_only_where_warps_split_the_extent():
    # kills exchange_plan.py Exchange.crosses_warps `return self.warp_groups > 1` -> `return True`
    layout = Blocked((1, 4), (4, 8), (4, 1), (1, 0))  # 4 warps along rows, none along columns
    assert exchange(layout, 0, 64) == Exchange(0, 8, 4, 4) and exchange(layout, 0, 64).crosses_warps
    assert not exchange(layout, 1, 32).crosses_warps  # one warp spans the row
    assert not exchange(layout, 0, 4).crosses_warps  # 4 rows: replicas in the other warps


def test_exchanges_combine_narrow_numbers_in_32_bits_and_keep_the_rest():
    # kills exchange_plan.py compute_type `isinstance(t, ir.IntegerType) and t.width < 32` -> `or`
    from mlir import ir

    from phobos.lowering.exchange_plan import compute_type

    with ir.Context():
        i32, f32 = ir.IntegerType.get_signless(32), ir.F32Type.get()
        assert compute_type(ir.IntegerType.get_signless(8)) == i32
        assert compute_type(ir.IntegerType.get_signless(16)) == i32
        assert compute_type(ir.F16Type.get()) == f32
        assert compute_type(ir.BF16Type.get()) == f32
        for kept in (i32, ir.IntegerType.get_signless(64), f32, ir.F64Type.get(), ir.IndexType.get()):
            assert compute_type(kept) == kept
        assert compute_type(ir.Float8E4M3FNType.get()) == ir.Float8E4M3FNType.get()
