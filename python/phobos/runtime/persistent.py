"""The grid of a `@persistent` kernel: every CTA resident at once.

A persistent kernel's contract says `"persistent": true`. Its grid is not
derived from the tensors: it is as many CTAs as the device holds at once,
`cuOccupancyMaxActiveBlocksPerMultiprocessor(kernel, threads, shared bytes)`
times the number of multiprocessors, along x (`ctx.grid.x` is that number;
the idiom is `for t in range(ctx.block.x, tiles, ctx.grid.x)`). All of them
being resident is what makes `grid_barrier()` (lowering/ops/grid_sync.py)
correct: a CTA that waits at it never keeps another from starting. So:

- a grid the caller gives (`k[grid](...)`) may be smaller, never larger than
  that count: a larger one is refused before launch, naming the limit;
- a kernel of which not even one CTA fits on a multiprocessor (too many
  registers per thread, too much shared memory) is refused, naming both;
- where the kernel also has a grid rule (a store to `P[ctx.block.x]` makes one:
  a CTA per element of P), the resident count is capped by it;
- without a device (the interpreter), a persistent kernel runs on
  INTERPRETED_CTAS CTAs (capped the same way) unless given a grid.

The count is queried once per loaded function and device (Plan creation).
"""

from __future__ import annotations

# What Signature.grid returns for a persistent kernel without a caller's grid:
# the plan replaces it by the resident count (`grid`), the interpreter by INTERPRETED_CTAS.
RESIDENT = (-1, 1, 1)
INTERPRETED_CTAS = 4


def _query(result, what: str) -> int:
    err, *value = result
    if int(err) != 0:
        raise RuntimeError(f"{what} failed: {err}")
    return int(value[0])


def resident_ctas(device, function, threads: int, shared_bytes: int) -> tuple[int, int]:
    """(CTAs one multiprocessor holds at once, multiprocessors) for this function."""
    from cuda.bindings import driver as cu  # here: binding.py imports this module for RESIDENT

    per_sm = _query(
        cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(function, threads, shared_bytes),
        "cuOccupancyMaxActiveBlocksPerMultiprocessor",
    )
    attr = cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT
    sms = _query(cu.cuDeviceGetAttribute(attr, device.handle), "cuDeviceGetAttribute")
    return per_sm, sms


def _registers(function) -> int | None:
    from cuda.bindings import driver as cu

    try:
        return _query(cu.cuFuncGetAttribute(cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_NUM_REGS, function), "")
    except RuntimeError:
        return None


def grid(
    name: str, device, function, threads: int, shared_bytes: int, requested, cap: int | None = None
) -> tuple[int, int, int]:
    """The launch grid of a persistent kernel: the resident count for RESIDENT (at most `cap`,
    the kernel's grid rule, where it has one), else the caller's grid once checked to be
    co-resident. Raises ValueError naming the limit."""
    per_sm, sms = resident_ctas(device, function, threads, shared_bytes)
    if per_sm == 0:
        regs = _registers(function)
        raise ValueError(
            f"{name}: @persistent: not one CTA of {threads} threads "
            f"({regs if regs is not None else '?'} registers per thread, {shared_bytes} bytes of dynamic shared "
            f"memory) fits on a multiprocessor of {device.name}, so the grid cannot be co-resident and "
            "grid_barrier() would never return (fewer @launch threads, a maxRegs cap or smaller tiles)"
        )
    resident = per_sm * sms
    if tuple(requested) == RESIDENT:
        return (min(resident, cap) if cap else resident, 1, 1)
    count = requested[0] * requested[1] * requested[2]
    if count > resident:
        raise ValueError(
            f"{name}: @persistent: a grid of {count} CTAs cannot be co-resident on {device.name} "
            f"(at most {resident}: {per_sm} per multiprocessor x {sms}); grid_barrier() would wait forever "
            f"(give at most {resident} CTAs, or no grid: the kernel is launched on {resident})"
        )
    return tuple(requested)


def interpreted(requested, cap: int | None = None) -> tuple[int, int, int]:
    """The grid the interpreter runs a persistent kernel on (at most `cap`, as on the GPU)."""
    if tuple(requested) != RESIDENT:
        return tuple(requested)
    return (min(INTERPRETED_CTAS, cap) if cap else INTERPRETED_CTAS, 1, 1)
