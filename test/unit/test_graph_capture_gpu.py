"""Phobos launches captured into CUDA graphs (pytest -m gpu; skipped without a GPU).

A graph records each kernel launch with its parameters (pointers, scalars) by
value; replaying it runs the same launches on whatever the buffers hold then.
Covered, with fresh random data and float64 NumPy references:

- torch.cuda.graph: launches of saxpy and scale (torch tensors, the generated
  launcher of a layout seen before) captured on torch's capture stream, replayed
  after the inputs were overwritten in place, several times;
- cuda-bindings' cuStreamBeginCapture / cuStreamEndCapture / cuGraphLaunch on a
  stream of our own, with torch tensors and with cupy arrays (stream=handle);
- a @persistent kernel (grid barrier, resident grid) captured and replayed;
- what cannot be captured is refused before it reaches the stream, and the
  capture survives: check-mode variants (they wait and read their check
  record), sync=True, numpy arguments (copied in and out).

Kernels come from the ahead-of-time folders of bench/aot_build.py (saxpy
BLOCK=1024, scale TM=32 TN=128, persistent_sum) and, for check mode, from
test/unit/check_mode_kernels.py ($PHOBOS_GPU_ARTIFACTS/check/copy).
"""

from __future__ import annotations

import numpy as np
import pytest
from aot_folders import ARTIFACTS, aot
from guarded import RNG

import phobos
from phobos.runtime import driver

pytestmark = pytest.mark.gpu

torch = pytest.importorskip("torch")


@pytest.fixture(scope="module", autouse=True)
def _gpu():
    if not torch.cuda.is_available():
        pytest.skip("torch sees no CUDA device")


def _fresh(shape) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def _close(got, want: np.ndarray, atol: float = 1e-6) -> None:
    """float32 results against float64; atol: for chains of launches (a rounding per launch, on
    intermediates up to ~16: ~1e-6 each)."""
    got = got.cpu().numpy() if hasattr(got, "cpu") else got.get()
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=1e-6, atol=atol)


def _warm_up_on(stream, launches) -> None:
    """Each launch once on a side stream: plans made and modules loaded outside the capture."""
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        launches()
    torch.cuda.current_stream().wait_stream(stream)
    torch.cuda.synchronize()


def test_torch_graph_replays_launches_on_new_contents():
    saxpy, scale = aot("saxpy", {"BLOCK": 1024}), aot("scale", {"TM": 32, "TN": 128})
    n, shape = 100_003, (129, 513)
    x, acc = torch.empty(n, device="cuda"), torch.empty(n, device="cuda")
    a, b = torch.empty(shape, device="cuda"), torch.empty(shape, device="cuda")

    def launches():
        saxpy(x, acc, 2.0)  # acc = 2 x + acc
        saxpy(x, acc, -0.5)  # acc = -0.5 x + acc: reads the first launch's result
        scale(a, b, 3.0)  # b = 3 a

    _warm_up_on(torch.cuda.Stream(), launches)
    assert saxpy._call != saxpy._call_any and scale._call != scale._call_any  # the layouts' launchers
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        launches()
    for _ in range(3):
        fx, facc, fa = _fresh(n), _fresh(n), _fresh(shape)
        x.copy_(torch.from_numpy(fx))  # in place: the graph holds the addresses
        acc.copy_(torch.from_numpy(facc))
        a.copy_(torch.from_numpy(fa))
        b.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        f64 = np.float64
        _close(acc, (f64(2.0) * fx + facc) + f64(-0.5) * fx, atol=1e-5)
        _close(b, 3.0 * fa.astype(f64))


def _cuda_bindings_graph(capture):
    """(graph exec, stream) of what `capture(stream)` launches on a new stream (global capture mode)."""
    from cuda.bindings import driver as cu

    stream = driver.check(cu.cuStreamCreate(int(cu.CUstream_flags.CU_STREAM_NON_BLOCKING)), "cuStreamCreate")
    handle = int(stream)
    mode = cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL
    driver.check(cu.cuStreamBeginCapture(stream, mode), "cuStreamBeginCapture")
    try:
        capture(handle)
    finally:
        graph = driver.check(cu.cuStreamEndCapture(stream), "cuStreamEndCapture")
    # cuda-bindings 12.x names it cuGraphInstantiateWithFlags; 13.x folds the flags into cuGraphInstantiate
    instantiate = getattr(cu, "cuGraphInstantiateWithFlags", None) or cu.cuGraphInstantiate
    return driver.check(instantiate(graph, 0), "cuGraphInstantiate"), stream


