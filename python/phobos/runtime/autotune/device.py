"""The GPU side of a tuning (DeviceRunner): scratch copies of the arguments, launches, read-back,
and where the outputs are compared (compare_backend)."""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Callable

import numpy as np

from ... import fp8
from ..arrays import _ML_DTYPES, HOST, ITEMSIZE, contiguous_strides
from .checking import EventTimer
from .results import Candidate

ENV_COMPARE = "PHOBOS_AUTOTUNE_COMPARE"  # where outputs are compared: auto (default), host, torch, cupy


# ----------------------------------------------------------------------------- the device side


def _host_dtype(dtype: str):
    from ..interpret import HOST_DTYPES

    return np.uint16 if dtype == "bf16" else HOST_DTYPES[dtype]


def _bf16_to_f32(bits: np.ndarray) -> np.ndarray:
    return (bits.astype(np.uint32) << 16).view(np.float32)


class _DeviceTensor:
    """Device memory shaped like an argument: its extents, element strides and 16-byte alignment
    class, so a launch on it has the argument's specialisation key."""

    def __init__(self, device, view, like_cls):
        self.device = device
        self.dtype = view.dtype
        self.shape = tuple(view.shape)
        from ..binding import device_strides

        self.strides = device_strides(view)
        size = ITEMSIZE[view.dtype]
        empty = any(e == 0 for e in self.shape)
        self.nbytes = 0 if empty else size * (1 + sum((e - 1) * s for e, s in zip(self.shape, self.strides)))
        misalign = 0 if view.device == HOST or view.ptr is None else view.ptr % 16
        self.raw = device.alloc(self.nbytes + 16)
        self.ptr = self.raw + misalign  # cuMemAlloc returns 256-byte aligned memory
        self.arg = like_cls(view.dtype, self.shape, strides=self.strides)
        self.arg.__cuda_array_interface__["data"] = (self.ptr, False)

    def fill_from(self, view) -> None:
        from .. import driver

        if not self.nbytes:
            return
        if view.device == HOST:
            flat = np.ascontiguousarray(view.host)
            driver.check(driver.cu.cuMemcpyHtoD(self.ptr, flat.ctypes.data, self.nbytes), "cuMemcpyHtoD")
        else:
            driver.check(driver.cu.cuMemcpyDtoD(self.ptr, view.ptr, self.nbytes), "cuMemcpyDtoD")

    def copy_from(self, other: _DeviceTensor) -> None:
        from .. import driver

        if self.nbytes:
            driver.check(driver.cu.cuMemcpyDtoD(self.ptr, other.ptr, self.nbytes), "cuMemcpyDtoD")

    def fill_bytes(self, value: int) -> None:
        from .. import driver

        if self.nbytes:
            driver.check(driver.cu.cuMemsetD8(self.ptr, value, self.nbytes), "cuMemsetD8")

    def download(self) -> np.ndarray:
        """The elements (not the padding), as a host array (bf16 as float32 values)."""
        from .. import driver

        host = _host_dtype(self.dtype)
        raw = np.empty(max(self.nbytes, 1), np.uint8)
        if self.nbytes:
            driver.check(driver.cu.cuMemcpyDtoH(raw.ctypes.data, self.ptr, self.nbytes), "cuMemcpyDtoH")
        item = np.dtype(host).itemsize
        if self.nbytes and self.strides == contiguous_strides(self.shape):  # packed: no second copy
            out = raw.view(host).reshape(self.shape)
        else:
            out = np.lib.stride_tricks.as_strided(
                raw.view(host), self.shape, tuple(s * item for s in self.strides), writeable=False
            ).copy()
        return _bf16_to_f32(out) if self.dtype == "bf16" else out

    def snapshot(self, backend: str):
        """A copy of the elements (not the padding) in device memory, contiguous: a torch tensor or
        a cupy array (bf16 as float32 values, as download gives them). The copy is complete when
        this returns, so the buffer may be written again at once."""
        bits = np.dtype(np.int16 if self.dtype == "bf16" else _host_dtype(self.dtype))
        cai = {
            "shape": self.shape,
            "typestr": bits.str,
            "strides": tuple(s * bits.itemsize for s in self.strides),
            "data": (self.ptr, False),
            "version": 3,
        }
        if backend == "torch":
            import torch

            where = torch.device("cuda", self.device.ordinal)
            out = torch.empty(self.shape, dtype=_TORCH_DTYPES[bits.str](torch), device=where)
            if self.nbytes:
                out.copy_(torch.as_tensor(_ArrayInterface(cai), device=where))
                torch.cuda.current_stream(where).synchronize()
            return out.view(torch.bfloat16).float() if self.dtype == "bf16" else out
        import cupy

        with cupy.cuda.Device(self.device.ordinal):
            if not self.nbytes:
                out = cupy.empty(self.shape, dtype=bits)
            else:
                out = cupy.asarray(_ArrayInterface(cai)).copy()
                cupy.cuda.get_current_stream().synchronize()
            if self.dtype == "bf16":
                out = (out.view(cupy.uint16).astype(cupy.uint32) << 16).view(cupy.float32)
            return out

    def free(self) -> None:
        try:
            self.device.free(self.raw)
        except Exception:
            pass


