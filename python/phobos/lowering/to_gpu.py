"""Translation of one tile kernel into a `gpu.func` (the body of tile-lower-to-gpu).

Tiles become per-thread registers: a tile value is a 1-D `vector<n x T>`
holding the n elements this thread owns under the kernel's blocked layout
(layout.py explains which, placement.py where lower-rank tiles sit).
Elementwise `arith`/`math` ops apply to those vectors unchanged; ranges,
splats and broadcasts become vector constants, `vector.broadcast` and
`vector.shuffle`; loops and branches carry vectors.

Memory ops become 1-D `vector.load`/`vector.store` (n-D vector memory ops do
lower through the MLIR 22 pipeline) on a flat `memref<?xT>` view of each bare pointer
parameter. A thread's contiguous run along the last dimension is accessed in
chunks of the op's `vector_width` (from tile-elide-masks; 1 when absent) with
`alignment = width * element bytes`, so 16-byte chunks become
`ld.global.v4`/`st.global.v4`. Masked elements are guarded per chunk by an
`scf.if` (the chunk shares one mask value: tile-elide-masks only proves a
width > 1 where the mask is constant over it); proven in-bounds accesses are
not guarded at all. Where a tile is smaller than the layout's reach, several
threads hold the same element; only one of them stores it.

Kernel parameters follow abi.py: `!llvm.ptr` per tensor, i64 extents and
strides, scalars by value. A tensor the kernel never stores to is declared
`llvm.noalias` + `llvm.readonly` (which gives `ld.global.nc`): launching with
it overlapping a written tensor is then allowed only in the elementwise
in-place way (each element read before it is written, by the thread that
writes it); kernels with barriers, and the `noalias=false` option, get no
such declaration. `llvm.align = 16` comes only from `tile.ptr_align = 16`
(the specialisation key's a16).
"""

from __future__ import annotations

from collections.abc import Callable

from mlir import ir
from mlir.dialects import arith, gpu, memref, scf, vector

from phobos.dialect import kernel as K
from phobos.lowering.abi import ParamError, TensorParam, abi_entries, describe_params
from phobos.lowering.dot import DotEmitter, DotError, folded_transpose, plan_dots
from phobos.lowering.grid import contiguous_block_dim
from phobos.lowering.kernel_layout import vector_width
from phobos.lowering.layout import WARP_SIZE, Blocked, is_pow2
from phobos.nesting import nesting_message, too_deep
from phobos.lowering.placement import Placement, PlacementError
from phobos.lowering.reduce import ReduceEmitter, ReduceError, plan_scratch
from phobos.target import DEFAULT_CHIP

MAX_TILE_RANK = 3
MAX_REGISTERS = 1024  # elements of one tile per thread
GROUP_M = 8  # row tiles per group in the launch order of dot kernels
PASS = "tile-lower-to-gpu"


class LoweringError(Exception):
    """A kernel the lowering cannot translate; `op` locates the reason."""

    def __init__(self, op: ir.Operation, message: str):
        super().__init__(message)
        self.op = op


# What a kernel author wrote, for the ops the GPU lowering does not handle yet.
_SOURCE_NAMES = {
    "tile.grid_barrier": "grid_barrier",
    "scf.while": "while loops",
    "tensor.extract": "single-element reads",
}


def _not_yet(name: str) -> str:
    """The message's tail in the language's words, where the op comes from one of its constructs."""
    what = _SOURCE_NAMES.get(name)
    return f": {what} cannot run on the GPU yet (`phobos run --interpret` runs the kernel on the CPU)" if what else ""


def _unsupported(op: ir.Operation) -> LoweringError:
    return LoweringError(op, f"{op.name} is not supported by {PASS} yet{_not_yet(op.name)}")


_DIMS = (gpu.Dimension.x, gpu.Dimension.y, gpu.Dimension.z)


def _index_type() -> ir.Type:
    return ir.IndexType.get()


def _i64() -> ir.Type:
    return ir.IntegerType.get_signless(64)


