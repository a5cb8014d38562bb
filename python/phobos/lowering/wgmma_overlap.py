"""Which pipelined wgmma loop may keep its dot in flight across iterations.

A ring on the TMA + wgmma path (ops/pipelined_for.py) by default waits for
its wgmmas at the end of each dot (`wgmma.wait_group 0`), so the tensor cores
idle from the wait until the next iteration's wgmmas are issued (the CTA
barrier, the refill, the stage's mbarrier). A loop whose body is the GEMM
main loop, `acc = dot(a, b, acc)` on two staged operands, can instead leave
the iteration's wgmma group in flight and wait only for the previous one
(`wgmma.wait_group 1`): the accumulator goes from one group to the next in
the same registers (wgmma orders accumulator chains of one shape by itself),
the stage the previous group read is refilled once every warpgroup has
passed that wait (the CTA barrier after the dot), and the loop ends with
`wait_group 0` before anything reads the sum.

The rule, checked on the tile IR before anything is emitted:
  * the body holds one `tile.dot`, and otherwise only the ring's staged
    loads, folded transposes and pure index arithmetic (nothing else that
    could read the accumulator or shared memory while a group runs);
  * both operands are loads staged in this ring (not register fragments,
    which the next iteration would overwrite under the running group);
  * the accumulator is a loop-carried value that only the dot reads, starts
    as a constant zero, and the dot's result is only yielded back into that
    same position: the loop then carries no zeroing moves into the
    accumulator registers (ptxas serialises wgmmas whose accumulators other
    instructions define while groups are in flight, C7515); the first
    iteration's first wgmma starts from zero by its scale-d operand instead,
    and a loop that runs no iteration yields the zero constant;
  * the operands are not fp8, or the kernel is @fastmath: fp8 dots promote
    their partial sums into f32 after each dot (ops/dot_wgmma.py), which needs
    the group finished; under @fastmath they accumulate in the tensor cores'
    own precision (torch._scaled_mm's use_fast_accum) and stay in flight.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, llvm, vector

from phobos.dialect import tile as T
from phobos.dialect.tile import is_op
from phobos.lowering.ir_helpers import tile_type
from phobos.lowering.mma8 import is_fp8

DEPTH = 1  # wgmma groups left in flight at the end of each iteration


def overlapped_dot(plan, loop: ir.Operation, loads: list[ir.Operation], pure: tuple) -> tuple:
    """(the dot that may stay in flight, None) or (None, why not) for a pipelined TMA loop."""
    body = loop.regions[0].blocks[0]
    ops = [op.operation for op in body.operations]
    dots = [op for op in ops if is_op(op, T.DotOp)]
    if len(dots) != 1:
        return None, f"the loop holds {len(dots)} dots (one GEMM main-loop dot overlaps)"
    dot = dots[0]
    for op in ops[:-1]:
        if op != dot and op not in loads and op not in plan.skipped and not isinstance(op.opview, pure):
            return None, f"the loop also runs '{op.name}'"
    for role in ("lhs", "rhs"):
        operand = plan.operands[(dot, role)]
        if operand.registers or operand.source not in loads:
            return None, f"the dot's {role} is not a tile this loop stages"
    if is_fp8(tile_type(dot.operands[0]).element_type) and not plan.fast_fp8:
        return None, "fp8 sums are promoted into f32 after each dot (@fastmath keeps them in the tensor cores)"
    acc, result = dot.operands[2], dot.results[0]
    carried = list(body.arguments)[1:]
    if acc not in carried or len(list(acc.uses)) != 1:
        return None, "the dot's accumulator is not a loop-carried value only the dot reads"
    uses = list(result.uses)
    yields = ops[-1]
    position = carried.index(acc)
    if len(uses) != 1 or uses[0].owner != yields or uses[0].operand_number != position:
        return None, "the dot's result is not only carried to the next iteration"
    if not _is_zero(list(loop.opview.initArgs)[position]):
        return None, "the sum does not start from zero"
    return dot, None


def carried_position(loop: ir.Operation, dot: ir.Operation) -> int:
    """Which loop-carried value (and loop result) the in-flight dot's sum is."""
    return list(loop.regions[0].blocks[0].arguments)[1:].index(dot.operands[2])


def _is_zero(v: ir.Value) -> bool:
    """Whether `v` is a constant all of whose elements are zero."""
    owner = v.owner if isinstance(v, ir.OpResult) else None
    if owner is None or not isinstance(owner.opview, arith.ConstantOp):
        return False
    value = owner.opview.value
    if not isinstance(value, ir.DenseElementsAttr) or not value.is_splat:
        return False
    splat = value.get_splat_value()
    return (ir.FloatAttr(splat).value if isinstance(splat, ir.FloatAttr) else ir.IntegerAttr(splat).value) == 0


def copied_out(total: ir.Value) -> ir.Value:
    """The loop's sum (a vector of f32 or i32 registers, after `wait_group 0`) moved into fresh
    registers by one inline-assembly block. Without it LLVM merges the sum of a loop that ran
    with the zero of one that did not into the accumulator registers themselves (zeroing moves
    on the bypass path), and ptxas serialises the loop's wgmmas for it (C7515)."""
    vector_t = ir.VectorType(total.type)
    count, elem = vector_t.shape[0], vector_t.element_type
    reg = "r" if isinstance(elem, ir.IntegerType) else "f"
    struct_t = ir.Type.parse("!llvm.struct<(" + ", ".join([str(elem)] * count) + ")>")
    values = [vector.ExtractOp(total, [], [x]).result for x in range(count)]
    text = "\n".join(f"mov.b32 ${x}, ${count + x};" for x in range(count))
    constraints = ",".join([f"={reg}"] * count + [reg] * count)
    moved = llvm.InlineAsmOp(struct_t, values, text, constraints, has_side_effects=True).result
    return vector.FromElementsOp(vector_t, [llvm.ExtractValueOp(elem, moved, [x]).result for x in range(count)]).result
