"""Launch overhead of the Python side, measured without a GPU.

The launch paths run against a stub driver: the CUDA calls are replaced by
no-ops, so what is timed is everything Phobos does per launch in Python. The
launch entry point itself is a real ctypes call (into libm's `fegetround`,
which ignores the arguments and returns 0) where the runtime calls the driver through ctypes, and a
Python function returning `(0,)` where it calls cuda-bindings; the driver's own
work (about 2 us on an H200 host) comes on top on a GPU machine.

Arguments are stand-ins with C-level attributes, so their reads cost about what
torch's and cupy's cost: torch-like tensors (`data_ptr()`, `shape`, `stride()`,
`dtype`, `get_device()`), cupy-like arrays (`data.ptr`, `shape`, `strides`,
`dtype`, `data.device_id`) and `__cuda_array_interface__` objects. With a real
(CPU) torch importable, the reads of real tensors are timed too and the torch
row is also given adjusted to them.

    python bench/launch_overhead_cpu.py [-n 20000] [--json FILE]
"""

from __future__ import annotations

import argparse
import ctypes
import ctypes.util
import itertools
import json
import statistics
import sys
import tempfile
import time
import types
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
try:
    import phobos  # noqa: F401  (installed editable, or on PYTHONPATH)
except ImportError:
    sys.path.append(str(ROOT / "python"))


def per_call_us(fn, n: int, rounds: int = 7):
    """(min, median) over rounds of the mean time per call, in microseconds."""
    for _ in range(min(n, 2000)):
        fn()
    samples = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        samples.append((time.perf_counter() - t0) / n * 1e6)
    return min(samples), statistics.median(samples)


# ----------------------------------------------------------------------------- stand-ins


def _const(value):
    """A C-level callable returning `value` (as cheap as a builtin method)."""
    return itertools.repeat(value).__next__


class FakeTensor:
    """torch.Tensor as the launcher reads it (a CUDA tensor at a made-up address)."""

    __slots__ = ("shape", "dtype", "data_ptr", "stride", "get_device", "device")

    def __init__(self, ptr, shape, dtype="float32", device=0):
        self.shape, self.dtype, self.device = tuple(shape), dtype, f"cuda:{device}"
        strides = tuple(int(np.prod(shape[i + 1:])) for i in range(len(shape)))
        self.data_ptr, self.stride, self.get_device = _const(ptr), _const(strides), _const(device)


class _Memory:
    __slots__ = ("ptr", "device_id")

    def __init__(self, ptr, device_id):
        self.ptr, self.device_id = ptr, device_id


class FakeCupyArray:
    """cupy.ndarray as the launcher reads it."""

    __slots__ = ("data", "shape", "strides", "dtype", "itemsize")

    def __init__(self, ptr, shape, dtype=np.float32, device=0):
        self.dtype = np.dtype(dtype)
        self.data, self.shape, self.itemsize = _Memory(ptr, device), tuple(shape), self.dtype.itemsize
        self.strides = tuple(int(np.prod(shape[i + 1:])) * self.itemsize for i in range(len(shape)))


FakeCupyArray.__module__ = "cupy"  # the runtime recognises cupy arrays by module and type


class CAIArray:
    """A generic device array: only `__cuda_array_interface__` (a plain instance attribute)."""

    def __init__(self, ptr, shape):
        self.__cuda_array_interface__ = {"shape": tuple(shape), "typestr": "<f4", "data": (ptr, False),
                                         "strides": None, "version": 3}


def install_fakes():
    torch = types.ModuleType("torch")
    torch.Tensor = FakeTensor
    for name in ("float16", "bfloat16", "float32", "float64", "bool", "int8", "int32", "int64"):
        setattr(torch, name, name)
    torch._C = types.SimpleNamespace(_cuda_getCurrentRawStream=(0).__mul__)  # device -> stream 0, C-level
    sys.modules["torch"] = torch
    cupy = types.ModuleType("cupy")
    cupy.ndarray = FakeCupyArray
    null_stream = types.SimpleNamespace(ptr=0)
    cupy.cuda = types.SimpleNamespace(get_current_stream=_const(null_stream))
    sys.modules["cupy"] = cupy


