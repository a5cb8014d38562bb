"""Where a tuning compares outputs with torch: the torch dtype of each element type's device copy
(u32 as torch.uint32, which torch has from 2.3), and the host comparison where this torch has no
such dtype. Without torch: a stand-in module plays it."""

from __future__ import annotations

import sys
import types

import numpy as np
import pytest

from phobos.runtime import autotune as at
from phobos.runtime.arrays import ITEMSIZE
from phobos.runtime.autotune.device import _DeviceTensor

# The torch dtype a device copy of each element type has (bf16: its int16 bits, read as float32;
# fp8: its codes, which the comparison decodes).
EXPECTED = {
    "f16": "float16",
    "bf16": "float32",
    "f32": "float32",
    "f64": "float64",
    "i1": "bool",
    "i8": "int8",
    "u8": "uint8",
    "i32": "int32",
    "u32": "uint32",
    "i64": "int64",
    "f8e4m3": "uint8",
    "f8e5m2": "uint8",
}
TORCH_2_3 = ("float16", "bfloat16", "float32", "float64", "bool", "int8", "uint8", "int16", "int32", "uint32", "int64")


class _Tensor:
    """What snapshot does with a torch tensor: view its bits as another dtype, widen them."""

    def __init__(self, dtype: str):
        self.dtype = dtype

    def view(self, dtype: str) -> _Tensor:
        return _Tensor(dtype)

    def float(self) -> _Tensor:
        return _Tensor("float32")


def _stand_in(monkeypatch, dtypes=TORCH_2_3):
    """A torch with only `dtypes` (each its own name) and what snapshot calls, in place of torch."""
    fake = types.SimpleNamespace(
        device=lambda kind, ordinal: (kind, ordinal),
        empty=lambda shape, dtype, device: _Tensor(dtype),
        **{name: name for name in dtypes},
    )
    monkeypatch.setitem(sys.modules, "torch", fake)


def _scratch(dtype: str) -> _DeviceTensor:
    """An empty device tensor of `dtype` (nothing to copy: no device needed)."""
    t = object.__new__(_DeviceTensor)
    t.device, t.dtype, t.shape, t.strides = types.SimpleNamespace(ordinal=0), dtype, (0,), (1,)
    t.ptr, t.nbytes = 0, 0
    return t


def test_every_element_type_is_compared_in_its_torch_dtype(monkeypatch):
    _stand_in(monkeypatch)
    assert set(EXPECTED) == set(ITEMSIZE)
    got = {dtype: _scratch(dtype).snapshot("torch").dtype for dtype in EXPECTED}
    assert got == EXPECTED


@pytest.mark.parametrize("dtype", ["u32", "i32"])
def test_a_torch_without_uint32_compares_u32_on_the_host(monkeypatch, dtype):
    _stand_in(monkeypatch, [name for name in TORCH_2_3 if name != "uint32"])  # torch before 2.3
    runner = object.__new__(at.DeviceRunner)  # only what _read uses
    runner.compare_on, runner.compare_fallback = "torch", None
    scratch = _scratch(dtype)
    scratch.download = lambda: np.zeros(0, np.uint32 if dtype == "u32" else np.int32)
    got = runner._read(scratch)
    if dtype == "i32":  # other element types stay on the device
        assert got.dtype == "int32" and runner.compare_on == "torch"
        return
    assert isinstance(got, np.ndarray) and runner.compare_on == "host"
    assert runner.compare_fallback.startswith("torch: AttributeError:")


def test_u32_outputs_compare_by_value_with_a_real_torch():
    """With torch installed (the GPU machine; CI has none): u32 tensors, whose torch dtype has few
    kernels beyond conversion, are compared as int64 values: equal ones agree, a differing one
    is named with its position and values."""
    torch = pytest.importorskip("torch")
    if not hasattr(torch, "uint32"):
        pytest.skip(f"torch {torch.__version__} has no uint32")
    from phobos.runtime.autotune.checking import compare

    want = torch.tensor([1, 2**31, 2**32 - 1], dtype=torch.int64).to(torch.uint32)
    assert compare("Y", "u32", want.clone(), want) is None
    got = want.clone()
    got[2] = 7
    message = compare("Y", "u32", got, want)
    assert message is not None
    assert message.startswith("Y differs from the reference in 1 of 3 elements (first at 2: 7 vs 4.294967e+09")
