"""Launching a compiled variant: parameter packing, streams, host arrays, overlap, faults.

A `Variant` is one cubin with its contract. A `Plan` is one checked argument
layout (element types, shapes, strides, devices, alignment, grid) bound to a
loaded variant; it is made once, after `Signature.bind` has checked that
layout, and then launches with only the pointers, scalars and stream changing.

Each thread that launches a plan gets a parameter buffer of its own (so no
lock is needed between packing and launching; the first launch in a thread
also makes the device's context current there):

    [0, 56)         the CUlaunchConfig: grid, block, shared bytes, stream, no attributes
    [56, ...)       8 bytes per kernel parameter: first those that change per launch
                    (pointers, scalars), then the constants (extents, strides)
    then            the kernel's `void* params[]`, pointing at those slots in cubin order

so a launch is one `struct.pack_into` (stream, pointers, scalars: one
contiguous run) and one call of the driver's `cuLaunchKernelEx` through ctypes
with four prebuilt pointer arguments (`driver.launch_entry()`; cuda-bindings'
`cuLaunchKernel` where that is unavailable). `plan.fire` is that code,
generated per plan (straight-line, constants inlined), and shared by the
generated per-signature fast path (runtime.fastpath) and the generic path.

Before a launch, `fire` also checks that no tensor the kernel only reads
(contract `access: "read"`, compiled as noalias + read-only: ld.global.nc)
shares memory with a tensor it writes, unless both are the very same view
(elementwise in place). The byte spans are fixed per layout, so per launch
that is a few integer comparisons.
"""

from __future__ import annotations

import ctypes
import os
import struct
import threading
from collections.abc import Sequence

import numpy as np

from . import driver, persistent
from .arrays import HOST, ITEMSIZE, ArrayArg
from .binding import Binding, Signature, bf16_bits, device_strides
from .check_record import CheckRecord
from .tensor_maps import TensorMapSlot

UNPACKABLE = (struct.error, OverflowError)  # what packing a scalar of the wrong kind or size raises
_SYNC_ALWAYS = os.environ.get("PHOBOS_SYNC", "") not in ("", "0")
# why a launch of each kind cannot be captured into a CUDA graph (driver.refuse_capture)
CHECK_MODE_CAPTURE = (
    "a check-mode variant waits for each launch and copies its check record back (compile it without "
    "check mode, PHOBOS_CHECK=0 / check=False, to capture it)"
)
SYNC_CAPTURE = "sync=True (or PHOBOS_SYNC=1) waits for the stream, which a capture does not allow"
HOST_CAPTURE = (
    "numpy arguments are copied in and out around a launch that waits; pass device arrays (torch, cupy) to capture it"
)
REPACK_CAPTURE = (
    "the first launch on this stream allocates the scratch rows of the repacked operands; launch it once "
    "on this stream before the capture (a warm-up)"
)
_CONFIG = driver.LAUNCH_CONFIG_BYTES
_GRID = struct.Struct("<3I")
_UNSEEN = object()  # no callable grid's result is this


def stream_handle(stream) -> int | None:
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
        raise TypeError(
            f"stream= must be a stream handle (int), a torch/cupy stream or a CUstream, got {type(stream).__name__}"
        ) from None


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

    def __init__(
        self,
        cubin: bytes,
        contract: dict,
        asm: dict | None = None,
        signature: Signature | None = None,
        program: dict | None = None,
    ):
        self.cubin = cubin
        self.contract = contract
        self.asm = asm or {}
        self.program = program  # the tile program, for the interpreter
        self.signature = signature or Signature(contract)
        self._functions: dict[int, object] = {}

    def function(self, device: driver.Device):
        fn = self._functions.get(device.ordinal)
        if fn is None:
            chip = self.signature.chip
            if not runs_on(chip, device.capability):
                raise driver.CudaError(
                    f"kernel '{self.signature.name}' was compiled for {chip} but cuda:{device.ordinal} "
                    f"('{device.name}') is {device.chip}; compile it with chip='{device.chip}'"
                )
            fn = self._functions[device.ordinal] = device.function(
                self.cubin, self.signature.entry, self.signature.shared_bytes
            )
        return fn


# ----------------------------------------------------------------------------- overlap of read and written tensors


def span_bytes(view: ArrayArg) -> int:
    """Bytes from a tensor's first element to one past its last (0 when it has no elements)."""
    if any(e == 0 for e in view.shape):
        return 0
    strides = device_strides(view)
    return ITEMSIZE[view.dtype] * (1 + sum((e - 1) * s for e, s in zip(view.shape, strides)))


