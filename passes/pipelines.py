"""The compile pipeline as data: each stage is a list of passes with options.

    tile   the verified tile IR, its function calls inlined, specialised to a launch key
    gpu    check mode's device checks inserted (PHOBOS_CHECK=1, @checked), masks dropped
           (the rest compared in 32 bits, and a select on one skipped where it
           masks nothing), layout conversions inserted where
           a value is needed in two placements, odd-pitch rows of elementwise
           kernels realigned, layouts assigned (and checked
           for @assert_coalesced), the shared-memory plan made and recorded (dot path,
           rings, buffers, barriers), lowered to gpu.module/gpu.func
    llvm   the gpu.module half of upstream's gpu-lower-to-nvvm-pipeline
    ptx    PTX text in gpu.binary ops (from llvm)
    cubin  cubins in gpu.binary ops (from llvm), built by the pip ptxas

Stages run in order; `ptx` and `cubin` both start from `llvm`. The compile
driver (phobos.compiler) loops over the stages and records each one's text,
and phobos-opt expands `tile-to-<stage>{key chip features noalias}` into the
passes of every stage up to that one, so `--mlir-print-ir-after-all` shows each
step. Options written `{name}` are filled from the compile parameters; an
option left empty is dropped.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from phobos.target import DEFAULT_CHIP, TargetError, check_target, toolkit_dir


@dataclass(frozen=True)
class Step:
    """One pass of a stage: its name, options (values may be `{parameter}`), and
    the op it is nested under (e.g. "gpu.module"), if any."""

    name: str
    options: Mapping[str, str] = field(default_factory=dict)
    nested_under: str | None = None

    def text(self, params: Mapping[str, str]) -> str:
        values = {k: v.format(**params) for k, v in self.options.items()}
        options = " ".join(f"{k}={v}" for k, v in values.items() if v != "")
        element = f"{self.name}{{{options}}}" if options else self.name
        return f"{self.nested_under}({element})" if self.nested_under else element


def _in_gpu_module(name: str, **options: str) -> Step:
    return Step(name, options, "gpu.module")


STAGES: dict[str, list[Step]] = {
    "tile": [
        Step("tile-inline"),  # the calls of .ph functions (fn), inlined
        Step("tile-verify"),
        Step("tile-specialize", {"key": "{key}"}),
    ],
    "gpu": [
        Step("tile-insert-checks", {"check": "{check}"}),  # check mode (PHOBOS_CHECK=1, @checked)
        Step("tile-elide-masks"),
        Step("tile-narrow-compares"),
        Step("tile-version-masks"),  # a select on a bounds mask skipped where every position passes
        Step("tile-convert-layouts"),
        Step("tile-realign-rows"),  # 16-byte accesses on odd-pitch rows of elementwise 2-D kernels
        Step("tile-assign-layout", {"chip": "{chip}"}),
        Step("tile-check-coalesced"),  # @assert_coalesced (does nothing for other kernels)
        Step("tile-check-overlap"),  # a warning where CTAs may store to the same elements
        # The shared-memory plan, one decision per pass, recorded in the IR (lowering/plan_records.py).
        Step("tile-plan-dots", {"chip": "{chip}"}),
        Step("tile-pipeline", {"chip": "{chip}"}),
        Step("tile-allocate-shared", {"chip": "{chip}"}),
        Step("tile-insert-barriers", {"chip": "{chip}"}),
        Step("tile-verify-barriers"),  # the recorded barriers, checked by an independent hazard analysis
        Step("tile-lower-to-gpu", {"chip": "{chip}", "features": "{features}", "noalias": "{noalias}"}),
        Step("canonicalize"),
        Step("cse"),
    ],
    # Upstream's gpu-lower-to-nvvm-pipeline without nvvm-attach-target (the
    # gpu.module already has its #nvvm.target; a second would make two objects)
    # and without gpu-module-to-binary, which the ptx and cubin stages run.
    "llvm": [
        Step("convert-nvgpu-to-nvvm"),
        Step("convert-vector-to-scf", {"full-unroll": "true"}),
        Step("convert-scf-to-cf"),
        Step("convert-nvvm-to-llvm"),
        Step("convert-func-to-llvm"),
        Step("expand-strided-metadata"),
        Step("lower-affine"),
        # No top-level convert-arith-to-llvm (upstream runs it for host code):
        # inside the gpu.module convert-gpu-to-nvvm lowers arith itself and
        # maps arith.remf to libdevice's fmod, which llvm.frem would not reach.
        Step("canonicalize"),
        Step("cse"),
        _in_gpu_module("convert-gpu-to-nvvm", **{"index-bitwidth": "64"}),
        # math ops without a libdevice function (math.trunc) become LLVM intrinsics.
        _in_gpu_module("convert-math-to-llvm"),
        _in_gpu_module("canonicalize"),
        _in_gpu_module("cse"),
        _in_gpu_module("reconcile-unrealized-casts"),
        Step("reconcile-unrealized-casts"),
    ],
    "ptx": [Step("gpu-module-to-binary", {"format": "isa"})],
    "cubin": [Step("gpu-module-to-binary", {"format": "bin", "toolkit": "{toolkit}"})],
}

# The stage each stage reads; "tile" reads the input.
INPUT_OF: dict[str, str | None] = {"tile": None, "gpu": "tile", "llvm": "gpu", "ptx": "llvm", "cubin": "llvm"}

# What a stage gives: the module's IR text, the text of its gpu.binary object
# (PTX), or the object's bytes (a cubin).
OUTPUT_OF: dict[str, str] = {"tile": "ir", "gpu": "ir", "llvm": "ir", "ptx": "object-text", "cubin": "object-bytes"}

# Stages whose passes run LLVM's NVPTX back end, which aborts the process on a
# chip/PTX pair it does not support: the #nvvm.target is checked before them.
SERIALIZING = ("llvm", "ptx", "cubin")

ALIAS_PREFIX = "tile-to-"


@dataclass(frozen=True)
class AliasOption:
    default: str
    help: str


ALIAS_OPTIONS: dict[str, AliasOption] = {
    "key": AliasOption("", "a specialisation key's text, e.g. X=a16.e16x16.s16 (passed to tile-specialize)"),
    "chip": AliasOption(DEFAULT_CHIP, "the GPU to compile for (sm_70 or newer)"),
    "features": AliasOption("", "PTX ISA features, e.g. +ptx80 (default: the chip's minimum, at least +ptx80)"),
    "noalias": AliasOption("true", "declare tensors the kernel only reads noalias + readonly (ld.global.nc)"),
    "check": AliasOption("false", "check mode: verify every promise the compiler relies on, on the device"),
}


class PipelineOptionError(ValueError):
    """Parameters a pipeline cannot be built with; the message names the option."""


def path_to(stage: str) -> list[str]:
    """The stages that run, in order, to produce `stage` ("ptx" -> tile, gpu, llvm, ptx)."""
    if stage not in STAGES:
        raise PipelineOptionError(f"unknown stage '{stage}' (stages: {', '.join(STAGES)})")
    path = []
    current: str | None = stage
    while current is not None:
        path.append(current)
        current = INPUT_OF[current]
    return path[::-1]


def parameters(
    key: str = "",
    chip: str = DEFAULT_CHIP,
    features: str = "",
    noalias: bool = True,
    stages: tuple[str, ...] = (),
    check: bool = False,
) -> dict[str, str]:
    """Checked values for the `{parameter}` options (chip and features are
    validated before LLVM sees them; the toolkit is found only when `cubin` runs)."""
    try:
        features = check_target(chip, features or None)
    except TargetError as e:
        raise PipelineOptionError(str(e)) from None
    params = {
        "key": key,
        "chip": chip,
        "features": features,
        "noalias": "" if noalias else "false",
        "check": "true" if check else "",
        "toolkit": "",
    }
    if "cubin" in stages:
        params["toolkit"] = _toolkit()
    return params


def _toolkit() -> str:
    toolkit = toolkit_dir()
    if toolkit is None:
        raise PipelineOptionError(
            "ptxas was not found: install the nvidia-cuda-nvcc-cu12 package (it provides bin/ptxas)"
        )
    if any(c.isspace() for c in toolkit):
        raise PipelineOptionError(
            f"the CUDA toolkit folder '{toolkit}' contains spaces, which pass options cannot carry"
        )
    return toolkit


def stage_elements(stage: str, params: Mapping[str, str]) -> list[str]:
    """The pipeline elements (pass texts) of one stage."""
    return [step.text(params) for step in STAGES[stage]]


# ----------------------------------------------------------------------------- tile-to-* aliases


def alias_stage(name: str) -> str | None:
    """The stage `tile-to-<stage>` names, or None when `name` is no alias."""
    if name.startswith(ALIAS_PREFIX) and name[len(ALIAS_PREFIX) :] in STAGES and name != "tile-to-tile":
        return name[len(ALIAS_PREFIX) :]
    return None


def aliases() -> dict[str, str]:
    """alias -> one-line description, for --help."""
    out = {}
    for stage in STAGES:
        if stage != "tile":
            steps = " -> ".join(path_to(stage))
            out[f"{ALIAS_PREFIX}{stage}"] = f"Pipeline alias: tile IR through the stages {steps}."
    return out


def expand_alias(name: str, options_text: str) -> list[str]:
    """The pipeline elements `tile-to-<stage>{options}` stands for."""
    stage = alias_stage(name)
    assert stage is not None, name
    values = {k: opt.default for k, opt in ALIAS_OPTIONS.items()}
    for item in options_text.split():
        option, eq, value = item.partition("=")
        if option not in ALIAS_OPTIONS:
            raise PipelineOptionError(f"'{name}' has no option '{option}' (options: {', '.join(ALIAS_OPTIONS)})")
        if not eq:
            raise PipelineOptionError(f"option '{option}' of '{name}' needs a value")
        values[option] = value
    for flag in ("noalias", "check"):
        if values[flag] not in ("true", "false", "1", "0"):
            raise PipelineOptionError(f"option '{flag}' of '{name}' expects true or false, got '{values[flag]}'")
    stages = tuple(path_to(stage))
    params = parameters(
        values["key"],
        values["chip"],
        values["features"],
        values["noalias"] in ("true", "1"),
        stages,
        check=values["check"] in ("true", "1"),
    )
    return [element for s in stages for element in stage_elements(s, params)]
