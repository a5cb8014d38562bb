"""Generated launch code for repeated calls with torch tensors or cupy arrays.

A kernel launched again on arguments of a layout it has seen (same element
types, shapes, strides, devices, pointer alignment class, integer scalar
classes and grid) needs none of the checks: only pointers, scalars and the
stream change. Per signature, one function is generated (`exec`: straight-line
code, the parameter list inlined, because a generic loop over parameters costs
microseconds per call):

    front(args, grid, stream, sync) -> None (launched) | True (not handled here)

It reads each tensor argument's layout through the framework's own cheap
accessors (torch: `dtype`, `shape`, `stride()`, `get_device()`, `data_ptr()`;
cupy: `dtype`, `shape`, `strides`, `data.device_id`, `data.ptr`; never the
generic `__cuda_array_interface__` or DLPack, which cost tens of
microseconds), looks the tuple up in a table of plans that the generic path
filled after checking that layout, and calls the plan's generated `fire`
(runtime.launch) with the pointers. Anything else (another count, a
non-exact type, mixed frameworks, a scalar of an unusual type, a layout not
seen yet) answers True and the caller takes the generic path, which checks
everything and raises the errors.

What the table key holds is exactly what the generic path's checks and the
specialisation key depend on, apart from the addresses' values: the pointer
alignment class is in the key, and the overlap rule (runtime.launch) is
checked on every launch from the addresses.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from .binding import FLOAT_DTYPES, Signature

FRAMEWORKS = ("torch", "cupy")  # ArrayArg.framework of the arrays that have a fast path
CALLABLE = "<callable grid>"  # the key's grid entry for a callable grid (evaluated per launch by the plan)


def _miss(args, grid, stream, sync):
    return True


class _Framework:
    """How the generated code reads one framework's arrays."""

    def __init__(
        self,
        name: str,
        kind: type,
        stream: Callable,
        reads: Callable[[str, str], tuple[list[str], str]],
        current_stream: Callable[[str], str],
    ):
        self.name, self.kind, self.stream = name, kind, stream
        self.reads = reads  # (argument variable, index) -> (statements setting p<i>, d<i>; key parts)
        self.current_stream = current_stream  # device var -> expression of the current stream


def _torch_reads(a: str, i: str):
    return [
        f"p{i} = {a}.data_ptr()",
        f"d{i} = {a}.get_device()",
    ], f"{a}.dtype, {a}.shape, {a}.stride(), d{i}, p{i} & 15 == 0"


def _cupy_reads(a: str, i: str):
    return [
        f"m{i} = {a}.data",
        f"p{i} = m{i}.ptr",
        f"d{i} = m{i}.device_id",
    ], f"{a}.dtype, {a}.shape, {a}.strides, d{i}, p{i} & 15 == 0"


def framework_of(value) -> _Framework | None:
    """The framework whose fast path handles arrays of exactly `type(value)`, if any."""
    kind = type(value)
    torch = sys.modules.get("torch")
    if torch is not None and kind is getattr(torch, "Tensor", None):
        raw = getattr(getattr(torch, "_C", None), "_cuda_getCurrentRawStream", None)
        stream = raw or (lambda device: torch.cuda.current_stream(device).cuda_stream)
        return _Framework("torch", kind, stream, _torch_reads, lambda d: f"torch_stream({d})")
    cupy = sys.modules.get("cupy")
    if cupy is not None and kind is getattr(cupy, "ndarray", None):
        return _Framework("cupy", kind, cupy.cuda.get_current_stream, _cupy_reads, lambda d: "cupy_stream().ptr")
    return None


