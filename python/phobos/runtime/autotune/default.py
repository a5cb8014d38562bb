"""The untuned default: which candidate a launch runs when it does not tune (PHOBOS_AUTOTUNE=0,
`autotune=False`, an ahead-of-time folder without a stored winner), and why.

The cost model (cost_model.py) ranks the candidates whose @aligned promises the extents keep;
the fastest estimate is the default. PHOBOS_AUTOTUNE_DEFAULT=first asks for candidate 0 (the
first value of every space) instead, as before there was a model."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from .cost_model import ChipModel, Estimate, chip_model, rank
from .space import config_name, promise_violation, source_space
from .tile_facts import TileFacts, source_facts

ENV_DEFAULT = "PHOBOS_AUTOTUNE_DEFAULT"  # "model" (the default) or "first"
POLICIES = ("model", "first")
REPRESENTATIVE_EXTENT = 4096  # every dimension the caller leaves out (phobos explain without --args)


def policy() -> str:
    """How the untuned default is chosen: 'model' or 'first' (PHOBOS_AUTOTUNE_DEFAULT)."""
    value = os.environ.get(ENV_DEFAULT, "model").strip().lower() or "model"
    if value not in POLICIES:
        raise ValueError(f"{ENV_DEFAULT}={value!r}: expected one of {', '.join(POLICIES)}")
    return value


@dataclass
class DefaultChoice:
    """The default for some extents: the candidate, the ranking behind it and the reasons."""

    index: int
    config: dict[str, int]
    how: str  # "model", "first" (asked for), "no facts" (the model had nothing to rank)
    extents: dict[str, int] = field(default_factory=dict)
    ranking: list[Estimate] = field(default_factory=list)
    excluded: dict[int, str] = field(default_factory=dict)  # candidate -> why it cannot run here

    @property
    def runner_up(self) -> Estimate | None:
        return self.ranking[1] if len(self.ranking) > 1 else None

    def reasons(self, limit: int = 2) -> list[str]:
        """Why this default: what bounds it, then against the runner-up and against candidate 0
        (what an untuned launch ran before the model) the `limit` facts that differ most."""
        if self.how != "model" or not self.ranking:
            return [{"first": f"{ENV_DEFAULT}=first asks for candidate 0"}.get(self.how, self.how)]
        best = self.ranking[0]
        out = describe(best)
        rivals = [("runner-up", self.runner_up)]
        first = next((e for e in self.ranking if e.index == 0), None)
        if first is not None and first.index not in (best.index, getattr(self.runner_up, "index", None)):
            rivals.append(("candidate 0", first))
        for label, other in rivals:
            if other is not None:
                ratio = other.cycles / best.cycles if best.cycles else 1.0
                why = compare(best, other)[:limit]
                out.append(
                    f"{label} {config_name(other.config)}: estimated {ratio:.2f}x the time"
                    + (f" ({'; '.join(why)})" if why else " (a tie: the space's order decides)")
                )
        return out

    def to_json(self) -> dict:
        return {
            "index": self.index,
            "config": self.config,
            "how": self.how,
            "extents": self.extents,
            "reasons": self.reasons(),
            "ranking": [
                {"index": e.index, "config": e.config, "estimated_us": round(e.microseconds, 3), "facts": e.facts}
                for e in self.ranking
            ],
            "excluded": {config_name(self.ranking_config(i)): why for i, why in self.excluded.items()},
        }

    def ranking_config(self, index: int) -> dict[str, int]:
        return next((e.config for e in self.ranking if e.index == index), {"candidate": index})


def choose_default(
    configs: list[dict[str, int]],
    facts: list[TileFacts | None],
    extents: dict[str, int],
    chip: ChipModel,
    *,
    promises: list[dict[str, int] | None] | None = None,
    available: set[int] | None = None,
    registers: list[int | None] | None = None,
) -> DefaultChoice:
    """The default among `configs` for `extents`: the cost model's fastest estimate among the
    candidates that can run (their @aligned promises hold; in `available` when given)."""
    excluded: dict[int, str] = {}
    for i in range(len(configs)):
        why = promise_violation((promises[i] or {}) if promises and i < len(promises) else {}, extents)
        if why:
            excluded[i] = why
        elif available is not None and i not in available:
            excluded[i] = "not compiled"
    runnable = [i for i in range(len(configs)) if i not in excluded]
    if not runnable:
        runnable = [0]  # the launch reports what is wrong with candidate 0
    if policy() == "first":
        return DefaultChoice(runnable[0], dict(configs[runnable[0]]), "first", dict(extents), excluded=excluded)
    viable = [i in runnable for i in range(len(configs))]
    ranking = rank(facts, extents, chip, registers=registers, viable=viable)
    if not ranking:
        i = runnable[0]
        return DefaultChoice(i, dict(configs[i]), "no facts", dict(extents), excluded=excluded)
    for e in ranking:
        e.config = dict(configs[e.index])
    return DefaultChoice(ranking[0].index, ranking[0].config, "model", dict(extents), ranking, excluded)


def source_default(
    text: str,
    origin: str,
    *,
    kernel: str | None = None,
    defines: dict | None = None,
    extents: dict[str, int] | None = None,
    chip: str = "sm_90",
) -> tuple[DefaultChoice, int] | None:
    """(the default of a .ph kernel for `extents`, its number of candidates); None when there is
    no space to choose from (MLIR input, one candidate, a source the front end rejects).
    Dimensions `extents` leaves out take REPRESENTATIVE_EXTENT."""
    space = source_space(text, origin, kernel, defines)
    if space is None or len(space.configs) < 2:
        return None
    facts = source_facts(text, origin, kernel, [dict(defines or {}, **c) for c in space.configs])
    dims = {a.symbol for f in facts if f is not None for a in f.grid if a is not None}
    dims |= {d for f in facts if f is not None for a in f.accesses for d in a.dims if d is not None}
    sizes = {d: REPRESENTATIVE_EXTENT for d in sorted(dims)}
    sizes.update({d: int(n) for d, n in (extents or {}).items()})
    choice = choose_default(space.configs, facts, sizes, chip_model(chip), promises=space.promises)
    return choice, len(space.configs)


# ----------------------------------------------------------------------------- reasons in words


def describe(e: Estimate) -> list[str]:
    """What bounds one candidate's estimate, in words."""
    f = e.facts
    lines = [
        f"{config_name(e.config)}: about {f['us']:.1f} us; {int(f['ctas'])} CTAs of {int(f['threads'])} threads, "
        f"{int(f['ctas_per_sm'])} per SM, {f['waves']:.2f} waves"
    ]
    if "intensity" in f:
        bound = "operand bytes" if f.get("memory_bound") else "math"
        lines.append(f"{bound}-bound: {f['intensity']:.0f} flops per operand byte per trip")
    if f.get("staging_cycles"):
        width = int(f["vector_bytes"])
        lines.append(f"operands staged through registers in {width}-byte loads (rows not 16-byte aligned)")
    if "latency_efficiency" in f:
        lines.append(
            f"{f['bytes_in_flight'] / 1024:.0f} KiB in flight per SM, {f['vectors_per_thread']:.1f} vectors per thread"
        )
    return lines


