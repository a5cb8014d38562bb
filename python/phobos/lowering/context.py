"""The typed lowering context: what every emitter of tile-lower-to-gpu shares.

One `LoweringContext` per kernel holds the translation's state: the value map
from tile values to their per-thread registers (`values`, `get`), constants
and thread coordinates made once at the function's entry (`const`, `index`,
`thread_start`, `lane_and_warp`, `coordinate_base`), the flat views, extents
and strides of the tensor parameters, the kernel's layout and placement, and
the shared-memory plan with the objects that emit against it (`dots`,
`exchanges`). Ops are lowered through the registry (registry.py): an ops
module registers a handler per OpView class, and `lower_op` finds it, or the
role the plan gave the op (a staged load, a folded transpose, a pipelined
loop), first.
"""

from __future__ import annotations

from collections.abc import Callable

from mlir import ir
from mlir.dialects import arith, gpu

from phobos.analysis.abi import TensorParam, describe_params
from phobos.analysis.grid import contiguous_block_dim, dot_operands_shared_across_y
from phobos.dialect import kernel as K
from phobos.dialect.tile import DotOp, TileOp
from phobos.lowering.device_checks import CheckSites, in_check_mode
from phobos.lowering.errors import PASS, LoweringError
from phobos.lowering.exchange_plan import plan_scratch
from phobos.lowering.layout import WARP_SIZE, Blocked
from phobos.lowering.placement import Placement
from phobos.lowering.registry import handler_for
from phobos.lowering.shared_plan import folded_transpose, plan_dots
from phobos.lowering.shared_region import SharedRegion
from phobos.lowering.signature import flat_view
from phobos.lowering.warp_roles import consumer_prologue, launched_threads
from phobos.nesting import nesting_message, too_deep
from phobos.target import DEFAULT_CHIP

# What a kernel author wrote, for the ops the GPU lowering does not handle yet (none now:
# while loops, single elements and grid barriers lower, ops/loops.py and ops/grid_sync.py).
_SOURCE_NAMES: tuple[tuple[type, str], ...] = ()


def _index_type() -> ir.Type:
    return ir.IndexType.get()


