"""Array arguments: what the launcher needs to know about each tensor argument.

`describe(value)` turns a numpy array, a torch tensor, a cupy array, anything
with `__cuda_array_interface__`, or anything with `__dlpack__` into an
`ArrayArg`: base address, extents, strides in elements, element type, device.
Device arrays are used in place (no copies); numpy arrays live on the host and
the launcher copies them in and out. torch and cupy are recognised by type
(without importing them) because their generic interfaces cost tens of
microseconds per call.
"""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Callable

ITEMSIZE = {
    "f16": 2,
    "bf16": 2,
    "f32": 4,
    "f64": 8,
    "i1": 1,
    "i8": 1,
    "u8": 1,
    "i32": 4,
    "u32": 4,
    "i64": 8,
    "f8e4m3": 1,
    "f8e5m2": 1,
}
# Element types whose numpy arrays come from ml_dtypes (named by dtype.name; their typestrs say little).
_ML_DTYPES = {"bfloat16": "bf16", "float8_e4m3fn": "f8e4m3", "float8_e5m2": "f8e5m2"}
HOST = -1  # `device` of an array in host memory

# numpy dtype.str (byte order stripped) -> Phobos element type
_TYPESTR = {
    "f2": "f16",
    "f4": "f32",
    "f8": "f64",
    "b1": "i1",
    "i1": "i8",
    "i4": "i32",
    "i8": "i64",
    "u1": "u8",
    "u4": "u32",
}


class ArrayArg:
    """One tensor argument as the kernel sees it."""

    __slots__ = ("ptr", "shape", "strides", "dtype", "device", "framework", "host")

    def __init__(self, ptr, shape, strides, dtype, device, framework, host=None):
        self.ptr = ptr  # device address of the first element (None for host arrays)
        self.shape = shape  # tuple of extents
        self.strides = strides  # tuple of strides in elements
        self.dtype = dtype  # Phobos element type name, or the foreign name when unsupported
        self.device = device  # CUDA ordinal, HOST, or None (ask the driver)
        self.framework = framework  # "numpy", "torch", "cupy", "cai", "dlpack": picks the stream
        self.host = host  # the numpy array, for host arguments

    @property
    def layout(self) -> tuple:
        """Everything the launch checks depend on, except the address itself."""
        return (self.dtype, self.shape, self.strides, self.device, self.ptr is None or self.ptr % 16 == 0)

    def __repr__(self):
        where = "host" if self.device == HOST else f"cuda:{self.device}"
        return f"ArrayArg({self.dtype}{list(self.shape)}, strides={self.strides}, {where})"


_np_dtype_names: dict[object, str] = {}


def _np_dtype_name(dtype) -> str:
    name = _np_dtype_names.get(dtype)
    if name is None:  # first sight of this dtype (numpy's dtype.name alone costs microseconds)
        if dtype.name in _ML_DTYPES:
            name = _ML_DTYPES[dtype.name]
        elif not dtype.isnative:  # byte-swapped data: not an element type a kernel reads
            name = dtype.str
        else:
            name = _TYPESTR.get(dtype.str[1:], str(dtype))
        _np_dtype_names[dtype] = name
    return name


