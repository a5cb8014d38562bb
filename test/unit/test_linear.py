"""The f16 linear layer (bench/kernels/linear_f16.ph, Y = X W^T + b) here, without a GPU: in the
interpreter against float64 on ragged shapes, and the compiler's decisions on sm_90a (wgmma with
the weight K-major as stored, a group kept in flight, the epilogue's f16 store). test_linear_gpu.py
runs it on the device."""

from __future__ import annotations

import json
import subprocess

import numpy as np
import pytest
from test_linear_gpu import linear_inputs

import phobos

pytest.importorskip("mlir")

from test_wgmma8 import KERNELS, PHOBOS  # noqa: E402

KEY = "X=a16.e16x16.s16;Wt=a16.e16x16.s16;Bias=a16.e16.s;Y=a16.e16x16.s16"


@pytest.mark.parametrize("shape", [(70, 136, 100), (3, 8, 520)], ids=str)
def test_linear_in_the_interpreter(interpret_mode, shape):
    m, n, k = shape
    kernel = phobos.compile(KERNELS / "linear_f16.ph").with_defines(TN=128)
    x, w, b, want, size = linear_inputs(m, n, k)
    y = np.full((m, n), np.nan, np.float16)
    kernel(x, w, b, y)
    bound = (k + 8) * 2.0**-24 * size + 2.0**-11 * np.abs(want) + 2.0**-24
    assert np.all(np.abs(y - want) <= bound), np.max(np.abs(y - want) / bound)


def test_linear_runs_wgmma_on_sm_90a_with_a_group_in_flight():
    args = [PHOBOS, "compile", str(KERNELS / "linear_f16.ph"), "--chip", "sm_90a", "--key", KEY]
    contract = subprocess.run([*args, "--emit", "contract"], capture_output=True, text=True, check=False)
    assert contract.returncode == 0, contract.stderr
    used = json.loads(contract.stdout)["shared_memory"]["tensor_cores"]
    assert used["instruction"] == "wgmma"
    assert [m["param"] for m in used["tensor_maps"]] == [0, 0, 1]  # X and the weight by TMA
    ptx = subprocess.run([*args, "--emit", "ptx"], capture_output=True, text=True, check=True).stdout
    assert ptx.count("wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16") == 4  # TK 64: four k16 steps
    assert "wgmma.wait_group.sync.aligned \t1;" in ptx  # the in-flight schedule
    assert ptx.count("st.global.b32") == 64  # Y: 128 x 256 f16 over 256 threads, in pairs
