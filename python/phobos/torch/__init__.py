"""Phobos kernels as torch operators: `torch.compile`, autograd and CUDA graphs (torch optional).

    import phobos, phobos.torch

    scale = phobos.torch.op(phobos.compile("scale.ph"), "mylib::scale")
    y = scale(x, 2.0)                 # allocates Y (the tensor the kernel writes), returns it
    y = torch.compile(model, fullgraph=True)(x)   # no graph break at the call

`op(kernel, name)` registers the kernel as a `torch.library.custom_op` whose
inputs, outputs and in-place arguments come from the kernel's contract
(`phobos.torch.spec`), with a fake-tensor implementation that computes the
output shapes and dtypes the same way, so `torch.compile` traces through it.
Each call checks dtype, device, rank and extents before launching, naming
the parameter; launches go to torch's current stream, without any host
synchronisation, so they can be captured in CUDA graphs.
`op.register_autograd(backward_op, grads=..., inputs=...)` differentiates
through a backward kernel. docs/torch.md is the guide.

This module imports torch only when an op is made: `phobos.torch.spec`
(and this module) import without it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from .spec import ArgInfo, OpSpec, SpecError, check_arguments, derive_spec  # noqa: F401

_DTYPES = {
    "f16": "float16",
    "bf16": "bfloat16",
    "f32": "float32",
    "f64": "float64",
    "i1": "bool",
    "i8": "int8",
    "u8": "uint8",
    "i32": "int32",
    "u32": "uint32",
    "i64": "int64",
    "f8e4m3": "float8_e4m3fn",
    "f8e5m2": "float8_e5m2",
}
# torch dtypes that older torch versions lack: the version that added each, for the error
_SINCE = {"uint32": "2.3", "float8_e4m3fn": "2.1", "float8_e5m2": "2.1"}


def _torch():
    try:
        import torch
    except ModuleNotFoundError:
        raise ModuleNotFoundError("phobos.torch needs torch: pip install torch") from None
    return torch


def torch_dtype(name: str, where: str | None = None):
    """The torch dtype of a Phobos element type; SpecError, starting with `where` (the
    parameter), when this torch has none (torch.uint32 came in torch 2.3)."""
    torch = _torch()
    attr = _DTYPES.get(name)
    dtype = getattr(torch, attr, None) if attr else None
    if dtype is None:
        what = f"{where} has {name} elements" if where else f"element type {name}"
        if attr is None:
            raise SpecError(f"{what}, which has no torch dtype (phobos.torch takes {', '.join(_DTYPES)})")
        version = getattr(torch, "__version__", "?")
        raise SpecError(f"{what}, which needs torch.{attr} (torch {_SINCE[attr]} or newer); torch {version} has none")
    return dtype


def _check_dtypes(spec: OpSpec) -> None:
    """Every tensor parameter has a torch dtype here, or the op is refused naming the parameter
    (not a KeyError at its first call, or a dtype no tensor can match)."""
    for p in spec.params:
        if p.kind == "tensor":
            torch_dtype(p.dtype, f"{spec.kernel}(): parameter '{p.name}'")


def _info(a) -> ArgInfo | None:
    torch = _torch()
    if not isinstance(a, torch.Tensor):
        return None
    from phobos.runtime.arrays import torch_dtype_name

    return ArgInfo(torch_dtype_name(a), str(a.device), tuple(a.shape))


class PhobosOp:
    """A kernel registered as a torch custom op (made by `op`)."""

    def __init__(self, kernel, name: str, spec: OpSpec, grid=None):
        torch = _torch()
        self.kernel = kernel
        self.name = name
        self.spec = spec
        self.grid = grid

        def launch(*args):  # a plain function for torch.library (the schema names the arguments)
            return self._launch(*args)

        def fake(*args):
            return self._fake(*args)

        self._op = torch.library.custom_op(name, launch, mutates_args=tuple(spec.mutated), schema=spec.schema())
        self._op.register_fake(fake)

    def __repr__(self) -> str:
        return f"<phobos.torch op {self.name}{self.spec.schema()}>"

    @property
    def input_names(self) -> list[str]:
        return [p.name for p in self.spec.inputs]

    def __call__(self, *args, **kwargs):
        if kwargs:
            args = self._bind(args, kwargs)
        return self._op(*args)

    def _bind(self, args: tuple, kwargs: dict) -> tuple:
        names = self.input_names
        bound = list(args) + [None] * (len(names) - len(args))
        for key, value in kwargs.items():
            if key not in names:
                raise TypeError(
                    f"{self.name}() got an unexpected keyword argument '{key}' (inputs: {', '.join(names)})"
                )
            if names.index(key) < len(args):
                raise TypeError(f"{self.name}() got multiple values for '{key}'")
            bound[names.index(key)] = value
        missing = [n for n, v in zip(names, bound) if v is None]
        if missing:
            raise TypeError(f"{self.name}() is missing input(s) {', '.join(missing)}")
        return tuple(bound)

    def _allocate(self, args, device) -> list:
        torch = _torch()
        shapes = {p.name: tuple(a.shape) for p, a in zip(self.spec.inputs, args) if p.kind == "tensor"}
        return [torch.empty(o.shape(shapes), dtype=torch_dtype(o.dtype), device=device) for o in self.spec.outputs]

    def _result(self, outs: list):
        if not outs:
            return None
        return outs[0] if len(outs) == 1 else tuple(outs)

    def _fake(self, *args):
        device = check_arguments(self.spec, args, _info)
        return self._result(self._allocate(args, device))

    def _launch(self, *args):
        torch = _torch()
        device = check_arguments(self.spec, args, _info)
        args = list(args)
        for i, p in enumerate(self.spec.inputs):
            a = args[i]
            if p.kind != "tensor" or a.dim() == 0 or a.stride(-1) == 1 or a.numel() <= 1:
                continue
            if p.name in self.spec.mutated:
                raise ValueError(
                    f"{self.spec.kernel}(): parameter '{p.name}' is written in place "
                    "and needs stride 1 on its last axis"
                )
            args[i] = a.contiguous()  # a strided read (an expanded gradient, a transposed view)
        outs = self._allocate(args, device)
        tensors = [a for p, a in zip(self.spec.inputs, args) if p.kind == "tensor"] + outs
        if all(t.numel() > 0 for t in tensors):
            stream = torch.cuda.current_stream(torch.device(device)).cuda_stream
            self.kernel(*self.spec.assemble(args, outs), grid=self.grid, stream=stream)
        return self._result(outs)

    def register_autograd(
        self,
        backward,
        *,
        grads: Mapping[str, str] | None = None,
        inputs: Mapping[str, str] | None = None,
        setup_context: Callable | None = None,
    ) -> None:
        """Differentiates through `backward`. With a PhobosOp: `grads` maps each
        output of this op to the backward op's input that receives its gradient,
        `inputs` maps each input of this op to the backward op's output that is
        its gradient; the backward op's other inputs are this op's inputs and
        outputs of the same names. A plain callable and `setup_context` go to
        `torch.library.register_autograd` as they are."""
        if not isinstance(backward, PhobosOp):
            self._op.register_autograd(backward, setup_context=setup_context)
            return
        wiring = _Wiring(self, backward, dict(grads or {}), dict(inputs or {}))
        self._op.register_autograd(wiring.backward, setup_context=wiring.setup_context)


class _Wiring:
    """The backward of one op through another, by parameter names."""

    def __init__(self, forward: PhobosOp, backward: PhobosOp, grads: dict, inputs: dict):
        out_names = [o.name for o in forward.spec.outputs]
        fwd_inputs = forward.input_names
        bwd_inputs = backward.input_names
        bwd_outputs = [o.name for o in backward.spec.outputs]
        for out, b in grads.items():
            if out not in out_names or b not in bwd_inputs:
                raise SpecError(
                    f"grads['{out}'] = '{b}': need an output of {forward.name} and an input of {backward.name}"
                )
        for i, b in inputs.items():
            if i not in fwd_inputs or b not in bwd_outputs:
                raise SpecError(
                    f"inputs['{i}'] = '{b}': need an input of {forward.name} and an output of {backward.name}"
                )
        self.saved = [n for n in bwd_inputs if n not in grads.values()]
        missing = [n for n in self.saved if n not in fwd_inputs and n not in out_names]
        if missing:
            raise SpecError(
                f"{backward.name} input(s) {', '.join(missing)} are neither a gradient (grads=) "
                f"nor an input or output of {forward.name}"
            )
        self.forward, self.bwd, self.grads, self.inputs = forward, backward, grads, inputs
        self.out_names, self.fwd_inputs, self.bwd_outputs = out_names, fwd_inputs, bwd_outputs

    def setup_context(self, ctx, inputs, output) -> None:
        torch = _torch()
        outs = output if isinstance(output, tuple) else (output,)
        values = dict(zip(self.fwd_inputs, inputs))
        values.update(zip(self.out_names, outs))
        tensors = {n: values[n] for n in self.saved if isinstance(values[n], torch.Tensor)}
        ctx.save_for_backward(*tensors.values())
        ctx.phobos_tensor_names = list(tensors)
        ctx.phobos_scalars = {n: values[n] for n in self.saved if n not in tensors}

    def backward(self, ctx, *grad_outputs):
        values = dict(zip(ctx.phobos_tensor_names, ctx.saved_tensors))
        values.update(ctx.phobos_scalars)
        for out, g in zip(self.out_names, grad_outputs):
            if out in self.grads:
                values[self.grads[out]] = g
        result = self.bwd(*[values[n] for n in self.bwd.input_names])
        results = dict(zip(self.bwd_outputs, result if isinstance(result, tuple) else (result,)))
        return tuple(results[self.inputs[n]] if n in self.inputs else None for n in self.fwd_inputs)


def op(
    kernel,
    name: str,
    *,
    outputs: Mapping | None = None,
    mutates: Sequence[str] | None = None,
    grid=None,
) -> PhobosOp:
    """Registers `kernel` (a `phobos.compile`d or `phobos.load`ed kernel) as the
    torch op `name` ("namespace::op"). Outputs and in-place arguments come
    from the contract; `outputs=` gives the shapes the contract cannot
    (see `phobos.torch.spec`), `mutates=` makes written tensors in-place
    arguments instead of outputs; `grid=` is the kernel's grid argument."""
    spec = derive_spec(kernel.contract, outputs, mutates)
    _check_dtypes(spec)
    return PhobosOp(kernel, name, spec, grid)
