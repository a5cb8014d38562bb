"""The untuned default: a cost model that ranks the candidates of an @autotune space for a launch's
extents from static facts (tile_facts.py), with no GPU and no MLIR.

Each candidate gets an estimated time in SM clock cycles:

  grid        CTAs from the grid axes and the extents (padded tiles: masking waste is work too)
  occupancy   CTAs per SM from threads, an estimated register footprint (capped by @launch's
              min-blocks) and shared memory (the @pipeline ring), against the chip's per-SM limits
  waves       the grid in waves of SMs x CTAs per SM; the last, partial wave costs a whole one
  per CTA     dot kernels: the larger of math (flops at the SM's rate, less for thin per-thread
              tiles) and operand bytes (arithmetic intensity per tile) per loop trip, plus the
              barrier of each trip, hidden by the other CTAs on the SM; other kernels: bytes over
              the SM's share of DRAM bandwidth, slowed when too few bytes are in flight (Little's
              law), when threads hold under two vectors each, and when few CTAs share an SM
  vectors     the widest access the alignment allows (the extents' divisibility, 16 bytes at most)
  registers   a footprint past the cap (255, or what min-blocks leaves) spills: slower

Absolute numbers are rough; the ranking is what the default uses. bench/results validates it
(test_cost_model_recorded.py): the pick against the measured best of every recorded tuning."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from .tile_facts import Access, TileFacts


@dataclass(frozen=True)
class ChipModel:
    """Per-SM facts of a chip: limits, rates in bytes or flops per SM clock."""

    name: str
    sms: int
    clock_ghz: float = 1.75
    registers: int = 65536
    threads: int = 2048
    ctas: int = 32
    shared: int = 233472  # bytes per SM for CTAs (228 KiB), 1 KiB reserved per CTA
    dram_bytes_per_clock: float = 14.5  # per SM: 3.35 TB/s / 132 SMs / 1.75 GHz
    l2_bytes_per_clock: float = 40.0  # per SM, operand tiles re-read by many CTAs (L2 and L1 hits)
    simt_flops_per_clock: float = 256.0  # f32 FMA: 128 lanes x 2
    tensor_flops_per_clock: float = 2500.0  # mma.sync f16 (about 60% of wgmma's peak)
    in_flight_bytes: int = 32768  # per SM, to cover DRAM latency at full bandwidth
    barrier_clocks: float = 200.0  # a __syncthreads plus the ring's wait, per loop trip
    lsu_lanes: int = 32  # load/store lanes per SM: one warp-wide memory instruction per clock


_CHIPS = {
    "sm_80": ChipModel("A100", 108, 1.41, dram_bytes_per_clock=13.6),
    "sm_89": ChipModel("L40", 142, 2.5, shared=101376, dram_bytes_per_clock=2.5),
    "sm_90": ChipModel("H100", 132),
    "sm_100": ChipModel("B200", 148, 1.9, dram_bytes_per_clock=28.0),
}
_H200 = ChipModel("H200", 132, dram_bytes_per_clock=20.7)  # 4.8 TB/s


def chip_model(chip: str = "sm_90", *, sms: int | None = None, device_name: str | None = None) -> ChipModel:
    """The chip's facts (sm_90 when unknown); `sms`: the device's SM count when one answers."""
    base = _CHIPS.get(chip.rstrip("a"), _CHIPS["sm_90"])
    if device_name and "H200" in device_name:
        base = _H200
    if sms and sms != base.sms:
        base = ChipModel(**{**base.__dict__, "sms": int(sms)})
    return base


@dataclass
class Estimate:
    """One candidate's estimate: cycles (lower is better) and the facts behind them."""

    index: int
    config: dict[str, int]
    cycles: float
    facts: dict[str, float] = field(default_factory=dict)

    @property
    def microseconds(self) -> float:
        return self.facts.get("us", 0.0)


# ----------------------------------------------------------------------------- the per-candidate model


