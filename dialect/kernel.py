"""Kernel facts: the attributes that make a `func.func` a tile kernel, and the
names of the facts passes record on kernels and their ops for later passes.

Function attributes (on the `func.func`):
  tile.kernel                      unit: the function is a kernel (one CTA's work).
  tile.launch = {threads = 256 : i64[, min_blocks = N : i64][, max_regs = N : i64]}
                                   threads per CTA (a multiple of 32), occupancy hints.
  tile.aligned = {M = 32 : i64, ...}
                                   `@aligned` promises: runtime extent M is a multiple of 32.
  tile.autotune = {TM = array<i64: 32, 64>, ...}
                                   the search space of each autotuned constant.
  tile.bindings = {TM = 32 : i64, ...}
                                   the values chosen for this compilation.
  tile.pipeline, tile.tensorcore, tile.persistent
                                   unit flags (software pipelining, tensor cores,
                                   persistent grid).
  tile.pipeline_depth = 4 : i64    `@pipeline(4)`: the stages of each ring (2 to
                                   MAX_PIPELINE_DEPTH; absent: 3); needs tile.pipeline.
  tile.extent_blocks = {KB = {of = "K", block = 32 : i64}}
                                   extent KB must be ceil(K / 32) (the Q8_0 scales of
                                   a runtime K, qdot_t/qmma_t): checked at the launch.
  tile.assert_coalesced            unit flag (`@assert_coalesced`): a global access whose
                                   lanes are strided is an error (tile-check-coalesced).
  tile.fastmath                    unit flag (`@fastmath`): a record that the front end (or
                                   the builder's `fastmath=True`) put `fastmath<afn>` on every
                                   float `math` op and `arith.divf` of the kernel. The
                                   lowering reads the ops' flags, not this one.
  tile.checked                     unit flag (`@checked`): tile-check-overlap's overlapping
                                   cross-CTA store is an error, not a warning, and the
                                   kernel compiles in check mode (tile.check_mode).
  tile.check_mode                  unit flag (check mode: PHOBOS_CHECK=1, check=True,
                                   @checked): every promise the compiler relies on is
                                   verified on the device (tile-insert-checks sets it;
                                   tile-elide-masks and the lowering read it).

Argument attributes:
  tile.name = "X"                  the parameter's source name (used in messages and
                                   in the launch contract).
  tile.dims = ["M", "N"]           on memref arguments: the symbol (or decimal literal)
                                   of each dimension; one symbol names one extent in
                                   every parameter that uses it.
  tile.divisibility = array<i64: 16, 4>
                                   launch-time specialisation: per dimension of a
                                   memref, the power of two dividing its extent; on an
                                   integer scalar, one entry for its value.
  tile.stride_divisibility = array<i64: ...>
                                   per leading dimension of a memref, the power of
                                   two dividing its stride in elements.
  tile.ptr_align = 16 : i64        the byte alignment of the base pointer.

Recorded by passes (on the kernel):
  tile.layout = #tile.blocked<...> how the kernel's tiles spread over its threads
                                   (tile-assign-layout; read by tile-lower-to-gpu).

Recorded by passes (on tile.load_slice, tile.store_slice, tile.load, tile.store):
  in_bounds = array<i1: ...>       slice accesses: per dimension, true where the
                                   tile never leaves the tensor, so no mask is
                                   needed (tile-elide-masks; read by the lowering).
  vector_width = 4 : i64           the widest proven access, in elements along the
                                   last dimension (tile-elide-masks; read by
                                   tile-assign-layout and the lowering).

Given by the front end or the builder (on tile.load_slice and tile.load):
  padding = 0xFF800000 : f32       the value that elements outside the tensor (slice
                                   form) or masked off (offset form) read as: a
                                   scalar attribute of the load's element type
                                   (FloatAttr, IntegerAttr; `true`/`false` for i1).
                                   Absent: zero. `padded(X[...], -inf)` in the
                                   language; MLIR prints -inf as 0xFF800000 : f32.

The readers below raise KernelAttributeError (an AttributeKindError, see
attributes.py: every attribute read from user IR goes through attributes.read)
when an attribute has the wrong type, naming it and the type expected; tile-verify reports that
as a located error, and every Phobos pass runs tile-verify's checks first, so
passes read only attributes of the right type.
"""

from __future__ import annotations

from typing import Any

from mlir import ir

from . import attributes as A

KERNEL = "tile.kernel"
LAUNCH = "tile.launch"
ALIGNED = "tile.aligned"
AUTOTUNE = "tile.autotune"
BINDINGS = "tile.bindings"
PIPELINE = "tile.pipeline"
PIPELINE_DEPTH = "tile.pipeline_depth"
EXTENT_BLOCKS = "tile.extent_blocks"
MIN_PIPELINE_DEPTH, MAX_PIPELINE_DEPTH = 2, 8  # one stage filling while one is read; past 8, no H100 fits a useful tile
TENSORCORE = "tile.tensorcore"
PERSISTENT = "tile.persistent"
ASSERT_COALESCED = "tile.assert_coalesced"
FASTMATH = "tile.fastmath"
CHECKED = "tile.checked"
CHECK_MODE = "tile.check_mode"
FLAGS = (PIPELINE, TENSORCORE, PERSISTENT, ASSERT_COALESCED, FASTMATH, CHECKED, CHECK_MODE)

