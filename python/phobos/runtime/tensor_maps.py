"""TMA tensor maps: the kernel parameters of the wgmma path (lowering/wgmma.py).

A kernel that reads its dot operands by TMA takes, after the ABI's own
parameters, one `CUtensorMap` per (tensor parameter, box), named in its
contract's `abi` as

    {"kind": "tensormap", "param": p, "box": [inner, rows], "swizzle": 128}

The map describes the whole argument: its extents and row pitch (the
kernel's own bounds: TMA reads zeros outside them), the box one copy moves,
128-byte swizzle. An entry with `"split": [[count, stride], ...]` views the
rows of a 2-D argument as several dimensions instead (stride in rows; the
last count null: as many whole strides as the rows hold), so that one box
lands a tile's rows in the order the kernel wants them (lowering/wgmma.py).

A map is encoded on the host (`cuTensorMapEncodeTiled`, no device work),
copied once into 128 bytes of device memory, and passed by address. A launch
plan is fixed to one argument layout (shape and strides), so its maps differ
only in the base address: `TensorMapSlot` keeps one map per address it has
seen, and a launch with a known address costs a dict lookup. The device
copies live as long as the plan (at most `LIMIT` per slot; past that, the
slot waits for the device and starts over).
"""

from __future__ import annotations

import ctypes
import struct

from . import driver

MAP_BYTES = 128
LIMIT = 1024  # device maps kept per slot
# 8-bit operands (wgmma8) travel as bytes: TMA only moves them, and zero bytes are zeros of each type
_ELEMENT = {
    "f16": ("FLOAT16", 2),
    "bf16": ("BFLOAT16", 2),
    "f32": ("FLOAT32", 4),
    "i8": ("UINT8", 1),
    "u8": ("UINT8", 1),
    "f8e4m3": ("UINT8", 1),
    "f8e5m2": ("UINT8", 1),
}
_SWIZZLE = {128: "CU_TENSOR_MAP_SWIZZLE_128B", 64: "CU_TENSOR_MAP_SWIZZLE_64B", 32: "CU_TENSOR_MAP_SWIZZLE_32B"}


class TensorMapError(ValueError):
    pass


def dimensions(shape, strides, split=None) -> tuple[list[int], list[int]]:
    """(extents innermost first, strides in elements of every dimension past the first)."""
    if split is None:
        return [int(x) for x in reversed(shape)], [int(s) for s in reversed(strides[:-1])]
    if len(shape) != 2:
        raise TensorMapError(f"a split tensor map views a 2-D array, not rank {len(shape)}")
    rows, pitch = int(shape[0]), int(strides[0])
    extents = [int(shape[1])] + [int(c) if c is not None else max(1, rows // int(s)) for c, s in split]
    return extents, [pitch * int(s) for _, s in split]


def encode(dtype: str, ptr: int, shape, strides, box, swizzle: int, split=None) -> bytes:
    """The 128 bytes of a CUtensorMap over a row-major array (strides in
    elements, the last one 1), boxes of `box` (innermost first)."""
    if dtype not in _ELEMENT:
        raise TensorMapError(f"TMA tensor maps take f16, bf16, f32 or 8-bit elements, not {dtype}")
    name, eb = _ELEMENT[dtype]
    if ptr % 16:
        raise TensorMapError(f"a TMA tensor needs a 16-byte aligned base address, got {ptr:#x}")
    extents, element_strides = dimensions(shape, strides, split)
    rank = len(extents)
    pitches = [s * eb for s in element_strides]
    if any(p % 16 for p in pitches):
        raise TensorMapError(f"a TMA tensor needs row pitches that are multiples of 16 bytes, got {pitches}")
    cu = driver.cu
    dims = [cu.cuuint64_t(x) for x in extents]
    byte_strides = [cu.cuuint64_t(p) for p in pitches]
    boxes = [cu.cuuint32_t(int(b)) for b in box] + [cu.cuuint32_t(1)] * (rank - len(box))
    steps = [cu.cuuint32_t(1)] * rank
    err, tmap = cu.cuTensorMapEncodeTiled(
        getattr(cu.CUtensorMapDataType, f"CU_TENSOR_MAP_DATA_TYPE_{name}"),
        rank,
        ptr,
        dims,
        byte_strides,
        boxes,
        steps,
        cu.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE,
        getattr(cu.CUtensorMapSwizzle, _SWIZZLE[swizzle]),
        cu.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
        cu.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,  # zeros outside the tensor
    )
    if err:
        driver.raise_error(err, "cuTensorMapEncodeTiled")
    address = tmap.getPtr() if hasattr(tmap, "getPtr") else None
    if address:
        return ctypes.string_at(address, MAP_BYTES)
    return struct.pack(f"<{MAP_BYTES // 8}Q", *(int(x) for x in tmap.opaque))


class TensorMapSlot:
    """The device address of the map of one abi entry, per base address of its argument."""

    def __init__(self, device, entry: dict, dtype: str, shape, strides):
        self.device = device
        self.dtype, self.shape, self.strides = dtype, tuple(shape), tuple(strides)
        self.box, self.swizzle = tuple(entry["box"]), int(entry.get("swizzle", 128))
        self.split = entry.get("split")
        self.empty = any(s == 0 for s in self.shape)  # a kernel never copies from an empty tensor
        self.maps: dict[int, int] = {}

    def __call__(self, ptr: int) -> int:
        found = self.maps.get(ptr)
        if found is not None:
            return found
        return self._new(ptr)

    def _new(self, ptr: int) -> int:
        if self.empty:
            return 0
        if len(self.maps) >= LIMIT:
            self.release()
        data = encode(self.dtype, ptr, self.shape, self.strides, self.box, self.swizzle, self.split)
        self.device.make_current()
        address = self.device.alloc(MAP_BYTES)
        host = ctypes.create_string_buffer(data, MAP_BYTES)
        (err,) = driver.cu.cuMemcpyHtoD(address, ctypes.addressof(host), MAP_BYTES)
        if err:
            self.device.free(address)
            driver.raise_error(err, "cuMemcpyHtoD")
        self.maps[ptr] = address
        return address

    def release(self) -> None:
        """Frees every device map (after the device is done with the launches that read them)."""
        if not self.maps:
            return
        driver.synchronize_context()
        for address in self.maps.values():
            self.device.free(address)
        self.maps.clear()
