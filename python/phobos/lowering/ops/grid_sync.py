"""`tile.grid_barrier`: a grid-wide barrier of a `@persistent` kernel.

The barrier's state is two 32-bit counters in a global of the kernel's module,
`__phobos_grid_barrier` = {arrived, generation}: zero when the driver loads the
cubin, and back to {0, g} after every barrier, so it survives any number of
launches without being reset by the runtime. One `__phobos_grid_sync` function
per module does the work, and every grid_barrier of the kernel calls it:

    bar.sync 0                                 every thread of the CTA is here
    thread 0:
      fence.acq_rel.gpu                        the CTA's writes (ordered before by bar.sync) are released
      g = ld.acquire.gpu generation            read before arriving (acquire: the add cannot pass it)
      if atom.add(arrived, 1) == #CTAs - 1:    the last to arrive (NVPTX emits a relaxed atom.add;
        st.relaxed.gpu arrived = 0             the fences around it give the ordering) resets the
        fence.acq_rel.gpu                      count for the next barrier and, having acquired every
        atom.add(generation, 1)                CTA's release through the count, publishes the generation
      else:
        spin while ld.acquire.gpu generation == g
      fence.acq_rel.gpu                        every CTA's released writes are visible here
    bar.sync 0                                 ... and to every thread of the CTA

This is the barrier of CUDA's cooperative groups (a counter and a generation
in global memory, fences at gpu scope, one thread per CTA); it is correct only
when every CTA of the grid is resident at once, which `@persistent` makes the
runtime ensure (runtime/persistent.py: the grid is sized from the occupancy
query, and a grid that cannot be co-resident is refused before launch).
In check mode the spin loop also polls the check record and exits once a check
of the launch failed (device_checks.py): a CTA whose thread 0 exited never arrives.
The state is per module, so two launches of one persistent kernel must not
run at the same time (a persistent grid fills the GPU; the runtime launches
on one stream in order).
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import llvm

from phobos.dialect import kernel as K
from phobos.dialect import tile as T
from phobos.lowering.context import LoweringContext
from phobos.lowering.device_checks import CHECKS_TEXT, POLL
from phobos.lowering.errors import LoweringError
from phobos.lowering.ir_helpers import declare_once, gpu_module_block
from phobos.lowering.registry import lowers

STATE = "__phobos_grid_barrier"
SYNC = "__phobos_grid_sync"

_STATE_TEXT = (
    f"llvm.mlir.global internal @{STATE}(dense<0> : tensor<2xi32>) "
    "{addr_space = 1 : i32, alignment = 8 : i64} : !llvm.array<2 x i32>"
)

_SYNC_TEXT = f"""llvm.func internal @{SYNC}() attributes {{no_inline}} {{
  nvvm.barrier0
  %tid = nvvm.read.ptx.sreg.tid.x : i32
  %c0 = llvm.mlir.constant(0 : i32) : i32
  %c1 = llvm.mlir.constant(1 : i32) : i32
  %first = llvm.icmp "eq" %tid, %c0 : i32
  llvm.cond_br %first, ^arrive, ^done
^arrive:
  %arrived = llvm.mlir.addressof @{STATE} : !llvm.ptr<1>
  %generation = llvm.getelementptr %arrived[0, 1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, !llvm.array<2 x i32>
  %nx = nvvm.read.ptx.sreg.nctaid.x : i32
  %ny = nvvm.read.ptx.sreg.nctaid.y : i32
  %nz = nvvm.read.ptx.sreg.nctaid.z : i32
  %nxy = llvm.mul %nx, %ny : i32
  %n = llvm.mul %nxy, %nz : i32
  %last = llvm.sub %n, %c1 : i32
  llvm.fence syncscope("device") acq_rel
  %g = llvm.load %generation atomic syncscope("device") acquire {{alignment = 4 : i64}} : !llvm.ptr<1> -> i32
  %before = llvm.atomicrmw add %arrived, %c1 syncscope("device") acq_rel : !llvm.ptr<1>, i32
  %is_last = llvm.icmp "eq" %before, %last : i32
  llvm.cond_br %is_last, ^open, ^wait
^open:
  llvm.store %c0, %arrived atomic syncscope("device") monotonic {{alignment = 4 : i64}} : i32, !llvm.ptr<1>
  llvm.fence syncscope("device") acq_rel
  %old = llvm.atomicrmw add %generation, %c1 syncscope("device") release : !llvm.ptr<1>, i32
  llvm.br ^passed
^wait:{{poll}}
  %now = llvm.load %generation atomic syncscope("device") acquire {{alignment = 4 : i64}} : !llvm.ptr<1> -> i32
  %same = llvm.icmp "eq" %now, %g : i32
  llvm.cond_br %same, ^wait, ^passed
^passed:
  llvm.fence syncscope("device") acq_rel
  llvm.br ^done
^done:
  nvvm.barrier0
  llvm.return
}}"""


@lowers(T.GridBarrierOp)
def lower_grid_barrier(ctx: LoweringContext, op: ir.Operation) -> None:
    if K.PERSISTENT not in ctx.fn.attributes:
        raise LoweringError(
            op,
            "tile.grid_barrier needs a tile.persistent kernel (@persistent): only a grid whose CTAs are "
            "all resident at once can wait for each other",
        )
    text = _STATE_TEXT + "\n" + _SYNC_TEXT.replace("{poll}", "")
    if ctx.check_mode:  # a CTA whose check failed never arrives: the others stop waiting then
        poll = f"\n  llvm.call @{POLL}() : () -> ()"
        text = _STATE_TEXT + "\n" + CHECKS_TEXT + "\n" + _SYNC_TEXT.replace("{poll}", poll)
    declare_once(gpu_module_block(), SYNC, text)
    llvm.CallOp(None, [], [], [], callee=ir.FlatSymbolRefAttr.get(SYNC), convergent=True, loc=op.location)
