"""Launching a compiled variant: parameter packing, streams, host arrays, faults.

A `Variant` is one cubin with its contract. `Plan` is the per-launch fast path:
it is made once per argument layout (element types, shapes, strides, devices,
alignment, grid) after `Signature.bind` has checked that layout, and afterwards
a launch only refreshes the pointers and scalars in a prebuilt parameter buffer
(one `struct.pack_into`) and calls `cuLaunchKernel` with the address of a
prebuilt array of pointers into it.
"""

from __future__ import annotations

import ctypes
import os
import struct
import threading
from typing import Dict, List, Optional, Sequence

import numpy as np

from . import driver
from .arrays import HOST, ArrayArg
from .binding import Binding, Signature, bf16_bits

_SYNC_ALWAYS = os.environ.get("PHOBOS_SYNC", "") not in ("", "0")


def stream_handle(stream) -> Optional[int]:
    """A raw CUstream handle from an int, a torch or cupy stream, a CUstream or a `__cuda_stream__` object."""
    if stream is None:
        return None
    if isinstance(stream, int):
        return stream
    for attr in ("cuda_stream", "ptr"):  # torch.cuda.Stream, cupy.cuda.Stream
        handle = getattr(stream, attr, None)
        if isinstance(handle, int):
            return handle
    if hasattr(stream, "__cuda_stream__"):
        return int(stream.__cuda_stream__()[1])
    try:
        return int(stream)  # cuda.bindings CUstream
    except (TypeError, ValueError):
        raise TypeError(f"stream= must be a stream handle (int), a torch/cupy stream or a CUstream, got {type(stream).__name__}") from None


def current_device() -> int:
    """The device of the calling thread's current context, else 0."""
    driver.init()
    err, ordinal = driver.cu.cuCtxGetDevice()
    return int(ordinal) if not err else 0


def runs_on(chip: str, capability) -> bool:
    """Whether a cubin for `chip` (sm_XY, sm_XYa) runs on a device of compute capability (X, Z):
    same major version and Z >= Y; the arch-specific 'a' chips need exactly their own."""
    digits = chip[3:].rstrip("a") if chip.startswith("sm_") else ""
    if not digits.isdigit() or len(digits) < 2:
        return True  # unknown spelling: let the driver decide
    major, minor = int(digits[:-1]), int(digits[-1])
    if chip.endswith("a"):
        return (major, minor) == tuple(capability)
    return major == capability[0] and capability[1] >= minor


class Variant:
    """One compiled kernel variant: cubin + contract, loaded lazily per device."""

    def __init__(self, cubin: bytes, contract: dict, asm: Optional[dict] = None, signature: Optional[Signature] = None):
        self.cubin = cubin
        self.contract = contract
        self.asm = asm or {}
        self.signature = signature or Signature(contract)
        self._functions: Dict[int, object] = {}

    def function(self, device: "driver.Device"):
        fn = self._functions.get(device.ordinal)
        if fn is None:
            chip = self.signature.chip
            if not runs_on(chip, device.capability):
                raise driver.CudaError(f"kernel '{self.signature.name}' was compiled for {chip} but cuda:{device.ordinal} "
                                       f"('{device.name}') is {device.chip}; compile it with chip='{device.chip}'")
            fn = self._functions[device.ordinal] = device.function(self.cubin, self.signature.entry, self.signature.shared_bytes)
        return fn


