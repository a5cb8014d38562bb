"""Repacking: read-only operands copied to 16-byte pitched rows so TMA can read them.

TMA (the wgmma path, lowering/wgmma.py) reads rows only at 16-byte pitches
from 16-byte aligned bases. A GEMM on 4095 x 4093 f16 operands (rows of 8186
bytes) therefore runs a variant without TMA, on mma.sync with 2-byte copies.
When the kernel has a wgmma variant for the same extents with padded rows,
the launch can instead copy each such operand into a scratch buffer whose
row pitch is rounded up to 16 elements (`cuMemcpy2DAsync` on the launch's
stream, before the kernel) and run that variant on the copies. Only tensors
the kernel never writes are repacked, so the results are the same; the copy
costs one read and one write of the operand per launch (the benchmark's
times include it).

`plan_repack` decides, once per argument layout (kernel.py's `_plan`):
repack when the variant for the arguments as they are does not use TMA and
the variant for the repacked arguments does. Each launch plan keeps one
scratch buffer per operand and stream (launches on one stream are ordered;
different streams get different buffers).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from phobos.contract.specialization import SpecKey, tensor_facts

from . import driver
from .arrays import HOST, ITEMSIZE, ArrayArg
from .binding import device_strides

PITCH_ELEMENTS = 16  # the specialisation key's largest stride class: 16-byte pitches for every element type


def uses_tma(variant) -> bool:
    return bool(variant.contract.get("shared_memory", {}).get("tensor_cores", {}).get("tensor_maps"))


@dataclass
class Repack:
    """The operands one launch plan copies: param index -> (rows, row bytes, padded pitch in elements)."""

    params: dict[int, tuple[int, int, int]]
    names: list[str]
    scratch: dict[tuple[int, int], int] = field(default_factory=dict)  # (param, stream) -> device buffer

    def pointers(self, device, views, stream: int) -> dict[int, int]:
        """Copy each operand into its scratch rows (on `stream`) and give the scratch addresses."""
        out = {}
        for p, (rows, row_bytes, pitch) in self.params.items():
            view = views[p]
            eb = ITEMSIZE[view.dtype]
            dst = self.scratch.get((p, stream))
            if dst is None:
                dst = self.scratch[(p, stream)] = device.alloc(max(1, rows * pitch * eb))
            if rows and row_bytes:
                _copy_rows(dst, pitch * eb, view.ptr, device_strides(view)[0] * eb, row_bytes, rows, stream)
            out[p] = dst
        return out


def _copy_rows(dst: int, dst_pitch: int, src: int, src_pitch: int, width: int, height: int, stream: int) -> None:
    cu = driver.cu
    copy = cu.CUDA_MEMCPY2D()
    copy.srcMemoryType = cu.CUmemorytype.CU_MEMORYTYPE_DEVICE
    copy.srcDevice = src
    copy.srcPitch = src_pitch
    copy.dstMemoryType = cu.CUmemorytype.CU_MEMORYTYPE_DEVICE
    copy.dstDevice = dst
    copy.dstPitch = dst_pitch
    copy.WidthInBytes = width
    copy.Height = height
    driver.check(cu.cuMemcpy2DAsync(copy, stream), "cuMemcpy2DAsync")


def padded_view(view: ArrayArg) -> ArrayArg:
    """`view` as its repacked copy: the same extents, rows pitched to PITCH_ELEMENTS, a 256-byte aligned base."""
    rows, cols = view.shape
    pitch = -(-cols // PITCH_ELEMENTS) * PITCH_ELEMENTS
    return ArrayArg(0, view.shape, (pitch, 1), view.dtype, view.device, view.framework)


def plan_repack(kernel, sig, binding, variant, views) -> tuple[object, Repack] | None:
    """(the wgmma variant, its Repack) when repacking read-only operands gives a TMA variant, else None."""
    if uses_tma(variant):
        return None
    candidates = []
    for i in sig.tensors:
        v = views[i]
        access = sig.contract["params"][i].get("access")
        if access != "read" or v.device == HOST or len(v.shape) != 2 or v.dtype not in ("f16", "bf16"):
            continue
        eb = ITEMSIZE[v.dtype]
        pitch = device_strides(v)[0]
        if v.ptr % 16 == 0 and (pitch * eb) % 16 == 0 and pitch % PITCH_ELEMENTS == 0:
            continue  # TMA can read it as it is
        candidates.append(i)
    if not candidates:
        return None
    params = dict(binding.key.params)
    padded = {}
    for i in candidates:
        view = padded_view(views[i])
        padded[i] = view
        params[sig.params[i].name] = tensor_facts(256, tuple(view.shape), view.strides)
    try:
        other = kernel._variant(SpecKey(params), sig)
    except Exception:  # no such variant can be built here (no compiler, a compile error): run as is
        return None
    if not uses_tma(other):
        return None
    spec = {
        i: (views[i].shape[0], views[i].shape[1] * ITEMSIZE[views[i].dtype], padded[i].strides[0]) for i in candidates
    }
    return other, Repack(spec, [sig.params[i].name for i in candidates])
