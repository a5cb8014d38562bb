"""Binding arguments to a kernel's contract.

A compiled kernel comes with a contract (see phobos.contract.artifact): its parameters
(tensors with element type, rank, dimension symbols, contiguity; scalars), the
cubin's parameter list (`abi`: pointers, extents, leading strides, scalars), the
grid rule and the `@aligned` promises. `Signature.bind` checks actual arguments
against it *before* anything reaches the GPU, and raises a TypeError or
ValueError that names the parameter and the rule it breaks:

  * argument count, and that each tensor parameter gets an array;
  * element type, rank, device (CUDA, one device for all), the contiguity of
    the last dimension (or of all of them), non-negative strides;
  * literal dimensions, and shared dimension symbols (`K` in `A[M, K]` and
    `B[K, N]` must be one extent);
  * every `@aligned(D = t)` promise: extent `D` is a multiple of `t`;
  * scalars: a number of the right kind that fits the type.

The result (`Binding`) holds what a launch needs: the kernel parameter values
in cubin order, which of them are host arrays' pointers (filled in after the
copy to the device), the grid, and the specialisation key of these arguments.
This module needs no GPU and no MLIR.
"""

from __future__ import annotations

import numbers
import struct
from collections.abc import Sequence
from dataclasses import dataclass, field

from phobos.contract.specialization import SpecKey, divisibility_class, tensor_facts
from phobos.elements import language_name
from phobos.target import DEFAULT_CHIP

from . import arrays, persistent
from .arrays import HOST, ArrayArg

DTYPES = tuple(arrays.ITEMSIZE)
INT_DTYPES = ("i1", "i8", "u8", "i32", "u32", "i64")
FLOAT_DTYPES = ("f16", "bf16", "f32", "f64")

# Each kernel parameter gets an 8-byte slot in the packed buffer (cuLaunchKernel
# reads each through its own pointer, so only the value's own alignment matters).
_SLOT_FORMAT = {
    "ptr": "Q",
    "tensormap": "Q",  # the device address of the CUtensorMap (tensor_maps.py)
    "extent": "q",
    "stride": "q",
    "f16": "e6x",
    "bf16": "H6x",
    "f32": "f4x",
    "f64": "d",
    "i1": "?7x",
    "i8": "b7x",
    "u8": "B7x",
    "i32": "i4x",
    "u32": "I4x",
    "i64": "q",
}
_INT_RANGE = {
    "i8": (-(2**7), 2**7 - 1),
    "u8": (0, 2**8 - 1),
    "i32": (-(2**31), 2**31 - 1),
    "u32": (0, 2**32 - 1),
    "i64": (-(2**63), 2**63 - 1),
}
_FLOAT_PACK = {"f16": "<e", "f32": "<f", "f64": "<d"}  # what packs a float of each type (and may overflow)
GRID_LIMITS = (2**31 - 1, 65535, 65535)


def bf16_bits(value: float) -> int:
    """The bfloat16 bit pattern of `value` (round to nearest even)."""
    (bits,) = struct.unpack("<I", struct.pack("<f", value))
    if (bits & 0x7F800000) == 0x7F800000 and bits & 0xFFFF:  # NaN: keep it a NaN
        return (bits >> 16) | 0x40
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF


@dataclass
class Param:
    index: int
    name: str
    kind: str  # "tensor" | "scalar"
    dtype: str
    rank: int = 0
    dims: tuple[str | None, ...] = ()
    shape: tuple[int | None, ...] = ()
    contiguity: str = "last"

    def spelling(self) -> str:
        dtype = language_name(self.dtype)
        if self.kind == "scalar":
            return f"{self.name}: {dtype}"
        dims = [str(s) if s is not None else (d or "?") for d, s in zip(self.dims, self.shape)]
        return f"{self.name}: tensor<{dtype}>[{', '.join(dims)}]"


@dataclass
class Binding:
    """Checked arguments, ready to launch."""

    values: list[object]  # one per abi entry (None where a host array's device pointer goes)
    grid: tuple[int, int, int]
    key: SpecKey
    arrays: dict[int, ArrayArg]  # param index -> array
    host_slots: list[tuple[int, int]] = field(default_factory=list)  # (abi slot, param index) of host arrays
    device: int | None = None  # the CUDA ordinal of the device arrays (None: host arrays only / unknown)
    symbols: dict[str, int] = field(default_factory=dict)


