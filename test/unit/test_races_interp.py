"""Races between CTAs in the interpreter (issue 23, item 6): two CTAs storing to one element
in one launch without an atomic is an error naming both CTAs, the element and the source
line (interpreter/races.py); stores separated by a grid barrier, stores of one CTA, and
atomics are not races."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("mlir")

from test_interpreter import program  # noqa: E402

from phobos.interpreter import InterpreterError, run_program  # noqa: E402

ISSUE = """
kernel total(X: tensor<f32>[N], Y: tensor<f32>[1]) {
  let s = ctx.block.x * 256
  Y[0 :+ 1] += sum(X[s :+ 256])
}
"""


def test_the_issues_cross_cta_sum_is_a_race():
    x, y = np.ones(1 << 12, np.float32), np.zeros(1, np.float32)
    with pytest.raises(InterpreterError) as e:
        run_program(program(ISSUE, "total.ph"), [x, y], (16, 1, 1))
    text = str(e.value)
    assert text.startswith("total.ph:4:3: error: a race: CTAs (0, 0, 0) and (1, 0, 0) both store to Y[0] in one launch")
    assert "CTA (0, 0, 0) at total.ph:4:3" in text and "atomic_add" in text


OVERLAP = """
kernel shifted(X: tensor<f32>[M, N], Y: tensor<f32>[M, N]) {
  let r = ctx.block.x * 4
  let c = ctx.block.y * 8
  Y[r :+ 4, c :+ 8] = X[r :+ 4, c :+ 8]
  Y[r + 4, c] = 1.0                          // the first element of the next CTA along x
}
"""


def test_the_element_and_both_lines_are_named():
    x, y = np.ones((8, 16), np.float32), np.zeros((8, 16), np.float32)
    with pytest.raises(InterpreterError) as e:
        run_program(program(OVERLAP, "shifted.ph"), [x, y], (2, 2, 1))
    text = str(e.value)
    assert text.startswith("shifted.ph:5:3: error: a race: CTAs (0, 0, 0) and (1, 0, 0) both store to Y[4, 0] ")
    assert "(CTA (0, 0, 0) at shifted.ph:6:3, CTA (1, 0, 0) here)" in text


DISJOINT = """
kernel own(X: tensor<f32>[M, N], Y: tensor<f32>[M, N]) {
  let r = ctx.block.x * 4
  for i in range(0, 3) {
    Y[r :+ 4, 0 :+ 16] = X[r :+ 4, 0 :+ 16] * f32(i)   // one CTA, the same elements, three times
  }
}
"""


def test_one_cta_storing_again_is_no_race():
    x, y = np.ones((9, 16), np.float32), np.zeros((9, 16), np.float32)
    run_program(program(DISJOINT), [x, y], (3, 1, 1))
    np.testing.assert_array_equal(y, 2.0 * x)


PHASES = """
@persistent
kernel phases(Y: tensor<f32>[N]) {
  let b = ctx.block.x
  if b == 1 {
    Y[0] = 5.0
  }
  grid_barrier()
  if b == 0 {
    Y[0] = Y[0] + 1.0                          // after the barrier: ordered, no race
  }
}
"""


def test_a_grid_barrier_orders_the_stores():
    y = np.zeros(4, np.float32)
    run_program(program(PHASES), [y], (3, 1, 1))
    assert y[0] == 6.0
    racy = PHASES.replace("  grid_barrier()\n", "")
    expected = r"^phases.ph:6:5: error: a race: CTAs \(0, 0, 0\) and \(1, 0, 0\) both store to Y\[0\] .*phases.ph:9:5"
    with pytest.raises(InterpreterError, match=expected):
        run_program(program(racy, "phases.ph"), [np.zeros(4, np.float32)], (3, 1, 1))


ATOMIC = """
kernel total(X: tensor<f32>[N], Y: tensor<f32>[1]) {
  let s = ctx.block.x * 256
  atomic_add(Y[0], sum(X[s :+ 256]))
}
"""


def test_atomics_are_no_race():
    x, y = np.ones(1 << 12, np.float32), np.zeros(1, np.float32)
    run_program(program(ATOMIC), [x, y], (16, 1, 1))
    assert y[0] == 4096.0
