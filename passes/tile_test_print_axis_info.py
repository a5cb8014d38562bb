"""tile-test-print-axis-info: print the axis-info facts, for FileCheck tests."""

from __future__ import annotations

import sys

from mlir import ir

from phobos.analysis.axis_info import AxisInfoAnalysis, functions_in, integer_shape
from phobos.dialect import kernel as K
from phobos.passes.registry import tile_pass


def _print_value(value: ir.Value, analysis: AxisInfoAnalysis, state: ir.AsmState, out) -> None:
    if integer_shape(value.type) is None:
        return
    info = analysis.get(value)
    assert info is not None  # an integer value has facts
    out.write(f"  {value.get_name(state)} => {info.to_text()}\n")


def _print_op(op: ir.Operation, analysis: AxisInfoAnalysis, state: ir.AsmState, out) -> None:
    for result in op.results:
        _print_value(result, analysis, state, out)
    for region in op.regions:
        for block in region.blocks:
            for arg in block.arguments:
                _print_value(arg, analysis, state, out)
            for inner in block.operations:
                _print_op(inner.operation, analysis, state, out)


@tile_pass("tile-test-print-axis-info")
def tile_test_print_axis_info(module: ir.Operation, pass_) -> None:
    """Prints the axis info of every integer scalar and tile, one line per
    value, for tests (like Triton's -test-print-alignment). For each
    func.func a header `axis-info @name:`, then in program order (arguments,
    then each op's results before the values inside its regions):

        %name => contiguity = [..], divisibility = [..], constancy = [..], constant = 4|none, non_negative = true|false

    with one entry per dimension (scalars have one), the SSA names the IR
    printer gives (`%c4`, `%0`, `%arg2`). Lines go to stderr, so stdout keeps
    the (unchanged) IR; test with `2>&1 | FileCheck`.
    """
    analysis = AxisInfoAnalysis(module)
    state = ir.AsmState(module)
    out = sys.stderr
    for fn in functions_in(module):
        out.write(f"axis-info @{K.kernel_name(fn)}:\n")
        for block in fn.regions[0].blocks:
            for arg in block.arguments:
                _print_value(arg, analysis, state, out)
            for op in block.operations:
                _print_op(op.operation, analysis, state, out)
    out.flush()