def _elements(byte_strides, itemsize: int, what: str) -> tuple[int, ...]:
    out = []
    for s in byte_strides:
        if s % itemsize:
            raise ValueError(f"{what}: a stride of {s} bytes is not a whole number of {itemsize}-byte elements")
        out.append(s // itemsize)
    return tuple(out)


def _contiguous_strides(shape) -> tuple[int, ...]:
    strides, step = [], 1
    for extent in reversed(shape):
        strides.append(step)
        step *= max(extent, 1)
    return tuple(reversed(strides))


# ----------------------------------------------------------------------------- describers


def _numpy(a) -> ArrayArg:
    return ArrayArg(
        None, a.shape, _elements(a.strides, a.itemsize, "numpy array"), _np_dtype_name(a.dtype), HOST, "numpy", a
    )


_torch_dtypes: dict[object, str] = {}


def torch_dtype_name(t) -> str:
    """The Phobos element type of a torch tensor (the torch name when there is none)."""
    if not _torch_dtypes:
        torch = sys.modules["torch"]
        _torch_dtypes.update(
            {
                torch.float16: "f16",
                torch.bfloat16: "bf16",
                torch.float32: "f32",
                torch.float64: "f64",
                torch.bool: "i1",
                torch.int8: "i8",
                torch.int32: "i32",
                torch.int64: "i64",
            }
        )
        # torch.uint32: 2.3 and newer; the float8 types: 2.1 and newer
        for name, dtype in (("uint8", "u8"), ("uint32", "u32"), ("float8_e4m3fn", "f8e4m3"), ("float8_e5m2", "f8e5m2")):
            if hasattr(torch, name):
                _torch_dtypes[getattr(torch, name)] = dtype
    return _torch_dtypes.get(t.dtype) or str(t.dtype)


def _torch(t) -> ArrayArg:
    dtype = torch_dtype_name(t)
    device = t.get_device()
    if device < 0:
        raise _WrongDevice(f"a torch tensor on '{t.device}'; pass a CUDA tensor (x.cuda()) or a numpy array")
    return ArrayArg(t.data_ptr(), tuple(t.shape), t.stride(), dtype, device, "torch")


def _cupy(a) -> ArrayArg:
    data = a.data
    return ArrayArg(
        data.ptr,
        a.shape,
        _elements(a.strides, a.itemsize, "cupy array"),
        _np_dtype_name(a.dtype),
        data.device_id,
        "cupy",
    )


_typestrs: dict[str, tuple[str, int]] = {}


def _typestr(typestr: str) -> tuple[str, int]:
    """(element type, itemsize) of an array-interface typestr such as '<f4'."""
    found = _typestrs.get(typestr)
    if found is None:
        if typestr in (
            "bf16",
            "f8e4m3",
            "f8e5m2",
        ):  # no standard typestrs exist; phobos.runtime.aot.like spells them so
            found = (typestr, ITEMSIZE[typestr])
        else:
            found = (_TYPESTR.get(typestr[1:], typestr), int(typestr[2:]) if typestr[2:].isdigit() else 1)
        _typestrs[typestr] = found
    return found


def _cai(obj) -> ArrayArg:
    cai = obj.__cuda_array_interface__
    shape = tuple(cai["shape"])
    dtype, itemsize = _typestr(cai["typestr"])
    strides = cai.get("strides")
    strides = (
        _contiguous_strides(shape) if strides is None else _elements(strides, itemsize, "__cuda_array_interface__")
    )
    return ArrayArg(cai["data"][0] or 0, shape, strides, dtype, None, "cai")


def cai_stream(obj) -> int | None:
    """The stream a `__cuda_array_interface__` (v3) producer asks consumers to order after."""
    s = obj.__cuda_array_interface__.get("stream")
    return int(s) if s else None


# DLPack (https://dmlc.github.io/dlpack/latest/c_api.html): read the DLTensor in the capsule.
class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", _DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", _DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


_DL_CUDA, _DL_CUDA_MANAGED = 2, 13
_DL_DTYPES = {
    (0, 8): "i8",
    (1, 8): "u8",
    (1, 32): "u32",
    (0, 32): "i32",
    (0, 64): "i64",
    (2, 16): "f16",
    (2, 32): "f32",
    (2, 64): "f64",
    (4, 16): "bf16",
    (6, 8): "i1",
    (10, 8): "f8e4m3",  # kDLFloat8_e4m3fn
    (12, 8): "f8e5m2",  # kDLFloat8_e5m2
}
_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def _dlpack(obj) -> ArrayArg:
    capsule = obj.__dlpack__()
    t = _DLTensor.from_address(_capsule_pointer(capsule, b"dltensor"))
    if t.device.device_type not in (_DL_CUDA, _DL_CUDA_MANAGED):
        raise _WrongDevice(f"a DLPack tensor on device type {t.device.device_type}, not a CUDA device")
    shape = tuple(t.shape[i] for i in range(t.ndim))
    strides = tuple(t.strides[i] for i in range(t.ndim)) if t.strides else _contiguous_strides(shape)
    dtype = _DL_DTYPES.get((t.dtype.code, t.dtype.bits), f"dlpack(code={t.dtype.code}, bits={t.dtype.bits})")
    if t.dtype.lanes != 1:
        dtype += f"x{t.dtype.lanes}"
    ptr = (t.data or 0) + t.byte_offset
    return ArrayArg(ptr, shape, strides, dtype, t.device.device_id, "dlpack")


class _WrongDevice(Exception):
    """Raised by describers; the binder adds the parameter name and re-raises a ValueError."""


class NotAnArray(Exception):
    pass


_describers: dict[type, Callable[[object], ArrayArg]] = {}


def _describer(kind: type) -> Callable[[object], ArrayArg]:
    module = kind.__module__.split(".")[0]
    numpy = sys.modules.get("numpy")
    torch = sys.modules.get("torch")
    cupy = sys.modules.get("cupy")
    if numpy is not None and issubclass(kind, numpy.ndarray):
        return _numpy
    if torch is not None and issubclass(kind, torch.Tensor):
        return _torch
    if cupy is not None and module == "cupy" and issubclass(kind, cupy.ndarray):
        return _cupy
    if hasattr(kind, "__cuda_array_interface__"):
        return _cai
    if hasattr(kind, "__dlpack__"):
        return _dlpack
    return None


def _by_instance(value) -> ArrayArg:
    """Types without the interfaces: they may still be instance attributes."""
    if hasattr(value, "__cuda_array_interface__"):
        return _cai(value)
    if hasattr(value, "__dlpack__"):
        return _dlpack(value)
    raise NotAnArray(type(value).__name__)


def describe(value) -> ArrayArg:
    """The ArrayArg of `value`; NotAnArray or _WrongDevice when it cannot be one."""
    fn = _describers.get(type(value))
    if fn is None:
        fn = _describers[type(value)] = _describer(type(value)) or _by_instance
    return fn(value)


def contiguous_strides(shape) -> tuple[int, ...]:
    return _contiguous_strides(shape)


def current_stream(arg: ArrayArg, value) -> int:
    """The stream the array's framework would use now (its current stream), else 0."""
    if arg.framework == "torch":
        torch = sys.modules["torch"]
        try:
            return torch._C._cuda_getCurrentRawStream(arg.device)
        except AttributeError:  # older torch: the public (slower) spelling
            return torch.cuda.current_stream(arg.device).cuda_stream
    if arg.framework == "cupy":
        return sys.modules["cupy"].cuda.get_current_stream().ptr
    if arg.framework == "cai":
        return cai_stream(value) or 0
    return 0