# ----------------------------------------------------------------------------- stub driver

LIBM = ctypes.CDLL(ctypes.util.find_library("m"))
NOOP_ADDRESS = ctypes.cast(LIBM.fegetround, ctypes.c_void_p).value  # takes no arguments, returns 0 (FE_TONEAREST)


class StubDevice:
    ordinal, capability, chip, name, context_id, _single = 0, (9, 0), "sm_90", "stub", 1, True

    def function(self, cubin, entry, shared):
        return 0x7F00_0000_1000

    def make_current(self):
        from phobos.runtime import driver

        driver._thread.context = self.context_id


def install_stub_driver(ctypes_entry: bool):
    from phobos.runtime import driver

    ok = (0,)
    cu = types.SimpleNamespace(cuLaunchKernel=lambda *a: ok, cuDeviceGetCount=lambda: (0, 1),
                               cuPointerGetAttribute=lambda attr, ptr: (0, 0),
                               CUpointer_attribute=types.SimpleNamespace(CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL=9))
    if ctypes_entry:
        cu.cuGetProcAddress = lambda symbol, version, flags: (0, NOOP_ADDRESS, 0)
        cu.CUdriverProcAddress_flags = types.SimpleNamespace(CU_GET_PROC_ADDRESS_LEGACY_STREAM=1,
                                                             CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM=2)
        cu.CUdriverProcAddressQueryResult = types.SimpleNamespace(CU_GET_PROC_ADDRESS_SUCCESS=0)
    driver.cu = cu
    driver._initialized = True
    device = StubDevice()
    driver.get_device = lambda ordinal=0: device
    for name, value in (("_launch_entry", None), ("_launch_entry_resolved", False), ("_single", None)):
        if hasattr(driver, name):  # forget what the previous stub answered
            setattr(driver, name, value)


SAXPY = {
    "format": 1, "kernel": "saxpy", "name": "saxpy", "chip": "sm_90", "threads": 256, "shared_bytes": 0,
    "params": [{"name": "X", "kind": "tensor", "dtype": "f32", "rank": 1, "dims": ["N"], "shape": [None],
                "contiguity": "last", "access": "read"},
               {"name": "Y", "kind": "tensor", "dtype": "f32", "rank": 1, "dims": ["N"], "shape": [None],
                "contiguity": "last", "access": "readwrite"},
               {"name": "a", "kind": "scalar", "dtype": "f32"}],
    "abi": [{"kind": "ptr", "param": 0}, {"kind": "extent", "param": 0, "axis": 0}, {"kind": "ptr", "param": 1},
            {"kind": "scalar", "param": 2}],
    "grid": [{"symbol": "N", "tile": 1024}, 1, 1], "promises": [], "bindings": {"BLOCK": 1024}, "key": "",
    "fingerprint": "stub", "options": {},
}


def saxpy_kernel(folder: Path):
    import phobos
    from phobos import cache

    class Art:
        cubin, contract, asm = b"\x7fELF-stub", SAXPY, {}

    cache.Cache(folder).put("stub", "", Art(), {"source": "stub"})
    return phobos.load(folder)


# ----------------------------------------------------------------------------- real torch reads


def real_torch_reads(n: int):
    """Per-launch cost of reading two real torch tensors (CPU tensors: the same C code paths) vs the stand-ins."""
    try:
        import torch
    except ImportError:
        return None
    x, y = torch.randn(1024), torch.randn(1024)
    fx, fy = FakeTensor(1 << 32, (1024,)), FakeTensor(1 << 33, (1024,))

    def reads(a, b):
        return lambda: ((a.dtype, a.shape, a.stride(), a.get_device(), a.data_ptr() & 15 == 0),
                        (b.dtype, b.shape, b.stride(), b.get_device(), b.data_ptr() & 15 == 0))

    real = per_call_us(reads(x, y), n)[0]
    fake = per_call_us(reads(fx, fy), n)[0]
    return {"torch": torch.__version__, "real_us": real, "stand_in_us": fake}


