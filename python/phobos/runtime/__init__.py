"""The Phobos runtime: load cubins and launch them from Python (no MLIR needed).

  driver    the CUDA driver through cuda-bindings: init, contexts, modules, errors;
            the launch entry point (cuLaunchKernelEx through ctypes)
  arrays    numpy / torch / cupy / __cuda_array_interface__ / DLPack arguments
  binding   checking arguments against a kernel's contract; specialisation keys
  launch    compiled variants, per-layout plans (packing, launch, overlap rule), numpy copies
  fastpath  generated per-kernel code that finds the plan of torch / cupy arguments
  calling   how kernel objects are called: k(...), k[grid](...), the launcher tried first
  check_record  check mode: the kernel's check record read after each launch (PromiseBroken)

The user-facing objects (phobos.compile, phobos.load, Kernel) are in phobos.runtime.kernel.
"""

from .binding import Binding, Signature
from .check_record import PromiseBroken
from .driver import (
    CaptureError,
    CudaError,
    KernelFault,
    NoCudaDriverError,
    NoDeviceError,
    available,
    device_count,
    get_device,
    synchronize_context,
)
from .launch import Plan, Variant, stream_handle

__all__ = [
    "Binding",
    "CaptureError",
    "CudaError",
    "KernelFault",
    "NoCudaDriverError",
    "NoDeviceError",
    "Plan",
    "PromiseBroken",
    "Signature",
    "Variant",
    "available",
    "device_count",
    "get_device",
    "stream_handle",
    "synchronize",
    "synchronize_context",
]


def synchronize(stream=None) -> None:
    """Wait for `stream` (or the whole current context); a kernel fault raises KernelFault."""
    from . import driver

    if stream is None:
        driver.synchronize_context()
    else:
        driver.init()
        driver.synchronize(stream_handle(stream))
