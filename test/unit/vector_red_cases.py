"""The cases of the vector-reduction tests (issue 23): scatter-adds with duplicate indices
through atomic_add (bench/kernels/scatter_add_rows.ph, f32, and scatter_add_rows_f16.ph), on row
layouts that choose the reduction width on sm_90: rows of a multiple of 16 elements or of 4
(vector reds with a masked tail: D is no multiple of BD), pitched update rows, and the layouts
that keep scalar reds (rows of an odd length, a misaligned table); and a split-K GEMM on aligned
rows, whose atomic_add of the dot's accumulator takes v4 reds too. Shared by
test_vector_red_gpu.py (the H200), test_vector_red.py (the interpreter, smaller) and
bench/aot_build.py (a variant per layout, so that each launch gets the width its key proves).

A scatter case is (m, d, r, pad, misalign): m updates of rows of d elements into a table of r
rows, V's rows `pad` elements longer than d, the table `misalign` elements past a 16-byte boundary.
"""

from __future__ import annotations

import numpy as np
from gather_cases import bad_indices

EPS32 = 2.0**-24
KERNELS = {  # the built variants: the benchmark's f32 candidates, and the f16 kernel
    "f32": [("scatter_add_rows", {"BM": 16, "BD": 256}), ("scatter_add_rows", {"BM": 8, "BD": 512})]
    + [("scatter_add_rows", {"BM": 16, "BD": 512})],
    "f16": [("scatter_add_rows_f16", {"BM": 16, "BD": 512}), ("scatter_add_rows_f16", {"BM": 8, "BD": 1024})],
}
SPLITK = ("splitk_gemm", {"TM": 64, "TN": 64, "TK": 16, "KS": 256})
SPLITK_SHAPES = [(1008, 528, 1000)]  # M, N (multiples of 16: C's rows 16-byte aligned), K (ragged)
GPU_CASES = {
    "f32": {
        "rows of 1028: v4 reds, a tail of 4": (5003, 1028, 129, 0, 0),
        "rows of 4096: v4 reds": (2047, 4096, 1000, 0, 0),
        "V pitched by 4: v4 reds": (4999, 1028, 129, 4, 0),
        "V pitched by 3: scalar reds (V's 4-byte loads set the layout's runs)": (3001, 1028, 77, 3, 0),
        "three hot rows": (5003, 1028, 3, 0, 0),
        "rows of 1030: scalar reds": (3001, 1030, 129, 0, 0),
        "table misaligned: scalar reds": (3001, 1028, 129, 0, 1),
    },
    "f16": {
        "rows of 1040: v4.f16x2 reds": (3001, 1040, 129, 0, 0),
        "rows of 1028: v2.f16x2 reds": (3001, 1028, 129, 0, 0),
        "V pitched by 16: v4.f16x2 reds": (2999, 1040, 300, 16, 0),
        "V pitched by 8: v2.f16x2 reds (V's 8-byte loads set the layout's runs)": (2999, 1040, 300, 8, 0),
        "rows of 1030: f16 reds": (3001, 1030, 129, 0, 0),
        "table misaligned: f16 reds": (3001, 1040, 129, 0, 1),
    },
}


def scatter_inputs(rng, dtype: str, m: int, d: int, r: int):
    """(I, V, Y0, Y, rtol, size): indices with duplicates and some out of range, the updates, the
    table before, the float64 result of np.add.at and its tolerance. f32: normal values, each add
    rounded once in an order the GPU picks (rtol: the most updates of one element, times 2^-24,
    of the sum of |terms|). f16: multiples of 1/8 below 4 in magnitude, whose sums stay exact in
    f16 in any order (|sum| < 256 = 2^11 / 8), so the result must be exact (rtol 0)."""
    idx = bad_indices(rng, rng.integers(0, r, m), r).astype(np.int32)
    if dtype == "f32":
        v = rng.standard_normal((m, d)).astype(np.float32)
        y0 = rng.standard_normal((r, d)).astype(np.float32)
    else:
        v = (rng.integers(-31, 32, (m, d)) / 8).astype(np.float16)
        y0 = (rng.integers(-31, 32, (r, d)) / 8).astype(np.float16)
    ok = (idx >= 0) & (idx < r)
    want, size = y0.astype(np.float64), np.abs(y0).astype(np.float64)
    np.add.at(want, idx[ok], v[ok].astype(np.float64))
    np.add.at(size, idx[ok], np.abs(v[ok]).astype(np.float64))
    if dtype == "f16":
        assert np.abs(size).max() < 256, "f16 sums would round: fewer duplicates"
        return idx, v, y0, want, 0.0, size
    return idx, v, y0, want, (np.bincount(idx[ok], minlength=r).max() + 2) * EPS32, size


def aot_jobs(like) -> list[tuple]:
    """(source, defines, example argument lists, check) for bench/aot_build.py: each kernel variant
    with the layout of every GPU case that a variant of its own serves (a misaligned table and rows
    of an odd length take the generic variant)."""
    jobs = []
    for dtype, kernels in KERNELS.items():
        for name, defines in kernels:
            examples = []
            for m, d, r, pad, misalign in GPU_CASES[dtype].values():
                if misalign == 0 and d % 4 == 0:
                    v = like(dtype, (m, d), strides=(d + pad, 1))
                    examples.append((like("i32", (m,)), v, like(dtype, (r, d))))
            jobs.append((name, dict(defines), examples, True))
    splitk = [(like("f32", (m, k)), like("f32", (k, n)), like("f32", (m, n))) for m, n, k in SPLITK_SHAPES]
    return jobs + [(SPLITK[0], dict(SPLITK[1]), splitk, True)]


def grid(m: int, d: int, defines: dict) -> tuple[int, int, int]:
    return (-(-m // defines["BM"]), -(-d // defines["BD"]), 1)
