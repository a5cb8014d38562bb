"""Helpers of the tile -> gpu/nvvm lowering: layouts, the kernel ABI, targets,
launch-grid inference and the upstream pipeline pieces.

`target`, `layout` and `abi` do not import MLIR at module level, so the
contract side (artifact, runtime) can reuse their plain data.
"""
