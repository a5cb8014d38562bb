"""phobos.torch without a GPU: the op a kernel becomes (inputs, outputs, in-place
arguments, schema) derived from real contracts, the argument checks that run
before a launch, and, where torch is installed, the fake-tensor rule on the
meta device."""

import pytest

from phobos.torch.spec import ArgInfo, SpecError, check_arguments, derive_spec

pytest.importorskip("mlir")

import phobos  # noqa: E402

SCALE = """
@launch(256)
kernel scale(X: tensor<f32>[M, N], Y: tensor<f32>[M, N], alpha: f32) {
  let pm = ctx.block.x
  let pn = ctx.block.y
  Y[pm * 32 :+ 32, pn * 128 :+ 128] = alpha * X[pm * 32 :+ 32, pn * 128 :+ 128]
}
"""

SAXPY = """
@launch(256)
kernel saxpy(X: tensor<f32>[N], Y: tensor<f32>[N], a: f32) {
  let s = ctx.block.x * 1024
  Y[s :+ 1024] = a * X[s :+ 1024] + Y[s :+ 1024]
}
"""

ROWSUM = """
@launch(128)
kernel rowsum(X: tensor<f16>[M, N], S: tensor<f32>[R, 4]) {
  let r = ctx.block.x * 4
  S[r :+ 4, 0 :+ 4] = f32(X[r :+ 4, 0 :+ 4])
}
"""


def contract(source: str) -> dict:
    return phobos.compile(source).contract


def test_a_written_tensor_is_an_output_shaped_like_the_inputs_sharing_its_symbols():
    spec = derive_spec(contract(SCALE))
    assert [p.name for p in spec.inputs] == ["X", "alpha"]
    assert [o.name for o in spec.outputs] == ["Y"] and spec.mutated == []
    assert spec.schema() == "(Tensor X, float alpha) -> Tensor"
    assert spec.outputs[0].shape({"X": (37, 300)}) == (37, 300)
    assert spec.outputs[0].dtype == "f32"
    assert spec.assemble(["x", 2.0], ["y"]) == ["x", "y", 2.0]


def test_a_read_and_written_tensor_is_mutated_in_place():
    spec = derive_spec(contract(SAXPY))
    assert [p.name for p in spec.inputs] == ["X", "Y", "a"] and spec.outputs == []
    assert spec.mutated == ["Y"]
    assert spec.schema() == "(Tensor X, Tensor(a0!) Y, float a) -> ()"
    forced = derive_spec(contract(SCALE), mutates=("Y",))
    assert forced.schema() == "(Tensor X, Tensor(a0!) Y, float alpha) -> ()"


def test_an_output_whose_extents_do_not_follow_needs_outputs():
    c = contract(ROWSUM)
    with pytest.raises(
        SpecError, match=r"the extents of output 'S' \(R, \?\) do not follow from the inputs; give outputs="
    ):
        derive_spec(c)
    spec = derive_spec(c, outputs={"S": [("X", 0), 4]})
    assert spec.outputs[0].shape({"X": (12, 4)}) == (12, 4)
    with pytest.raises(SpecError, match="the kernel writes f32, not f16"):
        derive_spec(c, outputs={"S": ("X", "f16")})
    with pytest.raises(SpecError, match="no tensor parameter 'Z'"):
        derive_spec(c, outputs={"Z": "X"})
    with pytest.raises(SpecError, match=r"\(input tensor, axis\) pair"):
        derive_spec(c, outputs={"S": [("Q", 0), 4]})


def info(a):
    return a if isinstance(a, ArgInfo) else None


def test_arguments_are_checked_naming_the_parameter():
    spec = derive_spec(contract(SCALE))
    x = ArgInfo("f32", "cuda:0", (5, 7))
    assert check_arguments(spec, [x, 2.0], info) == "cuda:0"
    cases = [
        ([ArgInfo("f16", "cuda:0", (5, 7)), 2.0], TypeError, "scale\\(\\): parameter 'X' needs f32 elements, got f16"),
        ([ArgInfo("f32", "cuda:0", (5,)), 2.0], ValueError, "parameter 'X' has rank 2, got a tensor of shape \\[5\\]"),
        ([ArgInfo("f32", "cpu", (5, 7)), 2.0], ValueError, "the tensors are on cpu; Phobos kernels run on CUDA"),
        (["x", 2.0], TypeError, "parameter 'X' is a tensor of f32, got str"),
        ([x, x], TypeError, "parameter 'alpha' is a f32 scalar, got a tensor"),
        ([x], TypeError, "takes 2 arguments \\(X, alpha\\), got 1"),
    ]
    for args, error, message in cases:
        with pytest.raises(error, match=message):
            check_arguments(spec, args, info)
    saxpy = derive_spec(contract(SAXPY))
    with pytest.raises(ValueError, match="parameter 'Y': N = 6 on axis 0, but N = 5 in 'X'"):
        check_arguments(saxpy, [ArgInfo("f32", "cuda:0", (5,)), ArgInfo("f32", "cuda:0", (6,)), 1.0], info)
    with pytest.raises(ValueError, match="parameter 'Y' is on cuda:1, the other tensors on cuda:0"):
        check_arguments(saxpy, [ArgInfo("f32", "cuda:0", (5,)), ArgInfo("f32", "cuda:1", (5,)), 1.0], info)


def test_the_fake_rule_on_the_meta_device():
    torch = pytest.importorskip("torch")
    import phobos.torch as pt

    class Compiled:  # what op() reads of a kernel: its contract (meta tensors never launch)
        contract = phobos.compile(SCALE).contract

    scale = pt.op(Compiled(), "phobos_spec_test::scale")
    y = scale(torch.empty(37, 300, device="meta"), 2.0)
    assert y.shape == (37, 300) and y.dtype == torch.float32 and y.device.type == "meta"
    y = scale(X=torch.empty(3, 5, device="meta"), alpha=1.0)
    assert y.shape == (3, 5)
    with pytest.raises(TypeError, match="parameter 'X' needs f32 elements, got f16"):
        scale(torch.empty(3, 5, device="meta", dtype=torch.float16), 2.0)
