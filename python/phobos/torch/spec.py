"""What a torch op of a Phobos kernel takes and returns, derived from the kernel's contract (no torch here).

A kernel's contract lists its parameters (`phobos.contract.artifact`): each
tensor with its element type, rank, dimension symbols and static extents,
and its `access` ("read", "write", "readwrite"). From it:

- a tensor the kernel only writes is an **output**: the op allocates it and
  returns it. Its extents come from the symbols it shares with the inputs
  (`Y: [M, N]` beside `X: [M, N]` is X's shape) or from its static extents;
  `outputs=` gives the others (or overrides): `{"Y": "X"}` (like X),
  `{"Y": ("X", "f16")}` (X's shape, another dtype), or
  `{"Y": [("X", 0), 1]}` (X's extent 0, then 1);
- a tensor the kernel reads and writes is **mutated** in place (torch's
  `mutates_args`), and stays an input;
- every other parameter is an input, in the kernel's order.

`check_arguments` checks the op's arguments against the contract before a
launch and names the parameter: dtype, device, rank, static extents, and
that a symbol has one extent across the tensors that share it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

SCHEMA_SCALAR = {"f16": "float", "bf16": "float", "f32": "float", "f64": "float", "i8": "int", "i32": "int"}
SCHEMA_SCALAR.update({"u8": "int", "u32": "int", "i64": "int", "i1": "bool"})


class SpecError(ValueError):
    """The kernel cannot be made a torch op as asked (the message says why and what to give)."""


@dataclass
class Param:
    name: str
    kind: str  # "tensor" or "scalar"
    dtype: str
    rank: int = 0
    dims: tuple = ()  # symbol (str) or None per axis
    shape: tuple = ()  # static extent (int) or None per axis
    access: str = "read"


@dataclass
class Output:
    """An output tensor: its dtype and, per axis, an int or (input name, axis)."""

    name: str
    dtype: str
    extents: list = field(default_factory=list)

    def shape(self, input_shapes: Mapping[str, Sequence[int]]) -> tuple:
        return tuple(e if isinstance(e, int) else input_shapes[e[0]][e[1]] for e in self.extents)


@dataclass
class OpSpec:
    kernel: str
    params: list[Param]
    inputs: list[Param]
    outputs: list[Output]
    mutated: list[str]

    def schema(self) -> str:
        """The torch.library schema: `(Tensor X, Tensor(a0!) Z, float alpha) -> Tensor`."""
        args = []
        for p in self.inputs:
            if p.kind == "scalar":
                args.append(f"{SCHEMA_SCALAR[p.dtype]} {p.name}")
            elif p.name in self.mutated:
                args.append(f"Tensor(a{self.mutated.index(p.name)}!) {p.name}")
            else:
                args.append(f"Tensor {p.name}")
        if not self.outputs:
            ret = "()"
        elif len(self.outputs) == 1:
            ret = "Tensor"
        else:
            ret = "(" + ", ".join("Tensor" for _ in self.outputs) + ")"
        return f"({', '.join(args)}) -> {ret}"

    def assemble(self, inputs: Sequence, outputs: Sequence) -> list:
        """The kernel's arguments in its order, from the op's inputs and the allocated outputs."""
        by_name = dict(zip([p.name for p in self.inputs], inputs))
        by_name.update(zip([o.name for o in self.outputs], outputs))
        return [by_name[p.name] for p in self.params]


def _param(p: Mapping) -> Param:
    if p.get("kind") == "scalar":
        return Param(p["name"], "scalar", p["dtype"])
    rank = int(p["rank"])
    dims = tuple(d if isinstance(d, str) and not d.isdigit() else None for d in (p.get("dims") or [None] * rank))
    shape = list(p.get("shape") or [None] * rank)
    for axis, d in enumerate(p.get("dims") or []):
        if shape[axis] is None and isinstance(d, str) and d.isdigit():
            shape[axis] = int(d)
    return Param(p["name"], "tensor", p["dtype"], rank, dims, tuple(shape), p.get("access", "readwrite"))


def _derived_extents(out: Param, inputs: list[Param]) -> list | None:
    extents = []
    for axis in range(out.rank):
        if out.shape[axis] is not None:
            extents.append(int(out.shape[axis]))
            continue
        symbol = out.dims[axis]
        found = next(
            ((p.name, a) for p in inputs if p.kind == "tensor" for a, d in enumerate(p.dims) if symbol and d == symbol),
            None,
        )
        if found is None:
            return None
        extents.append(found)
    return extents


def _given_extents(name: str, given, out: Param, inputs: list[Param]) -> tuple[list, str]:
    """`outputs=` entry: "X", ("X", dtype) or a list of ints and (input, axis) pairs."""
    tensors = {p.name: p for p in inputs if p.kind == "tensor"}
    dtype = out.dtype
    if isinstance(given, tuple) and len(given) == 2 and isinstance(given[0], str) and isinstance(given[1], str):
        given, dtype = given
    if isinstance(given, str):
        if given not in tensors:
            raise SpecError(f"outputs['{name}'] = '{given}': no input tensor of that name ({', '.join(tensors)})")
        if tensors[given].rank != out.rank:
            raise SpecError(
                f"outputs['{name}'] = '{given}': '{given}' has rank {tensors[given].rank}, '{name}' {out.rank}"
            )
        return [(given, a) for a in range(out.rank)], dtype
    extents = list(given)
    if len(extents) != out.rank:
        raise SpecError(f"outputs['{name}'] gives {len(extents)} extents for a tensor of rank {out.rank}")
    for e in extents:
        ok = isinstance(e, int) or (isinstance(e, tuple) and len(e) == 2 and e[0] in tensors and isinstance(e[1], int))
        if not ok:
            raise SpecError(f"outputs['{name}']: {e!r} is neither an int nor an (input tensor, axis) pair")
    return extents, dtype


def derive_spec(contract: Mapping, outputs: Mapping | None = None, mutates: Sequence[str] | None = None) -> OpSpec:
    """The op of the kernel of `contract` (see the module docstring). `mutates`
    forces parameters to be mutated inputs rather than outputs."""
    name = contract.get("name") or contract.get("kernel", "kernel")
    params = [_param(p) for p in contract["params"]]
    names = [p.name for p in params]
    outputs = dict(outputs or {})
    for n in list(outputs) + list(mutates or ()):
        if n not in names or next(p for p in params if p.name == n).kind != "tensor":
            raise SpecError(f"kernel '{name}' has no tensor parameter '{n}' (parameters: {', '.join(names)})")
    forced = set(mutates or ())
    out_params = [p for p in params if p.name in outputs or (p.kind == "tensor" and p.access == "write")]
    out_params = [p for p in out_params if p.name not in forced]
    inputs = [p for p in params if p not in out_params]
    specs = []
    for p in out_params:
        if p.name in outputs:
            extents, dtype = _given_extents(p.name, outputs[p.name], p, inputs)
        else:
            extents, dtype = _derived_extents(p, inputs), p.dtype
            if extents is None:
                raise SpecError(
                    f"kernel '{name}': the extents of output '{p.name}' ({', '.join(d or '?' for d in p.dims)}) "
                    f"do not follow from the inputs; give outputs={{'{p.name}': ...}}"
                )
        if dtype != p.dtype:
            raise SpecError(f"outputs['{p.name}']: the kernel writes {p.dtype}, not {dtype}")
        specs.append(Output(p.name, dtype, extents))
    mutated = [
        p.name for p in inputs if p.kind == "tensor" and (p.access in ("write", "readwrite") or p.name in forced)
    ]
    return OpSpec(name, params, inputs, specs, mutated)


@dataclass
class ArgInfo:
    """What the checks need of a tensor argument (the torch layer fills it)."""

    dtype: str  # the Phobos element type ("f32"), or the framework's name when there is none
    device: str  # "cuda:0", "cpu", "meta"
    shape: tuple


def check_arguments(spec: OpSpec, args: Sequence, info, expect_device: str | None = None) -> str | None:
    """Checks the op's inputs (`args`, in `spec.inputs` order; `info(arg)` gives an
    ArgInfo for a tensor, None for anything else). Raises TypeError/ValueError
    naming the parameter; returns the device the tensors are on."""
    if len(args) != len(spec.inputs):
        raise TypeError(
            f"{spec.kernel}() takes {len(spec.inputs)} arguments ({', '.join(p.name for p in spec.inputs)}), "
            f"got {len(args)}"
        )
    device = expect_device
    extents: dict[str, tuple[int, str]] = {}
    for p, a in zip(spec.inputs, args):
        where = f"{spec.kernel}(): parameter '{p.name}'"
        t = info(a)
        if p.kind == "scalar":
            if t is not None:
                raise TypeError(f"{where} is a {p.dtype} scalar, got a tensor")
            continue
        if t is None:
            raise TypeError(f"{where} is a tensor of {p.dtype}, got {type(a).__name__}")
        if t.dtype != p.dtype:
            raise TypeError(f"{where} needs {p.dtype} elements, got {t.dtype}")
        if device is None:
            device = t.device
        elif t.device != device:
            raise ValueError(f"{where} is on {t.device}, the other tensors on {device}")
        if len(t.shape) != p.rank:
            raise ValueError(f"{where} has rank {p.rank}, got a tensor of shape {list(t.shape)}")
        for axis, (n, static, symbol) in enumerate(zip(t.shape, p.shape, p.dims)):
            if static is not None and n != static:
                raise ValueError(f"{where} has extent {static} on axis {axis}, got {n}")
            if symbol is not None:
                seen = extents.setdefault(symbol, (n, p.name))
                if seen[0] != n:
                    raise ValueError(f"{where}: {symbol} = {n} on axis {axis}, but {symbol} = {seen[0]} in '{seen[1]}'")
    if device is not None and not device.startswith(("cuda", "meta")):
        raise ValueError(f"{spec.kernel}(): the tensors are on {device}; Phobos kernels run on CUDA devices")
    return device
