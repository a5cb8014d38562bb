"""The independent check of the recorded barrier plan (phobos/lowering/barrier_check.py,
tile-verify-barriers): it agrees with tile-insert-barriers on kernels with dots, reductions,
loops and while loops; a barrier removed from the record is a hazard naming both accesses and
the buffer; a barrier added where nothing conflicts is listed as unneeded; records it cannot read
are PlanRecordErrors naming the record."""

from __future__ import annotations

import re

import pytest
from mlir import ir

from phobos.compiler import compile_stages
from phobos.compiler.pass_manager import build_pass_manager
from phobos.dialect import kernel as K
from phobos.dialect import make_context
from phobos.lowering import barrier_check as B
from phobos.lowering.plan_records import SHARED, SYNC
from phobos.passes import pipelines

GEMM = """
kernel steps(A: tensor<f32>[M, K], B: tensor<f32>[K, N], C: tensor<f32>[M, N]) {
  var acc: tile<f32>[64, 64] = 0.0
  for kt in range(0, K, 8) {
    acc += dot(A[ctx.block.x * 64 :+ 64, kt :+ 8], B[kt :+ 8, ctx.block.y * 64 :+ 64])
  }
  C[ctx.block.x * 64 :+ 64, ctx.block.y * 64 :+ 64] = acc
}
"""

# A reduction in a while loop: its next writes overwrite what this iteration's reads read.
WHILE = """
@launch(128)
kernel sums(X: tensor<f32>[M, 1024], V: tensor<f32>[M, K]) {
  let r = ctx.block.x
  var x = X[r :+ 1, 0 :+ 1024]
  var j = 0
  while j < K {
    V[r, j] = sum(x)
    x = x * 0.5
    j = j + 1
  }
}
"""


def _planned(source: str, chip: str = "sm_90") -> ir.Module:
    """The module after tile-insert-barriers (inside an active context)."""
    text = compile_stages(source, chip=chip, until="tile", source_name="k.ph", debug_info=True)["tile"]
    module = ir.Module.parse(text)
    elements = pipelines.stage_elements("gpu", pipelines.parameters("", chip))
    upto = next(i for i, e in enumerate(elements) if e.startswith("tile-insert-barriers"))
    build_pass_manager(f"builtin.module({','.join(elements[: upto + 1])})").run(module.operation)
    return module


def _set_barrier(op: ir.Operation, event: str, kept: bool) -> None:
    record = ir.DictAttr(op.attributes[SYNC])
    entries = {record[i].name: record[i].attr for i in range(len(record))}
    fields = ir.DictAttr(entries[event])
    entry = {fields[i].name: fields[i].attr for i in range(len(fields))}
    entry["barrier"] = ir.BoolAttr.get(kept)
    entries[event] = ir.DictAttr.get(entry)
    op.attributes[SYNC] = ir.DictAttr.get(entries)


def _ops_with(fn: ir.Operation, event: str, kept: bool) -> list[ir.Operation]:
    found = []

    def visit(op):
        if B.recorded_barriers(op).get(event) is kept:
            found.append(op)
        return ir.WalkResult.ADVANCE

    fn.walk(visit)
    return found


@pytest.mark.parametrize("source", [GEMM, WHILE], ids=["gemm", "while"])
def test_agrees_with_the_planner(source):
    with make_context():
        module = _planned(source)
        (fn,) = K.kernels(module)
        result = B.check_kernel(fn)
        assert result.accesses >= 2
        assert result.hazards == []
        assert result.unneeded == []


def test_a_removed_barrier_is_a_hazard_naming_both_ops_and_the_buffer():
    with make_context():
        module = _planned(GEMM)
        (fn,) = K.kernels(module)
        (dot,) = _ops_with(fn, "read", True)
        _set_barrier(dot, "read", False)
        hazards = B.check_kernel(fn).hazards
        assert [h.kind for h in hazards] == ["read after write"]
        message = hazards[0].message()
        assert message.startswith("missing barrier (read after write) before the dot's reads at k.ph:5:12")
        assert re.search(r"other threads write in the copy into shared memory at k\.ph:5:\d+,", message)
        assert "of the dot at k.ph:5:12'" in message and "tile.sync 'read'" in message


def test_the_back_edge_of_a_while_counts():
    with make_context():
        module = _planned(WHILE)
        (fn,) = K.kernels(module)
        (op,) = _ops_with(fn, "write", True)  # the reduction's writes, after the last iteration's reads
        _set_barrier(op, "write", False)
        (hazard,) = B.check_kernel(fn).hazards
        assert (hazard.kind, hazard.round_loop) == ("write after read", True)
        assert "no barrier separates them on a path round the loop" in hazard.message()


def test_a_barrier_nothing_needs_is_listed_as_unneeded():
    with make_context():
        module = _planned(GEMM)
        (fn,) = K.kernels(module)
        elided = _ops_with(fn, "copy", False)
        assert len(elided) == 1  # the rhs copy: the lhs copy's barrier already orders it
        _set_barrier(elided[0], "copy", True)
        result = B.check_kernel(fn)
        assert result.hazards == []
        assert [n.event for n in result.unneeded] == ["copy"]


def test_names_match_after_the_ir_is_printed_and_read_again():
    with make_context():
        module = _planned(WHILE)
        # without locations the ops are where the text puts them and the names keep k.ph: the
        # reduction that owns the buffer is the one with a tile.sync record (sum is two reductions)
        for text in (str(module), module.operation.get_asm(enable_debug_info=True)):
            again = ir.Module.parse(text)
            (fn,) = K.kernels(again)
            result = B.check_kernel(fn)
            assert result.accesses == 2 and result.hazards == [] and result.unneeded == []


def test_unreadable_records_are_errors_naming_them():
    with make_context():
        module = _planned(GEMM)
        (fn,) = K.kernels(module)
        fn.attributes[SHARED] = ir.Attribute.parse('{buffers = [{name = "lhs of the dot at k.ph:5:12"}]}')
        with pytest.raises(B.PlanRecordError, match="integer 'offset'"):
            B.check_kernel(fn)
        two = ", ".join(f'{{name = "lhs of the dot at x.ph:{i}:{i}", offset = 0, bytes = 4}}' for i in (1, 2))
        fn.attributes[SHARED] = ir.Attribute.parse("{buffers = [" + two + "]}")
        with pytest.raises(B.PlanRecordError, match="no op at x.ph:1:1 owns the buffer 'lhs of the dot at x.ph:1:1'"):
            B.check_kernel(fn)
        fn.attributes[SHARED] = ir.Attribute.parse('{buffers = [{name = "a buffer", offset = 0, bytes = 4}]}')
        with pytest.raises(B.PlanRecordError, match="which op owns the buffer 'a buffer'"):
            B.check_kernel(fn)
        (dot,) = _ops_with(fn, "read", True)
        dot.attributes[SYNC] = ir.Attribute.parse("{read = {barrier = 1 : i64}}")
        with pytest.raises(B.PlanRecordError, match="'read' to have a boolean 'barrier'"):
            B.recorded_barriers(dot)
