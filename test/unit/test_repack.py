"""When the runtime repacks operands for TMA (runtime/repack.py), decided on the CPU.

The GPU tests (test_tensorcore_gpu.py) run the repacked launches; these pin
down the decision: only tensors the kernel only reads, only 2-D f16/bf16
device arrays whose rows TMA cannot read, and only when the variant for the
repacked layout uses TMA and the one for the arguments as they are does not.
"""

from __future__ import annotations

from types import SimpleNamespace

from phobos.contract.specialization import SpecKey, tensor_facts
from phobos.runtime.arrays import HOST, ArrayArg
from phobos.runtime.repack import padded_view, plan_repack

TMA = {"shared_memory": {"tensor_cores": {"instruction": "wgmma", "tensor_maps": [{"kind": "tensormap"}]}}}
MMA = {"shared_memory": {"tensor_cores": {"instruction": "mma.sync"}}}


def _view(shape, pitch, dtype="f16", ptr=1 << 20, device=0):
    return ArrayArg(ptr, shape, (pitch, 1), dtype, device, "torch")


def _setup(views, access=("read", "read", "write"), other=TMA):
    names = ["A", "B", "C"][: len(views)]
    sig = SimpleNamespace(
        tensors=list(range(len(views))),
        contract={"params": [{"access": a} for a in access]},
        params=[SimpleNamespace(name=n) for n in names],
    )
    key = SpecKey({n: tensor_facts(v.ptr, v.shape, v.strides) for n, v in zip(names, views)})
    asked = []

    def variant(k, _sig):
        asked.append(k)
        return SimpleNamespace(contract=other)

    kernel = SimpleNamespace(_variant=variant)
    return kernel, sig, SimpleNamespace(key=key), asked


def test_rows_pitched_to_sixteen_elements():
    v = padded_view(_view((4095, 4093), 4093))
    assert v.shape == (4095, 4093) and v.strides == (4096, 1)
    assert padded_view(_view((3, 32), 40)).strides == (32, 1)  # already a multiple: the tightest pitch


def test_read_only_operands_tma_cannot_read_are_repacked():
    views = [_view((4095, 4093), 4093), _view((4093, 4097), 4097), _view((4095, 4097), 4097, "f32")]
    kernel, sig, binding, asked = _setup(views)
    chosen = plan_repack(kernel, sig, binding, SimpleNamespace(contract=MMA), views)
    assert chosen is not None
    _, repack = chosen
    assert repack.names == ["A", "B"]  # C is written: never repacked
    assert repack.params == {0: (4095, 4093 * 2, 4096), 1: (4093, 4097 * 2, 4112)}
    facts = asked[0].params
    assert facts["A"].strides == (16,) and facts["A"].align == 16 and facts["C"] == binding.key.params["C"]


def test_no_repacking_without_a_tma_variant_or_where_tma_already_runs():
    views = [_view((1000, 1001), 1001), _view((1001, 999), 999), _view((1000, 999), 999, "f32")]
    kernel, sig, binding, _ = _setup(views, other=MMA)
    assert plan_repack(kernel, sig, binding, SimpleNamespace(contract=MMA), views) is None
    kernel, sig, binding, asked = _setup(views)
    assert plan_repack(kernel, sig, binding, SimpleNamespace(contract=TMA), views) is None
    assert not asked


def test_pitched_written_host_and_f32_operands_stay_as_they_are():
    pitched = [_view((1000, 1008), 1008), _view((1008, 1024), 1024), _view((1000, 1024), 1024, "f32")]
    kernel, sig, binding, _ = _setup(pitched)
    assert plan_repack(kernel, sig, binding, SimpleNamespace(contract=MMA), pitched) is None
    views = [_view((1000, 1001), 1001, device=HOST), _view((1001, 999), 999, "f32"), _view((9, 9), 9)]
    kernel, sig, binding, _ = _setup(views, access=("read", "read", "readwrite"))
    assert plan_repack(kernel, sig, binding, SimpleNamespace(contract=MMA), views) is None
