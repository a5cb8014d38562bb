"""`phobos explain` from source: compile through the tile stage, then build the
access report (phobos.report.explain) with the passes it reads
(passes/tile_explain.py's `prepare_report`).

Here, not in report/, because it drives the compiler: the report itself sits
below the passes, which print it as remarks.
"""

from __future__ import annotations

from phobos.analysis.abi import ParamError
from phobos.compiler import containment
from phobos.compiler import driver as D
from phobos.dialect import kernel as K
from phobos.passes.tile_explain import prepare_report
from phobos.report.explain import KernelReport, explain_module, render_text
from phobos.target import DEFAULT_CHIP

__all__ = ["explain_source", "render_text"]


def explain_source(
    source,
    *,
    kernel: str | None = None,
    key=None,
    chip: str | None = None,
    defines: dict | None = None,
    source_name: str = "<text>",
) -> list[KernelReport]:
    """The reports of the kernels of `source` (a .ph or .mlir path, or text, as
    for phobos.compiler.compile_stages), compiled through the tile stage for
    `key`; `kernel` picks one. Problems are CompileErrors with located
    diagnostics. Runs in the compile driver's crash containment."""
    name = D._input_name(source, source_name)
    D._refuse_deep_mlir(source, name)
    try:
        return containment.run(_explain_source, source, kernel, key, chip or DEFAULT_CHIP, defines, source_name)
    except containment.Aborted as e:
        raise D._error(f"MLIR aborted: {e.message}", name) from None


def _explain_source(source, kernel, key, chip, defines, source_name) -> list[KernelReport]:
    key_text = D._key_text(key)
    params = D._parameters(key_text, chip, None, ("tile",))
    job = D._Job(source, defines, source_name)
    if kernel is not None or not K.kernels(job.module):
        D._select_kernel(job, kernel)
    job.run_stage(job.module, "tile", params)
    with job.context:
        try:
            reports, ok = explain_module(job.module.operation, prepare_report, key_text, chip)
        except ParamError as e:  # the report reads the parameters of a kernel the ABI cannot carry
            raise job.param_failure(e) from None
    if not ok:
        raise job.failure("the access report could not be built")
    _name_input(reports, job.filename)
    return reports


def _name_input(reports: list[KernelReport], filename: str) -> None:
    """Locations of parsed .mlir text name no file ('-'): give them the input's name."""

    def fix(location: str) -> str:
        for unnamed in ("-:", ":"):
            if location.startswith(unnamed) and location[len(unnamed) : len(unnamed) + 1].isdigit():
                return filename + ":" + location[len(unnamed) :]
        return location

    for r in reports:
        r.location = fix(r.location)
        for a in r.accesses:
            a.location = fix(a.location)
            if a.filename in ("-", ""):
                a.filename = filename
            for term in a.lanes.terms if a.lanes is not None else []:
                term.location = fix(term.location) if term.location else term.location
            if a.mask is not None:
                a.mask.text = a.mask.text.replace(" at -:", f" at {filename}:")
            if a.lanes is not None:
                a.lanes.text = a.lanes.text.replace(" at -:", f" at {filename}:")
