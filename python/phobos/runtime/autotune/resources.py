"""What a candidate uses and what a chip allows: registers, static shared memory and stack frame
read from the cubin, the chip's limits (from a table or the driver), and the pruning rule between them."""

from __future__ import annotations

import struct
from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    """What one CTA may use on a chip."""

    registers_per_thread: int = 255
    registers_per_cta: int = 65536
    shared_per_cta: int = 48 * 1024  # bytes, with the opt-in for dynamic shared memory
    threads_per_cta: int = 1024


# Shared memory per CTA with the opt-in (CUDA C Programming Guide, compute capabilities table).
_SHARED_OPTIN = {
    "sm_70": 98304,
    "sm_72": 98304,
    "sm_75": 65536,
    "sm_80": 166912,
    "sm_86": 101376,
    "sm_87": 166912,
    "sm_89": 101376,
    "sm_90": 232448,
    "sm_100": 232448,
    "sm_120": 101376,
}


def chip_limits(chip: str) -> Limits:
    return Limits(shared_per_cta=_SHARED_OPTIN.get(chip.rstrip("a"), 48 * 1024))


def device_limits(device) -> Limits:
    """The limits the driver reports for a device (phobos.runtime.driver.Device)."""
    from .. import driver

    attr = driver.cu.CUdevice_attribute

    def get(name):
        return driver.check(driver.cu.cuDeviceGetAttribute(getattr(attr, name), device.handle), name)

    return Limits(
        registers_per_thread=255,
        registers_per_cta=get("CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK"),
        shared_per_cta=get("CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN"),
        threads_per_cta=get("CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK"),
    )


@dataclass(frozen=True)
class Resources:
    registers: int | None  # per thread
    shared_bytes: int  # static shared memory per CTA
    frame_bytes: int  # local memory per thread (stack frame: spills, local arrays)


_EIATTR_FRAME_SIZE = 0x11
_EIATTR_REGCOUNT = 0x2F
_EIFMT_SVAL = 4


def cubin_resources(cubin: bytes, entry: str) -> Resources | None:
    """Registers, static shared memory and stack frame of `entry`, read from the cubin's ELF
    (the .nv.info attributes ptxas writes: EIATTR_REGCOUNT, EIATTR_FRAME_SIZE, and the size of
    .nv.shared.<entry>); None when the cubin is not an ELF this understands."""
    b = bytes(cubin)
    if len(b) < 64 or b[:4] != b"\x7fELF" or b[4] != 2:
        return None
    try:
        shoff = struct.unpack_from("<Q", b, 0x28)[0]
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", b, 0x3A)
        sections = [struct.unpack_from("<IIQQQQIIQQ", b, shoff + i * shentsize) for i in range(shnum)]

        def cstr(base: int, offset: int) -> str:
            end = b.index(b"\0", base + offset)
            return b[base + offset : end].decode(errors="replace")

        names_at = sections[shstrndx][4]
        by_name = {cstr(names_at, s[0]): s for s in sections}
        symtab = next((s for s in sections if s[1] == 2), None)  # SHT_SYMTAB
        symbol = None
        if symtab is not None:
            strings_at = sections[symtab[6]][4]
            for i in range(symtab[5] // 24):
                st_name = struct.unpack_from("<I", b, symtab[4] + 24 * i)[0]
                if cstr(strings_at, st_name) == entry:
                    symbol = i
                    break
        values: dict[int, int] = {}
        info = by_name.get(".nv.info")
        if info is not None and symbol is not None:
            data, p = b[info[4] : info[4] + info[5]], 0
            while p + 4 <= len(data):
                fmt, attr = data[p], data[p + 1]
                if fmt != _EIFMT_SVAL:
                    p += 4
                    continue
                size = struct.unpack_from("<H", data, p + 2)[0]
                if size >= 8 and attr in (_EIATTR_REGCOUNT, _EIATTR_FRAME_SIZE):
                    sym, value = struct.unpack_from("<II", data, p + 4)
                    if sym == symbol:
                        values[attr] = value
                p += 4 + size
        registers = values.get(_EIATTR_REGCOUNT)
        if registers is None and f".text.{entry}" in by_name:  # older ptxas: sh_info's top byte
            registers = (by_name[f".text.{entry}"][7] >> 24) or None
        shared = by_name.get(f".nv.shared.{entry}")
        return Resources(registers, int(shared[5]) if shared else 0, values.get(_EIATTR_FRAME_SIZE, 0))
    except (struct.error, ValueError, IndexError):
        return None


def resource_violation(resources: Resources | None, threads: int, dynamic_shared: int, limits: Limits) -> str | None:
    """Why a compiled candidate cannot launch on the chip (None: it fits)."""
    if threads > limits.threads_per_cta:
        return f"{threads} threads per CTA exceed the chip's {limits.threads_per_cta}"
    if resources is None:
        return None
    if resources.registers is not None:
        if resources.registers > limits.registers_per_thread:
            return f"{resources.registers} registers per thread exceed the chip's {limits.registers_per_thread}"
        # registers are allocated per warp in units of 256 (8 per thread)
        per_warp = -(-resources.registers * 32 // 256) * 256
        need = per_warp * -(-threads // 32)
        if need > limits.registers_per_cta:
            return (
                f"{resources.registers} registers x {threads} threads need {need} registers per CTA, "
                f"over the chip's {limits.registers_per_cta}"
            )
    shared = resources.shared_bytes + dynamic_shared
    if shared > limits.shared_per_cta:
        return f"{shared} bytes of shared memory per CTA exceed the chip's {limits.shared_per_cta}"
    return None
