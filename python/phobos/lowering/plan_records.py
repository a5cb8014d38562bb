"""The shared-memory plan as IR: the attributes the planning passes write and the lowering reads.

Each phase of shared_plan.py has a pass of the gpu stage that records its
decisions on the ops they are about, so `--mlir-print-ir-after-all` shows each
decision as its own step and tile-lower-to-gpu (and a user editing the IR)
works from them:

  tile-plan-dots        tile.dot_path = "fma" | "mma.sync" | "wgmma" on each tile.dot,
                        tile.dot_path_note: why not wgmma, where the chip has it, or,
                        on "fma" under @tensorcore, why not mma.sync (a warning too)
  tile-pipeline         tile.pipeline_stages = S on each loop with staged loads (0: no
                        ring), tile.pipeline_note: why not
  tile-allocate-shared  tile.shared = {bytes, buffers = [{name, shape, offset, ld, stages, bytes}]}
                        on the kernel, in the planner's buffer order
  tile-insert-barriers  tile.sync = {<event> = {barrier, at, why, order}} on each op with a
                        shared-memory event (a staged copy, a dot's reads, an exchange's
                        writes and reads, a ring's prologue), kept or elided; the kernel
                        gets tile.sync_planned

A phase reads its records where they are present and plans as before where
they are not (phobos-opt running tile-lower-to-gpu alone). A record that
contradicts what the kernel allows is a located error naming the attribute.
"""

from __future__ import annotations

from mlir import ir

from phobos.dialect import tile as T
from phobos.dialect.tile import ops_of
from phobos.lowering.errors import LoweringError
from phobos.lowering.shared_memory import Buffer, set_row_length
from phobos.lowering.shared_sync import Decision
from phobos.lowering.wgmma8 import is_wgmma8, k_major_refusal

DOT_PATH = "tile.dot_path"
DOT_PATH_NOTE = "tile.dot_path_note"
PIPELINE_STAGES = "tile.pipeline_stages"
PIPELINE_NOTE = "tile.pipeline_note"
SHARED = "tile.shared"
SYNC = "tile.sync"
SYNC_PLANNED = "tile.sync_planned"

FMA, MMA, WGMMA = "fma", "mma.sync", "wgmma"


def _i64(value: int) -> ir.IntegerAttr:
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), value)


def _string(op: ir.Operation, name: str) -> str | None:
    if name not in op.attributes:
        return None
    attr = op.attributes[name]
    if not isinstance(attr, ir.StringAttr):
        raise LoweringError(op, f"expects {name} to be a string, got {attr}")
    return attr.value


def _int(op: ir.Operation, attr: ir.Attribute, what: str) -> int:
    if not isinstance(attr, ir.IntegerAttr):
        raise LoweringError(op, f"expects {what} to be an integer, got {attr}")
    return attr.value


# ----------------------------------------------------------------------------- dot path


def write_dot_path(plan, fn: ir.Operation) -> None:
    path = WGMMA if plan.wgmma else MMA if plan.tensorcore else FMA
    note = plan.wgmma_refused or plan.fma_note
    for dot in ops_of(fn, (T.DotOp,)):
        dot.attributes[DOT_PATH] = ir.StringAttr.get(path)
        if note:
            dot.attributes[DOT_PATH_NOTE] = ir.StringAttr.get(note)


def fallback_warning(plan) -> tuple[ir.Operation, str] | None:
    """(the dot, the message) of the warning for a @tensorcore kernel whose dots run on CUDA cores."""
    if plan.tensorcore_refused is None:
        return None
    dot, why = plan.tensorcore_refused
    return (
        dot,
        f"@tensorcore: the tensor cores cannot run this dot, so the kernel's dots run on CUDA cores (fma): {why}",
    )


def k_major_warning(plan, fn: ir.Operation) -> tuple[ir.Operation, str] | None:
    """(the dot, the message) of the warning for an 8-bit dot that a chip with wgmma runs on
    mma.sync because its operands are not both K-major (wgmma8.k_major_refusal): a rule of the
    source, so said where it is written; other reasons are in the contract and `phobos explain`."""
    if not plan.tensorcore or plan.wgmma or plan.wgmma_refused is None:
        return None
    for dot in ops_of(fn, (T.DotOp,)):
        if not is_wgmma8(ir.RankedTensorType(dot.operands[0].type).element_type):
            continue
        why = k_major_refusal(dot)
        if why is not None:
            return dot, f"@tensorcore: this dot runs on mma.sync, not wgmma (much slower on sm_90a): {why}"
    return None


def read_dot_path(
    dots: list[ir.Operation], tensorcore: bool, refused: str | None = None
) -> tuple[str, str | None] | None:
    """(path, note) recorded on the kernel's dots (one path for all), or None when not recorded.
    `refused`: why a @tensorcore kernel's dots cannot run on the tensor cores (they run fma)."""
    found = [(dot, _string(dot, DOT_PATH)) for dot in dots]
    recorded = [(dot, path) for dot, path in found if path is not None]
    if not recorded:
        return None
    allowed = (MMA, WGMMA) if tensorcore else (FMA,)
    first = recorded[0][1]
    for dot, path in found:
        if path is None or path != first:
            raise LoweringError(dot, f"expects {DOT_PATH} on every dot of the kernel, the same on each")
        if path not in allowed and refused is not None:
            raise LoweringError(dot, f'{DOT_PATH} = "{path}", but the tensor cores cannot run it: {refused}')
        if path not in allowed:
            rule = "@tensorcore kernels run mma.sync or wgmma" if tensorcore else "without @tensorcore dots run fma"
            raise LoweringError(dot, f'{DOT_PATH} = "{path}" is not a path this kernel may take ({rule})')
    return first, _string(dots[0], DOT_PATH_NOTE)


