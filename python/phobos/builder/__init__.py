"""Build tile kernels from Python.

The builder follows the MLIR Python conventions (an active `Context`, an
`InsertionPoint`) and adds what makes tile code read like the kernel it
describes: typed parameters, values with arithmetic operators that broadcast
like NumPy and promote like the `.ph` language, structured control flow, and
one function per tile op. Every op it creates carries the caller's source
location (`file:line:col` of the user's line) unless an explicit `loc=` is
given, and printing a module verifies it first. docs/builder.md is the guide.

    from phobos import builder as tb

    with tb.context(), tb.Location.unknown():
        module = tb.Module.create()
        with tb.InsertionPoint(module.body):

            @tb.kernel(aligned={"M": 32, "N": 128})
            def scale(X: tb.Tensor(tb.f32, "M", "N"), Y: tb.Tensor(tb.f32, "M", "N"), alpha: tb.f32):
                rows = tb.block_id(0) * 32
                cols = tb.block_id(1) * 128
                x = tb.load_slice(X, [rows, cols], [32, 128])
                tb.store_slice(Y, [rows, cols], alpha * x)

Modules: `locations` (source locations), `types` (element and parameter
types), `convert` (conversions, shared with the front end), `values` (values,
operators and elementwise ops under the language's promotion rules),
`tile_ops`, `control` (for/if/while), `kernels`, `module` (verify on print).
"""

from __future__ import annotations

from mlir import ir
from mlir.ir import Context, InsertionPoint, Location  # noqa: F401  (re-exported)

from phobos.dialect import make_context

from .control import ForLoop, IfElse, WhileLoop, for_range, if_, while_  # noqa: F401
from .kernels import FASTMATH_FLAGS, apply_fastmath, build_kernel, kernel  # noqa: F401
from .locations import caller_location  # noqa: F401
from .module import Module, VerificationError, verify  # noqa: F401
from .tile_ops import (  # noqa: F401
    arange,
    barrier,
    block_id,
    dim,
    dot,
    expand_dims,
    grid_dim,
    hint,
    load,
    load_slice,
    max_contiguous,
    multiple_of,
    reduce,
    scan,
    store,
    store_slice,
    transpose,
)
from .types import (  # noqa: F401
    ScalarType,
    Tensor,
    bf16,
    element_name,
    element_type_of,
    f8e4m3,
    f8e5m2,
    f16,
    f32,
    f64,
    i1,
    i8,
    i16,
    i32,
    i64,
    index,
)
from .values import (  # noqa: F401
    Operand,
    Value,
    abs_,
    binary,
    broadcast_shapes,
    broadcast_to,
    cast,
    compare,
    constant,
    convert,
    exp,
    full,
    log,
    maximum,
    minimum,
    negate,
    rsqrt,
    sqrt,
    tanh,
    unary_math,
    unwrap,
    where,
    zeros,
)


def context() -> ir.Context:
    """A new MLIR context with the tile dialect loaded."""
    return make_context()
