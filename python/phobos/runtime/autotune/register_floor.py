"""A floor under a candidate's registers per thread, known before anything compiles, and the
pruning rule on it.

The floor is not an estimate of what ptxas allocates but what it cannot go below: a dot's sum
carried across a loop (`acc += dot(a, b)` with acc declared outside the loop, tile_facts.Dot.acc)
is live as a whole at the top of every trip, and the lowering keeps tile values in registers
spread over the CTA's threads (docs/dot.md: each thread holds its block of the accumulator across
the loop, on the CUDA cores and on the tensor cores alike). So a sum of E elements of b bytes over
T threads needs at least ceil(E * b / (4 * T)) 32-bit registers in some thread, even packed as
tightly as the element allows. Nothing else is counted (operands, addresses, other live values):
a floor must never count what might not be live.

A candidate whose floor exceeds what a thread may have (255, or less where the CTA's threads
share the register file) keeps part of its sum in local memory through the whole loop; it is
pruned, before ptxas, as long as another candidate of the space is under the limit, so this rule
never empties a space."""

from __future__ import annotations

from dataclasses import dataclass

from .resources import Limits
from .tile_facts import Dot, TileFacts, element_bytes


@dataclass(frozen=True)
class Floor:
    """The largest carried sum of a candidate and the registers per thread it needs at least."""

    registers: int
    dot: Dot
    threads: int


def register_floor(facts: TileFacts) -> Floor | None:
    """The floor of one candidate: its largest carried dot sum over its threads (None: no carried sum)."""
    threads = max(int(facts.threads), 1)
    best = None
    for dot in facts.dots:
        if not dot.acc or not dot.acc_element:
            continue
        registers = -(-dot.m * dot.n * element_bytes(dot.acc_element) // (4 * threads))
        if best is None or registers > best.registers:
            best = Floor(registers, dot, threads)
    return best


def thread_cap(threads: int, limits: Limits) -> int:
    """The most registers one thread of a CTA of `threads` may have: the chip's per-thread limit,
    and its share of the per-CTA register file (allocated per warp in units of 256), which the PTX's
    .maxntid makes ptxas respect."""
    warps = max(-(-int(threads) // 32), 1)
    per_warp = limits.registers_per_cta // warps // 256 * 256
    return min(limits.registers_per_thread, per_warp // 32)


def floor_reason(floor: Floor, cap: int) -> str:
    """Why a candidate is pruned on its floor, with the numbers."""
    d = floor.dot
    where = f" at line {d.line}" if d.line else ""
    limit = f"the {cap} a thread has" if cap >= 255 else f"the {cap} a thread of a {floor.threads}-thread CTA may have"
    return (
        f"registers: the sum '{d.acc}' of the dot{where} alone needs at least {floor.registers} registers per "
        f"thread ({d.m} x {d.n} {d.acc_element} over {floor.threads} threads), more than {limit}; "
        "ptxas would keep it in local memory"
    )


def floor_pruned(facts: list[TileFacts | None], limits: Limits, among=None) -> dict[int, str]:
    """{candidate index: reason} of the candidates (those in `among`, default all) whose floor
    exceeds the limit, provided at least one other of them is known to be under it; else {}."""
    over: dict[int, str] = {}
    under = False
    for i, f in enumerate(facts):
        if f is None or (among is not None and i not in among):
            continue
        floor = register_floor(f)
        cap = thread_cap(f.threads, limits)
        if floor is not None and floor.registers > cap:
            over[i] = floor_reason(floor, cap)
        else:
            under = True
    return over if under else {}
