"""The tile -> gpu/nvvm lowering: layouts, the kernel ABI, launch-grid
inference, the shared-memory and dot planners and the op emitters.

`layout` and `abi` do not import MLIR at module level, so the contract side
(artifact, runtime) can reuse their plain data. The chip table lives in
`phobos.target` and the nesting limit in `phobos.nesting`: the whole project
uses them.
"""
