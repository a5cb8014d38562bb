"""tile-verify-barriers: check the recorded barrier plan with an independent hazard analysis."""

from __future__ import annotations

from mlir import ir

from phobos.dialect.kernel import kernels
from phobos.lowering.barrier_check import PlanRecordError, check_kernel
from phobos.passes.registry import fail, tile_pass


@tile_pass("tile-verify-barriers")
def tile_verify_barriers(module: ir.Operation, pass_) -> None:
    """Checks the barriers tile-insert-barriers recorded with a hazard analysis of its own.
    From the IR, the buffers of `tile.shared` and the barriers `tile.sync` keeps, and without
    the planner's code (phobos/lowering/barrier_check.py), it finds the shared-memory accesses
    that conflict: a write and a read or write of overlapping bytes with a path between them
    (loops' back edges included) that passes no barrier. Each such pair is a located error at
    the later access naming both ops and the buffer. Runs right after tile-insert-barriers;
    kernels without a recorded plan are not looked at. Changes nothing.

    Before: a dot in a loop whose `tile.sync = {read = {barrier = false, ...}}` was edited by hand.
    After: the same IR, and `error: missing barrier (read after write): the reads at F:L:C touch
    shared buffer 'lhs of the dot at F:L:C', which the copy into shared memory at F:L:C wrote ...`.
    """
    for fn in kernels(module):
        try:
            result = check_kernel(fn)
        except PlanRecordError as e:
            fail(pass_, e.op.location, str(e))
            continue
        for hazard in result.hazards:
            assert hazard.later.op is not None
            fail(pass_, hazard.later.op.location, hazard.message())