class Plan:
    """A checked argument layout bound to a loaded variant."""

    def __init__(self, variant: Variant, binding: Binding, device: "driver.Device", grid_fn=None):
        sig = variant.signature
        self.name = sig.name
        self.variant = variant
        self.binding = binding
        self.device = device
        self.function = variant.function(device)
        self.grid = binding.grid
        self.grid_fn = grid_fn  # a callable grid is evaluated per launch
        self.block = (sig.threads, 1, 1)
        self.shared = sig.shared_bytes
        self.signature = sig
        self.template = list(binding.values)
        self.pointer_slots = [(slot, pi) for slot, pi in sig.pointer_slots if binding.arrays[pi].device != HOST]
        bf16 = [(slot, pi) for slot, pi in sig.scalar_slots if sig.params[pi].dtype == "bf16"]
        self.scalar_slots = [(slot, pi) for slot, pi in sig.scalar_slots if sig.params[pi].dtype != "bf16"]
        self.bf16_slots = bf16
        self.host = bool(binding.host_slots)
        self.packer: struct.Struct = sig.packer
        n = len(self.template)
        self.buffer = ctypes.create_string_buffer(max(self.packer.size, 8))
        base = ctypes.addressof(self.buffer)
        self.pointers = (ctypes.c_void_p * max(n, 1))(*[base + 8 * i for i in range(n)])
        self.params_address = ctypes.addressof(self.pointers) if n else 0
        self.lock = threading.Lock()

    # ------------------------------------------------------------------------- fast path

    def values(self, args: Sequence[object], views: List[Optional[ArrayArg]]) -> list:
        values = self.template.copy()
        for slot, pi in self.pointer_slots:
            values[slot] = views[pi].ptr
        for slot, pi in self.scalar_slots:
            values[slot] = args[pi]
        for slot, pi in self.bf16_slots:
            values[slot] = bf16_bits(float(args[pi]))
        return values

    def launch(self, args, views, stream: int, sync: bool) -> None:
        if self.host:
            return self._launch_host(args, views, stream)
        grid = self.grid if self.grid_fn is None else self.signature.grid(self.binding.symbols, self.grid_fn)
        if not (grid[0] and grid[1] and grid[2]):
            return  # an empty grid has no work
        values = self.values(args, views)
        self.device.make_current()
        with self.lock:
            self.packer.pack_into(self.buffer, 0, *values)
            (err,) = driver.cu.cuLaunchKernel(self.function, grid[0], grid[1], grid[2], self.block[0], 1, 1,
                                              self.shared, stream, self.params_address, 0)
        driver.note_launch(self.name)
        if err:
            driver.raise_error(err, "cuLaunchKernel", kernel=self.name)
        if sync or _SYNC_ALWAYS:
            driver.synchronize(stream, kernel=self.name)

    # ------------------------------------------------------------------------- numpy arguments

    def _launch_host(self, args, views, stream: int) -> None:
        """Copy host arrays in, launch, copy them back out, synchronously."""
        dev = self.device
        dev.make_current()
        buffers: Dict[tuple, list] = {}  # one device buffer per distinct host array: [ptr, host, copy, params]
        values = self.values(args, views)
        grid = self.grid if self.grid_fn is None else self.signature.grid(self.binding.symbols, self.grid_fn)
        params = self.signature.contract["params"]
        try:
            for slot, pi in self.binding.host_slots:
                host = views[pi].host
                ident = (host.__array_interface__["data"][0], host.shape, host.strides, host.dtype.str)
                staged = buffers.get(ident)
                if staged is None:  # arguments that alias one array share one device copy
                    flat = np.ascontiguousarray(host)
                    staged = buffers[ident] = [dev.alloc(flat.nbytes), host, flat, []]
                    dev.copy_in(staged[0], flat.ctypes.data, flat.nbytes, stream)
                staged[3].append(pi)
                values[slot] = staged[0]
            if grid[0] and grid[1] and grid[2]:
                with self.lock:
                    self.packer.pack_into(self.buffer, 0, *values)
                    (err,) = driver.cu.cuLaunchKernel(self.function, grid[0], grid[1], grid[2], self.block[0], 1, 1,
                                                      self.shared, stream, self.params_address, 0)
                driver.note_launch(self.name)
                if err:
                    driver.raise_error(err, "cuLaunchKernel", kernel=self.name)
            back = []
            for ptr, host, flat, pis in buffers.values():
                # copy back what the kernel may write (contracts without `access` may write anything)
                written = any(params[pi].get("access", "readwrite") in ("write", "readwrite") for pi in pis)
                if host.flags.writeable and written:
                    out = host if host.flags.c_contiguous else np.empty_like(flat)
                    dev.copy_out(out.ctypes.data, ptr, out.nbytes, stream)
                    back.append((host, out))
            driver.synchronize(stream, kernel=self.name)
            for host, out in back:
                if out is not host:
                    np.copyto(host, out)
        finally:
            for staged in buffers.values():
                try:
                    dev.free(staged[0])
                except driver.CudaError:
                    pass  # after a fault the context refuses everything; the fault is the error to report
