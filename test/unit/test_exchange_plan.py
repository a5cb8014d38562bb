"""The cross-thread plan of reductions and scans (lowering/exchange_plan.py), simulated.

For random tiles and layouts (replicas included), every thread's registers
are filled from the layout's coordinates, then the steps the lowering emits
are replayed with NumPy: the in-thread combine, the butterfly over the lanes
`exchange()` names, the one-writer-per-warp exchange through shared memory,
and (for scans) the Hillis-Steele lanes, the warps' prefix and the carries
between the layout's wraps. Every thread must end with numpy's answer for
every element it holds: no element counted twice, none missed.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from phobos.lowering.exchange_plan import exchange
from phobos.lowering.layout import WARP_SIZE, Blocked, choose_blocked


def _layouts():
    pow2 = st.sampled_from([1, 2, 4, 8, 16, 32, 64, 128])
    return st.tuples(pow2, pow2, st.sampled_from([32, 64, 128, 256, 512]), st.sampled_from([1, 2, 4]))


def _thread_parts(L: Blocked, d: int, tid: int):
    lanes, warps = L.inner_strides(d)
    lane, warp = tid % WARP_SIZE, tid // WARP_SIZE
    return (lane // lanes) % L.threads_per_warp[d], (warp // warps) % L.warps_per_cta[d]


def _held(L: Blocked, shape, tid):
    """{register index tuple: tile coordinates} of one thread."""
    coords = [L.coordinates(d, shape[d], tid) for d in range(2)]
    return {(i, j): (coords[0][i], coords[1][j]) for i, j in itertools.product(*(range(len(c)) for c in coords))}


def _owner(L: Blocked, shape, d: int, tid: int) -> bool:
    """The writer guard along the other dimension (the lowering's _others_owner)."""
    o = 1 - d
    if not L.replicated(o, shape[o]):
        return True
    return L.thread_index(o, tid) * L.size_per_thread[o] < shape[o]


@settings(max_examples=150, deadline=None)
@given(_layouts(), st.integers(0, 1), st.integers(0, 2**31))
def test_row_and_column_sums_match_numpy(params, d, seed):
    rows, cols, threads, width = params
    shape = (rows, cols)
    L = choose_blocked(shape, threads, width)
    x = exchange(L, d, shape[d])
    tile = np.random.default_rng(seed).integers(-50, 50, shape).astype(np.int64)  # exact sums
    expected = tile.sum(axis=d)
    held = [_held(L, shape, t) for t in range(threads)]
    # 1. in the thread: per output position (the coordinate along the other dim)
    partial = []
    for t in range(threads):
        sums = {}
        for (i, j), (r, c) in held[t].items():
            pos = c if d == 0 else r
            key = j if d == 0 else i
            sums.setdefault(key, [pos, 0])[1] += tile[r, c]
        partial.append(sums)
    # 2. the butterfly over the lane bits of d
    for j in range(int(np.log2(x.lane_groups))):
        offset = x.inner_lanes << j
        partial = [
            {
                k: [p, v + partial[(t // WARP_SIZE) * WARP_SIZE + ((t % WARP_SIZE) ^ offset)][k][1]]
                for k, (p, v) in s.items()
            }
            for t, s in enumerate(partial)
        ]
    # 3. across warps: one writer per (position, warp along d), then every thread adds them up
    if x.crosses_warps:
        scratch = {}
        for t in range(threads):
            lane_d, warp_d = _thread_parts(L, d, t)
            if lane_d == 0 and warp_d < x.warp_groups and _owner(L, shape, d, t):
                for _, (p, v) in partial[t].items():
                    assert (p, warp_d) not in scratch, "two writers for one scratch element"
                    scratch[(p, warp_d)] = v
        partial = [
            {k: [p, sum(scratch[(p, w)] for w in range(x.warp_groups))] for k, (p, _) in s.items()} for s in partial
        ]
    for t in range(threads):
        for _, (p, v) in partial[t].items():
            assert v == expected[p], f"thread {t}, position {p}: {v} != {expected[p]} ({L}, {x})"


@settings(max_examples=100, deadline=None)
@given(_layouts(), st.integers(0, 2**31))
def test_scans_along_rows_match_numpy(params, seed):
    rows, cols, threads, width = params
    shape = (rows, cols)
    d = 1
    L = choose_blocked(shape, threads, width)
    x = exchange(L, d, cols)
    run = L.run(d, cols)
    tile = np.random.default_rng(seed).integers(-50, 50, shape).astype(np.int64)
    expected = np.cumsum(tile, axis=1)
    n_d = L.count(d, cols)
    chunks = n_d // run
    coords = [(L.coordinates(0, rows, t), L.coordinates(1, cols, t)) for t in range(threads)]
    for i in range(len(coords[0][0])):
        carry = [0] * threads
        for c in range(chunks):
            # each thread's run of this chunk, its serial prefix and total
            runs = [[tile[coords[t][0][i], coords[t][1][c * run + k]] for k in range(run)] for t in range(threads)]
            totals = [sum(r) for r in runs]
            lane_pos = [_thread_parts(L, d, t)[0] % x.lane_groups for t in range(threads)]
            inclusive = list(totals)
            for j in range(int(np.log2(x.lane_groups))):
                offset = x.inner_lanes << j
                up = [inclusive[t - offset] if t % WARP_SIZE >= offset else inclusive[t] for t in range(threads)]
                inclusive = [up[t] + inclusive[t] if lane_pos[t] >= (1 << j) else inclusive[t] for t in range(threads)]
            exclusive = [0 if lane_pos[t] == 0 else inclusive[t - x.inner_lanes] for t in range(threads)]
            if x.crosses_warps:
                scratch = {}
                for t in range(threads):
                    lane_d, warp_d = _thread_parts(L, d, t)
                    if lane_d == x.lane_groups - 1 and warp_d < x.warp_groups and _owner(L, shape, d, t):
                        scratch[(coords[t][0][i], warp_d)] = inclusive[t]
                before, total = [], []
                for t in range(threads):
                    warp_pos = _thread_parts(L, d, t)[1] % x.warp_groups
                    row = coords[t][0][i]
                    before.append(sum(scratch[(row, w)] for w in range(warp_pos)))
                    total.append(sum(scratch[(row, w)] for w in range(x.warp_groups)))
                exclusive = [b + e for b, e in zip(before, exclusive)]
            else:
                last = [t + (x.lane_groups - 1 - lane_pos[t]) * x.inner_lanes for t in range(threads)]
                total = [inclusive[s] for s in last]
            for t in range(threads):
                acc = carry[t] + exclusive[t]
                for k in range(run):
                    acc += runs[t][k]
                    r, col = coords[t][0][i], coords[t][1][c * run + k]
                    assert acc == expected[r, col], f"thread {t} ({r}, {col}): {acc} != {expected[r, col]} ({L})"
            carry = [carry[t] + total[t] for t in range(threads)]


def test_conversion_scratch_keeps_elements_but_i1():
    """A layout conversion's buffer holds the tile's own elements; i1 tiles go through bytes."""
    from mlir import ir

    from phobos.dialect import make_context
    from phobos.lowering.exchange_plan import _conversion_scratch

    with make_context(), ir.Location.unknown():
        module = ir.Module.parse(
            """func.func @k(%a: tensor<4x8xi1>, %b: tensor<4x8xi32>, %c: tensor<4x8xf16>) {
  %0 = "tile.convert_layout"(%a) : (tensor<4x8xi1>) -> tensor<4x8xi1>
  %1 = "tile.convert_layout"(%b) : (tensor<4x8xi32>) -> tensor<4x8xi32>
  %2 = "tile.convert_layout"(%c) : (tensor<4x8xf16>) -> tensor<4x8xf16>
  return
}"""
        )
        ops = list(module.body.operations[0].regions[0].blocks[0].operations)[:3]
        elements = [str(_conversion_scratch(op.operation).element) for op in ops]
    assert elements == ["i8", "i32", "f16"]


def test_what_the_exchange_lowering_refuses():
    """check(): a transpose needs a 2-D tile in a 2-D layout, a reduction a non-i1 tile; 1-D
    reductions of floats and integers in a 1-D layout are fine."""
    from mlir import ir

    from phobos.dialect import make_context
    from phobos.lowering.errors import LoweringError
    from phobos.lowering.exchange_plan import check

    with make_context(), ir.Location.unknown():
        module = ir.Module.parse(
            """func.func @k(%v: tensor<256xf32>, %t: tensor<4x8xf32>, %i: tensor<256xi32>, %b: tensor<256xi1>) {
  %0 = "tile.reduce"(%v) {kind = "sum", axis = 0 : i64} : (tensor<256xf32>) -> f32
  %1 = "tile.transpose"(%t) {permutation = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %2 = "tile.reduce"(%i) {kind = "max", axis = 0 : i64} : (tensor<256xi32>) -> i32
  %3 = "tile.reduce"(%b) {kind = "max", axis = 0 : i64} : (tensor<256xi1>) -> i1
  return
}"""
        )
        reduce_op, transpose_op, int_op, bool_op = list(module.body.operations[0].regions[0].blocks[0].operations)[:4]
        check(reduce_op.operation, choose_blocked([256], 128))
        check(int_op.operation, choose_blocked([256], 128))
        with pytest.raises(LoweringError, match="of i1 tiles is not supported"):
            check(bool_op.operation, choose_blocked([256], 128))
        check(transpose_op.operation, choose_blocked([4, 8], 128))
        with pytest.raises(LoweringError, match="only of 2-D tiles in a 2-D kernel layout"):
            check(transpose_op.operation, choose_blocked([256], 128))
