"""GPU tests of the runtime (pytest -m gpu; skipped without a GPU).

Kernels come precompiled (the GPU machine has no MLIR): the hand-written
cubins of bench/handwritten (built by bench/handwritten/build.py) test the
runtime on its own, and the Phobos-compiled scale/saxpy of bench/kernels (built
by bench/aot_build.py into the cache layout) test it end to end. Both live
under $PHOBOS_GPU_ARTIFACTS (default .cache/gpu).

Every test draws random data, poisons pure outputs, surrounds every buffer
with guard zones (and rows with padding) that must come back bit-identical,
and compares against numpy in float64.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from guarded import GUARD, RNG, Guarded  # noqa: F401

import phobos

pytestmark = pytest.mark.gpu

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(os.environ.get("PHOBOS_GPU_ARTIFACTS", ROOT / ".cache" / "gpu"))


def _handwritten(name: str):
    folder = ARTIFACTS / "handwritten" / name
    if not folder.is_dir():
        try:
            sys.path.insert(0, str(ROOT / "bench" / "handwritten"))
            import build  # noqa: F401  (needs MLIR)

            build.build(ARTIFACTS / "handwritten")
        except ImportError as e:
            pytest.skip(f"no prebuilt {folder} and no MLIR to build it ({e}); run bench/handwritten/build.py")
    return phobos.load(folder)


def _compiled(folder_name: str):
    folder = ARTIFACTS / "aot" / folder_name
    if not folder.is_dir():
        pytest.skip(f"no ahead-of-time folder {folder}; run bench/aot_build.py")
    return phobos.load(folder)


def kernel(which: str):
    """'hand:<name>' (hand-written cubin) or 'aot:<folder>' (compiled from bench/kernels)."""
    provider, name = which.split(":")
    return _handwritten(name) if provider == "hand" else _compiled(name)


# Each kernel in both load forms (slice / offset), hand-written and compiled; promise = @aligned divisor(s).
SAXPY = ["hand:saxpy", "aot:saxpy-BLOCK1024", "aot:saxpy_offsets"]
SAXPY_ALIGNED = ["hand:saxpy_aligned", "aot:saxpy_aligned-BLOCK1024", "aot:saxpy_offsets_aligned"]
SCALE = ["hand:scale", "aot:scale-TM32-TN128", "aot:scale_offsets"]
SCALE_ALIGNED = ["aot:scale_aligned-TM32-TN128", "aot:scale_offsets_aligned"]
OFFSET_FORM = ("offsets",)  # the 2-D offset form addresses a packed (row-major) tensor: padded rows are refused


@pytest.fixture(scope="module")
def hand():
    return {n: _handwritten(n) for n in ("saxpy", "saxpy_aligned", "scale")}


FRAMEWORKS = ["numpy", "torch", "cupy"]


@pytest.fixture(params=FRAMEWORKS)
def framework(request):
    if request.param != "numpy":
        pytest.importorskip(request.param)
    return request.param


def _saxpy_ref(alpha, x: Guarded, y: Guarded):
    return alpha * x.values.astype(np.float64) + y.values.astype(np.float64)


def _saxpy_size(alpha, x: Guarded, y: Guarded):
    """|a x| + |y|: float32 rounding errors are relative to the terms, not to the sum."""
    return np.abs(alpha * x.values.astype(np.float64)) + np.abs(y.values.astype(np.float64))


def _scale_ref(alpha, x: Guarded):
    return alpha * x.values.astype(np.float64)


def _interpreted(k, *args) -> list:
    """The arguments after the same call in the interpreter, on host copies of the initial
    values (compiled kernels carry their tile program; hand-written cubins have none)."""
    host = [a.values.copy() if isinstance(a, Guarded) else a for a in args]
    k.interpret(*host)
    return host


# ----------------------------------------------------------------------------- kernels


@pytest.mark.parametrize("which", SAXPY)
@pytest.mark.parametrize("n", [1, 3, 1000, 4096, 1000003])
def test_saxpy_masked(which, framework, n):
    x, y = Guarded(framework, (n,)), Guarded(framework, (n,))
    alpha = float(RNG.uniform(0.5, 2.0))
    kernel(which)(x.view, y.view, alpha, sync=True)
    y.check(_saxpy_ref(alpha, x, y), size=_saxpy_size(alpha, x, y))
    x.check(x.values.astype(np.float64), rtol=0)
    if which.startswith("aot:"):  # the device agrees with the interpreter too
        _, y_interpreted, _ = _interpreted(kernel(which), x, y, alpha)
        y.check(y_interpreted.astype(np.float64), size=_saxpy_size(alpha, x, y))


@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_interpreter_updates_torch_tensors_on_any_device(device):
    torch = pytest.importorskip("torch")
    k = kernel("aot:saxpy-BLOCK1024")
    x, y = torch.randn(1001, device=device), torch.randn(1001, device=device)
    expected = 2.0 * x.double() + y.double()
    k.interpret(x, y, 2.0)
    assert y.device.type == device and torch.allclose(y.double(), expected, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("which", SAXPY)
@pytest.mark.parametrize("misalign", [0, 1, 3])
def test_saxpy_misaligned_pointers(which, misalign):
    pytest.importorskip("torch")
    n = 5000
    x, y = Guarded("torch", (n,), misalign=misalign), Guarded("torch", (n,), misalign=2 * misalign)
    k = kernel(which)
    assert k.key(x.view, y.view, 1.0).to_text().count("=a1.") == (2 if misalign else 0)
    k(x.view, y.view, -1.5)
    y.check(_saxpy_ref(-1.5, x, y), size=_saxpy_size(-1.5, x, y))


@pytest.mark.parametrize("which", SAXPY_ALIGNED)
@pytest.mark.parametrize("n", [1024, 1 << 20])
def test_saxpy_aligned_promise_kept(which, framework, n):
    x, y = Guarded(framework, (n,)), Guarded(framework, (n,))
    kernel(which)(x.view, y.view, 3.0)
    y.check(_saxpy_ref(3.0, x, y), size=_saxpy_size(3.0, x, y))


@pytest.mark.parametrize("which", SAXPY_ALIGNED)
@pytest.mark.parametrize("n", [1, 1000, 1025])
def test_saxpy_aligned_promise_broken_raises_before_launch(which, framework, n):
    x, y = Guarded(framework, (n,)), Guarded(framework, (n,))
    with pytest.raises(ValueError, match=r"@aligned\(N = 1024\) is broken"):
        kernel(which)(x.view, y.view, 3.0)
    y.unchanged()
    kernel("hand:saxpy")(x.view, y.view, 3.0, sync=True)  # the context is still usable
    y.check(_saxpy_ref(3.0, x, y), size=_saxpy_size(3.0, x, y))


@pytest.mark.parametrize("which", SCALE)
@pytest.mark.parametrize("shape", [(1, 1), (3, 5), (4097, 129), (256, 512)])
@pytest.mark.parametrize("pad", [0, 3])
def test_scale_2d(which, framework, shape, pad):
    x = Guarded(framework, shape, pad=pad)
    y = Guarded(framework, shape, pad=2 * pad + 1 if pad else 0, poison=True)
    alpha = float(RNG.uniform(-2.0, 2.0))
    if pad and which.endswith(OFFSET_FORM) and framework != "numpy" and shape[0] > 1:
        # flat row-major offsets would miss the padding: refused before the launch (numpy arrays are
        # copied to packed device buffers, so they are fine)
        with pytest.raises(ValueError, match=r"argument X must be contiguous \(row-major\).*flat element offsets"):
            kernel(which)(x.view, y.view, alpha)
        y.unchanged()
        return
    kernel(which)(x.view, y.view, alpha)
    y.check(_scale_ref(alpha, x))
    x.check(x.values.astype(np.float64), rtol=0)
    if which.startswith("aot:"):  # the device agrees with the interpreter too
        _, y_interpreted, _ = _interpreted(kernel(which), x, y, alpha)
        y.check(y_interpreted.astype(np.float64))


@pytest.mark.parametrize("which", SCALE_ALIGNED)
@pytest.mark.parametrize("shape", [(256, 512), (4096, 4096)])
def test_scale_aligned_promise_kept(which, framework, shape):
    x, y = Guarded(framework, shape), Guarded(framework, shape, poison=True)
    kernel(which)(x.view, y.view, -0.75)
    y.check(_scale_ref(-0.75, x))


@pytest.mark.parametrize("which", SCALE_ALIGNED)
@pytest.mark.parametrize("shape", [(4097, 129), (256, 100), (33, 128)])
def test_scale_aligned_promise_broken_raises_before_launch(which, shape):
    pytest.importorskip("torch")
    x, y = Guarded("torch", shape), Guarded("torch", shape, poison=True)
    with pytest.raises(ValueError, match=r"@aligned\((M = 32|N = 128)\) is broken"):
        kernel(which)(x.view, y.view, 1.0)
    y.unchanged()


def test_compile_from_source_hits_the_cache_without_mlir():
    """phobos.compile on the GPU machine (no MLIR) finds the variants compiled ahead of time."""
    torch = pytest.importorskip("torch")
    from phobos.contract.fingerprint import compiler_fingerprint

    folder = ARTIFACTS / "aot" / "scale-TM32-TN128"
    stamp = ARTIFACTS / "FINGERPRINT"
    if not folder.is_dir() or not stamp.exists():
        pytest.skip("no ahead-of-time folder; run bench/aot_build.py")
    if stamp.read_text().strip() != compiler_fingerprint():
        pytest.skip("the compiler sources changed since bench/aot_build.py ran (fingerprint differs)")
    # the folder holds sm_90 builds (bench/aot_build.py's chip); compile() alone would ask for the
    # device's own chip, sm_90a on Hopper, and find nothing
    source = ROOT / "bench" / "kernels" / "scale.ph"
    k = phobos.compile(source, defines={"TM": 32, "TN": 128}, chip="sm_90", cache_dir=folder)
    x = torch.randn(4097, 129, device="cuda")
    y = torch.full_like(x, float("nan"))
    k(x, y, 2.0, sync=True)
    torch.testing.assert_close(y, 2.0 * x, rtol=0, atol=0)
    assert "ptx" in k.asm and ".entry scale" in k.asm["ptx"]
    assert k.artifact(k.key(x, y, 2.0)).cubin[:4] == b"\x7fELF"


def test_numpy_aliasing_and_readonly(hand):
    x = RNG.standard_normal(3000).astype(np.float32)
    before = x.copy()
    hand["saxpy"](x, x, 1.0)  # y = x + y on the same array: one device copy, written back once
    np.testing.assert_array_equal(x, 2 * before)  # doubling is exact
    ro = RNG.standard_normal(3000).astype(np.float32)
    ro.setflags(write=False)
    y = RNG.standard_normal(3000).astype(np.float32)
    y0 = y.copy()
    hand["saxpy"](ro, y, 2.0)
    np.testing.assert_array_equal(y, np.float32(2.0) * ro + y0)  # the same two float32 roundings


def test_explicit_and_callable_grid(hand):
    torch = pytest.importorskip("torch")
    n = 10000
    x, y = Guarded("torch", (n,)), Guarded("torch", (n,))
    k = hand["saxpy"]
    k[(-(-n // 1024),)](x.view, y.view, 2.0)
    k[lambda meta: (-(-meta["N"] // 1024), 1, 1)](x.view, y.view, 2.0)
    ref = 2.0 * x.values.astype(np.float64) * 2 + y.values.astype(np.float64)
    y.check(ref, rtol=2e-6, size=_saxpy_size(4.0, x, y))
    # a grid that is too small leaves the tail alone
    z = Guarded("torch", (n,))
    k[1](x.view, z.view, 1.0)
    torch.cuda.synchronize()
    got = z.download()[z.region]
    head = x.values[:1024].astype(np.float64) + z.values[:1024]
    assert (np.abs(got[:1024] - head) <= 1e-6 * (np.abs(x.values[:1024]) + np.abs(z.values[:1024]))).all()
    assert np.array_equal(got[1024:], z.values[1024:])


def test_plan_cache_many_layouts(hand):
    pytest.importorskip("torch")
    k = hand["scale"]
    cases = []
    for shape in [(5, 7), (64, 128), (5, 7), (33, 129), (64, 128)]:
        x, y = Guarded("torch", shape), Guarded("torch", shape, poison=True)
        k(x.view, y.view, 0.5)
        cases.append((x, y))
    for x, y in cases:
        y.check(_scale_ref(0.5, x))


def test_bad_arguments_raise_before_launch_and_context_survives(hand):
    torch = pytest.importorskip("torch")
    k = hand["scale"]
    x = torch.randn(64, 256, device="cuda")
    y = torch.full((64, 256), float("nan"), device="cuda")
    with pytest.raises(TypeError, match="takes 3 arguments"):
        k(x, y)
    with pytest.raises(TypeError, match="argument X must have f32 elements.*got f16"):
        k(x.half(), y, 1.0)
    with pytest.raises(ValueError, match="argument X must have rank 2"):
        k(x[0], y, 1.0)
    with pytest.raises(ValueError, match="argument X is a torch tensor on 'cpu'"):
        k(x.cpu(), y, 1.0)
    with pytest.raises(ValueError, match="argument Y must have a contiguous last dimension"):
        k(x, torch.randn(256, 64, device="cuda").t(), 1.0)
    with pytest.raises(ValueError, match="dimension N is 256 in X.shape.1. but 128 in Y.shape.1."):
        k(x, y[:, :128], 1.0)
    with pytest.raises(TypeError, match="argument alpha .* must be a real number"):
        k(x, y, "2")
    with pytest.raises(TypeError, match="must be an array"):
        k(x, [1.0, 2.0], 1.0)
    k(x, y, 2.0, sync=True)
    torch.testing.assert_close(y, 2.0 * x)


def test_torch_current_stream_and_explicit_stream(hand):
    torch = pytest.importorskip("torch")
    k = hand["saxpy"]
    n = 1 << 20
    x = torch.zeros(n, device="cuda")
    y = torch.zeros(n, device="cuda")
    torch.cuda.synchronize()
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        torch.cuda._sleep(50_000_000)  # keep s busy so that a launch on another stream would overtake
        x.fill_(3.0)
        k(x, y, 2.0)  # must run on s (the current stream), after the fill
    s.synchronize()
    assert torch.all(y == 6.0)
    y.zero_()
    torch.cuda.synchronize()
    s2 = torch.cuda.Stream()
    with torch.cuda.stream(s2):
        torch.cuda._sleep(50_000_000)
        x.fill_(5.0)
    k(x, y, 1.0, stream=s2)  # explicit stream (a layout seen before: the generated fast path)
    s2.synchronize()
    assert torch.all(y == 5.0)
    s3 = torch.cuda.Stream()
    with torch.cuda.stream(s3):  # the fast path also follows torch's current stream
        torch.cuda._sleep(50_000_000)
        x.fill_(7.0)
        k(x, y, 1.0)
    s3.synchronize()
    assert torch.all(y == 12.0)


def test_fast_path_refreshes_pointers_and_scalars(hand):
    torch = pytest.importorskip("torch")
    k = hand["scale"]
    xs = [torch.randn(300, 200, device="cuda") for _ in range(3)]
    ys = [torch.full((300, 200), float("nan"), device="cuda") for _ in range(3)]
    for rep in range(3):
        for i, (x, y) in enumerate(zip(xs, ys)):
            k(x, y, float(i + rep))
            k[(10, 2)](x, y, float(i + rep))
    torch.cuda.synchronize()
    for i, (x, y) in enumerate(zip(xs, ys)):
        torch.testing.assert_close(y, (i + 2.0) * x, rtol=0, atol=0)
    assert len(k._fast) >= 2


def test_cupy_fast_path_refreshes_pointers_and_scalars():
    cupy = pytest.importorskip("cupy")
    k = kernel("aot:scale-TM32-TN128")
    xs = [cupy.asarray(RNG.standard_normal((300, 200)).astype(np.float32)) for _ in range(3)]
    ys = [cupy.full((300, 200), float("nan"), dtype=cupy.float32) for _ in range(3)]
    padded = cupy.asarray(RNG.standard_normal((300, 256)).astype(np.float32))[:, :200]
    for rep in range(3):
        for i, (x, y) in enumerate(zip(xs, ys)):
            k(x, y, float(i + rep))
        k(padded, ys[0], 0.5)  # another layout in between
        k(xs[0], ys[0], 2.0)
    cupy.cuda.Device().synchronize()
    np.testing.assert_array_equal(cupy.asnumpy(ys[0]), 2.0 * cupy.asnumpy(xs[0]))
    for i in (1, 2):
        np.testing.assert_array_equal(cupy.asnumpy(ys[i]), (i + 2.0) * cupy.asnumpy(xs[i]))
    assert len(k._fast.tables["cupy"]) >= 2


def test_overlapping_read_and_written_tensors_are_refused():
    """X is read-only in saxpy and scale (noalias, ld.global.nc): sharing memory with the written Y
    is refused before the launch, unless X and Y are the same view (elementwise in place)."""
    torch = pytest.importorskip("torch")
    saxpy, scale = kernel("aot:saxpy-BLOCK1024"), kernel("aot:scale-TM32-TN128")
    n = 1 << 20
    buf = torch.arange(n + 1024, device="cuda", dtype=torch.float32)
    before = buf.clone()
    for _ in range(2):  # a new layout (checked), then a known one (the fast path)
        with pytest.raises(ValueError, match=r"saxpy: arguments X and Y overlap in memory .* same view"):
            saxpy(buf[1024:], buf[:n], 2.0)
    torch.cuda.synchronize()
    assert torch.equal(buf, before)
    x = buf[:n].clone()
    saxpy(x, x, 2.0, sync=True)  # in place: x = 2 x + x
    torch.testing.assert_close(x, 3.0 * buf[:n], rtol=0, atol=0)
    m = torch.randn(256, 512, device="cuda")
    ref = 2.0 * m
    scale(m, m, 2.0, sync=True)
    torch.testing.assert_close(m, ref, rtol=0, atol=0)
    with pytest.raises(ValueError, match="scale: arguments X and Y overlap"):
        scale(m[:, :256], m[:, 256:], 2.0)  # interleaved rows of one matrix
    saxpy(buf[:1024], buf[1024:2048], 1.0, sync=True)  # disjoint pieces of one buffer are fine


def test_both_launch_entry_points_agree():
    """Launches go through the driver's cuLaunchKernelEx (ctypes); the cuda-bindings fallback
    must compute the same thing."""
    torch = pytest.importorskip("torch")
    from phobos.runtime import driver

    assert driver.launch_entry() is not None, "cuLaunchKernelEx was not found through cuGetProcAddress"
    x = torch.randn(4097, 129, device="cuda")
    ys = []
    saved = driver._launch_entry, driver._launch_entry_resolved
    try:
        for entry in saved, (None, True):
            driver._launch_entry, driver._launch_entry_resolved = entry
            k = kernel("aot:scale-TM32-TN128")  # a new kernel object: plans made under this entry point
            y = torch.full_like(x, float("nan"))
            k(x, y, 1.5)
            k(x, y, -3.0, stream=torch.cuda.current_stream())  # the fast path
            ys.append(y)
    finally:
        driver._launch_entry, driver._launch_entry_resolved = saved
    torch.cuda.synchronize()
    torch.testing.assert_close(ys[0], -3.0 * x, rtol=0, atol=0)
    torch.testing.assert_close(ys[1], ys[0], rtol=0, atol=0)


def test_launches_from_several_threads():
    """Each thread packs its own parameter buffer: concurrent launches keep their own arguments."""
    torch = pytest.importorskip("torch")
    import threading

    k = kernel("aot:saxpy-BLOCK1024")
    n, reps = 1 << 16, 50
    xs = [torch.full((n,), float(t + 1), device="cuda") for t in range(4)]
    ys = [torch.zeros(n, device="cuda") for _ in range(4)]
    torch.cuda.synchronize()
    errors = []

    def work(t):
        try:
            for _ in range(reps):
                k(xs[t], ys[t], 1.0)
        except Exception as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    torch.cuda.synchronize()
    assert not errors, errors
    for t in range(4):
        assert torch.all(ys[t] == reps * (t + 1.0)), f"thread {t}"


def test_cupy_stream(hand):
    cupy = pytest.importorskip("cupy")
    k = hand["saxpy"]
    n = 1 << 16
    x = cupy.full(n, 2.0, dtype=cupy.float32)
    y = cupy.ones(n, dtype=cupy.float32)
    s = cupy.cuda.Stream(non_blocking=True)
    with s:
        k(x, y, 4.0)
    k(x, y, 1.0, stream=s)
    s.synchronize()
    assert bool((y == 11.0).all())


def test_generic_cuda_array_interface_and_dlpack(hand):
    torch = pytest.importorskip("torch")

    class CAI:
        def __init__(self, t):
            self.t = t

        @property
        def __cuda_array_interface__(self):
            return self.t.__cuda_array_interface__

    class DLPack:
        def __init__(self, t):
            self.t = t

        def __dlpack__(self, stream=None):
            return self.t.__dlpack__()

        def __dlpack_device__(self):
            return self.t.__dlpack_device__()

    x = torch.randn(4097, 129, device="cuda")[:, :100]
    for wrap in (CAI, DLPack):
        y = torch.full((4097, 100), float("nan"), device="cuda")
        hand["scale"](wrap(x), wrap(y), 3.0, sync=True)
        torch.testing.assert_close(y, 3.0 * x)


def _run_child(code: str):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, env=env, timeout=60
    )


TRAPS = [
    ("hand:saxpy_aligned", "saxpy_aligned", "(1000,)"),
    ("aot:saxpy_aligned-BLOCK1024", "saxpy_aligned", "(1000,)"),
    ("aot:scale_aligned-TM32-TN128", "scale_aligned", "(4097, 129)"),
]


@pytest.mark.parametrize("which, name, shape", TRAPS)
@pytest.mark.parametrize("mode", ["sync", "later"])
def test_raw_launch_breaking_promise_traps(which, name, shape, mode):
    """check=False skips the launcher's check; the kernel's entry check traps, and the fault
    surfaces as a KernelFault naming the kernel (in a child: the context dies with it). A
    folder built in check mode (PHOBOS_CHECK=1) reports a PromiseBroken instead."""
    pytest.importorskip("torch")
    kernel(which)  # skips when the folder is missing
    provider, folder_name = which.split(":")
    folder = str(ARTIFACTS / ("handwritten" if provider == "hand" else "aot") / folder_name)
    launch = (
        "k(x, y, 2.0, check=False, sync=True)" if mode == "sync" else "k(x, y, 2.0, check=False); phobos.synchronize()"
    )
    result = _run_child(f"""
        import sys, torch, phobos
        k = phobos.load({folder!r})
        x = torch.ones({shape}, device="cuda"); y = torch.ones({shape}, device="cuda")
        torch.cuda.synchronize()
        try:
            {launch}
        except phobos.KernelFault as e:
            print("FAULT:", e)
            sys.exit(3)
        print("no fault")
    """)
    assert result.returncode == 3, result.stdout + result.stderr
    assert name in result.stdout
    if "checks" in phobos.load(folder).artifact().contract:  # built in check mode: reported, not a trap
        assert "broke a promise (check mode): aligned check" in result.stdout
    else:
        assert "CUDA_ERROR" in result.stdout