@pytest.mark.parametrize("framework", ["torch", "cupy"])
def test_cuda_bindings_stream_capture(framework):
    from cuda.bindings import driver as cu

    saxpy = aot("saxpy", {"BLOCK": 1024})
    n = 65_537
    if framework == "cupy":
        cupy = pytest.importorskip("cupy")
        x, acc = cupy.empty(n, dtype=cupy.float32), cupy.empty(n, dtype=cupy.float32)

        def fill(dst, values):
            dst.set(values)
    else:
        x, acc = torch.empty(n, device="cuda"), torch.empty(n, device="cuda")

        def fill(dst, values):
            dst.copy_(torch.from_numpy(values))

    saxpy(x, acc, 1.0, sync=True)  # the layout's plan and launcher, before the capture
    exec_, stream = _cuda_bindings_graph(lambda s: [saxpy(x, acc, 0.25 * (i + 1), stream=s) for i in range(4)])
    for _ in range(3):
        fx, facc = _fresh(n), _fresh(n)
        fill(x, fx)
        fill(acc, facc)
        torch.cuda.synchronize()
        if framework == "cupy":
            cupy.cuda.Device().synchronize()
        driver.check(cu.cuGraphLaunch(exec_, stream), "cuGraphLaunch")
        driver.check(cu.cuStreamSynchronize(stream), "cuStreamSynchronize")
        want = facc.astype(np.float64)
        for i in range(4):
            want = np.float64(0.25 * (i + 1)) * fx + want
        _close(acc, want, atol=1e-5)


def test_persistent_kernel_is_captured_and_replayed():
    kernel = aot("persistent_sum")
    n = 300_007
    x, p, y = torch.empty(n, device="cuda"), torch.zeros(1 << 14, device="cuda"), torch.empty(1, device="cuda")
    _warm_up_on(torch.cuda.Stream(), lambda: kernel(x, p, y))
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(3):  # the grid barrier's counters come back to zero after each launch
            kernel(x, p, y)
    for _ in range(3):
        fx = _fresh(n)
        x.copy_(torch.from_numpy(fx))
        y.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        want = float(fx.astype(np.float64).sum())
        assert abs(float(y.item()) - want) <= 1e-5 * float(np.abs(fx).astype(np.float64).sum()) + 1e-30


def _refused_in_capture(launch, why: str) -> None:
    """`launch(stream)` inside a capture raises CaptureError naming `why`, and the capture is intact."""
    captured = []

    def capture(stream):
        with pytest.raises(phobos.CaptureError, match=why):
            launch(stream)
        captured.append(stream)

    exec_, stream = _cuda_bindings_graph(capture)  # cuStreamEndCapture fails on a broken capture
    assert captured and exec_ is not None


def test_what_cannot_be_captured_is_refused_before_the_launch():
    saxpy = aot("saxpy", {"BLOCK": 1024})
    n = 4096
    x, acc = torch.zeros(n, device="cuda"), torch.zeros(n, device="cuda")
    saxpy(x, acc, 1.0, sync=True)
    _refused_in_capture(lambda s: saxpy(x, acc, 1.0, stream=s, sync=True), "sync=True")
    hx, hacc = _fresh(n), _fresh(n)
    saxpy(hx, hacc.copy(), 1.0)  # its plan and module, outside the capture
    _refused_in_capture(lambda s: saxpy(hx, hacc, 1.0, stream=s), "numpy arguments")
    folder = ARTIFACTS / "check" / "copy"
    if not folder.is_dir():
        pytest.skip(f"no check-mode folder {folder}; run test/unit/check_mode_kernels.py")
    copy = phobos.load(folder)
    from check_mode_kernels import N_COPY

    src, dst = torch.randn(N_COPY, device="cuda"), torch.zeros(N_COPY, device="cuda")
    copy(src, dst, sync=True)  # fine outside a capture
    _refused_in_capture(lambda s: copy(src, dst, stream=s), "check-mode variant")
