"""The shared-memory planner and the barrier planner (no MLIR, no GPU)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from phobos.lowering.kernel_layout import dot_layout
from phobos.lowering.shared_memory import Buffer, choose_padding, place, wavefronts
from phobos.lowering.shared_sync import Access, Barrier, Branch, Loop, plan_barriers


def test_bank_model():
    # 32 lanes reading consecutive words: one wavefront; the same word: a broadcast
    assert wavefronts([(4 * lane, 4) for lane in range(32)]) == 1
    assert wavefronts([(0, 4) for _ in range(32)]) == 1
    # a column of a 32-wide float matrix: every lane in bank 0
    assert wavefronts([(128 * lane, 4) for lane in range(32)]) == 32
    # 16-byte reads of 512 distinct bytes need 4 wavefronts at least
    assert wavefronts([(16 * lane, 16) for lane in range(32)]) == 4


def _column_reads(rows):
    def model(ld):
        return [[(r * ld * 4, 4) for r in range(rows)]]

    return model


def test_padding_removes_the_column_conflict():
    b = Buffer("t", rows=32, cols=32, element_bytes=4, reads=_column_reads(32))
    choose_padding(b)
    assert b.ld != 32 and b.ld % 4 == 0  # rows stay 16-byte aligned
    assert b.read_wavefronts < 32
    unpadded = Buffer("u", rows=32, cols=32, element_bytes=4, reads=_column_reads(32))
    choose_padding(unpadded, max_extra_words=0)
    assert (unpadded.ld, unpadded.read_wavefronts) == (32, 32)


def test_no_padding_without_conflicts():
    def rows(ld):
        return [[(4 * lane, 4) for lane in range(32)]]

    b = Buffer("t", rows=8, cols=64, element_bytes=4, reads=rows)
    choose_padding(b)
    assert (b.ld, b.read_wavefronts, b.ideal_read_wavefronts) == (64, 1, 1)


def _buffer(name, size, live):
    b = Buffer(name, rows=1, cols=size // 4, element_bytes=4, live=live)
    b.ld = b.cols
    return b


def test_placement_reuses_dead_bytes_and_aligns():
    a, b, c = _buffer("a", 1024, (0, 3)), _buffer("b", 1000, (1, 4)), _buffer("c", 512, (5, 9))
    plan = place([a, b, c])
    assert a.offset % 16 == 0 and b.offset % 16 == 0 and c.offset % 16 == 0
    assert not a.overlaps(b)  # live together
    assert c.offset == 0  # a and b are dead by then
    assert plan.total_bytes == 1024 + 1008


def _overlap(buffers):
    return lambda i, j: i == j or (buffers[i], buffers[j]) in (("x", "y"), ("y", "x"))


def test_copy_then_read_in_a_loop_needs_two_barriers():
    body = [Access("copy", (0,), "write", "copy"), Access("read", (0,), "read", "read")]
    plan = plan_barriers([Loop(body)], _overlap(["a"]))
    assert plan.barrier_before("read")  # read after write
    assert plan.barrier_before("copy")  # write after the previous iteration's read
    assert {d.reason.split(":")[0] for d in plan.kept()} == {"read after write", "write after read"}


def test_straight_line_copy_needs_no_leading_barrier_and_reads_after_reads_none():
    program = [
        Access("copy", (0,), "write"),
        Access("read1", (0,), "read"),
        Access("read2", (0,), "read"),
    ]
    plan = plan_barriers(program, _overlap(["a"]))
    assert not plan.barrier_before("copy")
    assert plan.barrier_before("read1")
    assert not plan.barrier_before("read2")
    assert [d.id for d in plan.elided()] == ["read2"]


def test_disjoint_buffers_do_not_order_each_other_but_shared_bytes_do():
    program = [Access("w0", (0,), "write"), Access("w1", (1,), "write"), Access("r1", (1,), "read")]
    plan = plan_barriers(program, _overlap(["a", "b"]))
    assert not plan.barrier_before("w1") and plan.barrier_before("r1")
    aliased = plan_barriers([Access("r0", (0,), "read"), Access("w1", (1,), "write")], _overlap(["x", "y"]))
    assert aliased.barrier_before("w1")  # another buffer placed on the same bytes


def test_user_barrier_and_branches():
    program = [Access("w", (0,), "write"), Barrier("b"), Access("r", (0,), "read")]
    assert not plan_barriers(program, _overlap(["a"])).barrier_before("r")
    branchy = [Branch([[Access("w", (0,), "write")], []]), Access("r", (0,), "read")]
    assert plan_barriers(branchy, _overlap(["a"])).barrier_before("r")


def test_ring_accesses_are_ordered_by_the_pipeline_but_not_what_follows():
    body = [Access("refill", (0,), "write", ring=0), Access("read", (0,), "read", ring=0)]
    program = [Access("prologue", (0,), "write", ring=0), Loop(body, pipelined=0), Access("after", (1,), "write")]
    plan = plan_barriers(program, _overlap(["x", "y"]))
    assert not any(plan.barrier_before(e) for e in ("prologue", "refill", "read"))
    assert plan.barrier_before("after")  # the ring's last reads may still be in flight


@pytest.mark.parametrize(
    "shape,threads,per_thread", [((128, 128), 256, (8, 8)), ((64, 64), 256, (4, 4)), ((64, 128), 128, (8, 8))]
)
def test_dot_layout_blocks_registers(shape, threads, per_thread):
    layout = dot_layout(shape, threads)
    assert layout.threads == threads
    assert tuple(layout.counts(shape)) == per_thread
    assert layout.threads_per_warp == (4, 8)
    # every element of the accumulator is owned by exactly one thread
    owners = {}
    for t in range(threads):
        for r in layout.coordinates(0, shape[0], t):
            for c in layout.coordinates(1, shape[1], t):
                owners.setdefault((r, c), []).append(t)
    assert len(owners) == shape[0] * shape[1] and all(len(v) == 1 for v in owners.values())


_TWO_WRITERS = """
from phobos.lowering.shared_sync import Access, plan_barriers
program = [
    Access("copy-a", (0,), "write", "the copy of the lhs tile"),
    Access("copy-b", (1,), "write", "the copy of the rhs tile"),
    Access("read", (0, 1), "read", "the dot's reads"),
]
print(plan_barriers(program, lambda i, j: i == j).decisions[-1].reason)
"""


def test_the_hazard_named_is_the_same_in_every_process():
    # Two pending writes conflict with the read; which one the reason names must not depend on
    # the order a set iterates in, which changes with the process's string hash seed.
    reasons = set()
    for seed in range(6):
        env = {**os.environ, "PYTHONHASHSEED": str(seed)}
        done = subprocess.run([sys.executable, "-c", _TWO_WRITERS], capture_output=True, text=True, env=env)
        assert done.returncode == 0, done.stderr
        reasons.add(done.stdout.strip())
    assert reasons == {"read after write: after the copy of the lhs tile"}


_ONE_USE_OR_TWO = """kernel once(A: tensor<f32>[M, K], B: tensor<f32>[K, N], C: tensor<f32>[M, N]) {
  let a = A[ctx.block.x * 64 :+ 64, 0 :+ 16]
  let b = B[0 :+ 16, ctx.block.y * 64 :+ 64]
  C[ctx.block.x * 64 :+ 64, ctx.block.y * 64 :+ 64] = dot(a, b)
}
kernel twice(A: tensor<f32>[M, K], B: tensor<f32>[K, N], C: tensor<f32>[M, N], S: tensor<f32>[M, Q]) {
  let a = A[ctx.block.x * 64 :+ 64, 0 :+ 16]
  let b = B[0 :+ 16, ctx.block.y * 64 :+ 64]
  C[ctx.block.x * 64 :+ 64, ctx.block.y * 64 :+ 64] = dot(a, b)
  S[ctx.block.x * 64 :+ 64, ctx.block.y * 16 :+ 16] = a
}
"""


@pytest.mark.parametrize("kernel, line", [("once", 2), ("twice", 9)])
def test_a_dot_operand_used_elsewhere_is_not_staged_from_its_load(kernel, line):
    """A tile only the dot reads is copied from global memory straight into its buffer (the
    buffer's `where` is the load); one also used elsewhere stays in registers and is stored
    from there (its `where` is the dot)."""
    from phobos.compiler import compile_artifact

    plan = compile_artifact(_ONE_USE_OR_TWO, kernel=kernel).contract["shared_memory"]
    lhs = next(b for b in plan["buffers"] if b["name"].startswith("lhs of the dot"))
    assert lhs["where"].split(":")[1] == str(line)