class LoweringContext:
    """The state of lowering one tile kernel `fn` to a gpu.func; raises LoweringError (or
    abi.ParamError for a parameter type the ABI cannot carry)."""

    def __init__(
        self,
        fn: ir.Operation,
        layout: Blocked | None,
        chip: str = DEFAULT_CHIP,
    ):
        self.fn = fn
        self.chip = chip
        self.name = K.kernel_name(fn)
        deep = too_deep(fn)
        if deep is not None:
            # Before anything walks the kernel recursively (placement, the lowering itself).
            raise LoweringError(deep, nesting_message())
        # A parameter type the ABI cannot carry raises abi.ParamError, which leaves the pass as it
        # is: the drivers report it at the parameter (e.where); a LoweringError would place it on
        # the kernel. The kernel checks every pass runs first refuse such kernels before this.
        self.params = describe_params(fn)
        self.placement = Placement(fn)
        if self.placement.rank and layout is None:
            raise LoweringError(fn, f"kernel '{self.name}' has no tile.layout; run tile-assign-layout first")
        if layout is not None and self.placement.rank and layout.rank != self.placement.rank:
            raise LoweringError(
                fn, f"kernel '{self.name}' has a rank-{layout.rank} tile.layout but rank-{self.placement.rank} tiles"
            )
        self.kernel_layout = layout  # None only in a kernel without tiles (see `layout`)
        self.threads = K.launch(fn)["threads"]
        if layout is not None and self.placement.rank and layout.threads != self.threads:
            raise LoweringError(
                fn, f"kernel '{self.name}' has a tile.layout for {layout.threads} threads but launches {self.threads}"
            )
        self.values: dict[ir.Value, ir.Value] = {}
        self.fast_block_dim = contiguous_block_dim(fn, self.params)
        self.grouped_order = dot_operands_shared_across_y(fn)  # ops/grid_index.py's order for dots
        self._const_cache: dict[tuple[str, str], ir.Value] = {}
        self._coord_cache: dict[tuple, ir.Value] = {}
        self.block_ids: dict[int, ir.Value] = {}  # tile.block_id(d), made once (ops/grid_index.py)
        # Check mode (device_checks.py): the lowering adds the checks of its own facts.
        self.check_mode = in_check_mode(fn)
        self.checks = CheckSites()  # the sites of the kernel's tile.check ops and of those
        scratch = plan_scratch(fn, layout, self.placement, folded_transpose)
        plan = plan_dots(fn, layout, self.threads, chip, scratch)
        # The kernel's shared memory (dot operands and exchange scratch), as planned.
        self.smem = SharedRegion(self, plan) if plan is not None else None
        # the CTA's threads: the kernel's own (`threads`, the consumers), and a producer warpgroup's
        self.launch_threads = launched_threads(self.threads, plan is not None and plan.producer)
        self.taken: set = set()  # ops an emitter lowered in a region of its own (lower_block skips them)
        # under warp roles, the ops before the ring that only the consumers run (in their branch)
        self.consumer_prologue: list = []
        if plan is not None and plan.producer:
            prologue = consumer_prologue(next(iter(plan.pipelined.values())), fn)
            assert not isinstance(prologue, str), prologue  # plan_roles chose the roles: the producer needs none
            self.consumer_prologue = prologue
            self.taken.update(prologue)

    @property
    def layout(self) -> Blocked:
        """The kernel's tile.layout, for the emitters of tile ops: a kernel with tiles has one (the
        constructor raises otherwise), and only a kernel with tiles has tile ops."""
        assert self.kernel_layout is not None, "a tile op in a kernel without tiles"
        return self.kernel_layout

    @property
    def shared(self) -> SharedRegion:
        """The kernel's shared memory, for the emitters of the ops that use it: dots (plan_dots plans it
        in every kernel with one) and the ops its plan gives a role (`role`: staged loads, folded
        transposes, pipelined loops)."""
        assert self.smem is not None, "an op that uses shared memory in a kernel without a plan"
        return self.smem

    def tensor_maps(self) -> list:
        """The TMA tensor maps the dots read through (wgmma.TensorMap), one kernel parameter each."""
        return self.smem.plan.tensor_maps if self.smem is not None else []

    # ================================================================== prologue

    def prologue(self, func: gpu.GPUFuncOp, abi: list[dict]) -> None:
        args = list(func.body.blocks[0].arguments)
        old_args = list(self.fn.regions[0].blocks[0].arguments)
        self.tid = gpu.ThreadIdOp(gpu.Dimension.x).result
        # Values made on demand (thread coordinates, constants) go before this
        # anchor, so they dominate every use in the body.
        self.anchor = arith.ConstantOp(_index_type(), 0).operation
        self._const_cache[(str(_index_type()), repr(0))] = self.anchor.result
        self.views: dict[int, ir.Value] = {}
        self.strides: dict[tuple[int, int], ir.Value] = {}
        symbol_extent: dict[str, ir.Value] = {}
        if self.tensor_maps():
            tma = self.shared.tma
            assert tma is not None  # tensor maps are planned for the wgmma path only, which has the TMA ring
            tma.bind_maps(args[len(abi) :])
        for entry, arg in zip(abi, args):
            p, kind = entry["param"], entry["kind"]
            if kind == "ptr":
                self.views[p] = flat_view(arg, ir.MemRefType(old_args[p].type).element_type)
            elif kind == "extent":
                symbol_extent[self.params[p].dims[entry["axis"]]] = arith.IndexCastOp(_index_type(), arg).result
            elif kind == "stride":
                self.strides[(p, entry["axis"])] = arith.IndexCastOp(_index_type(), arg).result
            else:
                if isinstance(old_args[p].type, ir.IndexType):
                    arg = arith.IndexCastOp(_index_type(), arg).result
                self.values[old_args[p]] = arg
        self.extents: dict[tuple[int, int], ir.Value] = {}
        for p, param in enumerate(self.params):
            if isinstance(param, TensorParam):
                for axis, (d, s) in enumerate(zip(param.dims, param.shape)):
                    self.extents[(p, axis)] = self.index(s) if s is not None else symbol_extent.get(d)
                for axis, d in enumerate(param.dims):
                    if self.extents[(p, axis)] is None:  # a symbol static elsewhere
                        other = next(
                            q.shape[q.dims.index(d)]
                            for q in self.params
                            if isinstance(q, TensorParam) and d in q.dims and q.shape[q.dims.index(d)] is not None
                        )
                        assert other is not None  # the generator picks a static extent
                        self.extents[(p, axis)] = self.index(other)
        self.old_args = old_args

    # ================================================================== helpers

    def at_entry(self, build: Callable[[], ir.Value]) -> ir.Value:
        with ir.InsertionPoint(self.anchor), self.fn.location:
            return build()

    def index(self, value: int) -> ir.Value:
        return self.const(value, _index_type())

    def const(self, value, t: ir.Type) -> ir.Value:
        key = (str(t), repr(value))
        if key not in self._const_cache:
            if isinstance(t, ir.VectorType):
                elem = t.element_type
                values = value if isinstance(value, (list, tuple)) else [value] * t.shape[0]
                attrs = [
                    ir.FloatAttr.get(elem, float(v))
                    if isinstance(elem, ir.FloatType)
                    else ir.IntegerAttr.get(elem, int(v))
                    for v in values
                ]
                if len(set(values)) == 1:
                    attr = ir.DenseElementsAttr.get_splat(t, attrs[0])
                else:
                    attr = ir.DenseElementsAttr.get(attrs, type=t)
            elif isinstance(t, ir.FloatType):
                attr = ir.FloatAttr.get(t, float(value))
            else:
                attr = ir.IntegerAttr.get(t, int(value))
            self._const_cache[key] = self.at_entry(lambda: arith.ConstantOp(t, attr).result)
        return self._const_cache[key]

    def vtype(self, old: ir.Value) -> ir.Type:
        """The register type of a tile value (its scalar type otherwise)."""
        t = old.type
        if not isinstance(t, ir.RankedTensorType):
            return ir.IndexType.get() if isinstance(t, ir.IndexType) else t
        n = self.layout.registers(self.placement.placed_shape(old))
        return ir.VectorType.get([n], ir.RankedTensorType(t).element_type)

    def get(self, old: ir.Value, op: ir.Operation) -> ir.Value:
        if old not in self.values:
            raise LoweringError(op, f"'{op.name}' op uses a value {PASS} could not translate")
        return self.values[old]

    def thread_start(self, d: int) -> ir.Value:
        """The first coordinate along d of this thread's runs, before any
        wrap: (warp index along d * tpw[d] + lane index along d) * spt[d]."""
        key = (d, 0)
        if key in self._coord_cache:
            return self._coord_cache[key]
        L = self.layout

        def build():
            inner_lanes, inner_warps = L.inner_strides(d)
            total = None
            if L.threads_per_warp[d] > 1:
                lane = arith.RemUIOp(self.tid, self.index(32)).result
                x = lane if inner_lanes == 1 else arith.DivUIOp(lane, self.index(inner_lanes)).result
                if inner_lanes * L.threads_per_warp[d] < 32:
                    x = arith.RemUIOp(x, self.index(L.threads_per_warp[d])).result
                total = x
            if L.warps_per_cta[d] > 1:
                warp = arith.DivUIOp(self.tid, self.index(32 * inner_warps)).result
                if inner_warps * L.warps_per_cta[d] < L.threads // 32:
                    warp = arith.RemUIOp(warp, self.index(L.warps_per_cta[d])).result
                scaled = (
                    warp if L.threads_per_warp[d] == 1 else arith.MulIOp(warp, self.index(L.threads_per_warp[d])).result
                )
                total = scaled if total is None else arith.AddIOp(total, scaled).result
            if total is None:
                return self.index(0)
            if L.size_per_thread[d] > 1:
                total = arith.MulIOp(total, self.index(L.size_per_thread[d])).result
            return total

        value = self.at_entry(build)
        self._coord_cache[key] = value
        return value

    def lane_and_warp(self, d: int) -> tuple[ir.Value, ir.Value]:
        """(lane index along d, warp index along d) of this thread, each before
        any scaling by spt[d] (what reductions and the mma fragments need)."""
        key = (d, "parts")
        if key not in self._coord_cache:
            L = self.layout
            inner_lanes, inner_warps = L.inner_strides(d)

            def build():
                lane = arith.RemUIOp(self.tid, self.index(WARP_SIZE)).result
                warp = arith.DivUIOp(self.tid, self.index(WARP_SIZE)).result
                lane_d = arith.DivUIOp(lane, self.index(inner_lanes)).result
                warp_d = arith.DivUIOp(warp, self.index(inner_warps)).result
                return (
                    arith.RemUIOp(lane_d, self.index(L.threads_per_warp[d])).result,
                    arith.RemUIOp(warp_d, self.index(L.warps_per_cta[d])).result,
                )

            self._coord_cache[key] = self.at_entry(build)
        return self._coord_cache[key]

    def coordinate_base(self, d: int, extent: int) -> ir.Value:
        """base[d] for a tile extent: the thread start along d, modulo the
        extent where the tile is smaller than the layout's reach."""
        key = (d, extent)
        if key not in self._coord_cache:
            if extent == 1:
                value = self.index(0)
            elif self.layout.replicated(d, extent):
                start = self.thread_start(d)
                value = self.at_entry(lambda: arith.AndIOp(start, self.index(extent - 1)).result)
            else:
                value = self.thread_start(d)
            self._coord_cache[key] = value
        return self._coord_cache[key]

    def param_index(self, base: ir.Value, op: ir.Operation) -> int:
        for i, a in enumerate(self.old_args):
            if a == base:
                return i
        raise LoweringError(op, f"'{op.name}' op must access a tensor parameter of the kernel directly")

    def owner_guard(self, shape, dims) -> ir.Value | None:
        """i1 true on the one thread that should store each replicated element
        (None when no element is replicated)."""
        cond = None
        L = self.layout
        for d in range(L.rank):
            if L.replicated(d, shape[d]):
                start = self.thread_start(d)
                ok = arith.CmpIOp(arith.CmpIPredicate.ult, start, self.index(shape[d])).result
                cond = ok if cond is None else arith.AndIOp(cond, ok).result
        return cond

    # ================================================================== body

    def role(self, op: ir.Operation) -> str | None:
        """What the shared-memory plan made of `op`, where that decides its emitter."""
        if self.smem is None:
            return None
        plan = self.smem.plan
        if isinstance(op.opview, DotOp):
            return "dot.wgmma" if plan.wgmma else "dot.mma" if plan.tensorcore else None
        if op in plan.staged:
            return "staged"
        if op in plan.skipped:
            return "folded"
        if op in plan.pipelined:
            return "pipelined"
        return None

    def lower_block(self, block: ir.Block) -> None:
        for op in block.operations:
            if op.operation not in self.taken:
                self.lower_op(op.operation)

    def lower_op(self, op: ir.Operation) -> None:
        handler = handler_for(op, self.role(op))
        if handler is None:
            raise self.unsupported(op)
        with op.location:  # what it becomes carries its source line (check-mode sites read it)
            handler(self, op)

    @staticmethod
    def unsupported(op: ir.Operation) -> LoweringError:
        view = op.opview
        what = next((words for cls, words in _SOURCE_NAMES if isinstance(view, cls)), None)
        tail = (
            f": {what} cannot run on the GPU yet (`phobos run --interpret` runs the kernel on the CPU)" if what else ""
        )
        if isinstance(view, TileOp):
            return LoweringError(op, f"{op.name} is not supported by {PASS} yet{tail}")
        return LoweringError(op, f"'{op.name}' op cannot be lowered by {PASS}{tail}")
