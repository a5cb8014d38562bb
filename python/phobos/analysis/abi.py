"""The kernel ABI: what a lowered kernel takes as parameters, in order.

Kernel parameters are lean: per tensor parameter a bare pointer to its first
element, then each run-time extent it introduces (one per dimension symbol,
at its first dynamic use; a symbol with a static extent anywhere is a
constant), then the stride in elements of each leading dimension (the last
dimension is contiguous); scalars are passed by value. The same list is the
`abi` of the launch contract, so the runtime packs exactly these:

    {"kind": "ptr", "param": p}                 u64 device address
    {"kind": "extent", "param": p, "axis": a}   i64
    {"kind": "stride", "param": p, "axis": a}   i64, in elements
    {"kind": "scalar", "param": p}              by the parameter's dtype

A kernel whose dots read by TMA (wgmma.py) takes, after these, one
`{"kind": "tensormap", "param": p, "box": [...], "swizzle": 128}` per tensor
map (u64: the device address of a CUtensorMap over parameter p, which the
runtime encodes: runtime/tensor_maps.py); the lowering reports them and the
compile driver appends them to the contract's `abi`.

`describe_params` reads a kernel's `func.func` into plain data; the rest has
no MLIR dependency.
"""

from __future__ import annotations

from dataclasses import dataclass

from phobos.elements import LAUNCH_DTYPES as DTYPES


@dataclass(frozen=True)
class TensorParam:
    name: str
    dtype: str
    dims: list[str]
    shape: list[int | None]  # static extent or None

    @property
    def rank(self) -> int:
        return len(self.dims)

    def to_json(self) -> dict:
        return {
            "name": self.name,
            "kind": "tensor",
            "dtype": self.dtype,
            "rank": self.rank,
            "dims": list(self.dims),
            "shape": list(self.shape),
            "contiguity": "last",
        }


@dataclass(frozen=True)
class ScalarParam:
    name: str
    dtype: str

    def to_json(self) -> dict:
        return {"name": self.name, "kind": "scalar", "dtype": self.dtype}


Param = TensorParam | ScalarParam


def static_symbols(params: list[Param]) -> dict[str, int]:
    """Dimension symbols whose extent is static in some parameter."""
    known: dict[str, int] = {}
    for p in params:
        if isinstance(p, TensorParam):
            for d, s in zip(p.dims, p.shape):
                if s is not None:
                    known.setdefault(d, s)
    return known


def abi_entries(params: list[Param]) -> list[dict]:
    entries: list[dict] = []
    statics = static_symbols(params)
    seen = set()
    for i, p in enumerate(params):
        if isinstance(p, ScalarParam):
            entries.append({"kind": "scalar", "param": i})
            continue
        entries.append({"kind": "ptr", "param": i})
        for axis, (d, s) in enumerate(zip(p.dims, p.shape)):
            if s is None and d not in statics and d not in seen:
                seen.add(d)
                entries.append({"kind": "extent", "param": i, "axis": axis})
        for axis in range(p.rank - 1):
            entries.append({"kind": "stride", "param": i, "axis": axis})
    return entries


# ----------------------------------------------------------------------------- reading IR


class ParamError(ValueError):
    """A kernel parameter of a type the ABI cannot carry: a mistake in the input (hand-written
    tile IR), which drivers report at `where`. Plain data only, so it crosses process boundaries
    (compiler/containment.py pickles it)."""

    def __init__(self, message: str, param: str = "", type_text: str = "", where: tuple | None = None):
        super().__init__(message)
        self.param, self.type_text = param, type_text
        self.where = where  # (filename, line, col) of the parameter, else of its kernel; None: unknown

    def __reduce__(self):
        return (type(self), (str(self), self.param, self.type_text, self.where))

    def diagnostic(self, rename: dict[str, str] | None = None):
        """The located error (phobos.diagnostics.Diagnostic); `rename` maps MLIR buffer names."""
        from phobos.diagnostics import Diagnostic

        if self.where is None:
            return Diagnostic("error", str(self))
        filename, line, col = self.where
        return Diagnostic("error", str(self), (rename or {}).get(filename, filename), line, col)


def _param_error(fn, i: int, t, unsigned: bool) -> ParamError:
    """The error for parameter `i` of `fn`, of type `t`, which the ABI cannot carry."""
    from mlir import ir

    from phobos.diagnostics import file_location
    from phobos.dialect import kernel as K

    name = K.arg_name(fn, i)
    args = fn.regions[0].blocks[0].arguments
    where = (file_location(args[i].location) if i < len(args) else None) or file_location(fn.location)
    tensor = isinstance(t, ir.MemRefType)
    shown = f"{'unsigned ' if unsigned else ''}{t.element_type if tensor else t}"
    what = f"tensor parameter '{name}' has element type" if tensor else f"scalar parameter '{name}' has type"
    return ParamError(f"{what} {shown}; supported: {', '.join(DTYPES)}", name, str(t), where)


def describe_params(fn) -> list[Param]:
    """The parameters of a kernel `func.func` as TensorParam/ScalarParam.
    Raises ParamError (naming the parameter, at its location) for types the ABI cannot carry."""
    from mlir import ir

    from phobos.dialect import kernel as K
    from phobos.dialect.verify import param_dtype  # what tile-verify lets through, by the same rule

    fn_type = ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value)
    params: list[Param] = []
    for i, t in enumerate(fn_type.inputs):
        name = K.arg_name(fn, i)
        unsigned = K.arg_unsigned(fn, i)
        if isinstance(t, ir.MemRefType):
            dtype = param_dtype(t.element_type, unsigned, tensor=True)
            if dtype is None:
                raise _param_error(fn, i, t, unsigned)
            dims = K.arg_dims(fn, i) or [f"{name}_{a}" for a in range(t.rank)]
            shape = [None if t.is_dynamic_dim(a) else t.get_dim_size(a) for a in range(t.rank)]
            params.append(TensorParam(name, dtype, dims, shape))
        else:
            dtype = param_dtype(t, unsigned, tensor=False)
            if dtype is None:
                raise _param_error(fn, i, t, unsigned)
            params.append(ScalarParam(name, dtype))
    return params