def overlap_pairs(sig: Signature, views: dict[int, ArrayArg]) -> list[tuple[int, int, int, int, bool]]:
    """(read param, written param, read span, written span, same layout) for every pair of device
    tensors whose memory must not overlap: the read one is declared read-only (ld.global.nc)."""
    if not (sig.contract.get("options") or {}).get("noalias", True):
        return []  # compiled without noalias (phobos.compiler option): overlapping views are the kernel's business
    access = [p.get("access") for p in sig.contract["params"]]
    device = [i for i in sig.tensors if views[i].device != HOST]
    pairs = []
    for r in device:
        if access[r] != "read":
            continue
        for w in device:
            if access[w] not in ("write", "readwrite"):
                continue
            vr, vw = views[r], views[w]
            sr, sw = span_bytes(vr), span_bytes(vw)
            if sr and sw:
                same = (
                    vr.shape == vw.shape
                    and device_strides(vr) == device_strides(vw)
                    and ITEMSIZE[vr.dtype] == ITEMSIZE[vw.dtype]
                )
                pairs.append((r, w, sr, sw, same))
    return pairs


def overlap_error(sig: Signature, r: int, w: int, pr: int, sr: int, pw: int, sw: int):
    read, written = sig.params[r].name, sig.params[w].name
    raise ValueError(
        f"{sig.name}: arguments {read} and {written} overlap in memory ({read}: [{pr:#x}, {pr + sr:#x}), "
        f"{written}: [{pw:#x}, {pw + sw:#x})); the kernel only reads {read} (declared read-only and noalias: "
        f"loads through the non-coherent cache) and writes {written}, so they may share memory only as the very "
        f"same view (same address, shape and strides: elementwise in place); pass a copy of {read}"
    )


# ----------------------------------------------------------------------------- plans


