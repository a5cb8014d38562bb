"""GPU tests of phobos.torch (pytest -m gpu; skipped without a GPU or without torch).

The kernels come from the ahead-of-time folders of bench/aot_build.py (the GPU
machine has no MLIR): scale (Y = alpha * X, TM=32 TN=128) and saxpy (Y = a * X
+ Y, BLOCK=1024). Covered: results against float64 on ragged shapes, argument
checks before launch, torch.compile(fullgraph=True) with zero graph breaks,
autograd through a backward kernel against a float64 torch reference, CUDA
graph capture and replay on fresh inputs, and launches on torch's current
stream.
"""

from __future__ import annotations

import pytest
from aot_folders import aot

torch = pytest.importorskip("torch")

import phobos.torch as pt  # noqa: E402

pytestmark = pytest.mark.gpu

SHAPES = [(1, 1), (37, 300), (129, 513), (256, 128)]


@pytest.fixture(scope="module")
def ops():
    if not torch.cuda.is_available():
        pytest.skip("torch sees no CUDA device")
    scale_kernel = aot("scale", {"TM": 32, "TN": 128})
    scale = pt.op(scale_kernel, "phobos_gpu_test::scale")
    scale_bwd = pt.op(scale_kernel, "phobos_gpu_test::scale_bwd")
    # d(alpha * X)/dX = alpha: the backward is the same kernel on the incoming gradient.
    scale.register_autograd(scale_bwd, grads={"Y": "X"}, inputs={"X": "Y"})
    saxpy = pt.op(aot("saxpy", {"BLOCK": 1024}), "phobos_gpu_test::saxpy")
    return {"scale": scale, "saxpy": saxpy}


def rand(*shape, dtype=torch.float32):
    return torch.randn(*shape, device="cuda", dtype=dtype)


@pytest.mark.parametrize("shape", SHAPES)
def test_scale_allocates_its_output_and_matches_float64(ops, shape):
    x = rand(*shape)
    y = ops["scale"](x, -1.75)
    torch.cuda.synchronize()
    assert y.shape == x.shape and y.dtype == torch.float32
    torch.testing.assert_close(y.double(), x.double() * -1.75, rtol=1e-6, atol=0)
    y = ops["scale"](X=x, alpha=0.5)  # by name
    torch.testing.assert_close(y.double(), x.double() * 0.5, rtol=1e-6, atol=0)


def test_saxpy_mutates_in_place_inside_guard_zones(ops):
    n = 100_003
    x = rand(n)
    buf = torch.full((n + 64,), float("nan"), device="cuda")
    y = buf[32 : 32 + n]
    y.copy_(rand(n))
    y0 = y.double().clone()
    assert ops["saxpy"](x, y, 3.0) is None
    torch.cuda.synchronize()
    torch.testing.assert_close(y.double(), 3.0 * x.double() + y0, rtol=1e-6, atol=1e-6)
    assert torch.isnan(buf[:32]).all() and torch.isnan(buf[32 + n :]).all()


def test_bad_arguments_are_refused_before_launch(ops):
    scale = ops["scale"]
    with pytest.raises(TypeError, match="parameter 'X' needs f32 elements, got f16"):
        scale(rand(4, 4, dtype=torch.float16), 2.0)
    with pytest.raises(ValueError, match="parameter 'X' has rank 2"):
        scale(rand(16), 2.0)
    with pytest.raises(ValueError, match="the tensors are on cpu"):
        scale(torch.ones(4, 4), 2.0)
    with pytest.raises(ValueError, match="parameter 'Y': N = 7 on axis 0, but N = 5 in 'X'"):
        ops["saxpy"](rand(5), rand(7), 1.0)


def test_fullgraph_compile_has_no_graph_break(ops):
    scale = ops["scale"]

    def model(x, w):
        h = torch.relu(x @ w)
        return scale(h, 2.0).sum(dim=1) + 1.0

    x, w = rand(37, 64), rand(64, 300)
    explanation = torch._dynamo.explain(model)(x, w)
    assert explanation.graph_break_count == 0 and explanation.graph_count == 1
    for backend in ("aot_eager", "inductor"):
        torch._dynamo.reset()
        compiled = torch.compile(model, fullgraph=True, backend=backend)
        expected = (torch.relu(x.double() @ w.double()) * 2.0).sum(dim=1) + 1.0
        torch.testing.assert_close(compiled(x, w).double(), expected, rtol=1e-4, atol=1e-3)
        x2 = rand(53, 64)  # a new shape: recompiles or runs dynamic, still through the fake rule
        expected = (torch.relu(x2.double() @ w.double()) * 2.0).sum(dim=1) + 1.0
        torch.testing.assert_close(compiled(x2, w).double(), expected, rtol=1e-4, atol=1e-3)


def test_autograd_through_the_backward_kernel_matches_float64(ops):
    scale = ops["scale"]
    x = rand(37, 300).requires_grad_()
    w = rand(37, 300)
    loss = (scale(x, 1.25) * w).sum()
    loss.backward()
    x64 = x.detach().double().requires_grad_()
    ((x64 * 1.25) * w.double()).sum().backward()
    torch.testing.assert_close(x.grad.double(), x64.grad, rtol=1e-6, atol=0)
    # a gradient with stride 0 (from a broadcast sum) reaches the kernel contiguous
    x.grad = None
    scale(x, -3.0).sum().backward()
    torch.testing.assert_close(x.grad.double(), torch.full_like(x64, -3.0), rtol=0, atol=0)
    compiled = torch.compile(lambda x: (scale(x, 1.25) * w).sum(), fullgraph=True, backend="aot_eager")
    x.grad = None
    compiled(x).backward()
    torch.testing.assert_close(x.grad.double(), x64.grad, rtol=1e-6, atol=0)


def test_cuda_graph_capture_and_replay_on_fresh_inputs(ops):
    scale, saxpy = ops["scale"], ops["saxpy"]
    static_x = rand(129, 513)
    static_v, static_acc = rand(5000), rand(5000)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm up (plans, module loads) outside the capture
        for _ in range(2):
            scale(static_x, 3.0)
            saxpy(static_v, static_acc.clone(), 2.0)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_y = scale(static_x, 3.0)
        saxpy(static_v, static_acc, 2.0)
    for _ in range(3):
        fresh_x, fresh_v, fresh_acc = rand(129, 513), rand(5000), rand(5000)
        static_x.copy_(fresh_x)
        static_v.copy_(fresh_v)
        static_acc.copy_(fresh_acc)
        static_y.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        torch.testing.assert_close(static_y.double(), fresh_x.double() * 3.0, rtol=1e-6, atol=0)
        expected = 2.0 * fresh_v.double() + fresh_acc.double()
        torch.testing.assert_close(static_acc.double(), expected, rtol=1e-6, atol=1e-6)


def test_launches_go_to_the_current_stream(ops):
    """On a side stream held back by a sleep, the input is written just before the
    launch: a launch on any other stream would read the old input."""
    scale = ops["scale"]
    x = torch.zeros(256, 1024, device="cuda")
    fresh = rand(256, 1024)
    torch.cuda.synchronize()
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        torch.cuda._sleep(200_000_000)  # about 0.1 s of GPU time
        x.copy_(fresh)
        y = scale(x, 2.0)
    side.synchronize()
    torch.testing.assert_close(y.double(), fresh.double() * 2.0, rtol=1e-6, atol=0)
