"""The CUDA driver as the runtime uses it (cuda-bindings, `cuda.bindings.driver`).

* `cuInit` runs on first use; a machine without the driver library gets a
  `NoCudaDriverError` (cuda-bindings raises cuda.pathfinder's
  DynamicLibNotFoundError there, which says nothing about what to do).
* One primary context per device (the one torch and cupy use too, so their
  pointers are valid in it), made current on the calling thread when needed.
* Modules are loaded once per (device, cubin) and functions looked up once.
* Every driver call is checked; errors carry the CUDA name and text.
* Launches, the one call made per kernel launch, go through `launch_entry()`:
  the driver's own `cuLaunchKernelEx`, looked up with `cuGetProcAddress` in
  the library cuda-bindings loaded, and called through ctypes with four
  prebuilt pointer arguments (a fraction of a microsecond, where the
  cuda-bindings wrapper costs microseconds). Without it (an old driver,
  `PHOBOS_LAUNCH=bindings`) launches use `cu.cuLaunchKernel`.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import threading

try:  # cuda-bindings is a dependency, but keep `import phobos.runtime` working without it
    from cuda.bindings import driver as cu
except ImportError as _e:  # pragma: no cover - exercised only where cuda-bindings is missing
    cu = None
    _IMPORT_ERROR: ImportError | None = _e
else:
    _IMPORT_ERROR = None


class CudaError(RuntimeError):
    """A CUDA driver call failed."""

    def __init__(self, message: str, code: int = 0, name: str = ""):
        super().__init__(message)
        self.code = code
        self.name = name


class NoCudaDriverError(CudaError):
    """This machine has no usable CUDA driver or no GPU."""


class NoDeviceError(NoCudaDriverError):
    """No CUDA device was found: the message says how to run the same call in the interpreter.
    `reason` is what the driver said (for front ends that word the remedy their own way)."""

    def __init__(self, reason: str):
        super().__init__(
            f"no CUDA device was found ({reason}). To run the same call on the CPU, in the interpreter, "
            "set PHOBOS_INTERPRET=1 or call k.interpret(...) with the same arguments (docs/interpreter.md); "
            "compiling (phobos.compile(...).artifact(), phobos aot) works without a GPU."
        )
        self.reason = reason


class KernelFault(CudaError):
    """A kernel failed on the device (a trap, an illegal address, ...)."""

    def __init__(self, message: str, code: int = 0, name: str = "", kernel: str = ""):
        super().__init__(message, code, name)
        self.kernel = kernel


class CaptureError(CudaError):
    """A launch that cannot be recorded into a CUDA graph was made on a stream being captured."""


# Errors after which the context is unusable for the rest of the process.
_STICKY = {
    "CUDA_ERROR_ILLEGAL_ADDRESS",
    "CUDA_ERROR_ILLEGAL_INSTRUCTION",
    "CUDA_ERROR_MISALIGNED_ADDRESS",
    "CUDA_ERROR_INVALID_ADDRESS_SPACE",
    "CUDA_ERROR_INVALID_PC",
    "CUDA_ERROR_LAUNCH_FAILED",
    "CUDA_ERROR_HARDWARE_STACK_ERROR",
    "CUDA_ERROR_ASSERT",
}


def error_text(code) -> tuple[str, str]:
    """(name, description) of a CUresult."""
    try:
        err, name = cu.cuGetErrorName(code)
        name = name.decode() if not err else getattr(code, "name", str(code))
        err, text = cu.cuGetErrorString(code)
        text = text.decode() if not err else ""
    except Exception:  # the driver library itself may be missing
        name, text = getattr(code, "name", str(code)), ""
    return name, text


def raise_error(code, what: str, kernel: str | None = None, certain: bool = True):
    """Raise the CudaError for `code`; a KernelFault naming `kernel` when one is given.

    `certain=False` when the fault only showed up at a later synchronisation, so
    `kernel` is the last one Phobos launched rather than surely the culprit.
    """
    if type(code) is int:  # from a ctypes call: name it like cuda-bindings does
        try:
            code = cu.CUresult(code)
        except Exception:
            pass
    name, text = error_text(code)
    detail = f"{name}: {text}" if text else name
    if kernel is not None:
        raise KernelFault(fault_message(name, detail, what, kernel, certain), int(code), name, kernel)
    raise CudaError(f"{what} failed: {detail}", int(code), name)


def fault_message(name: str, detail: str, what: str, kernel: str, certain: bool = True) -> str:
    """What a KernelFault says: the kernel, the driver's error and, for a fault on the device,
    that the driver does not say where (Phobos cubins carry no line info, so the faulting PC
    maps to no source line) and how to find out: check mode (PHOBOS_CHECK=1), which names the
    broken promise's line, and compute-sanitizer. `detail` is the driver's error name and text."""
    if certain:
        msg = f"kernel '{kernel}' failed: {detail}"
    else:
        msg = f"{what} failed: {detail} (the last kernel Phobos launched was '{kernel}')"
    if name not in _STICKY:
        return msg
    msg += " (the CUDA context is now unusable; restart the process)"
    if name in ("CUDA_ERROR_LAUNCH_FAILED", "CUDA_ERROR_ILLEGAL_INSTRUCTION"):
        msg += "; a kernel traps when a promise it checks at entry (@aligned) is broken"
    sanitizer = "compute-sanitizer --tool memcheck python SCRIPT; --tool racecheck for shared memory"
    return (
        f"{msg}. The driver does not say where in '{kernel}' it faulted (the cubin carries no line info); "
        "to find a broken promise (a hint, @aligned, a slice taken as in bounds), rerun with PHOBOS_CHECK=1, "
        f"which reports it at its source line; to find any bad access, rerun under compute-sanitizer ({sanitizer})"
    )


def check(result, what: str):
    """Unpack a cuda-bindings result tuple, raising on a non-zero CUresult."""
    err = result[0]
    if err:
        raise_error(err, what)
    if len(result) == 1:
        return None
    return result[1] if len(result) == 2 else result[1:]


# ----------------------------------------------------------------------------- init

_init_lock = threading.Lock()
_initialized = False
_devices: dict[int, Device] = {}


def _no_driver(reason: str) -> NoDeviceError:
    return NoDeviceError(reason)


def init() -> None:
    """cuInit once per process; raises NoCudaDriverError where there is no driver or GPU."""
    global _initialized
    if _initialized:
        return
    with _init_lock:
        if _initialized:
            return
        if cu is None:
            raise _no_driver(f"no CUDA driver: cuda-bindings is not importable ({_IMPORT_ERROR})") from None
        try:
            (err,) = cu.cuInit(0)
        except Exception as e:  # cuda.pathfinder's DynamicLibNotFoundError (a RuntimeError), OSError
            # the cause (cuda.pathfinder's frames) says nothing a user can act on: left out
            reason = f"no CUDA driver: the driver library (libcuda.so) was not found ({type(e).__name__})"
            raise _no_driver(reason) from None
        if err:
            name, text = error_text(err)
            raise _no_driver(f"cuInit returned {name} ({text})") from None
        count = check(cu.cuDeviceGetCount(), "cuDeviceGetCount")
        if count == 0:
            raise _no_driver("the driver reports no CUDA device")
        _initialized = True


def available() -> bool:
    """Whether a CUDA driver and at least one GPU are present (never raises)."""
    try:
        init()
        return True
    except CudaError:
        return False


def device_count() -> int:
    init()
    return check(cu.cuDeviceGetCount(), "cuDeviceGetCount")


def get_device(ordinal: int = 0) -> Device:
    dev = _devices.get(ordinal)
    if dev is None:
        init()
        with _init_lock:
            dev = _devices.get(ordinal)
            if dev is None:
                dev = _devices[ordinal] = Device(ordinal)
    return dev


# ----------------------------------------------------------------------------- devices

_thread = threading.local()  # .context: the context this thread made current last


class Device:
    """One GPU: its primary context and the modules loaded into it."""

    def __init__(self, ordinal: int):
        count = device_count()
        if not 0 <= ordinal < count:
            raise ValueError(f"CUDA device {ordinal} does not exist (this machine has {count})")
        self.ordinal = ordinal
        self.handle = check(cu.cuDeviceGet(ordinal), "cuDeviceGet")
        self.context = check(cu.cuDevicePrimaryCtxRetain(self.handle), "cuDevicePrimaryCtxRetain")
        self.context_id = int(self.context)
        major = check(
            cu.cuDeviceGetAttribute(cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, self.handle),
            "cuDeviceGetAttribute",
        )
        minor = check(
            cu.cuDeviceGetAttribute(cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, self.handle),
            "cuDeviceGetAttribute",
        )
        self.capability = (major, minor)
        self.name = check(cu.cuDeviceGetName(256, self.handle), "cuDeviceGetName").split(b"\0")[0].decode()
        self._single = count == 1
        self._modules: dict[str, object] = {}
        self._functions: dict[tuple[str, str], object] = {}
        self._lock = threading.Lock()
        self.make_current()

    @property
    def chip(self) -> str:
        return f"sm_{self.capability[0]}{self.capability[1]}"

    def make_current(self) -> None:
        """Make this device's primary context current on the calling thread.

        With one GPU, every runtime (torch, cupy, Phobos) shares its primary
        context, so once a thread has it current it stays so: that is checked
        once per thread. With several GPUs, torch may switch the current device
        between launches, so the driver is asked every time."""
        if self._single and getattr(_thread, "context", None) == self.context_id:
            return
        err, ctx = cu.cuCtxGetCurrent()
        if err or int(ctx) != self.context_id:
            check(cu.cuCtxSetCurrent(self.context), "cuCtxSetCurrent")
        _thread.context = self.context_id

    def function(self, cubin: bytes, entry: str, shared_bytes: int = 0):
        """The CUfunction `entry` of `cubin`, loading the module on first use."""
        digest = hashlib.sha256(cubin).hexdigest()
        fn = self._functions.get((digest, entry))
        if fn is not None:
            return fn
        with self._lock:
            self.make_current()
            module = self._modules.get(digest)
            if module is None:
                err, module = cu.cuModuleLoadData(cubin)
                if err:
                    name, text = error_text(err)
                    hint = ""
                    if name == "CUDA_ERROR_NO_BINARY_FOR_GPU" or name == "CUDA_ERROR_INVALID_IMAGE":
                        hint = f" (the device '{self.name}' is {self.chip}; compile for it with chip='{self.chip}')"
                    raise CudaError(f"loading the cubin of '{entry}' failed: {name}: {text}{hint}", int(err), name)
                self._modules[digest] = module
            fn = check(cu.cuModuleGetFunction(module, entry.encode()), f"cuModuleGetFunction('{entry}')")
            if shared_bytes:
                # past 48 KB of static plus dynamic shared memory a launch needs the opt-in
                # (the static part: mbarriers, ptxas's own)
                static = check(
                    cu.cuFuncGetAttribute(cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, fn),
                    "cuFuncGetAttribute",
                )
                if shared_bytes + int(static) > 48 * 1024:
                    attr = cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
                    check(cu.cuFuncSetAttribute(fn, attr, shared_bytes), "cuFuncSetAttribute")
            self._functions[(digest, entry)] = fn
            return fn

    def module_global(self, cubin: bytes, name: str) -> tuple[int, int]:
        """(address, bytes) of the global `name` in `cubin`'s module (loaded by `function` first)."""
        module = self._modules[hashlib.sha256(cubin).hexdigest()]
        ptr, size = check(cu.cuModuleGetGlobal(module, name.encode()), f"cuModuleGetGlobal('{name}')")
        return int(ptr), int(size)

    # -- memory, for numpy arguments (copied in and out around a synchronous launch)

    def alloc(self, nbytes: int) -> int:
        return int(check(cu.cuMemAlloc(max(nbytes, 1)), "cuMemAlloc"))

    def free(self, ptr: int) -> None:
        check(cu.cuMemFree(ptr), "cuMemFree")

    def copy_in(self, dst: int, host_ptr: int, nbytes: int, stream: int) -> None:
        if nbytes:
            check(cu.cuMemcpyHtoDAsync(dst, host_ptr, nbytes, stream), "cuMemcpyHtoDAsync")

    def copy_out(self, host_ptr: int, src: int, nbytes: int, stream: int) -> None:
        if nbytes:
            check(cu.cuMemcpyDtoHAsync(host_ptr, src, nbytes, stream), "cuMemcpyDtoHAsync")


