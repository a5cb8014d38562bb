"""tile-explain: print the access report of phobos explain as remarks."""

from __future__ import annotations

from mlir import ir

from phobos.analysis.remarks import emit_remark
from phobos.passes.registry import tile_pass
from phobos.passes.tile_assign_layout import tile_assign_layout
from phobos.passes.tile_elide_masks import tile_elide_masks
from phobos.passes.tile_realign_rows import tile_realign_rows
from phobos.report.explain import KernelReport, StandInPass, explain_module, remark_message


def prepare_report(module: ir.Operation, pass_: StandInPass, chip: str) -> None:
    """The passes whose records the access report reads, run on `module` (a copy):
    tile-elide-masks, tile-realign-rows, then tile-assign-layout for `chip` unless the first failed."""
    tile_elide_masks(module, pass_)
    if not pass_.failed:
        tile_realign_rows(module, pass_)
        tile_assign_layout(module, pass_, chip)


def explain_prepared(module: ir.Operation) -> tuple[list[KernelReport], bool]:
    """report.explain.explain_module with the passes it reads (prepare_report)."""
    return explain_module(module, prepare_report)


def report_location(location: str, filename: str | None, line: int, col: int) -> ir.Location:
    """The MLIR location of a report entry (unknown where it has no file position)."""
    if filename is None:
        return ir.Location.unknown()
    return ir.Location.file(filename, line, col)


def _kernel_location(text: str) -> ir.Location:
    filename, _, rest = text.rpartition(":")
    name, _, line = filename.rpartition(":")
    if not name or not line.isdigit() or not rest.isdigit():
        return ir.Location.unknown()
    return ir.Location.file(name, int(line), int(rest))


@tile_pass("tile-explain")
def tile_explain(module: ir.Operation, pass_) -> None:
    """Prints the report of `phobos explain` as remarks: one per kernel (threads,
    layout, shared memory, barriers) and one per global load and store at its
    location, giving the vector width and the facts that keep it below 16
    bytes, whether the mask was dropped and by what or kept and why, how warp
    0's lanes walk the tensor (the multiplier of the lane-varying index), and
    the 128-byte lines one warp request touches against the ideal. The IR is
    not changed: on tile IR that tile-elide-masks and tile-assign-layout have
    not seen yet, they run on a copy (phobos/report/explain.py). Remarks go to
    stderr, as tile-elide-masks{remarks=true} prints them; test with `2>&1 |
    FileCheck`.

    Output: `scale.ph:12:11: remark: tile.load_slice of 'X': 4 elements (16 bytes)
    per access; mask: dim 0 dropped by @aligned(M = 32); ...; lanes coalesced:
    dimension 1, stride 1; 128-byte lines per warp request: 4 (ideal 4)`.
    """
    reports, ok = explain_prepared(module)
    if not ok:
        pass_.signal_pass_failure()
        return
    for r in reports:
        later = "planned by the dot lowering, not reported yet"
        shared = ", ".join(f"{b.name} at {b.offset} ({b.bytes} bytes)" for b in r.shared_buffers) or (
            "none planned" if r.shared_memory_reported else later
        )
        barriers = ", ".join(f"{b.location} {'kept' if b.kept else 'elided'}" for b in r.barriers) or (
            "none" if r.shared_memory_reported else later
        )
        emit_remark(
            _kernel_location(r.location),
            f"kernel '{r.name}': {r.threads} threads, layout {r.layout or 'none'}; "
            f"shared memory: {shared}; barriers: {barriers}",
        )
        for a in r.accesses:
            emit_remark(report_location(a.location, a.filename, a.line, a.col), remark_message(a))