class FastPath:
    """The generated front of one signature and its plan tables (one per framework)."""

    def __init__(self, sig: Signature):
        self.sig = sig
        self.frameworks: dict[str, _Framework] = {}
        self.tables: dict[str, dict[tuple, Callable]] = {}
        self.front: Callable = _miss
        self._keyof: Callable | None = None

    def clear(self) -> None:
        for table in self.tables.values():
            table.clear()

    def __len__(self) -> int:
        return sum(len(t) for t in self.tables.values())

    def register(self, args, grid, fire: Callable) -> bool:
        """Enter a checked plan's `fire` under the key of `args` (False: these arguments have no fast path)."""
        if not self.sig.tensors or len(args) != len(self.sig.params):
            return False
        fw = framework_of(args[self.sig.tensors[0]])
        if fw is None:
            return False
        if fw.name not in self.frameworks:
            self.frameworks[fw.name] = fw
            self.tables.setdefault(fw.name, {})
            self._generate()
        found = self._keyof(args, grid)
        if found is None:
            return False
        name, key = found
        self.tables[name][key] = fire
        return True

    # ------------------------------------------------------------------------- code

    def _generate(self) -> None:
        scope = {"CALLABLE": CALLABLE}
        for fw in self.frameworks.values():
            scope[f"{fw.name}_kind"] = fw.kind
            scope[f"{fw.name}_plans"] = self.tables[fw.name]
            scope[f"{fw.name}_stream"] = fw.stream
        exec(self._source("front") + "\n" + self._source("keyof"), scope)
        self.front, self._keyof = scope["front"], scope["keyof"]

    def _source(self, mode: str) -> str:
        sig = self.sig
        n = len(sig.params)
        lines = [
            "def front(args, grid, stream, sync):" if mode == "front" else "def keyof(args, grid):",
            f"    if len(args) != {n}:",
            f"        return {'True' if mode == 'front' else 'None'}",
        ]
        miss = "True" if mode == "front" else "None"
        lines += [
            "    if grid is None or type(grid) is tuple or type(grid) is int:",
            "        g = grid",
            "    elif callable(grid):",
            "        g = CALLABLE",
            "    else:",
            f"        return {miss}",
        ]
        scalar_parts = []
        for i in sig.scalars:  # types the packer takes as the generic path would; others go there
            dtype = sig.params[i].dtype
            lines.append(f"    s{i} = args[{i}]")
            if dtype in FLOAT_DTYPES:
                lines.append(f"    if type(s{i}) is not float and type(s{i}) is not int:")
            elif dtype == "i1":
                lines.append(f"    if type(s{i}) is not bool:")
            else:
                lines.append(f"    if type(s{i}) is not int:")
                scalar_parts.append(f"s{i} % 16 == 0, s{i} % 4 == 0")  # part of the specialisation key
            lines.append(f"        return {miss}")
        tensors = sig.tensors
        for i in tensors:
            lines.append(f"    a{i} = args[{i}]")
        lines.append(f"    kind = type(a{tensors[0]})")
        first = True
        for fw in self.frameworks.values():
            lines.append(f"    {'if' if first else 'elif'} kind is {fw.name}_kind:")
            first = False
            others = [f"type(a{i}) is not {fw.name}_kind" for i in tensors[1:]]
            if others:
                lines.append(f"        if {' or '.join(others)}:")
                lines.append(f"            return {miss}")
            parts = []
            for i in tensors:
                statements, key = fw.reads(f"a{i}", str(i))
                lines += [f"        {s}" for s in statements]
                parts.append(key)
            key = f"({', '.join(parts + scalar_parts + ['g'])},)"
            if mode == "keyof":
                lines.append(f"        return {fw.name!r}, {key}")
                continue
            lines += [
                f"        fire = {fw.name}_plans.get({key})",
                "        if fire is None:",
                "            return True",
                "        if stream is None:",
                f"            stream = {fw.current_stream(f'd{tensors[0]}')}",
            ]
        lines += ["    else:", f"        return {miss}"]
        if mode == "front":
            lines.append(f"    return fire(args, stream, sync, grid, {', '.join(f'p{i}' for i in tensors)})")
        return "\n".join(lines)
