"""Phobos: a tile-kernel compiler for NVIDIA GPUs on the upstream MLIR Python bindings.

Importing `phobos` does not import MLIR: the runtime works on machines that have
only cuda-bindings and numpy. The compiler parts load on first use.

    import phobos
    k = phobos.compile("examples/scale.ph")   # lazy; compiled per specialisation key
    k(x, y, 2.0)                              # numpy, torch or cupy arrays
    k = phobos.load("aot/scale")              # launch from an ahead-of-time folder

    @phobos.kernel(autotune={"BLOCK": [1024]})  # or write the kernel in Python (docs/python.md)
    def add(X: tensor[f32, "N"], Y: tensor[f32, "N"]): ...
"""

__version__ = "0.1.0"

# name -> (module, attribute): resolved on first access (PEP 562), so that
# `import phobos` stays cheap and MLIR-free.
_LAZY = {
    "compile": ("phobos.runtime.kernel", "compile"),
    "kernel": ("phobos.decorator", "kernel"),
    "fn": ("phobos.decorator", "fn"),
    "load": ("phobos.runtime.kernel", "load"),
    "Kernel": ("phobos.runtime.kernel", "Kernel"),
    "LoadedKernel": ("phobos.runtime.kernel", "LoadedKernel"),
    "CompilerUnavailableError": ("phobos.runtime.kernel", "CompilerUnavailableError"),
    "compile_ahead": ("phobos.runtime.aot", "compile_ahead"),
    "like": ("phobos.runtime.aot", "like"),
    "synchronize": ("phobos.runtime", "synchronize"),
    "CudaError": ("phobos.runtime", "CudaError"),
    "CaptureError": ("phobos.runtime", "CaptureError"),
    "KernelFault": ("phobos.runtime", "KernelFault"),
    "PromiseBroken": ("phobos.runtime", "PromiseBroken"),
    "NoCudaDriverError": ("phobos.runtime", "NoCudaDriverError"),
    "NoDeviceError": ("phobos.runtime", "NoDeviceError"),
    "SpecKey": ("phobos.contract.specialization", "SpecKey"),
}


def __getattr__(name):
    target = _LAZY.get(name)
    if target is None:
        raise AttributeError(f"module 'phobos' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(target[0]), target[1])
    globals()[name] = value
    return value


def __dir__():
    return sorted(list(globals()) + list(_LAZY))