# ----------------------------------------------------------------------------- main


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=20000, help="calls per round")
    parser.add_argument("--json", type=Path, help="also write the numbers here")
    ns = parser.parse_args(argv)

    reads = real_torch_reads(ns.n)
    install_fakes()
    rows = {}

    # bare entry points: what any launcher pays for the call itself
    ok = (0,)
    bindings_like = lambda *a: ok  # noqa: E731
    rows["bare call, cuda-bindings stand-in (Python function)"] = per_call_us(
        lambda: bindings_like(0x7F00_0000_1000, 1, 1, 1, 256, 1, 1, 0, 0, 0x7F00_0000_2000, 0), ns.n)
    entry = ctypes.CFUNCTYPE(ctypes.c_int)(NOOP_ADDRESS)
    config, fn, params = (ctypes.c_void_p(a) for a in (0x7F00_0000_3000, 0x7F00_0000_1000, 0x7F00_0000_2000))
    rows["bare ctypes call, 4 prebuilt arguments (cuLaunchKernelEx form)"] = per_call_us(
        lambda: entry(config, fn, params, None), ns.n)
    typed = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, *[ctypes.c_uint] * 7, ctypes.c_void_p, ctypes.c_void_p,
                             ctypes.c_void_p)(NOOP_ADDRESS)
    rows["bare ctypes call, 11 typed arguments (cuLaunchKernel form)"] = per_call_us(
        lambda: typed(0x7F00_0000_1000, 1, 1, 1, 256, 1, 1, 0, 0, 0x7F00_0000_2000, None), ns.n)

    with tempfile.TemporaryDirectory() as tmp:
        for ctypes_entry in (True, False):
            install_stub_driver(ctypes_entry)
            k = saxpy_kernel(Path(tmp) / ("ct" if ctypes_entry else "cb"))
            via = "ctypes" if ctypes_entry else "cuda-bindings stand-in"
            x, y = FakeTensor(1 << 32, (1024,)), FakeTensor((1 << 32) + 8192, (1024,))
            cx, cy = FakeCupyArray(1 << 32, (1024,)), FakeCupyArray((1 << 32) + 8192, (1024,))
            gx, gy = CAIArray(1 << 32, (1024,)), CAIArray((1 << 32) + 8192, (1024,))
            grid = (1,)
            one = lambda meta: (1,)  # noqa: E731
            rows[f"phobos k(x, y, a), torch [{via}]"] = per_call_us(lambda: k(x, y, 2.0), ns.n)
            rows[f"phobos k[grid](x, y, a), torch [{via}]"] = per_call_us(lambda: k[grid](x, y, 2.0), ns.n)
            rows[f"phobos k(x, y, a, grid=callable), torch [{via}]"] = per_call_us(lambda: k(x, y, 2.0, grid=one), ns.n)
            rows[f"phobos k(x, y, a), cupy [{via}]"] = per_call_us(lambda: k(cx, cy, 2.0), ns.n)
            rows[f"phobos generic path, __cuda_array_interface__ [{via}]"] = per_call_us(lambda: k(gx, gy, 2.0), ns.n)

    width = max(len(r) for r in rows)
    print(f"Python-side launch overhead per call (stub driver; min / median of 7 rounds of {ns.n} calls, us)")
    for name, (best, median) in rows.items():
        print(f"  {name:<{width}}  {best:6.2f}  {median:6.2f}")
    result = {"us_per_call_min_median": rows}
    if reads:
        key = "phobos k(x, y, a), torch [ctypes]"
        adjusted = rows[key][0] - reads["stand_in_us"] + reads["real_us"]
        print(f"torch {reads['torch']}: reading two real tensors costs {reads['real_us']:.2f} us per launch, the stand-ins "
              f"{reads['stand_in_us']:.2f} us; torch row adjusted to real tensors: {adjusted:.2f} us")
        result["torch_reads"] = dict(reads, adjusted_torch_fast_path_us=adjusted)
    if ns.json:
        ns.json.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