# ----------------------------------------------------------------------------- pipelines


def write_pipeline(plan) -> None:
    for loop, p in plan.pipelined.items():
        loop.attributes[PIPELINE_STAGES] = _i64(p.stages)
    for loop, reason in plan.pipeline_refused.items():
        loop.attributes[PIPELINE_STAGES] = _i64(0)
        loop.attributes[PIPELINE_NOTE] = ir.StringAttr.get(reason)


def read_pipeline(loop: ir.Operation, reason: str | None, default: int) -> tuple[int, str | None]:
    """(stages, why not) for a loop the planner would give `default` stages (or refuse for
    `reason`), as its tile.pipeline_stages says where present."""
    if PIPELINE_STAGES not in loop.attributes:
        return default, reason
    stages = _int(loop, loop.attributes[PIPELINE_STAGES], PIPELINE_STAGES)
    if stages == 0:
        return default, _string(loop, PIPELINE_NOTE) or f"{PIPELINE_STAGES} = 0"
    if reason is not None:
        raise LoweringError(loop, f"{PIPELINE_STAGES} = {stages}, but the loop cannot be pipelined: {reason}")
    if stages < 2:
        raise LoweringError(loop, f"expects {PIPELINE_STAGES} to be 0 (no ring) or at least 2, got {stages}")
    return stages, None


# ----------------------------------------------------------------------------- allocation


def write_allocation(plan, fn: ir.Operation) -> None:
    buffers = [
        ir.DictAttr.get(
            {
                "name": ir.StringAttr.get(b.name),
                "shape": ir.DenseI64ArrayAttr.get([b.rows, b.cols]),
                "offset": _i64(b.offset),
                "ld": _i64(b.ld),
                "stages": _i64(b.stages),
                "bytes": _i64(b.bytes),
            }
        )
        for b in plan.buffers
    ]
    fn.attributes[SHARED] = ir.DictAttr.get({"bytes": _i64(plan.total_bytes), "buffers": ir.ArrayAttr.get(buffers)})


def read_allocation(fn: ir.Operation, buffers: list[Buffer]) -> bool:
    """Sets each buffer's row length and offset from the kernel's tile.shared; False when absent."""
    if SHARED not in fn.attributes:
        return False
    record = fn.attributes[SHARED]
    entries = ir.DictAttr(record)["buffers"] if isinstance(record, ir.DictAttr) and "buffers" in record else None
    if entries is None or len(ir.ArrayAttr(entries)) != len(buffers):
        raise LoweringError(
            fn, f"{SHARED} does not list the kernel's {len(buffers)} buffers: run tile-allocate-shared again"
        )
    for b, entry in zip(buffers, ir.ArrayAttr(entries)):
        entry = ir.DictAttr(entry)
        # Matched by position and shape: names carry source locations, which change when IR is re-parsed.
        if "shape" not in entry or list(ir.DenseI64ArrayAttr(entry["shape"])) != [b.rows, b.cols]:
            raise LoweringError(fn, f"{SHARED} does not describe the buffer '{b.name}': run tile-allocate-shared again")
        ld = _int(fn, entry["ld"], f"{SHARED} ld")
        if ld < b.cols:
            raise LoweringError(fn, f"{SHARED}: the row length {ld} of '{b.name}' is shorter than its {b.cols} columns")
        if b.ld and ld != b.ld:  # set by the planner: ldmatrix padding, the swizzle, exchange rows
            raise LoweringError(fn, f"{SHARED}: the row length of '{b.name}' is fixed at {b.ld}, got {ld}")
        if not b.ld:
            set_row_length(b, ld)
        b.offset = _int(fn, entry["offset"], f"{SHARED} offset")
        if b.offset % b.align:
            raise LoweringError(fn, f"{SHARED}: the offset {b.offset} of '{b.name}' is not {b.align}-byte aligned")
    return True


# ----------------------------------------------------------------------------- barriers


def write_barriers(plan, fn: ir.Operation) -> None:
    events: dict[ir.Operation, dict[str, ir.Attribute]] = {}
    for order, d in enumerate(plan.sync.decisions):
        op, event = d.id
        fields = {
            "barrier": ir.BoolAttr.get(d.kept),
            "at": ir.StringAttr.get(d.what),
            "why": ir.StringAttr.get(d.reason),
            "order": _i64(order),
        }
        events.setdefault(op, {})[event] = ir.DictAttr.get(fields)
    for op, entries in events.items():
        op.attributes[SYNC] = ir.DictAttr.get(entries)
    fn.attributes[SYNC_PLANNED] = ir.UnitAttr.get()


def read_barriers(fn: ir.Operation) -> list[Decision] | None:
    """The barrier decisions recorded in `fn` (tile.sync), in their order; None when not recorded."""
    if SYNC_PLANNED not in fn.attributes:
        return None
    found: list[tuple[int, Decision]] = []
    for op in ops_of(fn):
        if SYNC not in op.attributes:
            continue
        record = op.attributes[SYNC]
        if not isinstance(record, ir.DictAttr):
            raise LoweringError(op, f"expects {SYNC} to be a dictionary of events, got {record}")
        for i in range(len(record)):
            event, entry = record[i].name, ir.DictAttr(record[i].attr)
            kept = ir.BoolAttr(entry["barrier"]).value
            what, why = ir.StringAttr(entry["at"]).value, ir.StringAttr(entry["why"]).value
            found.append((_int(op, entry["order"], f"{SYNC} order"), Decision((op, event), what, kept, why)))
    return [d for _, d in sorted(found, key=lambda x: x[0])]
