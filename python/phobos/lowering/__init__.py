"""The tile -> gpu/nvvm lowering (tile-lower-to-gpu).

Plans first, then emission: the shared-memory planner (shared_plan.py with
shared_memory.py, shared_sync.py, exchange_plan.py, and the mma/wgmma facts)
decides buffers, barriers, rings and the dot path; the driver (to_gpu.py)
builds the kernel's signature and a LoweringContext (context.py), and the
emitters in ops/ (one module per op family, registered by OpView class in
registry.py) translate the body. `layout` does not import MLIR at module
level, so the runtime side can reuse its plain data. The chip table lives in
`phobos.target`, the nesting limit in `phobos.nesting`, and the kernel ABI
and grid rule in `phobos.analysis` (the compile driver uses them too).
"""
