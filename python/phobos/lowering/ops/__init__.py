"""The emitters of tile-lower-to-gpu, one module per op family.

Importing this package registers every handler (registry.py). Ops modules
import the context, the layouts and the plan, never each other.
"""

from phobos.lowering.ops import (  # noqa: F401
    atomics,
    control_flow,
    convert_layout,
    dot_fma,
    dot_mma,
    dot_wgmma,
    elementwise,
    exchange,
    grid_index,
    grid_sync,
    local_atomics,
    loops,
    memory,
    pipelined_for,
    promises,
    smem,
)
