"""Build the hand-written runtime test kernels (kernels.mlir) into ahead-of-time folders.

    .venv/bin/python bench/handwritten/build.py [OUT]      (default .cache/gpu/handwritten)

Each kernel gets its own folder OUT/<kernel>/ in the cache layout, with the
contract written here by hand (the same form phobos.contract.artifact writes), so the
runtime is tested against cubins that do not depend on the Phobos compiler.
Needs MLIR and ptxas (here); the folders are then launched with phobos.load on
the GPU machine.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT / "python"))


def _tensor(name, dims):
    return {
        "name": name,
        "kind": "tensor",
        "dtype": "f32",
        "rank": len(dims),
        "dims": dims,
        "shape": [None] * len(dims),
        "contiguity": "last",
    }


_SCALAR = {"name": "alpha", "kind": "scalar", "dtype": "f32"}
_SAXPY_ABI = [
    {"kind": "ptr", "param": 0},
    {"kind": "extent", "param": 0, "axis": 0},
    {"kind": "ptr", "param": 1},
    {"kind": "scalar", "param": 2},
]

CONTRACTS = {
    "saxpy": {
        "params": [_tensor("X", ["N"]), _tensor("Y", ["N"]), _SCALAR],
        "abi": _SAXPY_ABI,
        "grid": [{"symbol": "N", "tile": 1024}, 1, 1],
        "promises": [],
    },
    "saxpy_aligned": {
        "params": [_tensor("X", ["N"]), _tensor("Y", ["N"]), _SCALAR],
        "abi": _SAXPY_ABI,
        "grid": [{"symbol": "N", "tile": 1024}, 1, 1],
        "promises": [{"symbol": "N", "divisor": 1024}],
    },
    "scale": {
        "params": [_tensor("X", ["M", "N"]), _tensor("Y", ["M", "N"]), _SCALAR],
        "abi": [
            {"kind": "ptr", "param": 0},
            {"kind": "extent", "param": 0, "axis": 0},
            {"kind": "extent", "param": 0, "axis": 1},
            {"kind": "stride", "param": 0, "axis": 0},
            {"kind": "ptr", "param": 1},
            {"kind": "stride", "param": 1, "axis": 0},
            {"kind": "scalar", "param": 2},
        ],
        "grid": [{"symbol": "M", "tile": 32}, {"symbol": "N", "tile": 128}, 1],
        "promises": [],
    },
}


class HandArtifact:
    def __init__(self, cubin, contract, asm):
        self.cubin, self.contract, self.asm = cubin, contract, asm


def _toolkit() -> str:
    import nvidia.cuda_nvcc  # the pip ptxas

    return (
        os.path.dirname(nvidia.cuda_nvcc.__file__) if nvidia.cuda_nvcc.__file__ else list(nvidia.cuda_nvcc.__path__)[0]
    )


def compile_module(text: str, fmt: str):
    """(binary object bytes) of the gpu.module in `text`, through the upstream NVVM pipeline."""
    from mlir import ir, passmanager
    from mlir.dialects import gpu

    tk = _toolkit()
    os.environ["PATH"] = os.path.join(tk, "bin") + os.pathsep + os.environ.get("PATH", "")
    with ir.Context():
        module = ir.Module.parse(text)
        pm = passmanager.PassManager.parse(
            f"builtin.module(gpu-lower-to-nvvm-pipeline{{cubin-chip=sm_90 cubin-features=+ptx80 cubin-format={fmt}}})"
        )
        pm.run(module.operation)
        for op in module.body.operations:
            if op.operation.name == "gpu.binary":
                return bytes(gpu.ObjectAttr(op.attributes["objects"][0]).object)
    raise RuntimeError("no gpu.binary produced")


def build(out: Path) -> None:
    from phobos.runtime import cache

    text = (HERE / "kernels.mlir").read_text()
    cubin = compile_module(text, "bin")
    ptx = compile_module(text, "isa").decode()
    assert cubin[:4] == b"\x7fELF", "not a cubin"
    for name, c in CONTRACTS.items():
        contract = {
            "format": 1,
            "kernel": name,
            "name": name,
            "chip": "sm_90",
            "threads": 256,
            "shared_bytes": 0,
            "bindings": {},
            "key": "",
            "fingerprint": "handwritten",
            "options": {},
            **c,
        }
        family = hashlib.sha256((text + name).encode()).hexdigest()[:32]
        store = cache.Cache(out / name)
        store.put(
            family,
            "",
            HandArtifact(cubin, contract, {"ptx": ptx, "mlir": text}),
            {"source": "bench/handwritten/kernels.mlir", "chip": "sm_90", "kernel": name},
        )
        print(f"{out / name}: {name}")


if __name__ == "__main__":
    build(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / ".cache" / "gpu" / "handwritten")
