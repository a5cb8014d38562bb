"""Phobos: a tile-kernel compiler for NVIDIA GPUs on the upstream MLIR Python bindings.

Importing `phobos` does not import MLIR: the runtime works on machines that have
only cuda-bindings and numpy. The compiler parts load on first use.
"""

__version__ = "0.1.0"