def compare(best: Estimate, other: Estimate) -> list[str]:
    """Why `best` is estimated faster than `other`: the facts that differ most, strongest first."""
    a, b = best.facts, other.facts
    found: list[tuple[float, str]] = []

    def weigh(key: str, text: str, higher_is_better: bool = True) -> None:
        if key in a and key in b and a[key] > 0 and b[key] > 0 and a[key] != b[key]:
            gain = a[key] / b[key] if higher_is_better else b[key] / a[key]
            if gain > 1.01:
                found.append((gain, text))

    weigh("wave_efficiency", f"fuller waves, {a['waves']:.2f} vs {b['waves']:.2f}")
    weigh("ctas_per_sm", f"{int(a['ctas_per_sm'])} CTAs per SM vs {int(b['ctas_per_sm'])}")
    weigh(
        "issue_efficiency",
        f"{a.get('outputs_per_thread', 0):.0f} vs {b.get('outputs_per_thread', 0):.0f} outputs per thread",
    )
    weigh("intensity", f"{a.get('intensity', 0):.0f} vs {b.get('intensity', 0):.0f} flops per operand byte")
    weigh("spill", f"{a['registers_needed']:.0f} registers needed fit, {b['registers_needed']:.0f} may spill", False)
    weigh(
        "latency_efficiency",
        f"{a.get('bytes_in_flight', 0) / 1024:.0f} vs {b.get('bytes_in_flight', 0) / 1024:.0f} KiB in flight per SM",
    )
    weigh(
        "thread_efficiency",
        f"{a.get('vectors_per_thread', 0):.1f} vs {b.get('vectors_per_thread', 0):.1f} vectors per thread",
    )
    weigh("useful", f"{a['useful']:.1%} vs {b['useful']:.1%} of the tiles inside the tensors")
    weigh("trips", f"{int(a.get('trips', 0))} vs {int(b.get('trips', 0))} loop trips", False)
    found.sort(key=lambda t: -t[0])
    return [text for _, text in found]
