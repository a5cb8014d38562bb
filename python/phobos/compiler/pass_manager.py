"""Pass managers for pipeline text that mixes Phobos Python passes with upstream passes.

MLIR's textual pipeline parser does not know Python passes, so the text is
split here: `builtin.module(tile-verify, canonicalize, tile-lower-to-gpu{chip=sm_90})`
becomes the Python pass tile-verify, the upstream text `canonicalize`, and the
Python pass tile-lower-to-gpu with its options, added in order to one
PassManager (so IR printing and verification cover all of them). A
`tile-to-<stage>{...}` element is first replaced by the passes it stands for
(passes/pipelines.py). Consecutive upstream elements are handed to
`PassManager.add` together, so an all-upstream pipeline is parsed exactly as
mlir-opt parses it. The compile driver and phobos-opt both build their pass
managers here.
"""

from __future__ import annotations

import re

from mlir import ir, passmanager

from phobos import target
from phobos.passes import pipelines, registry


class PipelineError(ValueError):
    """A pipeline that cannot be built; the message is what mlir-opt would print."""


_ANCHORED = re.compile(r"^\s*([A-Za-z_][\w.$-]*)\s*\((.*)\)\s*$", re.S)
_CLOSE = {"(": ")", "{": "}", "[": "]"}


def split_elements(text: str) -> list[str]:
    """Splits `a, b{x=1}, c(d, e)` at top-level commas (brackets and quotes nest)."""
    elements, depth, start, quote = [], [], 0, None
    for i, ch in enumerate(text):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch in _CLOSE:
            depth.append(_CLOSE[ch])
        elif depth and ch == depth[-1]:
            depth.pop()
        elif ch == "," and not depth:
            elements.append(text[start:i].strip())
            start = i + 1
    elements.append(text[start:].strip())
    return [e for e in elements if e]


def element_name(element: str) -> str:
    m = re.match(r"[^{(\s]*", element)
    return m.group(0)


def _options(element: str) -> tuple[str, str | None]:
    """(name, options text or None) of `name{options}`; None if nested `name(...)`."""
    name = element_name(element)
    rest = element[len(name) :].strip()
    if not rest:
        return name, ""
    if rest.startswith("{") and rest.endswith("}"):
        return name, rest[1:-1]
    return name, None


def _nested_phobos_pass(element: str) -> str | None:
    """The first Phobos pass or alias named inside an anchored sub-pipeline `op(...)`."""
    for word in re.findall(r"[A-Za-z][\w-]*", element):
        if registry.lookup(word) is not None or pipelines.alias_stage(word) is not None:
            return word
    return None


def expand_aliases(elements: list[str]) -> list[str]:
    """Replaces each `tile-to-<stage>{options}` element by the passes of its stages."""
    out: list[str] = []
    for element in elements:
        name, options = _options(element)
        if pipelines.alias_stage(name) is None:
            out.append(element)
            continue
        if options is None:
            raise PipelineError(f"pipeline alias '{name}' takes options in braces, e.g. '{name}{{chip=sm_90}}'")
        try:
            out.extend(pipelines.expand_alias(name, options))
        except pipelines.PipelineOptionError as e:
            raise PipelineError(str(e)) from None
    return out


def build_pass_manager(pipeline: str, context: ir.Context | None = None) -> passmanager.PassManager:
    """A PassManager for `pipeline`; raises PipelineError with mlir-opt's wording."""
    m = _ANCHORED.match(pipeline)
    if m is None:
        raise PipelineError(
            "expected pass pipeline to be wrapped with the anchor operation type, e.g. 'builtin.module(...)'"
        )
    anchor, inner = m.group(1), m.group(2)
    context = context or ir.Context.current
    problem = target.pipeline_abort_reason(inner)
    if problem:
        raise PipelineError(problem)
    if anchor != "any" and not context.is_registered_operation(anchor):
        raise PipelineError(f"'{anchor}' is not a registered operation to anchor a pass pipeline on")
    pm = passmanager.PassManager(anchor, context)
    pending: list[str] = []

    def flush():
        if pending:
            try:
                pm.add(",".join(pending))
            except ValueError as e:
                raise PipelineError(str(e)) from None
            pending.clear()

    for element in expand_aliases(split_elements(inner)):
        name, options = _options(element)
        info = registry.lookup(name)
        if info is None:
            nested = _nested_phobos_pass(element) if options is None else None
            if nested is not None:
                raise PipelineError(
                    f"Phobos pass '{nested}' runs on the top-level module only; it cannot be nested in '{name}(...)'"
                )
            pending.append(element)
            continue
        if options is None:
            raise PipelineError(f"Phobos pass '{name}' takes options in braces, e.g. '{name}{{opt=value}}'")
        if anchor != "builtin.module":
            raise PipelineError(
                f"Phobos pass '{name}' runs on 'builtin.module', but the pipeline is anchored on '{anchor}'"
            )
        try:
            run = info.bind(options)
        except ValueError as e:
            raise PipelineError(str(e)) from None
        flush()
        pm.add(run, name=info.name, argument=info.argument, description=info.summary)
    flush()
    return pm


# Pipelines that reach LLVM's NVPTX back end (directly or through a tile-to-* alias).
_SERIALIZES = re.compile(
    r"gpu-module-to-binary|gpu-lower-to-nvvm-pipeline|"
    + "|".join(re.escape(pipelines.ALIAS_PREFIX + s) for s in pipelines.SERIALIZING)
)


def check_module(module: ir.Module, pipeline: str) -> None:
    """Raises PipelineError when `pipeline` would serialise a target of the
    module that aborts LLVM."""
    if not _SERIALIZES.search(pipeline):
        return
    problem = target.module_abort_reason(str(module.operation))
    if problem:
        raise PipelineError(problem)


def run_pipeline(module: ir.Module, pipeline: str) -> None:
    """Runs `pipeline` on `module`; MLIR reports failures through ir.MLIRError."""
    pm = build_pass_manager(pipeline, module.context)
    check_module(module, pipeline)
    pm.run(module.operation)
