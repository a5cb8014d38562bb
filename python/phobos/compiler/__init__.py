"""The compile side: the driver that runs the stages of passes/pipelines.py
(driver.py) and the pass managers built from pipeline text (pass_manager.py)."""

from phobos.compiler.driver import STAGES, Artifact, CompileError, compile_artifact, compile_stages

__all__ = ["STAGES", "Artifact", "CompileError", "compile_artifact", "compile_stages"]
