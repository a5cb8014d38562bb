"""phobos.torch and the unsigned element types u8 and u32: the dtype table, the
schema of u8/u32 scalars, the checks, and a clear error where torch has no
uint32 (added in torch 2.3). All without torch (a stand-in module plays it),
except the fake rule on the meta device, which skips without torch."""

import types

import pytest

import phobos.torch as pt
from phobos.runtime.arrays import ITEMSIZE
from phobos.torch.spec import ArgInfo, SpecError, check_arguments, derive_spec

# The contract of (from phobos.compile, written out so that no MLIR is needed):
#   kernel bytes(X: tensor<u8>[N], Y: tensor<u32>[N], k: u32, b: u8) {
#     let s = ctx.block.x * 128
#     Y[s :+ 128] = u32(X[s :+ 128]) * k + u32(b)
#   }
BYTES = {
    "name": "bytes",
    "params": [
        {
            "access": "read",
            "contiguity": "last",
            "dims": ["N"],
            "dtype": "u8",
            "kind": "tensor",
            "name": "X",
            "rank": 1,
        },
        {
            "access": "write",
            "contiguity": "last",
            "dims": ["N"],
            "dtype": "u32",
            "kind": "tensor",
            "name": "Y",
            "rank": 1,
        },
        {"dtype": "u32", "kind": "scalar", "name": "k"},
        {"dtype": "u8", "kind": "scalar", "name": "b"},
    ],
}


class Compiled:  # what op() reads of a kernel: its contract
    contract = BYTES


def _stand_in(monkeypatch, **dtypes):
    """A torch module with only `dtypes` (and a version), in place of torch for phobos.torch."""
    fake = types.SimpleNamespace(__version__="2.1.0", **dtypes)
    monkeypatch.setattr(pt, "_torch", lambda: fake)
    return fake


def test_every_element_type_of_the_runtime_has_a_torch_dtype():
    assert set(pt._DTYPES) == set(ITEMSIZE)
    assert pt._DTYPES["u8"] == "uint8" and pt._DTYPES["u32"] == "uint32"


def test_u8_and_u32_scalars_are_ints_in_the_schema():
    spec = derive_spec(BYTES)
    assert [p.name for p in spec.inputs] == ["X", "k", "b"] and [o.name for o in spec.outputs] == ["Y"]
    assert spec.schema() == "(Tensor X, int k, int b) -> Tensor"
    assert spec.outputs[0].dtype == "u32" and spec.outputs[0].shape({"X": (300,)}) == (300,)


def test_u8_and_u32_arguments_are_checked_naming_the_parameter():
    spec = derive_spec(BYTES)

    def info(a):
        return a if isinstance(a, ArgInfo) else None

    assert check_arguments(spec, [ArgInfo("u8", "cuda:0", (300,)), 3, 4], info) == "cuda:0"
    with pytest.raises(TypeError, match=r"bytes\(\): parameter 'X' needs u8 elements, got i8"):
        check_arguments(spec, [ArgInfo("i8", "cuda:0", (300,)), 3, 4], info)
    with pytest.raises(TypeError, match=r"parameter 'k' is a u32 scalar, got a tensor"):
        check_arguments(spec, [ArgInfo("u8", "cuda:0", (300,)), ArgInfo("u32", "cuda:0", (1,)), 4], info)


def test_torch_dtype_maps_u8_and_u32(monkeypatch):
    fake = _stand_in(monkeypatch, uint8="torch.uint8", uint32="torch.uint32")
    assert pt.torch_dtype("u8") == fake.uint8 and pt.torch_dtype("u32") == fake.uint32


def test_a_torch_without_uint32_refuses_the_op_naming_the_parameter(monkeypatch):
    _stand_in(monkeypatch, uint8="torch.uint8")  # torch before 2.3
    message = r"bytes\(\): parameter 'Y' has u32 elements, which needs torch.uint32 \(torch 2.3 or newer\); torch 2.1.0"
    with pytest.raises(SpecError, match=message):
        pt.op(Compiled(), "phobos_dtype_test::bytes")
    with pytest.raises(SpecError, match=r"^element type u32, which needs torch.uint32"):
        pt.torch_dtype("u32")


def test_an_element_type_without_a_torch_dtype_is_named(monkeypatch):
    _stand_in(monkeypatch)
    with pytest.raises(SpecError, match=r"^k\(\): parameter 'Z' has i16 elements, which has no torch dtype \(phobos"):
        pt.torch_dtype("i16", "k(): parameter 'Z'")


def test_the_fake_rule_allocates_u32_on_the_meta_device():
    torch = pytest.importorskip("torch")
    if not hasattr(torch, "uint32"):
        with pytest.raises(SpecError, match="parameter 'Y' has u32 elements, which needs torch.uint32"):
            pt.op(Compiled(), "phobos_dtype_test::bytes_meta")
        return
    op = pt.op(Compiled(), "phobos_dtype_test::bytes_meta")
    assert op.spec.schema() == "(Tensor X, int k, int b) -> Tensor"
    y = op(torch.empty(300, device="meta", dtype=torch.uint8), 2**32 - 1, 255)
    assert y.shape == (300,) and y.dtype == torch.uint32 and y.device.type == "meta"
    with pytest.raises(TypeError, match="parameter 'X' needs u8 elements, got i8"):
        op(torch.empty(300, device="meta", dtype=torch.int8), 3, 4)
