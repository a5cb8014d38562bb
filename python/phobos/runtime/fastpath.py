"""Generated launch code for repeated calls with torch tensors or cupy arrays.

A kernel launched again on arguments of a layout it has seen (same element
types, shapes, strides, devices, pointer alignment class, integer scalar
classes and grid) needs none of the checks: only pointers, scalars and the
stream change. Two kinds of function are generated (`exec`: straight-line
code, the parameter list inlined, because a generic loop over parameters costs
microseconds per call):

* one **launcher per checked layout**, in two forms (`Launcher`): `call`, with
  the signature of `k(*args, grid=, stream=, sync=, check=, **kwargs)`, which
  the kernel's `__call__` hands Python directly, and `front(args, grid,
  stream, sync) -> None (launched) | True (not handled here)` for `k[grid]`.
  It compares each argument's
  layout, read through the framework's own cheap accessors (torch: `dtype`,
  `shape`, `stride()`, `get_device()`, `data_ptr()`; cupy: `dtype`, `shape`,
  `strides`, `data.device_id`, `data.ptr`; never the generic
  `__cuda_array_interface__` or DLPack, which cost tens of microseconds), with
  the layout it was made for (the dispatcher's key, built the same way) and,
  when they agree, launches at once: the plan's launch code
  (runtime.launch.launch_code) is inlined, so `k(...)` is one Python call.
  The kernel holds the launcher of the layout it launched last: a loop over
  one layout builds no key and looks nothing up.
* a **table per framework**: layout key -> (the plan's `fire`, its launcher),
  filled by the generic path after checking each layout. A launcher that
  reads another layout has built its key already: it looks it up, launches
  through that plan's `fire` and installs that layout's launcher in the kernel.
* one **dispatcher per signature** (`front`, same arguments and answer as a
  launcher's `front`): what runs before any launcher is installed, and where a
  launcher sends arguments of another framework, count, grid form or scalar
  kind; it builds the key the same way and does the same.

Anything else (another count, a non-exact type, mixed frameworks, a scalar of
an unusual type, a layout not seen yet) answers True and the caller takes the
generic path, which checks everything and raises the errors.

What the key (and so each launcher's comparison) holds is exactly what the
generic path's checks and the specialisation key depend on, apart from the
addresses' values: the pointer alignment class is compared, and the overlap
rule (runtime.launch) is checked on every launch from the addresses. Scalars
are range-checked by the packer (`struct.error` / `OverflowError`: the
caller then takes the generic path, which names the problem).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import NamedTuple

from . import clauncher
from .binding import FLOAT_DTYPES, Signature
from .launch import UNPACKABLE, Plan, launch_code, stream_handle

FRAMEWORKS = ("torch", "cupy")  # ArrayArg.framework of the arrays that have a fast path
CALLABLE = "<callable grid>"  # the key's grid entry for a callable grid (evaluated per launch by the plan)


def _miss(args, grid, stream, sync):
    return True


# The same reads for the C launcher (runtime.clauncher): attribute paths of (name, call it), one per
# key part of a tensor in the order of the reads' key parts (None: the address's 16-byte alignment).
_TORCH_POINTER = (("data_ptr", True),)
_TORCH_FIELDS = ((("dtype", False),), (("shape", False),), (("stride", True),), (("get_device", True),), None)
_CUPY_POINTER = (("data", False), ("ptr", False))
_CUPY_FIELDS = (
    (("dtype", False),),
    (("shape", False),),
    (("strides", False),),
    _CUPY_POINTER[:1] + (("device_id", False),),
    None,
)


class _Framework:
    """How the generated code reads one framework's arrays."""

    def __init__(
        self,
        name: str,
        kind: type,
        stream: Callable,
        reads: Callable[[str, str], tuple[list[str], list[str]]],
        current_stream: Callable[[str], str],
        native: tuple,
    ):
        self.name, self.kind, self.stream = name, kind, stream
        self.reads = reads  # (argument variable, index) -> (statements setting p<i>, d<i>; key parts)
        self.current_stream = current_stream  # device var -> expression of the current stream
        # for the C launcher: the pointer's path, the key parts' paths, which of them is the device,
        # and device -> (function, its arguments, attribute of the result or None): the current stream
        self.pointer, self.fields, self.stream_call = native
        self.device_field = self.fields[3]


