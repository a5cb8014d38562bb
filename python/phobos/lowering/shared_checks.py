"""Check mode's shared-memory checks: every access stays inside a buffer the planner placed.

The lowering reaches shared memory through the views SharedRegion makes, one per planned
buffer (its `bytes // element_bytes` elements at its offset), and, for TMA copies, through
views of the whole region at a byte offset it computes. After a check-mode kernel is
lowered, this walk finds each access to a buffer view (memref and vector loads and stores,
ldmatrix, cp.async) and checks that its elements lie inside the view, and each TMA
destination that its bytes lie inside one buffer. It sees the emitted accesses, not the
plan's intentions, so an index the lowering got wrong, or a buffer the planner made too
small, is caught before the access writes over a neighbour. The site's location is the tile
op the access was lowered from (LoweringContext.lower_op sets it). The wgmma operands are read
by the hardware through matrix descriptors, with no access in the IR: their ring stage is
checked where the descriptor is formed (`check_ring_stage`).
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, memref, nvgpu, vector

from phobos.analysis.kernel_facts import element_bytes
from phobos.lowering.device_checks import fail_unless


def check_shared_accesses(ctx, func: ir.Operation) -> None:
    """Adds a `shared` check before each shared-memory access of the lowered `func`."""
    region = ctx.smem
    if region is None or not ctx.check_mode:
        return
    views = {view: i for i, view in region.views.items()}
    found: list[tuple[ir.Operation, int, ir.Value, int]] = []  # (access, buffer, first element, elements)
    tma: list[tuple[ir.Operation, ir.Value, int]] = []  # (TMA copy, byte offset, bytes)

    def visit(op: ir.Operation) -> ir.WalkResult:
        access = _access(op.opview)
        if access is not None and access[0] in views:
            found.append((op, views[access[0]], access[1], access[2]))
        elif isinstance(op.opview, nvgpu.TmaAsyncLoadOp):
            view = op.opview.dst.owner.opview
            if isinstance(view, memref.ViewOp) and view.source == region.region:
                tma.append((op, view.byte_shift, _bytes(ir.MemRefType(view.result.type))))
        return ir.WalkResult.ADVANCE

    func.walk(visit)
    for op, buffer, first, elements in found:
        with ir.InsertionPoint(op), op.location:
            _check_inside_view(ctx, op, buffer, first, elements)
    for op, offset, size in tma:
        with ir.InsertionPoint(op), op.location:
            _check_inside_a_buffer(ctx, op, offset, size)


def _access(view) -> tuple[ir.Value, ir.Value, int] | None:
    """(memref, first index, elements) of a 1-D memory access, None for other ops."""
    if isinstance(view, (memref.LoadOp, memref.StoreOp)):
        return view.memref, view.indices[0], 1
    if isinstance(view, vector.LoadOp):
        return view.base, view.indices[0], _elements(view.result.type)
    if isinstance(view, vector.StoreOp):
        return view.base, view.indices[0], _elements(view.valueToStore.type)
    if isinstance(view, nvgpu.LdMatrixOp):  # each lane gives the address of one 16-byte row
        return view.srcMemref, view.indices[0], 16 // element_bytes(ir.MemRefType(view.srcMemref.type).element_type)
    if isinstance(view, nvgpu.DeviceAsyncCopyOp):
        return view.dst, view.dstIndices[0], ir.IntegerAttr(view.dstElements).value
    return None


def _elements(t: ir.Type) -> int:
    if not isinstance(t, ir.VectorType):
        return 1
    n = 1
    for extent in ir.VectorType(t).shape:
        n *= extent
    return n


def _bytes(t: ir.MemRefType) -> int:
    n = 1
    for extent in t.shape:
        n *= extent
    return n * element_bytes(t.element_type)


def _check_inside_view(ctx, op: ir.Operation, buffer: int, first: ir.Value, elements: int) -> None:
    """first + elements <= the view's length (unsigned: a negative index fails too)."""
    b = ctx.smem.plan.buffers[buffer]
    length = ir.MemRefType(ctx.smem.views[buffer].type).shape[0]
    ok = arith.CmpIOp(arith.CmpIPredicate.ule, first, ctx.index(length - elements)).result
    message = (
        f"this {op.name} of {elements} element(s) stays inside the shared-memory buffer '{b.name}' "
        f"({length} elements at byte {b.offset}); the value is its first index"
    )
    fail_unless(ctx.checks, op, "shared", message, ok, first)


def _check_inside_a_buffer(ctx, op: ir.Operation, offset: ir.Value, size: int) -> None:
    """A TMA copy's size bytes at byte `offset` of the region lie inside one planned buffer."""
    inside = None
    for b in ctx.smem.plan.buffers:
        if b.bytes < size:
            continue
        low = arith.CmpIOp(arith.CmpIPredicate.uge, offset, ctx.index(b.offset)).result
        high = arith.CmpIOp(arith.CmpIPredicate.ule, offset, ctx.index(b.offset + b.bytes - size)).result
        both = arith.AndIOp(low, high).result
        inside = both if inside is None else arith.OrIOp(inside, both).result
    if inside is None:
        inside = arith.ConstantOp(ir.IntegerType.get_signless(1), 0).result
    names = ", ".join(f"'{b.name}'" for b in ctx.smem.plan.buffers)
    message = (
        f"this TMA copy of {size} bytes lands inside one planned shared-memory buffer ({names}); "
        "the value is its byte offset in the region"
    )
    fail_unless(ctx.checks, op, "shared", message, inside, offset)


def check_ring_stage(ctx, op: ir.Operation, buffer: int, stage: ir.Value) -> None:
    """Check mode: a ring stage a wgmma descriptor is offset by is one of the buffer's stages."""
    if not ctx.check_mode:
        return
    b = ctx.smem.plan.buffers[buffer]
    ok = arith.CmpIOp(arith.CmpIPredicate.ult, stage, ctx.index(b.stages)).result
    message = (
        f"this wgmma reads the shared-memory buffer '{b.name}' through a matrix descriptor at a ring "
        f"stage below its {b.stages} stages; the value is the stage"
    )
    fail_unless(ctx.checks, op, "shared", message, ok, stage)


def check_shared_index(ctx, op: ir.Operation, buffer: int, index: ir.Value) -> None:
    """Check mode: an element a shared atomic (inline PTX, which the walk above does not see) updates
    lies inside its buffer."""
    if ctx.check_mode:
        _check_inside_view(ctx, op, buffer, index, 1)