class Plan:
    """A checked argument layout bound to a loaded variant."""

    def __init__(
        self,
        variant: Variant,
        binding: Binding,
        device: driver.Device,
        grid_callable: bool = False,
        owner=None,
        repack=None,
    ):
        sig = variant.signature
        self.repack = repack  # operands copied to pitched scratch rows before each launch (repack.py)
        self.name = sig.name
        self.variant = variant
        self.binding = binding
        self.device = device
        self.function = variant.function(device)
        self.grid = binding.grid
        if sig.persistent:  # as many CTAs as fit at once, or the caller's grid checked to fit
            cap = sig.rule_limit(binding.symbols)
            self.grid = persistent.grid(sig.name, device, self.function, sig.threads, sig.shared_bytes, self.grid, cap)
        self.grid_callable = grid_callable  # then the grid is evaluated per launch
        self._grid_meta: dict | None = None  # what a callable grid is called with (a copy of it)
        self._grid_seen: tuple = (_UNSEEN, None)  # the callable's last result and its checked grid
        self.block = (sig.threads, 1, 1)
        self.shared = sig.shared_bytes
        self.signature = sig
        self.owner = owner  # the kernel object: its `_last` is set per launch (k.asm)
        self.host = bool(binding.host_slots)
        self.overlaps = overlap_pairs(sig, binding.arrays)
        sites = sig.contract.get("checks")
        # check mode: every launch waits and reads the kernel's check record (check_record.py)
        self.checks = CheckRecord(device, variant.cubin, sites, sig.name) if sites else None
        self._layout_buffer(binding)
        self.fire = _generate_fire(self)

    def _layout_buffer(self, binding: Binding) -> None:
        sig = self.signature
        abi = sig.abi
        # slots that change per launch, in the order `fire` packs them: pointers, then scalars
        varying = ("ptr", "scalar", "tensormap")
        self.var_slots = [s for kind in varying for s, a in enumerate(abi) if a["kind"] == kind]
        const_slots = [s for s, a in enumerate(abi) if a["kind"] not in varying]
        # a tensor map per base address of its argument, in this plan's layout (tensor_maps.py)
        self.tensor_maps = {
            s: TensorMapSlot(
                self.device,
                a,
                sig.params[a["param"]].dtype,
                binding.arrays[a["param"]].shape,
                device_strides(binding.arrays[a["param"]]),
            )
            for s, a in enumerate(abi)
            if a["kind"] == "tensormap"
        }
        n = len(abi)
        self._slot_offsets = {slot: _CONFIG + 8 * i for i, slot in enumerate(self.var_slots + const_slots)}
        self._params_at = _CONFIG + 8 * n
        image = ctypes.create_string_buffer(self._params_at)
        gx, gy, gz = self.grid
        struct.pack_into("<7I", image, 0, gx, gy, gz, self.block[0], 1, 1, self.shared)
        for slot in const_slots:
            struct.pack_into("<" + sig.slot_formats[slot], image, self._slot_offsets[slot], binding.values[slot])
        self._image = image.raw  # config and constants; a thread's buffer starts as a copy
        # one pack per launch: the stream (@32), the zero attribute fields, the changing slots
        self.pack = struct.Struct("<Q16x" + "".join(sig.slot_formats[s] for s in self.var_slots)).pack_into
        # the CUfunction as a ctypes argument, for the ctypes entry point only
        self.function_arg = ctypes.c_void_p(int(self.function)) if driver.launch_entry() is not None else None
        self._mine = (
            threading.local()
        )  # .slot: this thread's (buffer, config argument, params argument, params address)

    def claim(self) -> tuple:
        """The calling thread's parameter buffer, made on its first launch of this plan (after making
        the device's context current in it). Each thread packs its own: no lock around pack + launch."""
        self.device.make_current()
        n = len(self.signature.abi)
        buffer = ctypes.create_string_buffer(self._image, self._params_at + 8 * max(n, 1))
        base = ctypes.addressof(buffer)
        if n:
            struct.pack_into(f"<{n}Q", buffer, self._params_at, *[base + self._slot_offsets[s] for s in range(n)])
        slot = (buffer, ctypes.c_void_p(base), ctypes.c_void_p(base + self._params_at), base + self._params_at)
        self._mine.slot = slot
        return slot

    def var_values(self, args: Sequence[object], pointers: dict[int, int]) -> list:
        """The changing slots' values (pointers by parameter index, scalars from `args`)."""
        out = []
        for how, pi in self.var_sources():
            if how == "ptr":
                out.append(pointers[pi])
            elif how == "tmap":  # pi is the slot
                out.append(self.tensor_maps[pi](pointers[self.signature.abi[pi]["param"]]))
            elif how == "bf16":
                out.append(bf16_bits(float(args[pi])))
            else:
                out.append(args[pi])
        return out

    def var_sources(self) -> list[tuple[str, int]]:
        """Where each changing slot's value comes from: ("ptr" | "bf16" | "arg", parameter index)."""
        sig = self.signature
        out = []
        for slot in self.var_slots:
            entry = sig.abi[slot]
            pi = entry["param"]
            if entry["kind"] == "ptr":
                out.append(("ptr", pi))
            elif entry["kind"] == "tensormap":
                out.append(("tmap", slot))
            else:
                out.append(("bf16" if sig.params[pi].dtype == "bf16" else "arg", pi))
        return out

    # ------------------------------------------------------------------------- generic path

    def launch(self, args, views: list[ArrayArg | None], stream: int, sync: bool, grid=None) -> None:
        if self.host:
            return self._launch_host(args, views, stream, grid)
        if self.repack is not None:
            if any((p, stream) not in self.repack.scratch for p in self.repack.params):
                driver.refuse_capture(stream, self.name, REPACK_CAPTURE)
            copies = self.repack.pointers(self.device, views, stream)
            self.fire(args, stream, sync, grid, *[copies.get(i, views[i].ptr) for i in self.signature.tensors])
            return None
        self.fire(args, stream, sync, grid, *[views[i].ptr for i in self.signature.tensors])

    def grid_of(self, grid) -> tuple[int, int, int]:
        """The grid of one launch. A callable grid is called each time (with a fresh dict of the
        bound extents and bindings); what it returns is checked against the grid rule once per
        value: the check depends on nothing else (this plan's extents are fixed)."""
        if not self.grid_callable:
            return self.grid
        sig = self.signature
        if self._grid_meta is None:
            self._grid_meta = dict(self.binding.symbols, **sig.contract.get("bindings", {}))
        value = grid(dict(self._grid_meta))
        seen, checked = self._grid_seen
        if type(value) is type(seen) and value == seen:
            return checked
        g = sig.grid(self.binding.symbols, value)
        if sig.persistent:
            cap = sig.rule_limit(self.binding.symbols)
            g = persistent.grid(sig.name, self.device, self.function, sig.threads, sig.shared_bytes, g, cap)
        if type(value) is tuple or type(value) is int:  # immutable: safe to compare with later
            self._grid_seen = (value, g)
        return g

    def launch_now(self, stream: int, values: list, grid: tuple[int, int, int]) -> None:
        """Pack and launch (no checks): the path of host arrays."""
        if not (grid[0] and grid[1] and grid[2]):
            return
        entry = driver.launch_entry()
        slot = getattr(self._mine, "slot", None) or self.claim()
        self.device.make_current()
        _GRID.pack_into(slot[0], 0, *grid)
        self.pack(slot[0], driver.LAUNCH_STREAM_OFFSET, stream, *values)
        if entry is not None:
            err = entry(slot[1], self.function_arg, slot[2], None)
        else:
            (err,) = driver.cu.cuLaunchKernel(
                self.function, grid[0], grid[1], grid[2], self.block[0], 1, 1, self.shared, stream, slot[3], 0
            )
        driver.note_launch(self.name)
        if err:
            driver.raise_error(err, "cuLaunchKernel", kernel=self.name)

    # ------------------------------------------------------------------------- numpy arguments

    def _launch_host(self, args, views, stream: int, grid) -> None:
        """Copy host arrays in, launch, copy them back out, synchronously."""
        dev = self.device
        dev.make_current()
        driver.refuse_capture(stream, self.name, HOST_CAPTURE)
        buffers: dict[tuple, list] = {}  # one device buffer per distinct host array: [ptr, host, copy, params]
        grid = self.grid_of(grid)
        params = self.signature.contract["params"]
        pointers = {i: views[i].ptr for i in self.signature.tensors}
        try:
            for _slot, pi in self.binding.host_slots:
                host = views[pi].host
                ident = (host.__array_interface__["data"][0], host.shape, host.strides, host.dtype.str)
                staged = buffers.get(ident)
                if staged is None:  # arguments that alias one array share one device copy
                    flat = np.ascontiguousarray(host)
                    staged = buffers[ident] = [dev.alloc(flat.nbytes), host, flat, []]
                    dev.copy_in(staged[0], flat.ctypes.data, flat.nbytes, stream)
                staged[3].append(pi)
                pointers[pi] = staged[0]
            self._check_overlaps(pointers)
            self.launch_now(stream, self.var_values(args, pointers), grid)
            if self.owner is not None:
                self.owner._last = self.variant
            back = []
            for ptr, host, flat, pis in buffers.values():
                # copy back what the kernel may write (contracts without `access` may write anything)
                written = any(params[pi].get("access", "readwrite") in ("write", "readwrite") for pi in pis)
                if host.flags.writeable and written:
                    out = host if host.flags.c_contiguous else np.empty_like(flat)
                    dev.copy_out(out.ctypes.data, ptr, out.nbytes, stream)
                    back.append((host, out))
            if self.checks is not None:  # waits, then reads the check record
                self.checks.after_launch(stream)
            else:
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

    def _check_overlaps(self, pointers: dict[int, int]) -> None:
        for r, w, sr, sw, same in self.overlaps:
            pr, pw = pointers[r], pointers[w]
            if (not same or pr != pw) and pr < pw + sw and pw < pr + sr:
                overlap_error(self.signature, r, w, pr, sr, pw, sw)


