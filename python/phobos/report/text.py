"""The access report as text: `render_text` for people (`phobos explain`), `remark_message`
for the one-line remarks of tile-explain, `coalescing_error` for @assert_coalesced."""

from __future__ import annotations

from phobos.analysis.access import VECTOR_BYTES
from phobos.lowering.layout import Blocked
from phobos.report.model import Access, KernelReport


def _fmt_shape(shape) -> str:
    return "x".join(str(s) for s in shape)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _width_text(a: Access) -> str:
    return f"{_plural(a.vector_width, 'element')} ({_plural(a.vector_bytes, 'byte')}) per access"


def _layout_words(text: str | None) -> str:
    return f"({Blocked.from_text(text).in_words()})" if text else "none"


def render_text(reports: list[KernelReport]) -> str:
    """The report for people: a block per kernel, an entry per access, each at its file:line:col."""
    out = []
    for r in reports:
        out.append(
            f"{r.location}: kernel '{r.name}': {r.threads} threads, layout {_layout_words(r.layout)}, "
            f"key {r.key or '(generic)'}" + (", @assert_coalesced" if r.assert_coalesced else "")
        )
        for a in r.accesses:
            out.append(f"{a.location}: {a.kind} of '{a.tensor}' ({a.op}, tile {_fmt_shape(a.tile)} x {a.element})")
            vec = f"  vector: {_width_text(a)}"
            if a.narrow:
                vec += f", narrower than {VECTOR_BYTES} bytes"
            out.append(vec)
            for limit in a.limits:
                out.append(f"    missing ({limit.fact}): {limit.text}")
            for note in a.notes:
                out.append(f"    {note}")
            if a.mask is not None:
                out.append(f"  mask: {a.mask.text}")
            if a.lanes is not None:
                out.append(f"  lanes: {'strided' if a.lanes.strided else 'coalesced'}: {a.lanes.text}")
            if a.lines is not None:
                out.append(
                    f"  lines: one warp request touches {_plural(a.lines.touched, '128-byte line')} "
                    f"(ideal {a.lines.ideal}) for {a.lines.bytes} bytes"
                )
        unreported = "planned by the dot lowering, not reported yet"
        buffers = ", ".join(f"{b.name} at {b.offset} ({b.bytes} bytes)" for b in r.shared_buffers)
        barriers = ", ".join(f"{b.location} {'kept' if b.kept else 'elided'}" for b in r.barriers)
        out.append("  shared memory: " + (buffers or ("none planned" if r.shared_memory_reported else unreported)))
        out.append("  barriers: " + (barriers or ("none" if r.shared_memory_reported else unreported)))
        for note in r.notes:
            out.append(f"  note: {note}")
    return "\n".join(out) + ("\n" if out else "")


def remark_message(a: Access) -> str:
    """One access as one remark line (tile-explain)."""
    parts = [f"{a.op} of '{a.tensor}': {_width_text(a)}"]
    if a.limits:
        parts += [f"narrower than 16 bytes, missing {x.fact}: {x.text}" for x in a.limits]
    parts += a.notes
    if a.mask is not None:
        parts.append(f"mask: {a.mask.text}")
    if a.lanes is not None:
        kind = "strided" if a.lanes.strided else "coalesced"
        if a.lanes.dim is None:
            parts.append(f"lanes {kind}: all lanes read the same elements")
        else:
            parts.append(f"lanes {kind}: dimension {a.lanes.dim}, stride {a.lanes.stride_text}")
    if a.lines is not None:
        parts.append(f"128-byte lines per warp request: {a.lines.touched} (ideal {a.lines.ideal})")
    return "; ".join(parts)


def coalescing_error(a: Access) -> str:
    """The message of @assert_coalesced for a strided access."""
    lanes = a.lanes
    if a.form == "slice":
        term = f"the index along dimension {lanes.dim} of '{a.tensor}'"
    else:
        offending = [t for t in lanes.terms if t.multiplier != 1] or lanes.terms
        term = ", ".join(f"{t.text} at {t.location}" for t in offending) or "the lane-varying offsets"
    lines = f"; one warp request touches {a.lines.touched} 128-byte lines (ideal {a.lines.ideal})" if a.lines else ""
    return (
        f"@assert_coalesced: the lanes of this {a.kind} of '{a.tensor}' are strided: "
        f"the lane-varying term ({term}) is multiplied by {lanes.stride_text}{lines}"
    )