def single_device() -> bool:
    """Whether this machine has exactly one CUDA device (then every device pointer is on cuda:0)."""
    global _single
    if _single is None:
        _single = device_count() == 1
    return _single


_single: bool | None = None


# ----------------------------------------------------------------------------- the launch entry point

LAUNCH_CONFIG_BYTES = (
    56  # sizeof(CUlaunchConfig): grid xyz, block xyz, shared (u32 each), stream @32, attrs @40, numAttrs @48
)
LAUNCH_STREAM_OFFSET = 32
_launch_entry = None
_launch_entry_resolved = False


def launch_entry():
    """`cuLaunchKernelEx(const CUlaunchConfig*, CUfunction, void** params, void** extra)` as a ctypes
    function (no argument converters: pass ctypes pointers and None), or None: use cu.cuLaunchKernel.

    The address comes from cuGetProcAddress of the driver cuda-bindings loaded, with the same
    default-stream flavour cuda-bindings picks (legacy, or per-thread when
    CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM is set), so stream 0 means the same in both."""
    global _launch_entry, _launch_entry_resolved
    if _launch_entry_resolved:
        return _launch_entry
    entry = None
    if os.environ.get("PHOBOS_LAUNCH", "") != "bindings" and hasattr(cu, "cuGetProcAddress"):
        try:
            flags = cu.CUdriverProcAddress_flags
            per_thread = os.environ.get("CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM", "0") not in ("", "0")
            flag = (
                flags.CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM
                if per_thread
                else flags.CU_GET_PROC_ADDRESS_LEGACY_STREAM
            )
            err, pfn, status = cu.cuGetProcAddress(b"cuLaunchKernelEx", 12000, flag)
            found = cu.CUdriverProcAddressQueryResult.CU_GET_PROC_ADDRESS_SUCCESS
            if not err and status == found and int(pfn):
                entry = ctypes.CFUNCTYPE(ctypes.c_int)(int(pfn))
        except Exception:  # anything unexpected: the cuda-bindings path still works
            entry = None
    _launch_entry, _launch_entry_resolved = entry, True
    return entry