# ----------------------------------------------------------------------------- generated launch code


def launch_code(plan: Plan, unpackable: str | None = None, scalars_bound: bool = False) -> tuple[list[str], dict]:
    """The statements (one level indented) that launch `plan`, and the names they read.

    They expect `args`, `grid`, `sync`, `stream` (a handle: an int) and one `p<i>` per tensor
    parameter (its address) to be bound, and end with `return None`. `fire` and the fast path's
    per-layout launchers (runtime.fastpath) are both made of them, so the two cannot differ.
    unpackable: what to return instead of raising when the packer refuses a scalar (a value out
    of its type's range: struct.error, OverflowError); None: raise. scalars_bound: each scalar
    parameter is in `s<i>` already (else read from `args`)."""
    sig = plan.signature
    pointer = {pi: f"p{pi}" for pi in sig.tensors}
    scalar = (lambda pi: f"s{pi}") if scalars_bound else (lambda pi: f"args[{pi}]")
    gx, gy, gz = plan.grid
    entry = driver.launch_entry()
    scope = _fire_scope(plan, entry)
    if not plan.grid_callable and not (gx and gy and gz):
        return ["    return None"], scope  # an empty grid: nothing to launch
    spelled = {
        "ptr": lambda pi: pointer[pi],
        "tmap": lambda slot: f"tensor_maps[{slot}]({pointer[sig.abi[slot]['param']]})",
        "bf16": lambda pi: f"bf16(float({scalar(pi)}))",
        "arg": lambda pi: scalar(pi),
    }
    values = [spelled[how](pi) for how, pi in plan.var_sources()]
    lines = []
    if plan.checks is not None:  # it waits and copies the record back: never inside a stream capture
        lines.append("    refuse_capture(stream, name, CHECK_MODE)")
    elif _SYNC_ALWAYS:
        lines.append("    refuse_capture(stream, name, SYNC)")
    else:
        lines += ["    if sync:", "        refuse_capture(stream, name, SYNC)"]
    for r, w, sr, sw, same in plan.overlaps:
        # [pr, pr + sr) and [pw, pw + sw) meet where -sr < pr - pw < sw (one subtraction)
        pr, pw = pointer[r], pointer[w]
        lines += [
            f"    if {-sr} < {pr} - {pw} < {sw}{f' and {pr} != {pw}' if same else ''}:",
            f"        overlap_error(sig, {r}, {w}, {pr}, {sr}, {pw}, {sw})",
        ]
    if plan.grid_callable:
        lines += ["    g = grid_of(grid)", "    if not (g[0] and g[1] and g[2]):", "        return None"]
    lines += [
        "    try:",
        "        buffer, config_arg, params_arg, params_at = mine.slot",
        "    except AttributeError:",  # this thread's first launch of the plan
        "        buffer, config_arg, params_arg, params_at = claim()",
    ]
    if not getattr(plan.device, "_single", False):  # several GPUs: the current device may have changed
        lines.append("    make_current()")
    if plan.grid_callable:
        lines.append("    pack_grid(buffer, 0, g[0], g[1], g[2])")
    packing = f"pack(buffer, {driver.LAUNCH_STREAM_OFFSET}, stream{''.join(', ' + v for v in values)})"
    if unpackable is None:
        lines.append(f"    {packing}")
    else:  # nothing has reached the driver yet
        lines += ["    try:", f"        {packing}", "    except UNPACKABLE:", f"        return {unpackable}"]
    if entry is not None:
        lines.append("    err = entry(config_arg, function_arg, params_arg, None)")
    else:
        grid = "g[0], g[1], g[2]" if plan.grid_callable else f"{gx}, {gy}, {gz}"
        lines.append(
            f"    err, = cuLaunchKernel(function, {grid}, {plan.block[0]}, 1, 1, {plan.shared}, stream, params_at, 0)"
        )
    lines.append("    last['kernel'] = name")  # what a later fault names
    if plan.owner is not None:
        lines.append("    owner._last = variant")  # what k.asm shows
    lines += [
        "    if err:",
        f"        raise_error(err, {'cuLaunchKernelEx' if entry is not None else 'cuLaunchKernel'!r}, kernel=name)",
    ]
    if plan.checks is not None:  # check mode: wait and read the check record
        lines.append("    checks(stream)")
    elif _SYNC_ALWAYS:  # PHOBOS_SYNC=1: every launch waits
        lines.append("    synchronize(stream, kernel=name)")
    else:
        lines += ["    if sync:", "        synchronize(stream, kernel=name)"]
    lines.append("    return None")
    return lines, scope


