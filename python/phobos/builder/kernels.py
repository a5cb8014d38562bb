"""Kernels: a `func.func` with the tile attributes, built from a Python function."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence

from mlir import ir
from mlir.dialects import arith, func, math

from phobos.dialect import kernel as K
from phobos.dialect import load_tile_dialect
from phobos.dialect import tile as T
from phobos.dialect.tile import is_op, upstream_ops
from phobos.elements import UNSIGNED

from .locations import caller_location, loc_or_caller
from .tile_ops import dim
from .types import ScalarType, Tensor, element_type_of
from .values import Value


def _dict_attr(values: dict[str, int]) -> ir.DictAttr:
    i64 = ir.IntegerType.get_signless(64)
    return ir.DictAttr.get({k: ir.IntegerAttr.get(i64, int(v)) for k, v in values.items()})


def _kernel_attributes(fn, launch, aligned, autotune, bindings, flags) -> None:
    """The kernel's attributes: tile.kernel, @launch, @aligned, @autotune and its bindings, the
    flags that are on, and @pipeline(S)'s depth (`pipeline=S`, an int rather than True)."""
    fn.attributes[K.KERNEL] = ir.UnitAttr.get()
    if launch is not None:
        fn.attributes[K.LAUNCH] = _dict_attr({"threads": launch})
    if aligned:
        fn.attributes[K.ALIGNED] = _dict_attr(aligned)
    if autotune:
        fn.attributes[K.AUTOTUNE] = ir.DictAttr.get({k: ir.DenseI64ArrayAttr.get(list(v)) for k, v in autotune.items()})
    if bindings:
        fn.attributes[K.BINDINGS] = _dict_attr(bindings)
    for flag, on in flags:
        if on:
            fn.attributes[flag] = ir.UnitAttr.get()
        if flag == K.PIPELINE and on is not True and on:
            fn.attributes[K.PIPELINE_DEPTH] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), int(on))


def build_kernel(
    name: str,
    params: Sequence[tuple],
    body: Callable[..., None],
    *,
    launch: int | None = None,
    aligned: dict[str, int] | None = None,
    aligned_locs: dict[str, ir.Location] | None = None,
    autotune: dict[str, Sequence[int]] | None = None,
    bindings: dict[str, int] | None = None,
    pipeline: bool | int = False,
    tensorcore: bool = False,
    persistent: bool = False,
    assert_coalesced: bool = False,
    fastmath: bool = False,
    checked: bool = False,
    loc=None,
    arg_locs: Sequence[ir.Location] | None = None,
) -> func.FuncOp:
    """Builds a kernel `func.func` at the current insertion point.

    `params` is a list of (name, Tensor | ScalarType). `body(*args)` is called
    inside the entry block with the parameters as `Value`s, and with
    `extents=` (each dimension symbol's runtime extent, checked against the
    `@aligned` promises at entry) when it has a parameter of that name.
    `arg_locs` locates each parameter (default: the kernel's location), `aligned_locs` each
    `@aligned` promise, where its entry check reports a broken one (default: the kernel's).
    `fastmath` records `tile.fastmath` and puts `fastmath<afn>` on the body's
    float math ops and divisions (see `apply_fastmath`); `checked` records
    `tile.checked` (`@checked`).
    """
    loc = loc_or_caller(loc)
    load_tile_dialect(ir.Context.current)
    arg_types = [spec.mlir() for _, spec in params]
    fn = func.FuncOp(name, ir.FunctionType.get(arg_types, []), loc=loc)
    flags = ((K.PIPELINE, pipeline), (K.TENSORCORE, tensorcore), (K.PERSISTENT, persistent))
    flags += ((K.ASSERT_COALESCED, assert_coalesced), (K.FASTMATH, fastmath), (K.CHECKED, checked))
    _kernel_attributes(fn, launch, aligned, autotune, bindings, flags)
    arg_attrs = []
    for pname, spec in params:
        attrs = {K.ARG_NAME: ir.StringAttr.get(pname)}
        if isinstance(spec, Tensor):
            attrs[K.ARG_DIMS] = ir.ArrayAttr.get([ir.StringAttr.get(d) for d in spec.dim_names()])
        if getattr(spec.element if isinstance(spec, Tensor) else spec, "name", None) in UNSIGNED:
            attrs[K.ARG_UNSIGNED] = ir.UnitAttr.get()
        arg_attrs.append(ir.DictAttr.get(attrs))
    fn.arg_attrs = ir.ArrayAttr.get(arg_attrs)
    entry = fn.add_entry_block(arg_locs=list(arg_locs) if arg_locs is not None else [loc] * len(arg_types))
    with ir.InsertionPoint(entry):
        args = [Value(a) for a in entry.arguments]
        extents: dict[str, Value] = {}
        for (_pname, spec), arg in zip(params, args):
            if not isinstance(spec, Tensor):
                continue
            for axis, d in enumerate(spec.dims):
                if isinstance(d, str) and d not in extents:
                    extent = dim(arg, axis, loc=loc)
                    if aligned and d in aligned:
                        at = (aligned_locs or {}).get(d, loc)
                        extent = Value(T.CheckMultipleOp(extent.value, aligned[d], d, loc=at).result)
                    extents[d] = extent
        if _wants_extents(body):
            body(*args, extents=extents)
        else:
            body(*args)
        func.ReturnOp([], loc=loc)
    if fastmath:
        apply_fastmath(fn.operation)
    return fn


# The flags `@fastmath` gives: `afn` alone (approximate functions) selects the
# fast forms (sqrt.approx, __nv_fast_expf/logf, div.approx) and nothing else.
# Not `fast`: ninf/nnan would let LLVM assume away the -inf fills and NaNs
# that masked max and softmax rely on, and reassoc/contract would reorder or
# fuse the kernel's sums so results stop matching the interpreter.
FASTMATH_FLAGS = "afn"
_FASTMATH_OPS = upstream_ops(math) + (arith.DivFOp,)  # every math op, and arith.divf


def apply_fastmath(fn: ir.Operation, flags: str = FASTMATH_FLAGS) -> None:
    """Puts `fastmath<flags>` on every float `math` op and `arith.divf` inside `fn`."""
    attr = ir.Attribute.parse(f"#arith.fastmath<{flags}>")

    def visit(op: ir.Operation):
        if is_op(op, *_FASTMATH_OPS) and op.results:
            if isinstance(element_type_of(op.results[0].type), ir.FloatType):
                op.attributes["fastmath"] = attr
        return ir.WalkResult.ADVANCE

    fn.walk(visit)


def _wants_extents(body: Callable) -> bool:
    try:
        return "extents" in inspect.signature(body).parameters
    except (TypeError, ValueError):
        return False


def kernel(fn: Callable | None = None, **options):
    """Decorator: builds the decorated Python function as a tile kernel.

    Parameter annotations give the types (`Tensor(f32, "M", "N")`, `f32`, ...);
    keyword options are those of `build_kernel`. A parameter named `extents`
    receives the symbol -> extent map. Returns the built `func.FuncOp`.
    """

    def wrap(body: Callable) -> func.FuncOp:
        sig = inspect.signature(body)
        params = []
        for p in sig.parameters.values():
            if p.name == "extents":
                continue
            if not isinstance(p.annotation, (Tensor, ScalarType)):
                raise TypeError(f"kernel parameter '{p.name}' needs a Tensor(...) or scalar type annotation")
            params.append((p.name, p.annotation))
        loc = options.pop("loc", None) or caller_location()
        return build_kernel(options.pop("name", body.__name__), params, body, loc=loc, **options)

    return wrap(fn) if fn is not None else wrap
