"""The compile side: the driver that runs the stages of passes/pipelines.py
(driver.py), the pass managers built from pipeline text (pass_manager.py), and
the portable form of tile IR the interpreter runs (tile_program.py)."""

from phobos.compiler.driver import STAGES, Artifact, CompileError, compile_artifact, compile_program, compile_stages

__all__ = ["STAGES", "Artifact", "CompileError", "compile_artifact", "compile_program", "compile_stages"]