def vector_bytes(access: Access, threads: int, extents: dict[str, int]) -> int:
    """The widest vector one thread moves for `access`: 16 bytes at most, no wider than the
    tensor's row pitch and the tile's row allow (their power-of-two divisibility in bytes), nor
    than the thread's share of the tile."""
    eb = access.element_bytes
    widest = 16
    inner = access.dims[-1] if access.dims else None
    if inner is not None and len(access.tile) > 1:  # rows start at multiples of the pitch
        widest = min(widest, _pow2_divisor(extents.get(inner, 1) * eb))
    if inner is not None and len(access.tile) == 1 and access.tile[0] * eb % 16:
        widest = min(widest, _pow2_divisor(access.tile[0] * eb))
    widest = min(widest, _pow2_divisor(access.tile[-1] * eb) if access.tile else eb)
    per_thread = max(eb, access.bytes // max(threads, 1))
    return max(eb, min(widest, _pow2_floor(per_thread)))


def grid_ctas(facts: TileFacts, extents: dict[str, int]) -> int:
    """CTAs of the launch: the product of the grid axes, or, where no axis is known, the largest
    written tensor over its tile."""
    axes = [a for a in facts.grid if a is not None]
    if axes:
        return math.prod(-(-max(extents.get(a.symbol, 1), 1) // max(a.tile, 1)) for a in axes)
    written = [a for a in facts.accesses if a.write] or facts.accesses
    if not written:
        return 1
    a = max(written, key=lambda w: w.bytes)
    total = math.prod(max(extents.get(d, t), 1) if d else t for d, t in zip(a.dims, a.tile))
    return max(1, -(-total // max(math.prod(a.tile), 1)))


def useful_fraction(facts: TileFacts, extents: dict[str, int]) -> float:
    """The share of the grid's tiles that lies inside the tensors (1.0: no masking waste)."""
    frac = 1.0
    for a in facts.grid:
        if a is not None and a.symbol in extents and a.tile > 1:
            n = max(extents[a.symbol], 1)
            frac *= n / (-(-n // a.tile) * a.tile)
    return frac


def estimate(
    facts: TileFacts, extents: dict[str, int], chip: ChipModel, *, index: int = 0, registers: int | None = None
) -> Estimate:
    """The estimated time of one candidate; `registers`: the cubin's count when known."""
    est = Estimate(index, dict(facts.config), 0.0)
    f = est.facts
    f["threads"] = facts.threads
    f["ctas"] = grid_ctas(facts, extents)
    f["useful"] = useful_fraction(facts, extents)
    vectors = [vector_bytes(a, facts.threads, extents) for a in facts.accesses]
    f["vector_bytes"] = min(vectors, default=16)
    staged = facts.pipelined and f["vector_bytes"] >= 16
    f["shared_bytes"] = _shared_bytes(facts, staged)
    f["registers_needed"], free = _registers(facts, staged, f["vector_bytes"])
    cap = _register_cap(facts)
    f["registers"] = min(registers or free, cap)
    f["spill"] = max(1.0, f["registers_needed"] / cap)
    f["ctas_per_sm"] = _ctas_per_sm(facts, f["registers"], f["shared_bytes"], chip)
    if facts.dots:
        per_cta = _dot_cycles(facts, extents, chip, f)
    else:
        per_cta = _stream_cycles(facts, extents, chip, f)
    per_cta *= f["spill"] ** 2  # spilled registers go through local memory on every trip
    concurrent = chip.sms * f["ctas_per_sm"]
    waves = f["ctas"] / concurrent
    f["waves"] = waves
    f["wave_efficiency"] = waves / math.ceil(waves)
    est.cycles = math.ceil(waves) * f["ctas_per_sm"] * per_cta
    f["us"] = est.cycles / (chip.clock_ghz * 1e3)
    return est


def _dot_cycles(facts: TileFacts, extents: dict[str, int], chip: ChipModel, f: dict) -> float:
    """One CTA's share of its SM, in cycles, for a kernel of dots: per loop trip the larger of its
    math and its operand bytes, plus the trip's barrier (hidden by the SM's other CTAs). Operands
    without the cp.async ring (rows not 16-byte aligned) are staged through registers, one load
    and one shared store per vector: that work overlaps the math only across CTAs."""
    outputs = max(d.m * d.n for d in facts.dots) / facts.threads
    reuse = min(math.sqrt(outputs) / 2, 4.0)  # FMAs per shared load of a square thread tile
    f["outputs_per_thread"] = outputs
    f["issue_efficiency"] = reuse / (reuse + 1) if not facts.tensorcore else 1.0
    rate = chip.tensor_flops_per_clock if facts.tensorcore else chip.simt_flops_per_clock
    staged = facts.pipelined and f["vector_bytes"] >= 16
    c = f["ctas_per_sm"]
    total, trips = 0.0, 1
    for d in facts.dots:
        trips = d.loop.trips(extents) if d.loop else 1
        step_flops = 2.0 * d.m * d.n * d.k
        step_bytes = sum(a.bytes for a in facts.accesses if a.loop is not None and not a.write)
        math_cycles = step_flops / (rate * f["issue_efficiency"])
        byte_cycles = step_bytes / chip.l2_bytes_per_clock
        staging = 0.0 if staged else 2.0 * step_bytes / (f["vector_bytes"] * chip.lsu_lanes)
        f["intensity"] = step_flops / max(step_bytes, 1)
        f["memory_bound"] = float(byte_cycles > math_cycles)
        f["staging_cycles"] = staging
        busy = max(math_cycles, byte_cycles, staging) + min(math_cycles, staging) / c
        total += trips * (busy + chip.barrier_clocks / c)
    f["trips"] = trips
    once = sum(a.bytes for a in facts.accesses if a.loop is None)
    return total + once / chip.dram_bytes_per_clock


def _stream_cycles(facts: TileFacts, extents: dict[str, int], chip: ChipModel, f: dict) -> float:
    """One CTA's share of its SM, in cycles, for a kernel that streams its tiles: bytes over the
    SM's DRAM share, slowed by too few bytes in flight, thin threads and lone CTAs."""
    moved = sum(a.bytes * (a.loop.trips(extents) if a.loop else 1) for a in facts.accesses)
    per_round = sum(a.bytes for a in facts.accesses if not a.write)
    in_flight = f["ctas_per_sm"] * per_round
    f["bytes_in_flight"] = in_flight
    f["latency_efficiency"] = min(1.0, in_flight / chip.in_flight_bytes)
    per_thread = [a.bytes / facts.threads / 16 for a in facts.accesses if not a.write]  # in 16-byte vectors
    per_thread_vectors = min(per_thread, default=2.0)
    f["vectors_per_thread"] = per_thread_vectors
    f["thread_efficiency"] = min(1.0, 0.75 + 0.125 * per_thread_vectors)
    f["overlap_efficiency"] = 1.0 - 1.0 / (2.0 * (f["ctas_per_sm"] + 1))
    f["vector_efficiency"] = 0.9 + 0.1 * f["vector_bytes"] / 16
    efficiency = f["latency_efficiency"] * f["thread_efficiency"] * f["overlap_efficiency"] * f["vector_efficiency"]
    return moved / (chip.dram_bytes_per_clock * efficiency)


# ----------------------------------------------------------------------------- resources


def _registers(facts: TileFacts, staged: bool, vector: int) -> tuple[float, float]:
    """Estimated registers per thread (ptxas's count is known only after compiling): the fewest a
    candidate can do without, and what ptxas takes when no cap binds (it spreads out). Dots: the
    accumulators and operand fragments; other kernels: the elements a thread holds; plus
    addressing."""
    if facts.dots:
        outputs = max(d.m * d.n for d in facts.dots) / facts.threads
        if facts.tensorcore:
            need, free = outputs + 48, 1.3 * outputs + 60
        else:
            need, free = 1.75 * outputs + 40, 2 * outputs + 40
        if not staged:  # operands pass through registers on their way to shared memory:
            # one register per loaded vector of up to 4 bytes (a 2-byte load takes a whole one)
            per_thread = sum(a.bytes for a in facts.accesses if a.loop is not None) / facts.threads
            extra = per_thread / vector * max(1, vector // 4)
            need, free = need + extra, free + extra
        return need, free
    held = sum(math.prod(a.tile) for a in facts.accesses if not a.write) / facts.threads
    need = 24 + held * (2 if vector < 16 else 1)  # masked narrow accesses keep a predicate each
    return need, need


def _register_cap(facts: TileFacts) -> int:
    """Registers per thread ptxas may use: 255, or what @launch's min-blocks leaves per thread."""
    if facts.min_blocks > 1:
        return max(24, min(255, 65536 // (facts.min_blocks * facts.threads) // 8 * 8))
    return 255


def _shared_bytes(facts: TileFacts, staged: bool) -> int:
    """Shared memory of the dot operands: rows padded by 16 bytes, the ring's stages (3, or
    @pipeline(S)'s) when it runs (16-byte aligned rows), one otherwise."""
    if not facts.dots:
        return 0
    per_stage = 0
    for a in facts.accesses:
        if a.loop is not None and not a.write and len(a.tile) == 2:
            per_stage += a.tile[0] * (a.tile[1] * a.element_bytes + 16)
    return per_stage * (facts.stages if staged else 1)


def _ctas_per_sm(facts: TileFacts, registers: float, shared: int, chip: ChipModel) -> int:
    """Resident CTAs per SM: threads, registers (per warp, in units of 256) and shared memory."""
    per_warp = -(-int(registers) * 32 // 256) * 256
    warps = -(-facts.threads // 32)
    by_registers = chip.registers // max(per_warp * warps, 1)
    by_shared = chip.shared // (shared + 1024) if shared else chip.ctas
    return max(1, min(chip.ctas, chip.threads // max(facts.threads, 1), by_registers, by_shared))


def _pow2_divisor(n: int) -> int:
    n = int(n)
    return n & -n if n > 0 else 16


def _pow2_floor(n: float) -> int:
    return 1 << max(int(n), 1).bit_length() - 1


# ----------------------------------------------------------------------------- ranking


def rank(
    facts: list[TileFacts | None],
    extents: dict[str, int],
    chip: ChipModel,
    *,
    registers: list[int | None] | None = None,
    viable: list[bool] | None = None,
) -> list[Estimate]:
    """The candidates with facts (and `viable`), fastest estimate first; ties keep space order."""
    out = []
    for i, f in enumerate(facts):
        if f is None or (viable is not None and not viable[i]):
            continue
        regs = registers[i] if registers is not None and i < len(registers) else None
        out.append(estimate(f, extents, chip, index=i, registers=regs))
    out.sort(key=lambda e: (round(e.cycles, 6), e.index))
    return out
