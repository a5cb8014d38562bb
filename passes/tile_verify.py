"""tile-verify: the checks IRDL cannot express (phobos/dialect/verify.py)."""

from __future__ import annotations

from mlir import ir

from phobos.dialect.verify import verify_tile_ir
from phobos.passes.registry import tile_pass


@tile_pass("tile-verify", verify_first=False)
def tile_verify(module: ir.Operation, pass_) -> None:
    """Checks the tile IR rules that IRDL cannot express. Shapes and element types
    of every tile op (slice starts per dimension, tile rank, offsets and masks,
    dot shapes, reduction axes), hint arrays (one power of two per dimension),
    the fill value of loads (`padding`, a scalar of the element type), and
    kernel facts (dimension symbols consistent across parameters, launch
    threads a multiple of 32, every `@aligned` promise positive, about a real
    dimension and checked at entry). Errors name the op and its location; the
    IR is not changed.
    """
    if not verify_tile_ir(module):
        pass_.signal_pass_failure()
