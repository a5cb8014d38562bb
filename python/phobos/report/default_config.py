"""The untuned-default section of `phobos explain`: which @autotune configuration a launch that does
not tune runs for some extents, and why. The choice itself is phobos.runtime.autotune's
(`source_default`, a DefaultChoice); this module only words it, so the report imports no runtime."""

from __future__ import annotations

_HOW = {"model": "cost model", "first": "candidate 0, as asked", "no facts": "no facts: the first runnable"}


def render_default(choice, candidates: int, kernel: str, *, representative: int | None = None) -> str:
    """The section's text for a DefaultChoice: the configuration, then the reasons, indented.
    `representative`: the extent that dimensions without --args took (None: all were given)."""
    shape = ", ".join(f"{d}={n}" for d, n in sorted(choice.extents.items()))
    if representative is not None:
        shape += f" (no --args: {representative} along every dimension)"
    lines = [f"untuned default of {kernel} for {shape} ({_HOW[choice.how]}, {candidates} candidates):"]
    lines.append("  " + (" ".join(f"{k}={v}" for k, v in choice.config.items()) or "(no constants)"))
    for i, reason in enumerate(choice.reasons()):
        lines.append(("  why: " if i == 0 else "       ") + reason)
    if choice.excluded:
        lines.append(f"  {len(choice.excluded)} candidates cannot run for these extents (@aligned promises)")
    return "\n".join(lines) + "\n"
