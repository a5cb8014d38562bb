"""The untuned-default section of `phobos explain`: which @autotune configuration a launch that does
not tune runs for some extents, and why (runtime/autotune/default.py ranks the candidates with the
cost model). Plain Python: the front end and the model, no MLIR, no GPU."""

from __future__ import annotations

from phobos.runtime.autotune import DefaultChoice, chip_model, choose_default, source_facts, source_space

REPRESENTATIVE_EXTENT = 4096  # every dimension, when no arguments are given


def untuned_default(
    text: str,
    origin: str,
    *,
    kernel: str | None = None,
    defines: dict | None = None,
    extents: dict[str, int] | None = None,
    chip: str = "sm_90",
) -> tuple[DefaultChoice, int] | None:
    """(the default for `extents`, the number of candidates); None when the kernel has no space to
    choose from (MLIR input, a single candidate, a source the front end rejects). Dimensions that
    `extents` leaves out take REPRESENTATIVE_EXTENT."""
    space = source_space(text, origin, kernel, defines)
    if space is None or len(space.configs) < 2:
        return None
    full = dict(defines or {})
    facts = source_facts(text, origin, kernel, [dict(full, **c) for c in space.configs])
    dims = {a.symbol for f in facts if f is not None for a in f.grid if a is not None}
    dims |= {d for f in facts if f is not None for a in f.accesses for d in a.dims if d is not None}
    given = dict(extents or {})
    sizes = {d: int(given.get(d, REPRESENTATIVE_EXTENT)) for d in sorted(dims)}
    sizes.update({d: int(n) for d, n in given.items()})
    choice = choose_default(space.configs, facts, sizes, chip_model(chip), promises=space.promises)
    return choice, len(space.configs)


def render_default(choice: DefaultChoice, candidates: int, kernel: str, *, representative: bool) -> str:
    """The section's text: the configuration, then the reasons, indented."""
    shape = ", ".join(f"{d}={n}" for d, n in sorted(choice.extents.items()))
    if representative:
        shape += f" (no --args: {REPRESENTATIVE_EXTENT} along every dimension)"
    how = {"model": "cost model", "first": "candidate 0, as asked", "no facts": "no facts: the first runnable"}
    lines = [f"untuned default of {kernel} for {shape} ({how[choice.how]}, {candidates} candidates):"]
    lines.append("  " + (" ".join(f"{k}={v}" for k, v in choice.config.items()) or "(no constants)"))
    reasons = choice.reasons()
    for i, reason in enumerate(reasons):
        lines.append(("  why: " if i == 0 else "       ") + reason)
    if choice.excluded:
        lines.append(f"  {len(choice.excluded)} candidates cannot run for these extents (@aligned promises)")
    return "\n".join(lines) + "\n"
