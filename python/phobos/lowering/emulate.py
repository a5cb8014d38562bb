"""Runs a lowered kernel on the CPU, one thread after another (for tests without a GPU).

The "gpu" stage of a kernel (a `gpu.func` on per-thread vectors, see
the ops/ emitters) is turned into a host `func.func` whose thread and block indices
are parameters, wrapped in loops over the grid and the CTA, lowered with the
upstream CPU pipeline and run with MLIR's ExecutionEngine on NumPy buffers.
Threads run to completion one at a time, which is exact for kernels whose
threads do not communicate (no barriers: elementwise kernels); a trap
(`tile.check_multiple` failing) sets a flag that the call returns.

This checks what the PTX tests cannot: that the layout arithmetic, masks,
vector chunks and broadcasts of the lowering compute the right elements.

    emu = Emulated(compile_stages(src)["gpu"])
    trapped = emu(grid=(4, 2), threads=256, X, M, N, stride, Y, stride, 2.0)

Arguments follow the kernel's ABI (abi.py): NumPy arrays (or raw addresses)
for pointers, Python numbers for extents, strides and scalars.
"""

from __future__ import annotations

import ctypes
import re
from collections.abc import Sequence

import numpy as np
from mlir import ir
from mlir.execution_engine import ExecutionEngine
from mlir.passmanager import PassManager

from phobos.dialect import make_context

_CTYPES: dict[str, type[ctypes._SimpleCData]] = {
    "index": ctypes.c_int64,
    "i64": ctypes.c_int64,
    "i32": ctypes.c_int32,
    "i8": ctypes.c_int8,
    "i1": ctypes.c_bool,
    "f32": ctypes.c_float,
    "f64": ctypes.c_double,
    "!llvm.ptr": ctypes.c_void_p,
}
_CPU_PIPELINE = (
    "builtin.module(convert-scf-to-cf,convert-vector-to-llvm,finalize-memref-to-llvm,convert-math-to-llvm,"
    "convert-math-to-libm,convert-arith-to-llvm,convert-index-to-llvm,convert-cf-to-llvm,"
    "convert-func-to-llvm,reconcile-unrealized-casts)"
)
_IDS = re.compile(r"^(\s*)(%\S+) = gpu\.(thread_id|block_id|grid_dim)\s+([xyz])\s*$")
_SQRT_RN = re.compile(r'(%\S+) = llvm\.call_intrinsic "llvm\.nvvm\.sqrt\.rn\.f"\((%[^)]+)\) : \(f32\) -> f32')
_HEADER = re.compile(r"^(\s*)gpu\.func @(\w+)\((.*)\) kernel attributes \{[^\n]*\} \{\n", re.M)


def _split_top_level(text: str) -> list[str]:
    out, depth, current = [], 0, ""
    for ch in text:
        if ch in "{<([":
            depth += 1
        elif ch in "}>)]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(current.strip())
            current = ""
        else:
            current += ch
    if current.strip():
        out.append(current.strip())
    return out


class Emulated:
    """One kernel of a "gpu" stage text, compiled for the host."""

    def __init__(self, gpu_text: str):
        m = _HEADER.search(gpu_text)
        if m is None:
            raise ValueError("no gpu.func kernel in the text")
        indent, self.name = m.group(1), m.group(2)
        end = gpu_text.index("\n" + indent + "}\n", m.end())
        body = gpu_text[m.end() : end]
        if "gpu.barrier" in body:
            raise ValueError("kernels with barriers cannot be emulated thread by thread")
        self.args: list[tuple[str, str]] = []
        for arg in _split_top_level(m.group(3)):
            name, _, rest = arg.partition(":")
            self.args.append((name.strip(), re.sub(r"\{.*\}", "", rest).strip()))
        self.text = self._host_module(body)
        self.context = make_context()
        with self.context, ir.Location.unknown():
            self.module = ir.Module.parse(self.text)
            PassManager.parse(_CPU_PIPELINE).run(self.module.operation)
            self.engine = ExecutionEngine(self.module, opt_level=1)

    def _host_module(self, body: str) -> str:
        lines = []
        for line in body.split("\n"):
            m = _IDS.match(line)
            if m:
                what = {"thread_id": "t", "block_id": "b", "grid_dim": "g"}[m.group(3)] + m.group(4)
                source = "%emu_zero" if what in ("ty", "tz") else f"%emu_{what}"
                line = f"{m.group(1)}{m.group(2)} = arith.addi {source}, %emu_zero : index"
            line = line.replace("gpu.return", "return").replace("llvm.intr.trap", "func.call @emu_trap() : () -> ()")
            line = _SQRT_RN.sub(r"\1 = math.sqrt \2 : f32", line)  # the host's sqrt is correctly rounded too
            lines.append(line)
        ids = ", ".join(f"%emu_{w}: index" for w in ("tx", "bx", "by", "bz", "gx", "gy", "gz"))
        sig = ", ".join(f"{n}: {t}" for n, t in self.args)
        names = ", ".join(n for n, _ in self.args)
        types = ", ".join(t for _, t in self.args)
        return f"""module {{
func.func @{self.name}({ids}, {sig}) {{
  %emu_zero = arith.constant 0 : index
{chr(10).join(lines)}
}}
func.func @emu_grid(%gx: index, %gy: index, %gz: index, %nt: index, {sig}) attributes {{llvm.emit_c_interface}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %z = %c0 to %gz step %c1 {{ scf.for %y = %c0 to %gy step %c1 {{ scf.for %x = %c0 to %gx step %c1 {{
    scf.for %t = %c0 to %nt step %c1 {{
      func.call @{self.name}(%t, %x, %y, %z, %gx, %gy, %gz, {names})
          : (index, index, index, index, index, index, index, {types}) -> ()
    }} }} }} }}
  return
}}
llvm.mlir.global internal @emu_trapped(0 : i32) : i32
func.func @emu_trap() {{
  %p = llvm.mlir.addressof @emu_trapped : !llvm.ptr
  %one = llvm.mlir.constant(1 : i32) : i32
  llvm.store %one, %p : i32, !llvm.ptr
  return
}}
func.func @emu_take_trap() -> i32 attributes {{llvm.emit_c_interface}} {{
  %p = llvm.mlir.addressof @emu_trapped : !llvm.ptr
  %v = llvm.load %p : !llvm.ptr -> i32
  %zero = llvm.mlir.constant(0 : i32) : i32
  llvm.store %zero, %p : i32, !llvm.ptr
  return %v : i32
}}
}}
"""

    def __call__(self, grid: Sequence[int], threads: int, *values) -> bool:
        """Runs the whole grid; True when some thread trapped."""
        if len(values) != len(self.args):
            raise TypeError(f"{self.name} takes {len(self.args)} ABI values, got {len(values)}")
        grid = tuple(grid) + (1,) * (3 - len(grid))
        refs: list[ctypes._SimpleCData] = [ctypes.c_int64(n) for n in (*grid, threads)]
        for (_, t), v in zip(self.args, values):
            if t == "!llvm.ptr":
                address = v.__array_interface__["data"][0] if isinstance(v, np.ndarray) else v
                if not isinstance(address, int):
                    raise TypeError("pointer arguments must be NumPy arrays or addresses")
                refs.append(ctypes.c_void_p(address))
            else:
                refs.append(_CTYPES[t](v))
        self.engine.invoke("emu_grid", *[ctypes.pointer(r) for r in refs])
        trapped = ctypes.c_int32(0)
        self.engine.invoke("emu_take_trap", ctypes.pointer(trapped))
        return bool(trapped.value)