class _ArrayInterface:
    """Device memory described by a __cuda_array_interface__ (what torch and cupy view)."""

    def __init__(self, cai: dict):
        self.__cuda_array_interface__ = cai


# numpy typestr -> torch dtype (bf16 is read as int16 bits)
_TORCH_DTYPES = {
    "<f2": lambda t: t.float16,
    "<f4": lambda t: t.float32,
    "<f8": lambda t: t.float64,
    "|b1": lambda t: t.bool,
    "|i1": lambda t: t.int8,
    "|u1": lambda t: t.uint8,  # u8, and fp8 codes (compare decodes them)
    "<i2": lambda t: t.int16,
    "<i4": lambda t: t.int32,
    "<u4": lambda t: t.uint32,  # u32: torch >= 2.3; an older torch's AttributeError sends _read to the host
    "<i8": lambda t: t.int64,
}


def compare_backend(views, setting: str | None = None) -> str:
    """Where a tuning compares outputs: 'torch' or 'cupy' (on the GPU) or 'host' (numpy).

    setting (default $PHOBOS_AUTOTUNE_COMPARE, else 'auto'): 'auto' takes the framework of the
    tensor arguments (torch tensors: torch; cupy arrays: cupy), else one the process has already
    imported, else the host (numpy arguments, as `phobos tune` makes, never import either);
    'host', 'torch' or 'cupy' choose. A framework that cannot reach the GPU means the host."""
    setting = (setting or os.environ.get(ENV_COMPARE) or "auto").strip().lower()
    if setting not in ("auto", "host", "torch", "cupy"):
        raise ValueError(f"{ENV_COMPARE} must be auto, host, torch or cupy, got {setting!r}")
    if setting == "host":
        return "host"
    if setting == "auto":
        used = [getattr(v, "framework", None) for v in views if v is not None]
        order = [f for f in ("torch", "cupy") if f in used] + [f for f in ("torch", "cupy") if f in sys.modules]
    else:
        order = [setting]
    for name in dict.fromkeys(order):
        try:
            if name == "torch":
                import torch

                if torch.cuda.is_available():
                    return "torch"
            else:
                import cupy

                if cupy.cuda.runtime.getDeviceCount() > 0:
                    return "cupy"
        except Exception:  # not installed, or no GPU for it: the next, else the host
            continue
    return "host"


