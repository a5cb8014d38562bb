"""Generated launch code for the repeated-call fast path.

A kernel launched again with arguments of a layout it has seen (same element
types, shapes, strides, devices, alignment and grid) needs none of the
checks: only the pointers and scalars change. Two small functions are
generated (`exec`) for that, straight-line code with the contract's constants
inlined, because a generic loop over parameters costs microseconds per call:

  * per signature, `key(args, grid)`: for torch tensors, the layout key and the
    data pointers in one pass (None for anything else: the generic path);
  * per plan, `launch(ptrs, args, stream, sync)`: packs the parameter buffer
    and calls cuLaunchKernel.

Everything else (numpy, cupy, generic arrays, callable grids, check=False)
takes the generic path, which stores its plan here for torch layouts.
"""

from __future__ import annotations

import sys
from typing import Callable, Optional

from . import driver
from .binding import Signature, bf16_bits


def key_function(sig: Signature) -> Optional[Callable]:
    """`key(args, grid) -> (layout key, pointers) | None` for torch tensor arguments."""
    torch = sys.modules.get("torch")
    if torch is None or not sig.tensors:
        return None
    n = len(sig.params)
    lines = [f"def key(args, grid):",
             f"    if len(args) != {n}:",
             f"        return None"]
    names = [f"a{i}" for i in sig.tensors]
    lines.append(f"    {', '.join(names)}, = {', '.join(f'args[{i}]' for i in sig.tensors)},")
    lines.append(f"    if {' or '.join(f'type({a}) is not Tensor' for a in names)}:")
    lines.append(f"        return None")
    lines.append(f"    {', '.join('p' + a for a in names)}, = {', '.join(f'{a}.data_ptr()' for a in names)},")
    parts = []
    for a in names:
        parts.append(f"{a}.dtype, {a}.shape, {a}.stride(), {a}.get_device(), p{a} & 15 == 0")
    for i in sig.int_scalars:  # their divisibility is part of the specialisation key
        lines.append(f"    s{i} = args[{i}]")
        lines.append(f"    if type(s{i}) is not int:")
        lines.append(f"        return None")
        parts.append(f"s{i} % 16 == 0, s{i} % 4 == 0")
    parts.append("grid")
    lines.append(f"    return ({', '.join(parts)}), ({', '.join('p' + a for a in names)},)")
    scope = {"Tensor": torch.Tensor}
    exec("\n".join(lines), scope)
    return scope["key"]


def launcher(plan) -> Callable:
    """`launch(ptrs, args, stream, sync)` for one plan (torch tensors in parameter order)."""
    sig = plan.signature
    values = []
    tensor_slot = {pi: j for j, pi in enumerate(sig.tensors)}
    for slot, entry in enumerate(sig.abi):
        pi = entry["param"]
        if entry["kind"] == "ptr":
            values.append(f"ptrs[{tensor_slot[pi]}]")
        elif entry["kind"] == "scalar":
            values.append(f"bf16(float(args[{pi}]))" if sig.params[pi].dtype == "bf16" else f"args[{pi}]")
        else:
            values.append(repr(int(plan.template[slot])))
    gx, gy, gz = plan.grid
    ordinal = plan.device.ordinal
    context_check = "make_current()"  # several GPUs: the current device may have changed
    if getattr(plan.device, "_single", False):  # one GPU: once per thread (see Device.make_current)
        context_check = f"if getattr(thread, 'context', None) != {plan.device.context_id}: make_current()"
    src = f"""
def launch(ptrs, args, stream, sync):
    if stream is None:
        stream = current_stream({ordinal})
    elif type(stream) is not int:
        stream = stream_handle(stream)
    {context_check}
    with lock:
        pack_into(buffer, 0, {', '.join(values)})
        err, = cuLaunchKernel(function, {gx}, {gy}, {gz}, {plan.block[0]}, 1, 1, {plan.shared}, stream, {plan.params_address}, 0)
    last["kernel"] = name
    if err:
        raise_error(err, "cuLaunchKernel", kernel=name)
    if sync or sync_always:
        synchronize(stream, kernel=name)
"""
    from .launch import _SYNC_ALWAYS, stream_handle

    torch = sys.modules["torch"]
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    scope = {
        "current_stream": raw or (lambda d: torch.cuda.current_stream(d).cuda_stream),
        "stream_handle": stream_handle, "make_current": plan.device.make_current, "lock": plan.lock,
        "pack_into": plan.packer.pack_into, "buffer": plan.buffer, "cuLaunchKernel": driver.cu.cuLaunchKernel,
        "function": plan.function, "last": driver._last, "thread": driver._thread, "name": plan.name,
        "raise_error": driver.raise_error, "synchronize": driver.synchronize, "sync_always": _SYNC_ALWAYS,
        "bf16": bf16_bits,
    }
    if not (gx and gy and gz):  # an empty grid: nothing to launch
        return lambda ptrs, args, stream, sync: None
    exec(src, scope)
    return scope["launch"]