def _generate_fire(plan: Plan):
    """`fire(args, stream, sync, grid, *pointers)` for one plan: pointers in tensor-parameter order,
    `stream` a handle (int) or a stream object, `grid` only read when the plan's grid is callable."""
    pointers = ", ".join(f"p{pi}" for pi in plan.signature.tensors) or "*_"
    body, scope = launch_code(plan)
    lines = [
        f"def fire(args, stream, sync, grid, {pointers}):",
        "    if type(stream) is not int:",
        "        stream = stream_handle(stream)",
        *body,
    ]
    exec("\n".join(lines), scope)
    return scope["fire"]


def _fire_scope(plan: Plan, entry) -> dict:
    """The names the generated launch code of `plan` reads (`entry`: the cuLaunchKernelEx entry point, if any)."""
    sig = plan.signature
    return {
        "stream_handle": stream_handle,
        "overlap_error": overlap_error,
        "refuse_capture": driver.refuse_capture,
        "CHECK_MODE": CHECK_MODE_CAPTURE,
        "SYNC": SYNC_CAPTURE,
        "UNPACKABLE": UNPACKABLE,
        "sig": sig,
        "grid_of": plan.grid_of,
        "mine": plan._mine,
        "claim": plan.claim,
        "make_current": plan.device.make_current,
        "pack_grid": _GRID.pack_into,
        "pack": plan.pack,
        "entry": entry,
        "function_arg": plan.function_arg,
        "cuLaunchKernel": getattr(driver.cu, "cuLaunchKernel", None),
        "function": plan.function,
        "last": driver._last,
        "name": plan.name,
        "owner": plan.owner,
        "variant": plan.variant,
        "raise_error": driver.raise_error,
        "synchronize": driver.synchronize,
        "bf16": bf16_bits,
        "tensor_maps": plan.tensor_maps,
        "checks": plan.checks.after_launch if plan.checks is not None else None,
    }
