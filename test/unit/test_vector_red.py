"""The scatter-adds of the vector-reduction GPU test (vector_red_cases.py) in the interpreter, at
smaller sizes and in the GPU test's guard-zoned buffers (pitched update rows, a misaligned table):
what the kernels compute, whatever width their reds get on the device."""

import os

import numpy as np
import pytest

pytest.importorskip("mlir")

import vector_red_cases as S  # noqa: E402
from guarded import Guarded  # noqa: E402
from test_interpreter import ROOT, program  # noqa: E402

from phobos.interpreter import run_program  # noqa: E402

RNG = np.random.default_rng(9123)
SMALL = {  # (m, d, r, pad, misalign), as the GPU cases but small
    "f32": [(45, 260, 9, 0, 0), (37, 516, 3, 4, 0), (29, 262, 7, 3, 1)],
    "f16": [(45, 528, 9, 0, 0), (33, 516, 5, 8, 0), (29, 518, 7, 0, 1)],
}


@pytest.mark.parametrize("dtype,shape", [(t, s) for t, shapes in SMALL.items() for s in shapes])
def test_scatter_add_rows_in_the_interpreter(dtype, shape):
    m, d, r, pad, misalign = shape
    name, defines = S.KERNELS[dtype][0]
    with open(os.path.join(ROOT, "bench", "kernels", f"{name}.ph"), encoding="utf-8") as f:
        prog = program(f.read(), f"{name}.ph", defines)
    idx, v, y0, want, rtol, size = S.scatter_inputs(RNG, dtype, m, d, r)
    i_buf = Guarded("numpy", idx.shape, dtype=idx.dtype, values=idx)
    v_buf = Guarded("numpy", v.shape, pad=pad, dtype=v.dtype, values=v)
    y_buf = Guarded("numpy", y0.shape, misalign=misalign, dtype=y0.dtype, values=y0)
    run_program(prog, [i_buf.view, v_buf.view, y_buf.view], S.grid(m, d, defines))
    y_buf.check(want, rtol=rtol, size=size)
    i_buf.unchanged()
    v_buf.unchanged()