ARG_NAME = "tile.name"
ARG_DIMS = "tile.dims"
ARG_UNSIGNED = "tile.unsigned"  # a u8/u32 tensor or scalar (signless i8/i32 in the IR): its contract dtype
ARG_DIVISIBILITY = "tile.divisibility"
ARG_STRIDE_DIVISIBILITY = "tile.stride_divisibility"
ARG_PTR_ALIGN = "tile.ptr_align"

LAYOUT = "tile.layout"
IN_BOUNDS = "in_bounds"
VECTOR_WIDTH = "vector_width"
PADDING = "padding"
# On a store, in check mode: tile-check-overlap found that several CTAs may store to its elements,
# so the lowering claims each element for its CTA on the device (lowering/device_checks.py); its
# value names the grid axis.
CLAIM = "tile.claim"

DEFAULT_THREADS = 256


def is_kernel(op: ir.Operation) -> bool:
    return op.name == "func.func" and KERNEL in op.attributes


def kernels(module: ir.Module | ir.Operation) -> list[ir.Operation]:
    """The tile kernels at the top level of `module` (an ir.Module or its operation), in order."""
    body = module.operation.regions[0].blocks[0]
    return [op.operation for op in body.operations if is_kernel(op.operation)]


def kernel_name(op: ir.Operation) -> str:
    """The symbol name of the kernel (or any function) `op`."""
    return ir.StringAttr(op.attributes["sym_name"]).value


class KernelAttributeError(A.AttributeKindError):
    """A kernel or argument attribute of the wrong type. `name` is the attribute,
    `index` the argument it sits on (None for a kernel attribute)."""

    def __init__(self, name: str, expected: str, attr: ir.Attribute, index: int | None = None):
        super().__init__(name, expected, attr)
        self.index = index


def _read(attr: ir.Attribute | None, name: str, kind: A.Kind, index: int | None = None, default: Any = None) -> Any:
    """attributes.read of the kernel (index None) or argument attribute `name`; `default` where absent."""
    if attr is None:
        return default
    try:
        return A.read(attr, name, kind)
    except A.AttributeKindError as e:
        raise KernelAttributeError(e.name, e.expected, e.attr, index) from None


def _get(op: ir.Operation, name: str) -> ir.Attribute | None:
    return op.attributes[name] if name in op.attributes else None


def launch(op: ir.Operation) -> dict[str, int]:
    """The kernel's launch facts, with `threads` defaulted."""
    facts = _read(_get(op, LAUNCH), LAUNCH, A.INTEGER_DICT, default={})
    facts.setdefault("threads", DEFAULT_THREADS)
    return facts


def aligned(op: ir.Operation) -> dict[str, int]:
    return _read(_get(op, ALIGNED), ALIGNED, A.INTEGER_DICT, default={})


def bindings(op: ir.Operation) -> dict[str, int]:
    return _read(_get(op, BINDINGS), BINDINGS, A.INTEGER_DICT, default={})


def autotune(op: ir.Operation) -> dict[str, list[int]]:
    return _read(_get(op, AUTOTUNE), AUTOTUNE, A.I64_ARRAY_DICT, default={})


def pipeline_depth(op: ir.Operation) -> int | None:
    """The stages `@pipeline(S)` asks of each ring (None: the planner's default)."""
    return _read(_get(op, PIPELINE_DEPTH), PIPELINE_DEPTH, A.INTEGER)


def extent_blocks(op: ir.Operation) -> dict[str, tuple[str, int]]:
    """{symbol: (symbol of, block)}: the extent of `symbol` must be ceil(that of `of` / block)."""
    return _read(_get(op, EXTENT_BLOCKS), EXTENT_BLOCKS, A.BLOCKS_DICT, default={})


def flags(op: ir.Operation) -> list[str]:
    for f in (KERNEL, *FLAGS):
        _read(_get(op, f), f, A.UNIT)
    return [f for f in FLAGS if f in op.attributes]


def arg_attrs(op: ir.Operation, index: int) -> dict[str, ir.Attribute]:
    """The attribute dictionary of argument `index` ({} when there is none)."""
    if "arg_attrs" not in op.attributes:
        return {}
    attrs = ir.ArrayAttr(op.attributes["arg_attrs"])
    if index >= len(attrs):
        return {}
    return {n.name: n.attr for n in ir.DictAttr(attrs[index])}


def arg_name(op: ir.Operation, index: int) -> str:
    return _read(arg_attrs(op, index).get(ARG_NAME), ARG_NAME, A.STRING, index, default=f"arg{index}")


def arg_dims(op: ir.Operation, index: int) -> list[str] | None:
    return _read(arg_attrs(op, index).get(ARG_DIMS), ARG_DIMS, A.STRING_ARRAY, index)


def arg_unsigned(op: ir.Operation, index: int) -> bool:
    """Whether parameter `index` holds unsigned integers (u8, u32): tile.unsigned."""
    return ARG_UNSIGNED in arg_attrs(op, index)


def arg_i64_array(op: ir.Operation, index: int, name: str) -> list[int] | None:
    return _read(arg_attrs(op, index).get(name), name, A.I64_ARRAY, index)


def arg_int(op: ir.Operation, index: int, name: str) -> int | None:
    return _read(arg_attrs(op, index).get(name), name, A.INTEGER, index)
