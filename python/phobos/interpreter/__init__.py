"""The Phobos interpreter: runs a kernel's tile IR on the CPU with NumPy, CTA by CTA.

    from phobos.interpreter import run_program, InterpreterError
    run_program(program, [X, Y, 2.0], grid=(4, 2, 1))

`program` is the portable form of a kernel (phobos.compiler.tile_program, JSON
ready); this package imports no MLIR, only NumPy. The kernel's semantics are
the language's (docs/language.md): masked slices, offset loads and stores,
dots, reductions, scans, scf control flow and grid barriers in lockstep.
"""

from phobos.interpreter.errors import InterpreterError
from phobos.interpreter.executor import run_program

__all__ = ["InterpreterError", "run_program"]