def _element_bytes(t: ir.Type) -> int:
    if isinstance(t, ir.IntegerType):
        return max(1, t.width // 8)
    if isinstance(t, ir.IndexType):
        return 8
    return ir.FloatType(t).width // 8


def _supported_element(t: ir.Type) -> bool:
    if isinstance(t, ir.IntegerType):
        return t.width in (1, 8, 16, 32, 64)
    return isinstance(t, (ir.IndexType, ir.F16Type, ir.BF16Type, ir.F32Type, ir.F64Type))


def _f32_math(op: ir.Operation) -> tuple[bool, bool]:
    """(whether a math op is on f32, whether it carries the `afn` fast-math flag)."""
    t = op.results[0].type
    elem = ir.ShapedType(t).element_type if isinstance(t, ir.ShapedType) else t
    text = str(op.attributes["fastmath"]) if "fastmath" in op.attributes else ""
    flags = set(text[text.find("<") + 1 : text.rfind(">")].replace(",", " ").split()) if "<" in text else set()
    return isinstance(elem, ir.F32Type), bool(flags & {"afn", "fast"})


def _precise_sqrt_needed(op: ir.Operation) -> bool:
    """f32 math.sqrt without the `afn` fast-math flag."""
    f32, fast = _f32_math(op)
    return f32 and not fast


def _fast_exp(op: ir.Operation) -> bool:
    """f32 math.exp with the `afn` flag: ex2.approx.ftz.f32 of x * log2(e)."""
    f32, fast = _f32_math(op)
    return op.name == "math.exp" and f32 and fast


def _llvm_ptr() -> ir.Type:
    return ir.Type.parse("!llvm.ptr")


def _descriptor_type() -> ir.Type:
    return ir.Type.parse("!llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>")


class KernelLowering:
    """Builds `gpu.module @<kernel>_module { gpu.func @<kernel> }` before the
    kernel `fn` and erases `fn`. Raises LoweringError for what it cannot do."""

    def __init__(
        self,
        fn: ir.Operation,
        layout: Blocked | None,
        target: ir.Attribute,
        noalias: bool = True,
        chip: str = DEFAULT_CHIP,
    ):
        self.fn = fn
        self.noalias = noalias
        self.name = K.kernel_name(fn)
        self.target = target
        deep = too_deep(fn)
        if deep is not None:
            # Before anything walks the kernel recursively (placement, the lowering itself).
            raise LoweringError(deep, nesting_message())
        try:
            self.params = describe_params(fn)
            self.placement = Placement(fn)
        except ParamError as e:
            raise LoweringError(fn, str(e)) from None
        except PlacementError as e:
            raise LoweringError(e.op, str(e)) from None
        if self.placement.rank and layout is None:
            raise LoweringError(fn, f"kernel '{self.name}' has no tile.layout; run tile-assign-layout first")
        if layout is not None and self.placement.rank and layout.rank != self.placement.rank:
            raise LoweringError(
                fn, f"kernel '{self.name}' has a rank-{layout.rank} tile.layout but rank-{self.placement.rank} tiles"
            )
        self.layout = layout
        self.threads = K.launch(fn)["threads"]
        if layout is not None and self.placement.rank and layout.threads != self.threads:
            raise LoweringError(
                fn, f"kernel '{self.name}' has a tile.layout for {layout.threads} threads but launches {self.threads}"
            )
        self.values: dict[ir.Value, ir.Value] = {}
        self._block_ids: dict[int, ir.Value] = {}
        self.fast_block_dim = contiguous_block_dim(fn, self.params)
        self._const_cache: dict[tuple[str, str], ir.Value] = {}
        self._coord_cache: dict[tuple[int, int], ir.Value] = {}
        try:
            scratch = plan_scratch(fn, layout, self.placement, folded_transpose)
            plan = plan_dots(fn, layout, self.threads, chip, scratch)
        except (DotError, ReduceError) as e:
            raise LoweringError(e.op, str(e)) from None
        # The kernel's shared memory (dot operands and exchange scratch) and the dots themselves.
        self.dots = DotEmitter(self, plan) if plan is not None else None
        self.exchanges = ReduceEmitter(self, self.dots)

    # ================================================================== driver

    def run(self) -> ir.Operation:
        self._check_tiles()
        stored = self._stored_params()
        abi = abi_entries(self.params)
        with ir.InsertionPoint(self.fn), self.fn.location:
            module = gpu.GPUModuleOp(f"{self.name}_module", targets=ir.ArrayAttr.get([self.target]))
            module.bodyRegion.blocks.append()
            with ir.InsertionPoint(module.bodyRegion.blocks[0]):
                func = self._make_func(abi, stored)
            if self.dots is not None:
                self.dots.declare(module.bodyRegion.blocks[0])
        with ir.InsertionPoint(func.body.blocks[0]), self.fn.location:
            self._prologue(func, abi)
            if self.dots is not None:
                self.dots.make_views()
            self._block(self.fn.regions[0].blocks[0])
        if self.dots is not None:
            self.dots.annotate(func)
        self.fn.erase()
        return module.operation

    def _check_tiles(self) -> None:
        errors: list[LoweringError] = []

        def visit(op):
            try:
                check(op)
            except LoweringError as e:  # exceptions must not cross the walk callback
                errors.append(e)
                return ir.WalkResult.INTERRUPT
            return ir.WalkResult.ADVANCE

        def check(op):
            for v in list(op.results) + list(op.operands):
                t = v.type
                if isinstance(t, ir.RankedTensorType):
                    t = ir.RankedTensorType(t)
                    if t.rank == 0 or t.rank > MAX_TILE_RANK:
                        raise LoweringError(
                            op,
                            f"'{op.name}' op uses a rank-{t.rank} tile ({t}); "
                            f"{PASS} supports tiles of rank 1 to {MAX_TILE_RANK}",
                        )
                    if not _supported_element(t.element_type):
                        raise LoweringError(
                            op,
                            f"'{op.name}' op uses tiles of element type {t.element_type}, "
                            f"which {PASS} does not support",
                        )
                    if any(not is_pow2(s) for s in t.shape):
                        raise LoweringError(
                            op, f"'{op.name}' op uses the tile shape {list(t.shape)}; {PASS} needs power-of-two extents"
                        )
                    if self.layout is not None and isinstance(v, ir.OpResult):
                        n = self.layout.registers(self.placement.placed_shape(v))
                        if n > MAX_REGISTERS:
                            raise LoweringError(
                                op,
                                f"'{op.name}' op makes a tile of {list(t.shape)} that needs {n} "
                                f"elements per thread with {self.threads} threads (at most {MAX_REGISTERS})",
                            )

        self.fn.walk(visit)
        if errors:
            raise errors[0]

    def _stored_params(self) -> set:
        """Parameters that may not be declared noalias + readonly: those the
        kernel stores to, and all of them in a kernel with barriers (where a
        thread may read, through an aliasing parameter, what another wrote)."""
        args = list(self.fn.regions[0].blocks[0].arguments)
        stored = set()

        def visit(op):
            if op.name in ("tile.barrier", "tile.grid_barrier") or not self.noalias:
                stored.update(range(len(args)))
            elif op.name in ("tile.store", "tile.store_slice"):
                base = op.operands[1]
                for i, a in enumerate(args):
                    if a == base:
                        stored.add(i)
            return ir.WalkResult.ADVANCE

        self.fn.walk(visit)
        return stored

    # ================================================================== signature

    def _make_func(self, abi: list[dict], stored: set) -> gpu.GPUFuncOp:
        types, attrs = [], []
        for entry in abi:
            p = entry["param"]
            if entry["kind"] == "ptr":
                types.append(_llvm_ptr())
                a = {}
                if p not in stored:
                    a["llvm.noalias"] = ir.UnitAttr.get()
                    a["llvm.readonly"] = ir.UnitAttr.get()
                align = K.arg_attrs(self.fn, p).get(K.ARG_PTR_ALIGN)
                if align is not None and ir.IntegerAttr(align).value >= 16:
                    a["llvm.align"] = ir.IntegerAttr.get(_i64(), 16)
                attrs.append(ir.DictAttr.get(a))
            elif entry["kind"] in ("extent", "stride"):
                types.append(_i64())
                attrs.append(ir.DictAttr.get({}))
            else:
                t = self._arg_type(p)
                types.append(_i64() if isinstance(t, ir.IndexType) else t)
                attrs.append(ir.DictAttr.get({}))
        for _ in self.tensor_maps():  # after the ABI's own entries: the contract appends them so
            types.append(_llvm_ptr())
            attrs.append(ir.DictAttr.get({}))
        func = gpu.GPUFuncOp(
            ir.FunctionType.get(types, []), sym_name=self.name, kernel=True, known_block_size=[self.threads, 1, 1]
        )
        func.attributes["arg_attrs"] = ir.ArrayAttr.get(attrs)
        # tile.launch: PTX .maxntid (the CTA size), .minnctapersm and .maxnreg.
        launch = K.launch(self.fn)
        i32 = ir.IntegerType.get_signless(32)
        for fact, attr in (("min_blocks", "nvvm.minctasm"), ("max_regs", "nvvm.maxnreg")):
            if launch.get(fact):
                func.attributes[attr] = ir.IntegerAttr.get(i32, launch[fact])
        func.body.blocks.append(*types, arg_locs=[self.fn.location] * len(types))
        return func

    def tensor_maps(self) -> list:
        """The TMA tensor maps the dots read through (wgmma.TensorMap), one kernel parameter each."""
        return self.dots.plan.tensor_maps if self.dots is not None else []

    def _arg_type(self, index: int) -> ir.Type:
        return self.fn.regions[0].blocks[0].arguments[index].type

    # ================================================================== prologue

    def _prologue(self, func: gpu.GPUFuncOp, abi: list[dict]) -> None:
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
            self.dots.wgmma.bind_maps(args[len(abi) :])
        for entry, arg in zip(abi, args):
            p, kind = entry["param"], entry["kind"]
            if kind == "ptr":
                self.views[p] = self._flat_view(arg, ir.MemRefType(old_args[p].type).element_type)
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
                        self.extents[(p, axis)] = self.index(other)
        self.old_args = old_args

    def _flat_view(self, ptr: ir.Value, element: ir.Type) -> ir.Value:
        """A `memref<?xT>` over the bare pointer (a descriptor built in place:
        the upstream memref lowering then addresses it like any memref)."""
        desc_t = _descriptor_type()
        zero = ir.Operation.create(
            "llvm.mlir.constant", results=[_i64()], attributes={"value": ir.IntegerAttr.get(_i64(), 0)}
        ).result
        one = ir.Operation.create(
            "llvm.mlir.constant", results=[_i64()], attributes={"value": ir.IntegerAttr.get(_i64(), 1)}
        ).result
        unbounded = ir.Operation.create(
            "llvm.mlir.constant", results=[_i64()], attributes={"value": ir.IntegerAttr.get(_i64(), 2**63 - 1)}
        ).result
        desc = ir.Operation.create("llvm.mlir.poison", results=[desc_t]).result
        for position, value in (([0], ptr), ([1], ptr), ([2], zero), ([3, 0], unbounded), ([4, 0], one)):
            desc = ir.Operation.create(
                "llvm.insertvalue",
                results=[desc_t],
                operands=[desc, value],
                attributes={"position": ir.DenseI64ArrayAttr.get(position)},
            ).result
        view_t = ir.MemRefType.get([ir.ShapedType.get_dynamic_size()], element)
        return ir.Operation.create("builtin.unrealized_conversion_cast", results=[view_t], operands=[desc]).result

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

    # ================================================================== body

    def _block(self, block: ir.Block) -> None:
        for op in block.operations:
            self._op(op.operation)

    def _op(self, op: ir.Operation) -> None:
        name = op.name
        if self.dots is not None and self._dot_op(op):
            return
        handler = _HANDLERS.get(name)
        if handler is not None:
            handler(self, op)
        elif name.startswith("tile."):
            raise _unsupported(op)
        elif name.split(".")[0] in ("arith", "math", "index") and not len(op.regions):
            self._elementwise(op)
        else:
            raise LoweringError(op, f"'{name}' op cannot be lowered by {PASS}{_not_yet(name)}")

    def _dot_op(self, op: ir.Operation) -> bool:
        """Ops the dot lowering owns: dots, staged loads, folded transposes, pipelined loops."""
        plan = self.dots.plan
        if op.name == "tile.dot":
            self.dots.dot(op)
        elif op in plan.staged:
            self.dots.staged_load(op)
        elif op in plan.skipped:
            pass
        elif op in plan.pipelined:
            self.dots.pipelined_for(op)
        else:
            return False
        return True

    def _elementwise(self, op: ir.Operation) -> None:
        if op.name == "arith.constant":
            return self._constant(op)
        operands = [self.get(v, op) for v in op.operands]
        attrs = {name: op.attributes[name] for name in op.attributes}
        if op.name == "math.sqrt" and _precise_sqrt_needed(op):
            return self._sqrt_rn(op, operands[0])
        if _fast_exp(op):
            return self._exp_ftz(op, operands[0])
        result_types = [self.vtype(r) for r in op.results]
        new = ir.Operation.create(op.name, results=result_types, operands=operands, attributes=attrs, loc=op.location)
        for old, r in zip(op.results, new.results):
            self.values[old] = r

    def _sqrt_rn(self, op: ir.Operation, value: ir.Value) -> None:
        """Correctly rounded f32 sqrt (PTX sqrt.rn.f32). The upstream lowering
        of math.sqrt goes through libdevice's __nv_sqrtf, which this build
        compiles to sqrt.approx.f32 (checked in test/Target/ptx-math.mlir), and marks llvm.intr.sqrt
        illegal; the NVVM intrinsic is applied element by element."""
        f32 = ir.F32Type.get()
        self._per_element(op, value, lambda x: self._call_intrinsic("llvm.nvvm.sqrt.rn.f", x, f32))

    def _exp_ftz(self, op: ir.Operation, value: ir.Value) -> None:
        """exp under @fastmath: ex2.approx.ftz.f32 of x * log2(e), which is libdevice's
        __nv_fast_expf (CUDA's __expf) with results below 2^-126 flushed to zero, as
        nvcc's --use_fast_math gives it. The non-ftz ex2.approx.f32 that __nv_fast_expf
        becomes costs three more instructions per element (a range test and two
        scalings around MUFU.EX2), a quarter of a flash-attention inner loop."""
        f32 = ir.F32Type.get()
        with op.location:
            log2e = arith.ConstantOp(f32, ir.FloatAttr.get(f32, 1.4426950408889634)).result
        self._per_element(
            op, value, lambda x: self._call_intrinsic("llvm.nvvm.ex2.approx.ftz.f", arith.MulFOp(x, log2e).result, f32)
        )

    def _per_element(self, op: ir.Operation, value: ir.Value, one) -> None:
        """`op`'s result as `one` applied to each element of `value` (a scalar or a
        vector: the NVVM intrinsics take scalars)."""
        with op.location:
            if not isinstance(value.type, ir.VectorType):
                self.values[op.results[0]] = one(value)
                return
            n = ir.VectorType(value.type).shape[0]
            parts = [one(vector.ExtractOp(value, [], [i]).result) for i in range(n)]
            self.values[op.results[0]] = vector.FromElementsOp(value.type, parts).result

    @staticmethod
    def _call_intrinsic(name: str, x: ir.Value, f32: ir.Type) -> ir.Value:
        return ir.Operation.create(
            "llvm.call_intrinsic",
            results=[f32],
            operands=[x],
            attributes={
                "intrin": ir.StringAttr.get(name),
                "op_bundle_sizes": ir.DenseI32ArrayAttr.get([]),
                "operandSegmentSizes": ir.DenseI32ArrayAttr.get([1, 0]),
            },
        ).result

    def _constant(self, op: ir.Operation) -> None:
        result = op.results[0]
        attr = op.attributes["value"]
        if not isinstance(result.type, ir.RankedTensorType):
            self.values[result] = arith.ConstantOp(result.type, attr, loc=op.location).result
            return
        dense = ir.DenseElementsAttr(attr)
        if not dense.is_splat:
            raise LoweringError(op, f"'arith.constant' op: non-splat tile constants are not supported by {PASS} yet")
        vt = self.vtype(result)
        splat = ir.DenseElementsAttr.get_splat(vt, dense.get_splat_value())
        self.values[result] = arith.ConstantOp(vt, splat, loc=op.location).result

    # ------------------------------------------------------------------ tile ops

    def _grid_index(self, op: ir.Operation) -> None:
        d = op.opview.dim
        if op.name == "tile.block_id":
            self.values[op.results[0]] = self.block_index(d)
        else:
            self.values[op.results[0]] = gpu.GridDimOp(_DIMS[d], loc=op.location).result

    def block_index(self, d: int) -> ir.Value:
        """tile.block_id(d). Normally the hardware block index; when the kernel's
        contiguous tiles are picked by block_id(1) (grid.contiguous_block_dim),
        the CTAs are renumbered so that consecutive hardware CTAs take
        consecutive column tiles: with linear index l = x + y * nctaid.x,
        block_id(1) = l mod nctaid.y and block_id(0) = l div nctaid.y (a
        bijection onto the same grid; only the launch order changes)."""
        if d in self._block_ids:
            return self._block_ids[d]
        if self.dots is not None and self.dots.plan.has_dots and d < 2:
            return self._grouped_block_index(d)
        if self.fast_block_dim != 1:
            value = self.at_entry(lambda: gpu.BlockIdOp(_DIMS[d]).result)
        else:

            def build():
                x, y = gpu.BlockIdOp(gpu.Dimension.x).result, gpu.BlockIdOp(gpu.Dimension.y).result
                nx, ny = gpu.GridDimOp(gpu.Dimension.x).result, gpu.GridDimOp(gpu.Dimension.y).result
                linear = arith.AddIOp(x, arith.MulIOp(y, nx).result).result
                self._block_ids[1] = arith.RemUIOp(linear, ny).result
                self._block_ids[0] = arith.DivUIOp(linear, ny).result
                return self._block_ids[d]

            value = self.at_entry(build)
        self._block_ids[d] = value
        return value

    def _grouped_block_index(self, d: int) -> ir.Value:
        """Dot kernels: CTAs in groups of GROUP_M rows of tiles (Triton's grouped
        order). With l = x + y * nctaid.x, each run of GROUP_M * nctaid.y
        consecutive CTAs covers GROUP_M row tiles by every column tile, column
        by column, so the CTAs resident at once share operand tiles in L2. A
        bijection onto the same grid: only the launch order changes."""

        def build():
            x, y = gpu.BlockIdOp(gpu.Dimension.x).result, gpu.BlockIdOp(gpu.Dimension.y).result
            nx, ny = gpu.GridDimOp(gpu.Dimension.x).result, gpu.GridDimOp(gpu.Dimension.y).result
            linear = arith.AddIOp(x, arith.MulIOp(y, nx).result).result
            per_group = arith.MulIOp(ny, self.index(GROUP_M)).result
            group = arith.DivUIOp(linear, per_group).result
            first = arith.MulIOp(group, self.index(GROUP_M)).result
            rows = arith.MinUIOp(arith.SubIOp(nx, first).result, self.index(GROUP_M)).result
            within = arith.RemUIOp(linear, per_group).result
            self._block_ids[0] = arith.AddIOp(first, arith.RemUIOp(within, rows).result).result
            self._block_ids[1] = arith.DivUIOp(within, rows).result
            return self._block_ids[d]

        return self.at_entry(build)

    def _range(self, op: ir.Operation) -> None:
        o = op.opview
        result = op.results[0]
        d = self.placement.dims_of(result)[0]
        extent = o.end - o.start
        vt = self.vtype(result)
        elem = vt.element_type
        offsets = [o.start + x for x in self.layout.offsets(d, extent)]
        base = self.coordinate_base(d, extent)
        with op.location:
            if not isinstance(elem, ir.IndexType):
                base = arith.IndexCastOp(elem, base).result
            splat = vector.BroadcastOp(vt, base).result
            self.values[result] = arith.AddIOp(splat, self.const(offsets, vt)).result

    def _splat(self, op: ir.Operation) -> None:
        with op.location:
            self.values[op.results[0]] = vector.BroadcastOp(
                self.vtype(op.results[0]), self.get(op.operands[0], op)
            ).result

    def _broadcast(self, op: ir.Operation) -> None:
        src_old, res_old = op.operands[0], op.results[0]
        src = self.get(src_old, op)
        src_shape = self.placement.placed_shape(src_old)
        res_shape = self.placement.placed_shape(res_old)
        mapping = self.layout.broadcast_map(src_shape, res_shape)
        vt = self.vtype(res_old)
        with op.location:
            if mapping == list(range(len(mapping))) and self.vtype(src_old) == vt:
                self.values[res_old] = src
            elif ir.VectorType(src.type).shape[0] == 1:
                scalar = vector.ExtractOp(src, [], [0]).result
                self.values[res_old] = vector.BroadcastOp(vt, scalar).result
            else:
                self.values[res_old] = vector.ShuffleOp(src, src, mapping).result

    def _reshape(self, op: ir.Operation) -> None:
        # Adding or removing unit dimensions keeps the placed shape (placement.py).
        self.values[op.results[0]] = self.get(op.operands[0], op)

    def _hint(self, op: ir.Operation) -> None:
        self.values[op.results[0]] = self.get(op.operands[0], op)

    def _check_multiple(self, op: ir.Operation) -> None:
        o = op.opview
        if o.divisor <= 0:
            raise LoweringError(op, f"'tile.check_multiple' op needs a positive divisor, got {o.divisor}")
        value = self.get(op.operands[0], op)
        with op.location:
            rem = arith.RemUIOp(value, self.index(o.divisor)).result
            broken = arith.CmpIOp(arith.CmpIPredicate.ne, rem, self.index(0)).result
            check = scf.IfOp(broken)
            with ir.InsertionPoint(check.then_block):
                ir.Operation.create("llvm.intr.trap")
                scf.YieldOp([])
        self.values[op.results[0]] = value

    def _barrier(self, op: ir.Operation) -> None:
        gpu.BarrierOp(loc=op.location)

    def _dim(self, op: ir.Operation) -> None:
        base, axis_value = op.operands[0], op.operands[1]
        p = self._param_index(base, op)
        axis_op = axis_value.owner if isinstance(axis_value, ir.OpResult) else None
        if axis_op is None or axis_op.name != "arith.constant":
            raise LoweringError(op, "'memref.dim' op needs a constant dimension index")
        axis = ir.IntegerAttr(axis_op.attributes["value"]).value
        self.values[op.results[0]] = self.extents[(p, axis)]

    def _param_index(self, base: ir.Value, op: ir.Operation) -> int:
        for i, a in enumerate(self.old_args):
            if a == base:
                return i
        raise LoweringError(op, f"'{op.name}' op must access a tensor parameter of the kernel directly")

    # ------------------------------------------------------------------ control flow

    def _for(self, op: ir.Operation) -> None:
        o = op.opview
        lb, ub, step = (self.get(v, op) for v in (o.lowerBound, o.upperBound, o.step))
        inits = [self.get(v, op) for v in o.initArgs]
        loop = scf.ForOp(lb, ub, step, inits, loc=op.location)
        body = o.body
        self.values[body.arguments[0]] = loop.induction_variable
        for old, new in zip(list(body.arguments)[1:], loop.inner_iter_args):
            self.values[old] = new
        with ir.InsertionPoint(loop.body):
            self._block(body)
        for old, new in zip(op.results, loop.results):
            self.values[old] = new

    def _if(self, op: ir.Operation) -> None:
        o = op.opview
        has_else = len(op.regions[1].blocks) > 0
        new = scf.IfOp(
            self.get(o.condition, op), [self.vtype(r) for r in op.results], has_else=has_else, loc=op.location
        )
        with ir.InsertionPoint(new.then_block):
            self._block(op.regions[0].blocks[0])
        if has_else:
            with ir.InsertionPoint(new.else_block):
                self._block(op.regions[1].blocks[0])
        for old, r in zip(op.results, new.results):
            self.values[old] = r

    def _yield(self, op: ir.Operation) -> None:
        scf.YieldOp([self.get(v, op) for v in op.operands], loc=op.location)

    def _return(self, op: ir.Operation) -> None:
        gpu.ReturnOp([], loc=op.location)

    # ------------------------------------------------------------------ memory

    def _access_plan(self, op: ir.Operation, tile_old: ir.Value):
        """(placed shape, layout dims of the tile, chunk width, element type)."""
        shape = self.placement.placed_shape(tile_old)
        dims = self.placement.dims_of(tile_old)
        elem = ir.RankedTensorType(tile_old.type).element_type
        last = dims[-1]
        # A last dimension placed nowhere has extent 1: one element per chunk.
        width = 1 if last is None else min(vector_width(op), self.layout.run(last, shape[last]))
        if isinstance(elem, ir.IntegerType) and elem.width == 1:
            width = 1  # i1 is a byte in memory; a vector<Nxi1> would be packed bits
        while width * _element_bytes(elem) > 16:
            width //= 2
        return shape, dims, max(1, width), elem

    def _chunks(self, shape, dims, width):
        """(first register, per-dimension register indices) of each chunk,
        in register order."""
        last = dims[-1]
        j = 0
        for k in self.layout.register_indices(shape):
            if last is None or k[last] % width == 0:
                yield j, k
            j += 1

    def _owner_guard(self, shape, dims) -> ir.Value | None:
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

    def _slice_access(self, op: ir.Operation, tile_old: ir.Value, base: ir.Value, starts: list[ir.Value]):
        """Per-chunk flat indices and masks of a slice-form access."""
        p = self._param_index(base, op)
        shape, dims, width, elem = self._access_plan(op, tile_old)
        in_bounds = op.opview.in_bounds
        rank = len(dims)
        starts = [self.get(s, op) for s in starts]
        strides = [self.strides[(p, i)] for i in range(rank - 1)] + [None]
        coords = []  # per tile dim: the thread's first coordinate (start + base)
        for i, d in enumerate(dims):
            if d is None:  # a unit dimension placed nowhere: the start itself
                coords.append(starts[i])
                continue
            b = self.coordinate_base(d, shape[d])
            coords.append(arith.AddIOp(starts[i], b).result)
        flat = None
        for i in range(rank):
            term = coords[i] if strides[i] is None else arith.MulIOp(coords[i], strides[i]).result
            flat = term if flat is None else arith.AddIOp(flat, term).result
        offset_cache: dict[tuple[int, int], ir.Value] = {}
        mask_cache: dict[tuple[int, int], ir.Value] = {}

        def offset(i, k):
            if dims[i] is None:
                return None
            off = self.layout.offsets(dims[i], shape[dims[i]])[k]
            if off == 0:
                return None
            if (i, k) not in offset_cache:
                c = self.index(off)
                offset_cache[(i, k)] = c if strides[i] is None else arith.MulIOp(c, strides[i]).result
            return offset_cache[(i, k)]

        def in_range(i, k):
            if (i, k) not in mask_cache:
                off = 0 if dims[i] is None else self.layout.offsets(dims[i], shape[dims[i]])[k]
                c = coords[i] if off == 0 else arith.AddIOp(coords[i], self.index(off)).result
                mask_cache[(i, k)] = arith.CmpIOp(arith.CmpIPredicate.ult, c, self.extents[(p, i)]).result
            return mask_cache[(i, k)]

        accesses = []
        for j, k in self._chunks(shape, dims, width):
            idx = flat
            ks = [0 if d is None else k[d] for d in dims]
            for i in range(rank):
                o = offset(i, ks[i])
                if o is not None:
                    idx = arith.AddIOp(idx, o).result
            mask = None
            for i in range(rank):
                if not in_bounds[i]:
                    m = in_range(i, ks[i])
                    mask = m if mask is None else arith.AndIOp(mask, m).result
            accesses.append((j, idx, mask))
        return p, shape, dims, width, elem, accesses

    def _offset_access(
        self, op: ir.Operation, tile_old: ir.Value, base: ir.Value, offsets_old: ir.Value, mask_old: ir.Value | None
    ):
        p = self._param_index(base, op)
        shape, dims, width, elem = self._access_plan(op, tile_old)
        offsets = self.get(offsets_old, op)
        mask = self.get(mask_old, op) if mask_old is not None else None
        accesses = []
        for j, _ in self._chunks(shape, dims, width):
            off = vector.ExtractOp(offsets, [], [j]).result
            if not isinstance(off.type, ir.IndexType):
                off = arith.IndexCastOp(_index_type(), off).result
            m = vector.ExtractOp(mask, [], [j]).result if mask is not None else None
            accesses.append((j, off, m))
        return p, shape, dims, width, elem, accesses

    def _load_chunks(self, op, result_old, p, width, elem, accesses, slice_form: bool) -> None:
        """Loads every chunk of a tile. Masked chunks do not branch: they load
        from the tensor's first element instead and select zero, so all of a
        thread's loads issue back to back (a branch per chunk lets LLVM fuse
        each load with its store and serialise them). That needs a first
        element: a uniform check that the tensor is not empty guards the lot.
        An offset-form vector chunk keeps its branch, since nothing proves the
        buffer holds `width` elements."""
        view = self.views[p]
        chunk_t = ir.VectorType.get([width], elem)
        align = width * _element_bytes(elem)
        t = elem if width == 1 else chunk_t
        fill = op.opview.padding
        fill = 0 if fill is None else fill  # what masked-off elements read as

        def load(idx):
            if width == 1:
                return memref.LoadOp(view, [idx]).result
            return vector.LoadOp(chunk_t, view, [idx], alignment=align).result

        def branch_free(mask):
            return mask is not None and (slice_form or width == 1)

        def emit_all():
            pieces = []
            for _, idx, mask in accesses:
                if mask is None:
                    pieces.append(load(idx))
                elif branch_free(mask):
                    value = load(arith.SelectOp(mask, idx, self.index(0)).result)
                    pieces.append(arith.SelectOp(mask, value, self.const(fill, t)).result)
                else:
                    guarded = scf.IfOp(mask, [t], has_else=True)
                    with ir.InsertionPoint(guarded.then_block):
                        scf.YieldOp([load(idx)])
                    with ir.InsertionPoint(guarded.else_block):
                        scf.YieldOp([self.const(fill, t)])
                    pieces.append(guarded.results[0])
            return pieces

        if any(branch_free(mask) for _, _, mask in accesses):
            nonempty = None
            for (q, _axis), extent in self.extents.items():
                if q == p:
                    pos = arith.CmpIOp(arith.CmpIPredicate.ugt, extent, self.index(0)).result
                    nonempty = pos if nonempty is None else arith.AndIOp(nonempty, pos).result
            guarded = scf.IfOp(nonempty, [t] * len(accesses), has_else=True)
            with ir.InsertionPoint(guarded.then_block):
                scf.YieldOp(emit_all())
            with ir.InsertionPoint(guarded.else_block):
                scf.YieldOp([self.const(fill, t)] * len(accesses))
            pieces = list(guarded.results)
        else:
            pieces = emit_all()
        vt = self.vtype(result_old)
        if width == 1:
            value = vector.FromElementsOp(vt, pieces).result
        else:
            value = self._concat(pieces)
        self.values[result_old] = value

    def _concat(self, pieces: list[ir.Value]) -> ir.Value:
        while len(pieces) > 1:
            merged = []
            for a, b in zip(pieces[0::2], pieces[1::2]):
                n = ir.VectorType(a.type).shape[0] + ir.VectorType(b.type).shape[0]
                merged.append(vector.ShuffleOp(a, b, list(range(n))).result)
            if len(pieces) % 2:
                merged.append(pieces[-1])
            pieces = merged
        return pieces[0]

    def _store_chunks(self, op, value_old, p, shape, dims, width, elem, accesses) -> None:
        view = self.views[p]
        value = self.get(value_old, op)
        guard = self._owner_guard(shape, dims)
        if guard is not None:
            outer = scf.IfOp(guard)
            ip = ir.InsertionPoint(outer.then_block)
        else:
            outer, ip = None, None
        align = width * _element_bytes(elem)

        def store(piece, idx):
            if width == 1:
                memref.StoreOp(piece, view, [idx])
            else:
                vector.StoreOp(piece, view, [idx], alignment=align)

        def emit():
            for j, idx, mask in accesses:
                if width == 1:
                    piece = vector.ExtractOp(value, [], [j]).result
                else:
                    piece = vector.ShuffleOp(value, value, list(range(j, j + width))).result
                if mask is None:
                    store(piece, idx)
                else:
                    guarded = scf.IfOp(mask)
                    with ir.InsertionPoint(guarded.then_block):
                        store(piece, idx)
                        scf.YieldOp([])
            if outer is not None:
                scf.YieldOp([])

        if ip is not None:
            with ip:
                emit()
        else:
            emit()

    def _load_slice(self, op: ir.Operation) -> None:
        o = op.opview
        with op.location:
            p, shape, dims, width, elem, acc = self._slice_access(op, op.results[0], o.base, o.starts)
            self._load_chunks(op, op.results[0], p, width, elem, acc, slice_form=True)

    def _store_slice(self, op: ir.Operation) -> None:
        o = op.opview
        with op.location:
            p, shape, dims, width, elem, acc = self._slice_access(op, o.value, o.base, o.starts)
            self._store_chunks(op, o.value, p, shape, dims, width, elem, acc)

    def _load(self, op: ir.Operation) -> None:
        o = op.opview
        with op.location:
            p, shape, dims, width, elem, acc = self._offset_access(op, op.results[0], o.base, o.offsets, o.mask)
            self._load_chunks(op, op.results[0], p, width, elem, acc, slice_form=False)

    def _store(self, op: ir.Operation) -> None:
        o = op.opview
        with op.location:
            p, shape, dims, width, elem, acc = self._offset_access(op, o.value, o.base, o.offsets, o.mask)
            self._store_chunks(op, o.value, p, shape, dims, width, elem, acc)


_HANDLERS: dict[str, Callable[[KernelLowering, ir.Operation], None]] = {
    "tile.block_id": KernelLowering._grid_index,
    "tile.grid_dim": KernelLowering._grid_index,
    "tile.range": KernelLowering._range,
    "tile.broadcast": KernelLowering._broadcast,
    "tile.hint": KernelLowering._hint,
    "tile.check_multiple": KernelLowering._check_multiple,
    "tile.barrier": KernelLowering._barrier,
    "tile.reduce": lambda kl, op: kl.exchanges.reduce(op),
    "tile.scan": lambda kl, op: kl.exchanges.scan(op),
    "tile.transpose": lambda kl, op: kl.exchanges.transpose(op),
    "tile.load_slice": KernelLowering._load_slice,
    "tile.store_slice": KernelLowering._store_slice,
    "tile.load": KernelLowering._load,
    "tile.store": KernelLowering._store,
    "tensor.splat": KernelLowering._splat,
    "tensor.expand_shape": KernelLowering._reshape,
    "tensor.collapse_shape": KernelLowering._reshape,
    "memref.dim": KernelLowering._dim,
    "scf.for": KernelLowering._for,
    "scf.if": KernelLowering._if,
    "scf.yield": KernelLowering._yield,
    "func.return": KernelLowering._return,
}
