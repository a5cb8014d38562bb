"""tile-check-overlap: warn about plain stores that several CTAs may make to the same elements."""

from __future__ import annotations

from mlir import ir

from phobos.analysis.abi import ParamError, describe_params
from phobos.analysis.overlap import AXES, overlap_message, overlapping_stores
from phobos.diagnostics import emit_warning
from phobos.dialect import kernel as K
from phobos.dialect.kernel import arg_name, kernels
from phobos.passes.registry import fail, tile_pass


@tile_pass("tile-check-overlap")
def tile_check_overlap(module: ir.Operation, pass_) -> None:
    """Warns, at the store, where CTAs of one launch may write the same elements of a tensor
    with plain stores (phobos.analysis.overlap): a store whose place does not depend on
    `ctx.block` along a grid axis that launches several CTAs, or slices whose step along the
    axis is shorter than the slice. Such stores race on the GPU (the interpreter, running CTAs
    one after another, hides it); the warning names atomic_add. In a `@checked` kernel
    (`tile.checked`) it is an error instead. In check mode (`tile.check_mode`) each such store
    is marked `tile.claim = "<axis>"`, and the lowering verifies on the device that no two CTAs of a
    launch store to one element; otherwise it changes nothing.

    Before: `Y[0 :+ 1] += sum(X[ctx.block.x * 256 :+ 256])`.
    After: the same IR, and `warning: CTAs along grid axis x may store to the same elements of 'Y' ...`.
    """
    for fn in kernels(module):
        try:
            params = describe_params(fn)
        except ParamError:
            continue  # tile-verify reports it
        args = list(fn.regions[0].blocks[0].arguments)
        checked = K.CHECKED in fn.attributes
        for op, d, why in overlapping_stores(fn, params):
            message = overlap_message(op, d, why, arg_name(fn, args.index(op.opview.base)))
            if K.CHECK_MODE in fn.attributes:
                op.attributes[K.CLAIM] = ir.StringAttr.get(AXES[d])  # the grid axis, for the message
            if checked:
                fail(pass_, op.location, f"@checked: {message}")
            else:
                emit_warning(op.location, message)
