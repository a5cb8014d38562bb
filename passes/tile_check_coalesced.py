"""tile-check-coalesced: the check behind @assert_coalesced."""

from __future__ import annotations

from mlir import ir

from phobos.dialect import kernel as K
from phobos.passes.registry import fail, tile_pass
from phobos.passes.tile_explain import explain_prepared, report_location
from phobos.report.explain import coalescing_error


@tile_pass("tile-check-coalesced")
def tile_check_coalesced(module: ir.Operation, pass_) -> None:
    """Makes every strided global access of an `@assert_coalesced` kernel
    (`tile.assert_coalesced`) a located error. An access is strided when the
    neighbouring lanes of a warp, in the layout tile-assign-layout chose, walk
    a tensor dimension whose index is multiplied by anything but 1 (a leading
    stride of a slice, a multiplier in an offset expression); lanes that all
    read the same elements are not. The error, at the access, names the
    lane-varying term, its multiplier and the 128-byte lines one warp request
    touches against the ideal (the report of phobos explain,
    phobos/report/explain.py). Kernels without the flag are not looked at.
    Runs in the gpu stage after tile-assign-layout; on IR that has no layout
    yet, the layout is chosen on a copy.

    Example: `X[r :+ 256, c :+ 1]` of a `tensor<f32>[M, N]` in an
    @assert_coalesced kernel gives `error: @assert_coalesced: the lanes of this
    load of 'X' are strided: the lane-varying term (the index along dimension 0
    of 'X') is multiplied by the stride of dimension 0 of 'X' (N elements when
    rows are packed); ...`.
    """
    if not any(K.ASSERT_COALESCED in fn.attributes for fn in K.kernels(module)):
        return
    reports, ok = explain_prepared(module)
    if not ok:
        pass_.signal_pass_failure()
        return
    for r in reports:
        if not r.assert_coalesced:
            continue
        for a in r.accesses:
            if a.lanes is not None and a.lanes.strided:
                fail(pass_, report_location(a.location, a.filename, a.line, a.col), coalescing_error(a))