def _torch_reads(a: str, i: str):
    return [
        f"p{i} = {a}.data_ptr()",
        f"d{i} = {a}.get_device()",
    ], [f"{a}.dtype", f"{a}.shape", f"{a}.stride()", f"d{i}", f"p{i} & 15 == 0"]


def _cupy_reads(a: str, i: str):
    return [
        f"m{i} = {a}.data",
        f"p{i} = m{i}.ptr",
        f"d{i} = m{i}.device_id",
    ], [f"{a}.dtype", f"{a}.shape", f"{a}.strides", f"d{i}", f"p{i} & 15 == 0"]


def framework_of(value) -> _Framework | None:
    """The framework whose fast path handles arrays of exactly `type(value)`, if any."""
    kind = type(value)
    torch = sys.modules.get("torch")
    if torch is not None and kind is getattr(torch, "Tensor", None):
        raw = getattr(getattr(torch, "_C", None), "_cuda_getCurrentRawStream", None)
        stream = raw or (lambda device: torch.cuda.current_stream(device).cuda_stream)
        native = (_TORCH_POINTER, _TORCH_FIELDS, lambda device: (stream, (device,), None))
        return _Framework("torch", kind, stream, _torch_reads, lambda d: f"torch_stream({d})", native)
    cupy = sys.modules.get("cupy")
    if cupy is not None and kind is getattr(cupy, "ndarray", None):
        current = cupy.cuda.get_current_stream
        native = (_CUPY_POINTER, _CUPY_FIELDS, lambda device: (current, (), "ptr"))
        return _Framework("cupy", kind, current, _cupy_reads, lambda d: "cupy_stream().ptr", native)
    return None


class Launcher(NamedTuple):
    """The generated launcher of one argument layout, in the two forms a kernel calls."""

    call: Callable  # k(*args, grid=, stream=, sync=, check=, **kwargs)
    front: Callable  # front(args, grid, stream, sync): k[grid](...) and the kernel's generic __call__


