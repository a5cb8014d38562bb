"""Launch overhead of the Python side, measured without a GPU.

Two stand-ins for the driver, so that what is timed is everything a launch
does in Python plus the call into the driver, not the driver's own work
(about 2 us on an H200 host, on top on a GPU machine):

  * a no-op libcuda (C source below, built with the system's C compiler into a
    temporary folder and put on LD_LIBRARY_PATH of a child process): the real
    cuda-bindings and the real runtime run against it, the launch through
    ctypes (cuLaunchKernelEx from cuGetProcAddress) or through cuda-bindings'
    cuLaunchKernel (PHOBOS_LAUNCH=bindings); the stub records each launch,
    which is checked;
  * without a C compiler, a monkeypatched driver module: the ctypes entry point
    is libm's `fegetround` (takes no arguments, returns 0), the cuda-bindings
    one a Python function returning (0,).

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
import struct
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
    """(min, median) over rounds of the mean time per call, in microseconds of this thread's CPU
    time: the loop never waits, so it is its wall time on an idle machine, and the time other
    processes take the core from it does not count on a busy one."""
    for _ in range(min(n, 2000)):
        fn()
    samples = []
    for _ in range(rounds):
        t0 = time.thread_time()
        for _ in range(n):
            fn()
        samples.append((time.thread_time() - t0) / n * 1e6)
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
        strides = tuple(int(np.prod(shape[i + 1 :])) for i in range(len(shape)))
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
        self.strides = tuple(int(np.prod(shape[i + 1 :])) * self.itemsize for i in range(len(shape)))


FakeCupyArray.__module__ = "cupy"  # the runtime recognises cupy arrays by module and type


class CAIArray:
    """A generic device array: only `__cuda_array_interface__` (a plain instance attribute)."""

    def __init__(self, ptr, shape):
        self.__cuda_array_interface__ = {
            "shape": tuple(shape),
            "typestr": "<f4",
            "data": (ptr, False),
            "strides": None,
            "version": 3,
        }


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
    cu = types.SimpleNamespace(
        cuLaunchKernel=lambda *a: ok,
        cuDeviceGetCount=lambda: (0, 1),
        cuPointerGetAttribute=lambda attr, ptr: (0, 0),
        CUpointer_attribute=types.SimpleNamespace(CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL=9),
    )
    if ctypes_entry:
        cu.cuGetProcAddress = lambda symbol, version, flags: (0, NOOP_ADDRESS, 0)
        cu.CUdriverProcAddress_flags = types.SimpleNamespace(
            CU_GET_PROC_ADDRESS_LEGACY_STREAM=1, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM=2
        )
        cu.CUdriverProcAddressQueryResult = types.SimpleNamespace(CU_GET_PROC_ADDRESS_SUCCESS=0)
    driver.cu = cu
    driver._initialized = True
    device = StubDevice()
    driver.get_device = lambda ordinal=0: device
    for name, value in (("_launch_entry", None), ("_launch_entry_resolved", False), ("_single", None)):
        if hasattr(driver, name):  # forget what the previous stub answered
            setattr(driver, name, value)


SAXPY = {
    "format": 1,
    "kernel": "saxpy",
    "name": "saxpy",
    "chip": "sm_90",
    "threads": 256,
    "shared_bytes": 0,
    "params": [
        {
            "name": "X",
            "kind": "tensor",
            "dtype": "f32",
            "rank": 1,
            "dims": ["N"],
            "shape": [None],
            "contiguity": "last",
            "access": "read",
        },
        {
            "name": "Y",
            "kind": "tensor",
            "dtype": "f32",
            "rank": 1,
            "dims": ["N"],
            "shape": [None],
            "contiguity": "last",
            "access": "readwrite",
        },
        {"name": "a", "kind": "scalar", "dtype": "f32"},
    ],
    "abi": [
        {"kind": "ptr", "param": 0},
        {"kind": "extent", "param": 0, "axis": 0},
        {"kind": "ptr", "param": 1},
        {"kind": "scalar", "param": 2},
    ],
    "grid": [{"symbol": "N", "tile": 1024}, 1, 1],
    "promises": [],
    "bindings": {"BLOCK": 1024},
    "key": "",
    "fingerprint": "stub",
    "options": {},
}


def saxpy_kernel(folder: Path):
    import phobos
    from phobos.runtime import cache

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
        return lambda: (
            (a.dtype, a.shape, a.stride(), a.get_device(), a.data_ptr() & 15 == 0),
            (b.dtype, b.shape, b.stride(), b.get_device(), b.data_ptr() & 15 == 0),
        )

    real = per_call_us(reads(x, y), n)[0]
    fake = per_call_us(reads(fx, fy), n)[0]
    return {"torch": torch.__version__, "real_us": real, "stand_in_us": fake}


# ----------------------------------------------------------------------------- a no-op libcuda

STUB_LIBCUDA = r"""
#include <stdint.h>
#include <string.h>
typedef int CUresult;
typedef struct { unsigned gx, gy, gz, bx, by, bz, shared; void *stream; void *attrs; unsigned nattrs; } Config;
static void *current;
/* launches, grid x, block x, stream, first parameter, entry (1: Ex, 2: plain), 4 parameters */
static uint64_t last[10];
void stub_last(uint64_t *out) { memcpy(out, last, sizeof last); }
static CUresult noop(void) { return 0; }
static CUresult init(unsigned flags) { return 0; }
static CUresult version(int *v) { *v = 13000; return 0; }
static CUresult count(int *c) { *c = 1; return 0; }
static CUresult device(int *d, int ordinal) { *d = ordinal; return 0; }
static CUresult retain(void **ctx, int dev) { *ctx = (void *)0x1000; return 0; }
static CUresult attribute(int *v, int attr, int dev) { *v = attr == 75 ? 9 : 0; return 0; }  /* sm_90 */
static CUresult name(char *s, int len, int dev) { strncpy(s, "no-op stub", len); return 0; }
static CUresult get_current(void **ctx) { *ctx = current; return 0; }
static CUresult set_current(void *ctx) { current = ctx; return 0; }
static CUresult ctx_device(int *d) { *d = 0; return 0; }
static CUresult load(void **m, const void *image) { *m = (void *)0x2000; return 0; }
static CUresult function(void **f, void *m, const char *n) { *f = (void *)0x3000; return 0; }
static CUresult pointer(void *data, int attr, uint64_t p) { *(int *)data = 0; return 0; }
static CUresult error_name(int e, const char **s) { *s = "CUDA_ERROR_STUB"; return 0; }
static CUresult launch(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                       unsigned shared, void *stream, void **params, void **extra) {
  last[0]++; last[1] = gx; last[2] = bx; last[3] = (uint64_t)stream; last[4] = *(uint64_t *)params[0]; last[5] = 2;
  for (int i = 0; i < 4; i++) last[6 + i] = *(uint64_t *)params[i];
  return 0;
}
static CUresult launch_ex(const Config *c, void *f, void **params, void **extra) {
  last[0]++; last[1] = c->gx; last[2] = c->bx; last[3] = (uint64_t)c->stream;
  last[4] = *(uint64_t *)params[0]; last[5] = 1;
  for (int i = 0; i < 4; i++) last[6 + i] = *(uint64_t *)params[i];
  return 0;
}
static struct { const char *name; void *fn; } table[] = {
  {"cuInit", init}, {"cuDriverGetVersion", version}, {"cuDeviceGetCount", count}, {"cuDeviceGet", device},
  {"cuDevicePrimaryCtxRetain", retain}, {"cuDeviceGetAttribute", attribute}, {"cuDeviceGetName", name},
  {"cuCtxGetCurrent", get_current}, {"cuCtxSetCurrent", set_current}, {"cuCtxGetDevice", ctx_device},
  {"cuModuleLoadData", load}, {"cuModuleGetFunction", function}, {"cuPointerGetAttribute", pointer},
  {"cuGetErrorName", error_name}, {"cuGetErrorString", error_name}, {"cuLaunchKernel", launch},
  {"cuLaunchKernelEx", launch_ex},
};
CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int v, uint64_t flags, int *status) {
  *pfn = (void *)noop;
  for (unsigned i = 0; i < sizeof table / sizeof table[0]; i++)
    if (!strcmp(symbol, table[i].name)) *pfn = table[i].fn;
  if (!strcmp(symbol, "cuGetProcAddress")) *pfn = (void *)cuGetProcAddress_v2;
  if (status) *status = 0;
  return 0;
}
CUresult cuGetProcAddress(const char *symbol, void **pfn, int v, uint64_t flags) {
  return cuGetProcAddress_v2(symbol, pfn, v, flags, 0);
}
CUresult cuInit(unsigned flags) { return 0; }
CUresult cuDriverGetVersion(int *v) { return version(v); }
"""


def build_stub_libcuda(folder: Path) -> bool:
    """Compile the no-op libcuda.so.1 into `folder`; False without a C compiler."""
    import shutil
    import subprocess

    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        return False
    (folder / "stub.c").write_text(
        STUB_LIBCUDA
    )  # launches record: count, grid x, block x, stream, 1st param, entry, 4 params
    done = subprocess.run(
        [cc, "-O2", "-shared", "-fPIC", "-o", str(folder / "libcuda.so.1"), str(folder / "stub.c")],
        capture_output=True,
        text=True,
    )
    return done.returncode == 0


def libcuda_rows(n: int) -> dict:
    """In the child process (the no-op libcuda on the library path): real cuda-bindings, real runtime."""
    import os

    from cuda.bindings import driver as cu

    from phobos.runtime import driver

    stub = ctypes.CDLL("libcuda.so.1")
    last = (ctypes.c_uint64 * 10)()

    def check(first_param, entry):
        """That the last launch reached the stub driver with `first_param` through `entry`."""
        stub.stub_last(last)
        assert last[4] == first_param and last[5] == entry, list(last)

    def launched(fn, first_param, entry):
        """Time `fn` and check that it reached the stub driver."""
        stub.stub_last(last)
        before = last[0]
        timing = per_call_us(fn, n)
        stub.stub_last(last)
        assert last[0] > before
        check(first_param, entry)
        return timing

    rows = {}
    device = driver.get_device(0)
    fn = device.function(b"\x7fELF-stub", "saxpy")
    params = ctypes.create_string_buffer(32)
    struct.pack_into("<QqQf4x", params, 0, 1 << 32, 1024, (1 << 32) + 8192, 2.0)
    pointers = (ctypes.c_void_p * 4)(*[ctypes.addressof(params) + 8 * i for i in range(4)])
    address = ctypes.addressof(pointers)
    rows["bare cuda-bindings cuLaunchKernel, prebuilt params"] = launched(
        lambda: cu.cuLaunchKernel(fn, 1, 1, 1, 256, 1, 1, 0, 0, address, 0), 1 << 32, 2
    )
    err, pfn, status = cu.cuGetProcAddress(
        b"cuLaunchKernelEx", 12000, cu.CUdriverProcAddress_flags.CU_GET_PROC_ADDRESS_LEGACY_STREAM
    )
    entry = ctypes.CFUNCTYPE(ctypes.c_int)(int(pfn))
    config = ctypes.create_string_buffer(56)
    struct.pack_into("<7I4xQ", config, 0, 1, 1, 1, 256, 1, 1, 0, 0)
    args = (ctypes.c_void_p(ctypes.addressof(config)), ctypes.c_void_p(int(fn)), ctypes.c_void_p(address))
    rows["bare ctypes cuLaunchKernelEx, prebuilt config and params"] = launched(lambda: entry(*args, None), 1 << 32, 1)

    with tempfile.TemporaryDirectory() as tmp:
        entries = []
        for via, native in (("ctypes", True), ("ctypes", False), ("bindings", False)):
            if via == "bindings":
                os.environ["PHOBOS_LAUNCH"] = "bindings"
                if hasattr(driver, "_launch_entry_resolved"):
                    driver._launch_entry_resolved = False
            k = saxpy_kernel(Path(tmp) / f"{via}{native}")
            code = 1 if via == "ctypes" and getattr(driver, "launch_entry", lambda: None)() is not None else 2
            tag = "ctypes cuLaunchKernelEx" if code == 1 else "cuda-bindings cuLaunchKernel"
            if code == 1:
                tag += ", C launcher" if native else ", Python launcher"
            for name, fn_, first in _phobos_rows(k, native):
                entries.append((f"{name} [{tag}]", fn_, lambda f=first, c=code: check(f, c)))
        rows.update(interleaved_us(entries, n))
    return rows


def _phobos_rows(k, native: bool = True):
    """(row name, call, its first kernel parameter) of the Phobos launch paths on one kernel, each
    launched once already, with the C launcher (runtime.clauncher) where it applies, or not."""
    x, y = FakeTensor(1 << 32, (1024,)), FakeTensor((1 << 32) + 8192, (1024,))
    cx, cy = FakeCupyArray(1 << 33, (1024,)), FakeCupyArray((1 << 33) + 8192, (1024,))
    gx, gy = CAIArray(1 << 34, (1024,)), CAIArray((1 << 34) + 8192, (1024,))
    grid = (1,)
    one = lambda meta: (1,)  # noqa: E731
    # two layouts in turn (same first address): each launch misses the last layout's launcher
    layouts = itertools.cycle([(x, y), (FakeTensor(1 << 32, (2048,)), FakeTensor((1 << 32) + 16384, (2048,)))])
    rows = [
        ("phobos k(x, y, a), torch", lambda: k(x, y, 2.0), 1 << 32),
        ("phobos k(x, y, a), torch, 2 layouts in turn", lambda: k(*next(layouts), 2.0), 1 << 32),
        ("phobos k[grid](x, y, a), torch", lambda: k[grid](x, y, 2.0), 1 << 32),
        ("phobos k(x, y, a, grid=callable), torch", lambda: k(x, y, 2.0, grid=one), 1 << 32),
        ("phobos k(x, y, a), cupy", lambda: k(cx, cy, 2.0), 1 << 33),
        ("phobos generic path, __cuda_array_interface__", lambda: k(gx, gy, 2.0), 1 << 34),
    ]
    from phobos.runtime import clauncher

    was, clauncher.enabled = clauncher.enabled, native
    try:
        for _, fn, _ in rows + rows[1:2]:  # the layouts' launchers are made now (both layouts in turn)
            fn()
    finally:
        clauncher.enabled = was
    return rows


def interleaved_us(entries, n: int, rounds: int = 7) -> dict:
    """per_call_us of each (name, fn, check) with the rounds of all of them in turn (old and new paths
    under the same load); check() after each round."""
    for _, fn, _ in entries:
        for _ in range(min(n, 2000)):
            fn()
    samples: dict[str, list[float]] = {name: [] for name, _, _ in entries}
    for _ in range(rounds):
        for name, fn, check in entries:
            t0 = time.thread_time()
            for _ in range(n):
                fn()
            samples[name].append((time.thread_time() - t0) / n * 1e6)
            check()
    return {name: (min(v), statistics.median(v)) for name, v in samples.items()}


def python_stub_rows(n: int) -> dict:
    """The monkeypatched driver (no C compiler needed)."""
    rows = {}
    ok = (0,)
    bindings_like = lambda *a: ok  # noqa: E731
    rows["bare call, cuda-bindings stand-in (Python function)"] = per_call_us(
        lambda: bindings_like(0x7F00_0000_1000, 1, 1, 1, 256, 1, 1, 0, 0, 0x7F00_0000_2000, 0), n
    )
    entry = ctypes.CFUNCTYPE(ctypes.c_int)(NOOP_ADDRESS)
    config, fn, params = (ctypes.c_void_p(a) for a in (0x7F00_0000_3000, 0x7F00_0000_1000, 0x7F00_0000_2000))
    rows["bare ctypes call, 4 prebuilt arguments (cuLaunchKernelEx form)"] = per_call_us(
        lambda: entry(config, fn, params, None), n
    )
    typed = ctypes.CFUNCTYPE(
        ctypes.c_int, ctypes.c_void_p, *[ctypes.c_uint] * 7, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p
    )(NOOP_ADDRESS)
    rows["bare ctypes call, 11 typed arguments (cuLaunchKernel form)"] = per_call_us(
        lambda: typed(0x7F00_0000_1000, 1, 1, 1, 256, 1, 1, 0, 0, 0x7F00_0000_2000, None), n
    )
    entries = []
    with tempfile.TemporaryDirectory() as tmp:
        for ctypes_entry, native in ((True, True), (True, False), (False, False)):
            install_stub_driver(ctypes_entry)
            k = saxpy_kernel(Path(tmp) / f"{ctypes_entry}{native}")
            via = f"ctypes, {'C' if native else 'Python'} launcher" if ctypes_entry else "cuda-bindings stand-in"
            entries += [(f"{name} [{via}]", fn_, lambda: None) for name, fn_, _ in _phobos_rows(k, native)]
        rows.update(interleaved_us(entries, n))
    return rows


def _print(title: str, rows: dict) -> None:
    width = max(len(r) for r in rows)
    print(title)
    for name, (best, median) in rows.items():
        print(f"  {name:<{width}}  {best:6.2f}  {median:6.2f}")


# ----------------------------------------------------------------------------- main


def main(argv=None):
    import os
    import subprocess

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=20000, help="calls per round")
    parser.add_argument("--json", type=Path, help="also write the numbers here")
    parser.add_argument("--record", action="store_true", help="write bench/results/launch-cpu.json (common.save)")
    parser.add_argument("--libcuda-child", action="store_true", help=argparse.SUPPRESS)
    ns = parser.parse_args(argv)

    if ns.libcuda_child:  # print the rows as JSON for the parent
        install_fakes()
        print(json.dumps(libcuda_rows(ns.n)))
        return

    load_before = os.getloadavg()
    reads = real_torch_reads(ns.n)
    install_fakes()
    result = {}
    with tempfile.TemporaryDirectory() as tmp:
        if build_stub_libcuda(Path(tmp)):
            env = dict(os.environ, LD_LIBRARY_PATH=tmp + os.pathsep + os.environ.get("LD_LIBRARY_PATH", ""))
            env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
            env.pop("PHOBOS_LAUNCH", None)
            child = subprocess.run(
                [sys.executable, __file__, "--libcuda-child", "-n", str(ns.n)], env=env, capture_output=True, text=True
            )
            if child.returncode:
                raise SystemExit(f"the no-op libcuda run failed:\n{child.stderr}")
            result["no-op libcuda, real cuda-bindings"] = json.loads(child.stdout.strip().splitlines()[-1])
        result["monkeypatched driver"] = python_stub_rows(ns.n)
    print(f"Python-side launch overhead per call, us of thread CPU time (min and median of 7 rounds of {ns.n} calls)")
    for title, rows in result.items():
        _print(f"{title}:", rows)
    if reads:
        for title, rows in result.items():
            for name, (best, _) in rows.items():
                if name.startswith("phobos k(x, y, a), torch") and "ctypes" in name:
                    adjusted = best - reads["stand_in_us"] + reads["real_us"]
                    print(
                        f"torch {reads['torch']}: two real tensors' reads cost {reads['real_us']:.2f} us per launch, "
                        f"the stand-ins' {reads['stand_in_us']:.2f} us; {name} ({title}) adjusted: {adjusted:.2f} us"
                    )
                    reads.setdefault("adjusted", {})[f"{title}: {name}"] = adjusted
        result["torch_reads"] = reads
    if ns.json:
        ns.json.write_text(json.dumps(result, indent=1) + "\n")
    if ns.record:  # the machine (CPUs, load average before and after), commit and rows
        sys.path.insert(0, str(ROOT / "bench"))
        from common import save

        load = {"before": load_before, "after": os.getloadavg(), "cpus": os.cpu_count()}
        note = "us of thread CPU time per launch, (min, median) of 7 interleaved rounds; no GPU (no-op driver)"
        print(save("launch-cpu", {"calls_per_round": ns.n, "load_average": load, "units": note, "rows": result}))


if __name__ == "__main__":
    main()