def pointer_device(ptr: int) -> int:
    """The ordinal of the device that owns a device pointer (slow: for generic arrays only)."""
    init()
    attr = cu.CUpointer_attribute.CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL
    err, ordinal = cu.cuPointerGetAttribute(attr, ptr)
    if err:
        name, _ = error_text(err)
        raise ValueError(f"address {ptr:#x} is not device memory known to the CUDA driver ({name})")
    return int(ordinal)


def synchronize(stream: int = 0, kernel: str | None = None) -> None:
    """Wait for `stream` (0: the legacy default stream, which waits for all blocking streams)."""
    (err,) = cu.cuStreamSynchronize(stream)
    if err:
        raise_error(
            err, "cuStreamSynchronize", kernel=kernel or last_kernel() or "<unknown>", certain=kernel is not None
        )


def refuse_capture(stream: int, kernel: str, why: str) -> None:
    """Raise CaptureError (before anything reaches the stream) if `stream` is being captured into a
    CUDA graph: a launch that waits, copies to the host or allocates would end the capture broken."""
    err, status = cu.cuStreamIsCapturing(stream)
    if err:  # the legacy stream while a blocking stream captures (CUDA_ERROR_STREAM_CAPTURE_IMPLICIT)
        name, _ = error_text(err)
        state = f"the driver refuses to use stream {stream:#x} now ({name}: another stream is capturing)"
    elif int(status) == int(cu.CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_NONE):
        return
    else:
        state = f"stream {stream:#x} is being captured into a CUDA graph"
    raise CaptureError(f"kernel '{kernel}' cannot be launched here: {state}, and {why}", int(err), "CAPTURE")


def synchronize_context() -> None:
    """Wait for all work in the current context; a fault names the last kernel Phobos launched."""
    init()
    (err,) = cu.cuCtxSynchronize()
    if err:
        raise_error(err, "cuCtxSynchronize", kernel=last_kernel() or "<unknown>", certain=False)


_last = {"kernel": None}


def note_launch(kernel: str) -> None:
    _last["kernel"] = kernel


def last_kernel() -> str | None:
    return _last["kernel"]