class FastPath:
    """The generated dispatcher of one signature, its plan tables (one per framework) and the
    launchers of the layouts in them.

    install(launcher): makes a layout's Launcher what the kernel tries first (None: the dispatcher);
    slow(args, kwargs, grid, stream, sync, check): the kernel's call without a launcher, for
    what a launcher does not take (keywords, check=False, another layout)."""

    def __init__(self, sig: Signature, install: Callable[[Launcher | None], None], slow: Callable):
        self.sig = sig
        self.install = install
        self.slow = slow
        self.frameworks: dict[str, _Framework] = {}
        self.tables: dict[str, dict[tuple, tuple[Callable, Launcher]]] = {}  # key -> (plan's fire, launcher)
        self.front: Callable = _miss
        self._keyof: Callable | None = None

    def clear(self) -> None:
        for table in self.tables.values():
            table.clear()
        self.install(None)  # no launcher of a forgotten plan may launch again

    def __len__(self) -> int:
        return sum(len(t) for t in self.tables.values())

    def register(self, args, grid, plan: Plan) -> bool:
        """Enter a checked plan under the key of `args` and make its launcher the kernel's front
        (False: these arguments have no fast path)."""
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
        entry = self.tables[name].get(key)
        if entry is None or entry[0] is not plan.fire:  # else known: the generic path took it for a scalar
            entry = self.tables[name][key] = (plan.fire, self._launcher(self.frameworks[name], key, plan))
        self.install(entry[1])
        return True

    # ------------------------------------------------------------------------- code

    def _generate(self) -> None:
        scope = {"CALLABLE": CALLABLE, "install": self.install}
        for fw in self.frameworks.values():
            scope[f"{fw.name}_kind"] = fw.kind
            scope[f"{fw.name}_plans"] = self.tables[fw.name]
            scope[f"{fw.name}_stream"] = fw.stream
        exec(self._source("front") + "\n" + self._source("keyof"), scope)
        self.front, self._keyof = scope["front"], scope["keyof"]

    def _source(self, mode: str) -> str:
        sig = self.sig
        n = len(sig.params)
        miss = "True" if mode == "front" else "None"
        lines = [
            "def front(args, grid, stream, sync):" if mode == "front" else "def keyof(args, grid):",
            f"    if len(args) != {n}:",
            f"        return {miss}",
            "    if grid is None or type(grid) is tuple or type(grid) is int:",
            "        g = grid",
            "    elif callable(grid):",
            "        g = CALLABLE",
            "    else:",
            f"        return {miss}",
        ]
        checks, scalar_parts = self._scalar_code()
        lines += [line.replace("MISS", miss) for line in checks]
        lines += self._tensor_lines()
        lines.append(f"    kind = type(a{sig.tensors[0]})")
        first = True
        for fw in self.frameworks.values():
            lines.append(f"    {'if' if first else 'elif'} kind is {fw.name}_kind:")
            first = False
            lines += [f"    {line}".replace("MISS", miss) for line in self._same_kind(fw)]
            statements, parts = self._reads(fw)
            lines += [f"        {s}" for s in statements]
            key = f"({', '.join(parts + scalar_parts + ['g'])},)"
            if mode == "keyof":
                lines.append(f"        return {fw.name!r}, {key}")
                continue
            lines += [
                f"        entry = {fw.name}_plans.get({key})",
                "        if entry is None:",
                "            return True",
                "        install(entry[1])",  # the next launch of this layout goes straight to it
                "        if stream is None:",
                f"            stream = {fw.current_stream(f'd{sig.tensors[0]}')}",
            ]
        lines += ["    else:", f"        return {miss}"]
        if mode == "front":
            lines.append(f"    return entry[0](args, stream, sync, grid, {', '.join(f'p{i}' for i in sig.tensors)})")
        return "\n".join(lines)

    def _scalar_code(self, bound: bool = False) -> tuple[list[str], list[str]]:
        """Statements binding s<i> for each scalar (bound: they are already) and leaving (MISS) on
        types the packer does not take as the generic path would; the key parts of the integer
        scalars' classes."""
        lines, parts = [], []
        for i in self.sig.scalars:
            dtype = self.sig.params[i].dtype
            if not bound:
                lines.append(f"    s{i} = args[{i}]")
            if dtype in FLOAT_DTYPES:
                lines.append(f"    if type(s{i}) is not float and type(s{i}) is not int:")
            elif dtype == "i1":
                lines.append(f"    if type(s{i}) is not bool:")
            else:
                lines.append(f"    if type(s{i}) is not int:")
                parts += [f"s{i} % 16 == 0", f"s{i} % 4 == 0"]  # part of the specialisation key
            lines.append("        return MISS")
        return lines, parts

    def _tensor_lines(self) -> list[str]:
        return [f"    a{i} = args[{i}]" for i in self.sig.tensors]

    def _unpack_line(self) -> str:
        """All arguments into a<i> (tensors) and s<i> (scalars) at once (the count is checked before)."""
        names = [f"a{i}" if p.kind == "tensor" else f"s{i}" for i, p in enumerate(self.sig.params)]
        return f"    {', '.join(names)}, = args"

    def _same_kind(self, fw: _Framework) -> list[str]:
        others = [f"type(a{i}) is not {fw.name}_kind" for i in self.sig.tensors[1:]]
        return [f"    if {' or '.join(others)}:", "        return MISS"] if others else []

    def _reads(self, fw: _Framework) -> tuple[list[str], list[str]]:
        statements, parts = [], []
        for i in self.sig.tensors:
            reads, key = fw.reads(f"a{i}", str(i))
            statements += reads
            parts += key
        return statements, parts

    def _launcher(self, fw: _Framework, key: tuple, plan: Plan) -> Launcher:
        """The launcher of one layout: the arguments' key built as the dispatcher builds it and
        compared with `key`, then the plan's launch code. Another layout of the table is launched
        through its plan's `fire` (and its launcher installed); anything else is handed on."""
        scope = {f"{fw.name}_kind": fw.kind, f"{fw.name}_stream": fw.stream, "key_grid": key[-1], "key": key}
        scope.update(fast=self, slow=self.slow, plans=self.tables[fw.name], install=self.install, no_plan=_miss)
        scope.update(stream_handle=stream_handle, UNPACKABLE=UNPACKABLE)
        slow = "slow(args, None, grid, stream, sync, True"  # the dispatcher, else the generic path
        call = [
            "def call(*args, grid=None, stream=None, sync=False, check=True, **kwargs):",
            "    if kwargs or not check:",
            "        return slow(args, kwargs, grid, stream, sync, check)",
            *self._launch_lines(fw, key, plan, slow + ")", slow + ", no_plan)"),
        ]
        front = [
            "def front(args, grid, stream, sync):",
            *self._launch_lines(fw, key, plan, "fast.front(args, grid, stream, sync)", "True"),
        ]
        scope.update(launch_code(plan)[1])
        exec("\n".join(call + front), scope)
        native = clauncher.make(self.sig, fw, key, plan, scope["call"], scope["front"])
        if native is not None:  # the same launcher in C, which hands what it does not take to these
            return Launcher(native, native.front)
        return Launcher(scope["call"], scope["front"])

    def _launch_lines(self, fw: _Framework, key: tuple, plan: Plan, miss: str, generic: str) -> list[str]:
        """A launcher's body. miss: what to return for arguments the dispatcher may still take (another
        framework, count, grid or scalar kind); generic: for a layout not in the table or a scalar the
        packer refuses (the generic path checks them and says why)."""
        sig = self.sig
        checks = self._scalar_code(bound=True)[0]
        tensors = " or ".join(f"type(a{i}) is not {fw.name}_kind" for i in sig.tensors)
        statements, parts = self._reads(fw)
        parts += self._scalar_code()[1]
        stream = [
            "    if stream is None:",
            f"        stream = {fw.current_stream(f'd{sig.tensors[0]}')}",
            "    elif type(stream) is not int:",
            "        stream = stream_handle(stream)",
        ]
        pointers = ", ".join(f"p{i}" for i in sig.tensors)
        return [
            f"    if len(args) != {len(sig.params)} or {_grid_differs(key[-1])}:",
            f"        return {miss}",
            self._unpack_line(),
            *[line.replace("MISS", miss) for line in checks],
            f"    if {tensors}:",
            f"        return {miss}",
            *[f"    {s}" for s in statements],
            f"    found = ({', '.join(parts)}, key_grid)",
            "    if found != key:",  # another layout: its plan, if the table has one
            "        other = plans.get(found)",
            "        if other is None:",
            f"            return {generic}",
            "        install(other[1])",  # its launcher from now on
            *[f"    {line}" for line in stream],
            "        try:",
            f"            return other[0](args, stream, sync, grid, {pointers})",
            "        except UNPACKABLE:",
            f"            return {generic}",
            *stream,
            *launch_code(plan, generic, scalars_bound=True)[0],
        ]


def _grid_differs(grid) -> str:
    """The test that the launch's `grid` is not the one of a key (its last part)."""
    if grid is None:
        return "grid is not None"
    if grid == CALLABLE:
        return "(grid is None or type(grid) is tuple or type(grid) is int or not callable(grid))"
    return f"(type(grid) is not {type(grid).__name__} or grid != key_grid)"