_MISSING = object()  # a parameter no argument was given for


def bind_keywords(kernel: str, names: list[str], args: tuple, kwargs: dict) -> tuple:
    """`args` with the parameters given by name put in their places, as Python binds a call;
    a TypeError naming an unknown, repeated or missing parameter."""
    bound: list = list(args) + [_MISSING] * (len(names) - len(args))
    for name, value in kwargs.items():
        if name not in names:
            raise TypeError(f"{kernel}() got an unexpected keyword argument '{name}' (parameters: {', '.join(names)})")
        i = names.index(name)
        if i < len(args):
            raise TypeError(f"{kernel}() got multiple values for parameter '{name}'")
        bound[i] = value
    missing = [n for n, v in zip(names, bound) if v is _MISSING]
    if missing:
        raise TypeError(f"{kernel}() is missing argument(s) for parameter(s) {', '.join(missing)}")
    return tuple(bound)


class Signature:
    """A contract prepared for binding: parameters, cubin layout, grid rule, promises."""

    def __init__(self, contract: dict):
        self.contract = contract
        self.name = contract.get("name") or contract["kernel"]
        self.entry = contract["kernel"]
        self.chip = contract.get("chip", DEFAULT_CHIP)
        self.threads = int(contract.get("threads", 256))
        self.shared_bytes = int(contract.get("shared_bytes", 0))
        self.params = [self._param(i, p) for i, p in enumerate(contract["params"])]
        self.abi = [dict(a) for a in contract["abi"]]
        self.grid_rule = list(contract.get("grid") or [None, 1, 1])
        self.persistent = bool(contract.get("persistent"))  # the grid is the resident count (persistent.py)
        while len(self.grid_rule) < 3:
            self.grid_rule.append(1)
        self.promises = [(p["symbol"], int(p["divisor"])) for p in contract.get("promises", [])]
        self.extent_blocks = [(r["symbol"], r["of"], int(r["block"])) for r in contract.get("extent_blocks", [])]
        self.slot_formats = [self._slot(a) for a in self.abi]
        self.format = "".join(self.slot_formats)
        self.packer = struct.Struct("<" + self.format)
        self.scalar_slots = [(slot, a["param"]) for slot, a in enumerate(self.abi) if a["kind"] == "scalar"]
        self.pointer_slots = [(slot, a["param"]) for slot, a in enumerate(self.abi) if a["kind"] == "ptr"]
        self.int_scalars = [
            p.index for p in self.params if p.kind == "scalar" and p.dtype in INT_DTYPES and p.dtype != "i1"
        ]
        self.tensors = [p.index for p in self.params if p.kind == "tensor"]
        self.scalars = [p.index for p in self.params if p.kind == "scalar"]

    def _param(self, index: int, p: dict) -> Param:
        if p.get("dtype") not in DTYPES:
            raise ValueError(
                f"contract of '{self.name}': parameter {p.get('name')} has unknown dtype {p.get('dtype')!r}"
            )
        if p["kind"] == "scalar":
            return Param(index, p["name"], "scalar", p["dtype"])
        rank = int(p["rank"])
        dims = tuple(p.get("dims") or [None] * rank)
        shape = tuple(p.get("shape") or [None] * rank)
        # A literal dimension may be spelled as its number in `dims`.
        shape = tuple(
            s if s is not None else (int(d) if isinstance(d, str) and d.isdigit() else None)
            for s, d in zip(shape, dims)
        )
        dims = tuple(None if (d is None or (isinstance(d, str) and d.isdigit())) else d for d in dims)
        return Param(index, p["name"], "tensor", p["dtype"], rank, dims, shape, p.get("contiguity", "last"))

    def _slot(self, entry: dict) -> str:
        kind = entry["kind"]
        if kind == "scalar":
            return _SLOT_FORMAT[self.params[entry["param"]].dtype]
        return _SLOT_FORMAT[kind]

    def spelling(self) -> str:
        return f"{self.name}({', '.join(p.spelling() for p in self.params)})"

    # ------------------------------------------------------------------------- checks

    def describe(self, args: Sequence[object]) -> list[ArrayArg | None]:
        """Describe the tensor arguments (count and array-ness are checked here)."""
        if len(args) != len(self.params):
            raise TypeError(
                f"{self.name}() takes {len(self.params)} argument{'s' * (len(self.params) != 1)} "
                f"({', '.join(p.spelling() for p in self.params)}) "
                f"but {len(args)} {'were' if len(args) != 1 else 'was'} given"
            )
        out: list[ArrayArg | None] = [None] * len(args)
        for i in self.tensors:
            try:
                out[i] = arrays.describe(args[i])
            except arrays.NotAnArray:
                raise TypeError(
                    f"{self.name}: argument {self.params[i].name} ({self.params[i].spelling()}) must be an array "
                    "(numpy, torch, cupy, or an object with __cuda_array_interface__ or __dlpack__), "
                    f"got {type(args[i]).__name__}"
                ) from None
            except arrays._WrongDevice as e:
                raise ValueError(f"{self.name}: argument {self.params[i].name} is {e}") from None
            except ValueError as e:
                raise ValueError(f"{self.name}: argument {self.params[i].name}: {e}") from None
        return out

    def bind(
        self,
        args: Sequence[object],
        views: list[ArrayArg | None] | None = None,
        *,
        grid=None,
        check_promises: bool = True,
    ) -> Binding:
        """Check `args` against the contract and compute the launch values, grid and key."""
        if views is None:
            views = self.describe(args)
        symbols: dict[str, tuple[int, str]] = {}  # symbol -> (extent, where it was bound)
        device: int | None = None
        device_from = ""
        for i in self.tensors:
            p, a = self.params[i], views[i]
            self._check_tensor(p, a)
            for axis, (dim, static) in enumerate(zip(p.dims, p.shape)):
                extent, where = a.shape[axis], f"{p.name}.shape[{axis}]"
                if static is not None and extent != static:
                    raise ValueError(f"{self.name}: {where} must be {static} ({p.spelling()}), got {extent}")
                if dim is None:
                    continue
                seen = symbols.get(dim)
                if seen is None:
                    symbols[dim] = (extent, where)
                elif seen[0] != extent:
                    raise ValueError(
                        f"{self.name}: dimension {dim} is {seen[0]} in {seen[1]} but {extent} in {where} "
                        f"(parameters that share the symbol {dim} must agree)"
                    )
            if a.device != HOST:
                if device is None:
                    device, device_from = a.device, p.name
                elif a.device is not None and a.device != device:
                    raise ValueError(
                        f"{self.name}: argument {p.name} is on cuda:{a.device} but {device_from} is on cuda:{device}; "
                        "all device arrays of one launch must be on the same GPU"
                    )
        for i, p in enumerate(self.params):
            if p.kind == "scalar":
                self._check_scalar(p, args[i])
        if check_promises:
            for symbol, divisor in self.promises:
                if symbol in symbols and symbols[symbol][0] % divisor:
                    extent, where = symbols[symbol]
                    raise ValueError(
                        f"{self.name}: @aligned({symbol} = {divisor}) is broken: "
                        f"{symbol} = {extent} ({where}) is not a multiple of {divisor}; "
                        f"pad the tensors to a multiple of {divisor} or use a kernel without the promise"
                    )
        self._check_extent_blocks(symbols)
        extents = {s: v for s, (v, _) in symbols.items()}
        return Binding(
            values=self._values(args, views),
            grid=self.grid(extents, grid),
            key=self.key(args, views),
            arrays={i: views[i] for i in self.tensors},
            host_slots=[(slot, pi) for slot, pi in self.pointer_slots if views[pi].device == HOST],
            device=device,
            symbols=extents,
        )

    def _check_extent_blocks(self, symbols: dict[str, tuple[int, str]]) -> None:
        """Each extent that counts the blocks of another (the Q8_0 scales of K) is ceil(K / block)."""
        for symbol, of, block in self.extent_blocks:
            if symbol in symbols and of in symbols:
                (extent, where), (total, total_at) = symbols[symbol], symbols[of]
                if extent != -(-total // block):
                    raise ValueError(
                        f"{self.name}: {where} is {extent}, but it counts the {block}-element blocks of "
                        f"{of} = {total} ({total_at}): it must be {-(-total // block)}"
                    )

    def _check_tensor(self, p: Param, a: ArrayArg) -> None:
        where = f"{self.name}: argument {p.name}"
        if a.dtype != p.dtype:
            raise TypeError(
                f"{where} must have {language_name(p.dtype)} elements ({p.spelling()}), got {language_name(a.dtype)}"
            )
        if len(a.shape) != p.rank:
            raise ValueError(
                f"{where} must have rank {p.rank} ({p.spelling()}), got rank {len(a.shape)} (shape {tuple(a.shape)})"
            )
        if any(s < 0 for s in a.strides):
            raise ValueError(f"{where} has a negative stride (strides {tuple(a.strides)} in elements); pass a copy")
        if p.rank and a.device != HOST:
            if p.contiguity == "all":
                if tuple(_normalized(a.shape, a.strides)) != arrays.contiguous_strides(a.shape):
                    raise ValueError(
                        f"{where} must be contiguous (row-major), got strides {tuple(a.strides)} "
                        f"for shape {tuple(a.shape)}: the kernel addresses {p.name} by flat element offsets "
                        f"from its base, so rows may not be padded; pass x.contiguous() / a copy"
                    )
            elif a.shape[-1] > 1 and a.strides[-1] != 1:
                raise ValueError(
                    f"{where} must have a contiguous last dimension (stride 1), got strides {tuple(a.strides)} "
                    f"in elements; pass x.contiguous() / a copy"
                )

    def check_scalars(self, args: Sequence[object]) -> None:
        """The scalar checks of `bind` alone (a launch of a known layout)."""
        for i in self.scalars:
            p, value = self.params[i], args[i]
            kind = type(value)
            if p.dtype in FLOAT_DTYPES and (kind is float or kind is int):
                continue  # the common cases, without the numbers ABCs
            self._check_scalar(p, value)

    def _check_scalar(self, p: Param, value) -> None:
        where = f"{self.name}: argument {p.name} ({p.spelling()})"
        if p.dtype in FLOAT_DTYPES:
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                raise TypeError(f"{where} must be a real number, got {type(value).__name__}")
            if p.dtype in _FLOAT_PACK:  # finite but past the largest finite value: the packer refuses it
                try:
                    struct.pack(_FLOAT_PACK[p.dtype], float(value))
                except OverflowError:
                    raise ValueError(
                        f"{where}: {value} does not fit in {p.dtype} (beyond its largest finite value)"
                    ) from None
        elif p.dtype == "i1":
            if not isinstance(value, (bool, numbers.Integral)) or value not in (0, 1):
                raise TypeError(f"{where} must be a bool, got {value!r}")
        else:
            if isinstance(value, bool) or not isinstance(value, numbers.Integral):
                raise TypeError(f"{where} must be an integer, got {type(value).__name__}")
            lo, hi = _INT_RANGE[p.dtype]
            if not lo <= int(value) <= hi:
                raise ValueError(f"{where}: {value} does not fit in {p.dtype} [{lo}, {hi}]")

    # ------------------------------------------------------------------------- values

    def _values(self, args, views) -> list[object]:
        values: list[object] = []
        for entry in self.abi:
            kind, pi = entry["kind"], entry["param"]
            if kind == "ptr":
                values.append(views[pi].ptr)
            elif kind == "extent":
                values.append(views[pi].shape[entry["axis"]])
            elif kind == "stride":
                values.append(device_strides(views[pi])[entry["axis"]])
            elif kind == "scalar":
                values.append(scalar_value(self.params[pi].dtype, args[pi]))
            elif kind == "tensormap":
                values.append(0)  # per launch, from the plan's TensorMapSlot (the map depends on the address)
            else:
                raise ValueError(f"contract of '{self.name}': unknown abi entry kind {kind!r}")
        return values

    def grid(self, symbols: dict[str, int], override=None) -> tuple[int, int, int]:
        """The launch grid: the caller's, else the contract's rule over the bound extents."""
        if self.persistent and override is None:
            return persistent.RESIDENT  # the plan asks the device how many CTAs fit at once
        if override is not None:
            if callable(override):
                override = override(dict(symbols, **self.contract.get("bindings", {})))
            if isinstance(override, int):
                override = (override,)
            grid = tuple(int(g) for g in override) + (1,) * (3 - len(override))
            if len(grid) != 3:
                raise ValueError(f"{self.name}: a grid has at most 3 dimensions, got {override!r}")
            self._check_within_rule(grid, symbols)
        else:
            grid = []
            for axis, rule in enumerate(self.grid_rule):
                if rule is None:
                    raise ValueError(
                        f"{self.name}: the kernel has no grid rule for axis {'xyz'[axis]}; "
                        "give the grid: k[grid](...) or k(..., grid=...)"
                    )
                if isinstance(rule, int):
                    grid.append(rule)
                else:
                    extent = symbols.get(rule["symbol"])
                    if extent is None:
                        raise ValueError(
                            f"{self.name}: grid rule uses {rule['symbol']}, which no tensor argument binds"
                        )
                    grid.append(-(-extent // int(rule["tile"])))
            grid = tuple(grid)
        for axis, (g, limit) in enumerate(zip(grid, GRID_LIMITS)):
            if not 0 <= g <= limit:
                raise ValueError(f"{self.name}: grid {'xyz'[axis]} = {g} is outside [0, {limit}]")
        return grid

    def rule_limit(self, symbols: dict[str, int]) -> int | None:
        """The grid rule's CTA count along x for these extents, where it has one (a persistent
        kernel's resident grid is capped by it: P[ctx.block.x] = ... needs a CTA per element)."""
        rule = self.grid_rule[0]
        if isinstance(rule, int):
            return rule
        if isinstance(rule, dict) and rule.get("symbol") in symbols:
            return -(-symbols[rule["symbol"]] // int(rule["tile"]))
        return None

    def _check_within_rule(self, grid: tuple[int, int, int], symbols: dict[str, int]) -> None:
        """A caller's grid may be smaller than the kernel's grid rule, never larger:
        the compiler proves tile starts such as ctx.block.x * TM in bounds (and
        drops their masks) only for CTAs inside the rule's grid."""
        for axis, (g, rule) in enumerate(zip(grid, self.grid_rule)):
            if isinstance(rule, dict) and rule.get("symbol") in symbols:
                extent, tile = symbols[rule["symbol"]], int(rule["tile"])
                limit = -(-extent // tile)
                if g > limit:
                    raise ValueError(
                        f"{self.name}: grid {'xyz'[axis]} = {g} is larger than the kernel's grid rule "
                        f"cdiv({rule['symbol']} = {extent}, {tile}) = {limit}; CTAs past it would access "
                        f"tiles outside the tensors (give a grid of at most {limit} along {'xyz'[axis]})"
                    )

    def key(self, args, views) -> SpecKey:
        """The specialisation key of these arguments (what a compiled variant may assume)."""
        params: dict[str, object] = {}
        for i in self.tensors:
            a = views[i]
            ptr = 0 if a.device == HOST else a.ptr  # host arrays are copied to fresh, aligned buffers
            params[self.params[i].name] = tensor_facts(ptr, tuple(a.shape), device_strides(a))
        for i in self.int_scalars:
            params[self.params[i].name] = divisibility_class(int(args[i]))
        return SpecKey(params)


def _normalized(shape, strides) -> list[int]:
    """Strides with those of extent-1 dimensions replaced by their row-major value (never read)."""
    contiguous = arrays.contiguous_strides(shape)
    return [c if e == 1 else s for e, s, c in zip(shape, strides, contiguous)]


def device_strides(a: ArrayArg) -> tuple[int, ...]:
    """The strides the kernel sees: host arrays get a row-major copy on the device."""
    if a.device == HOST:
        return arrays.contiguous_strides(a.shape)
    return tuple(_normalized(a.shape, a.strides))


def scalar_value(dtype: str, value):
    if dtype == "bf16":
        return bf16_bits(float(value))
    if dtype in FLOAT_DTYPES:
        return float(value)
    if dtype == "i1":
        return bool(value)
    return int(value)