class DeviceRunner:
    """Runs candidates on scratch copies of the arguments, on one device and stream.

    Tensors the kernel writes (contract access write/readwrite) get a scratch buffer and a
    pristine copy; read-only device tensors are used in place; host (numpy) arrays are uploaded.
    Each checked run starts from the pristine contents, so a candidate sees exactly the
    arguments of the call, and the caller's tensors are never written. The outputs are compared
    on the GPU (copies as torch tensors or cupy arrays, `compare_on`, see compare_backend) or,
    without either, on the host."""

    def __init__(self, signature, args, views, *, grid=None, stream: int = 0, compare_on: str | None = None):
        from .. import driver
        from ..aot import like

        self.signature = signature
        self.grid = grid
        self.stream = stream
        self.args = list(args)
        ordinal = next((views[i].device for i in signature.tensors if views[i].device not in (None, HOST)), None)
        self.device = driver.get_device(ordinal or 0)
        self.device.make_current()
        driver.synchronize_context()  # the arguments' producers (other streams) are done
        params = signature.contract["params"]
        self.written = [i for i in signature.tensors if params[i].get("access", "readwrite") != "read"]
        # pure outputs start poisoned (all bits set: NaN, -1) when a candidate is the reference, so
        # a candidate that leaves elements unwritten disagrees even where the old contents were right
        self.write_only = {i for i in self.written if params[i].get("access") == "write"}
        self.poison = True
        self.outputs_info = [(signature.params[i].name, signature.params[i].dtype) for i in self.written]
        self.bytes_moved = _bytes_moved(signature, views)
        self.compare_on = compare_backend([views[i] for i in signature.tensors], compare_on)
        self.compare_fallback: str | None = None  # why the device comparison gave way to the host's
        self._buffers: list[_DeviceTensor] = []
        self._pristine: dict[int, _DeviceTensor] = {}
        self._host_inputs = {i: views[i] for i in signature.tensors}
        launch_args = list(args)
        try:
            for i in signature.tensors:
                v = views[i]
                if i in self.written or v.device == HOST:
                    scratch = self._buffer(v, like)
                    scratch.fill_from(v)
                    launch_args[i] = scratch.arg
                    if i in self.written:
                        pristine = self._buffer(v, like)
                        pristine.copy_from(scratch)
                        self._pristine[i] = pristine
                        self._pristine[i].scratch = scratch
            driver.synchronize_context()
        except BaseException:
            self.close()
            raise
        self.launch_args = tuple(launch_args)

    def _buffer(self, view, like) -> _DeviceTensor:
        t = _DeviceTensor(self.device, view, like)
        self._buffers.append(t)
        return t

    def _launch(self, c: Candidate) -> None:
        c.kernel(*self.launch_args, grid=self.grid, stream=self.stream)

    def outputs(self, c: Candidate) -> list[np.ndarray]:
        from .. import driver

        for i, p in self._pristine.items():
            if self.poison and i in self.write_only:
                p.scratch.fill_bytes(0xFF)
            else:
                p.scratch.copy_from(p)
        self._launch(c)
        driver.synchronize(self.stream, kernel=c.name)
        return [self._read(self._pristine[i].scratch) for i in self.written]

    def _read(self, t: _DeviceTensor):
        """The elements of a scratch tensor where they are compared: a device copy, else the host."""
        if self.compare_on != "host":
            try:
                return t.snapshot(self.compare_on)
            except Exception as e:  # the framework refused the memory: compare on the host from now on
                self.compare_fallback = f"{self.compare_on}: {type(e).__name__}: {e}"
                self.compare_on = "host"
        return t.download()

    def reference_outputs(self, fn) -> list[np.ndarray]:
        """Runs the user's reference on host copies of the arguments: it writes the outputs in place
        (like the kernel) or returns them (one array, or a tuple in parameter order)."""
        from ..interpret import HOST_DTYPES

        host_args = list(self.args)
        for i in self.signature.tensors:
            p = self._pristine.get(i)
            if p is not None:
                host_args[i] = p.download()
            else:
                v = self._host_inputs[i]
                if v.device == HOST:
                    host_args[i] = np.array(v.host)
                else:
                    tmp = _DeviceTensor(self.device, v, _like())
                    try:
                        tmp.fill_from(v)
                        host_args[i] = tmp.download()
                    finally:
                        tmp.free()
        returned = fn(*host_args)
        if returned is None:
            got = [host_args[i] for i in self.written]
        else:
            got = list(returned) if isinstance(returned, (tuple, list)) else [returned]
            if len(got) != len(self.written):
                names = ", ".join(n for n, _ in self.outputs_info)
                raise ValueError(f"the reference returned {len(got)} arrays; the kernel writes {names}")
        out = []
        for (_name, dtype), g in zip(self.outputs_info, got):
            g = np.asarray(_to_host(g))
            if dtype in fp8.FORMATS:
                out.append(_fp8_codes(g, dtype))
            else:
                out.append(g.astype(HOST_DTYPES[dtype]) if dtype != "bf16" else g.astype(np.float32))
        return [self._upload(g) for g in out]

    def _upload(self, a: np.ndarray):
        """A host reference output where candidates' outputs are compared (uploaded once)."""
        if self.compare_on == "torch":
            import torch

            return torch.as_tensor(np.ascontiguousarray(a), device=torch.device("cuda", self.device.ordinal))
        if self.compare_on == "cupy":
            import cupy

            with cupy.cuda.Device(self.device.ordinal):
                return cupy.asarray(a)
        return a

    def launcher(self, c: Candidate) -> Callable[[], None]:
        kernel, args, grid, stream = c.kernel, self.launch_args, self.grid, self.stream
        return lambda: kernel(*args, grid=grid, stream=stream)

    def default_timer(self) -> EventTimer:
        return EventTimer(self.device, self.stream)

    def close(self) -> None:
        for b in self._buffers:
            b.free()
        self._buffers = []


def _like():
    from ..aot import like

    return like


def _fp8_codes(a: np.ndarray, dtype: str) -> np.ndarray:
    """A reference output of the fp8 type `dtype` as its codes, as candidates' outputs come back:
    uint8 arrays hold codes already; numbers (ml_dtypes' float8 included) are converted as the GPU
    converts (astype(uint8) would truncate the values to integers)."""
    if a.dtype == np.uint8:
        return a
    if _ML_DTYPES.get(a.dtype.name) == dtype:
        return a.view(np.uint8)
    return fp8.encode(a.astype(np.float64), dtype)


def _to_host(a):
    if hasattr(a, "detach") and hasattr(a, "cpu"):  # torch
        a = a.detach().cpu()
        return (a.float() if "float8" in str(a.dtype) else a).numpy()  # numpy has no fp8: the values
    if hasattr(a, "get") and hasattr(a, "__cuda_array_interface__"):  # cupy
        return a.get()
    return a


def _bytes_moved(signature, views) -> int:
    """Bytes a launch reads and writes once each: read tensors once, written ones once,
    read-and-written ones twice (what the GB/s column divides by)."""
    params = signature.contract["params"]
    total = 0
    for i in signature.tensors:
        v = views[i]
        n = math.prod(v.shape) * ITEMSIZE.get(v.dtype, 0)
        total += n * (2 if params[i].get("access", "readwrite") == "readwrite" else 1)
    return total
