"""Target checks that must happen before MLIR's NVPTX pipeline runs.

The upstream pipeline does not report a bad chip or PTX version as a
diagnostic: LLVM ends the process (`PTX version 6.0 does not support target
'sm_90'`). Every entry point therefore validates chip and features here first
and raises `TargetError` with a message a user can act on.

The chips listed are those both LLVM 22's NVPTX back end and the pinned ptxas
(nvidia-cuda-nvcc-cu12 12.9) know, with the lowest PTX ISA version each needs.
No MLIR import: the runtime can use this module too.
"""

from __future__ import annotations

import importlib.util
import os
import re

# chip -> lowest PTX ISA version (x10) that supports it.
CHIP_MIN_PTX = {
    "sm_70": 60,
    "sm_72": 61,
    "sm_75": 63,
    "sm_80": 70,
    "sm_86": 71,
    "sm_87": 74,
    "sm_89": 78,
    "sm_90": 78,
    "sm_90a": 80,
    "sm_100": 86,
    "sm_100a": 86,
    "sm_101": 86,
    "sm_101a": 86,
    "sm_103": 88,
    "sm_103a": 88,
    "sm_120": 87,
    "sm_120a": 87,
    "sm_121": 88,
    "sm_121a": 88,
}
# Hopper and later: never below PTX 8.0 (the pipeline's +ptx60 default kills
# the process, and TMA/wgmma need 8.0 even where 7.8 would parse).
PTX_FLOOR = 80
# The newest PTX ISA the pinned ptxas (12.9) accepts.
PTX_MAX = 88

DEFAULT_CHIP = "sm_90"  # without a GPU (and without PHOBOS_CHIP): see default_chip
CHIP_ENV = "PHOBOS_CHIP"

# The most shared memory one CTA may use (bytes, with the dynamic opt-in), by compute capability.
_MAX_SHARED = {70: 98304, 72: 98304, 75: 65536, 80: 166912, 86: 101376, 87: 166912, 89: 101376, 90: 232448}

_CHIP = re.compile(r"^sm_(\d+)(a?)$")
_FEATURES = re.compile(r"^\+ptx(\d+)$")


class TargetError(ValueError):
    """A chip or feature string the toolchain cannot handle."""


def chip_number(chip: str) -> int:
    """90 for sm_90 and sm_90a; -1 for what is not a chip name."""
    m = _CHIP.match(chip)
    return int(m.group(1)) if m else -1


def check_chip(chip: str) -> str:
    """Returns `chip` if it is a known `sm_XX` (XX >= 70); raises TargetError otherwise."""
    if not isinstance(chip, str) or not _CHIP.match(chip):
        raise TargetError(f"invalid chip '{chip}': expected sm_XX (for example sm_90)")
    if chip_number(chip) < 70:
        raise TargetError(f"chip '{chip}' is not supported: Phobos needs sm_70 or newer")
    if chip not in CHIP_MIN_PTX:
        known = ", ".join(CHIP_MIN_PTX)
        raise TargetError(f"chip '{chip}' is not known to the toolchain (known: {known})")
    return chip


def chip_for_capability(major: int, minor: int) -> str:
    """The chip Phobos compiles for on a device of compute capability major.minor: Hopper
    (9.0: H100, H200) gets sm_90a, whose wgmma and TMA paths the plain sm_90 cannot use; other
    devices their own sm_XY where the toolchain knows it, else DEFAULT_CHIP."""
    chip = f"sm_{major}{minor}"
    if major == 9 and f"{chip}a" in CHIP_MIN_PTX:
        return f"{chip}a"
    return chip if chip in CHIP_MIN_PTX else DEFAULT_CHIP


_DETECTED: list = []  # [capability or None] once the device was asked


def device_capability() -> tuple[int, int] | None:
    """(major, minor) of CUDA device 0, or None where there is no driver or GPU (never raises).
    Asked once per process, through cuda-bindings (no context is created)."""
    if _DETECTED:
        return _DETECTED[0]
    found = None
    try:
        from cuda.bindings import driver as cu

        (err,) = cu.cuInit(0)
        if not err:
            err, device = cu.cuDeviceGet(0)
        if not err:
            attr = cu.CUdevice_attribute
            err, major = cu.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device)
            err2, minor = cu.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device)
            if not err and not err2:
                found = (int(major), int(minor))
    except Exception:  # no cuda-bindings, no libcuda (cuda.pathfinder's errors), no device
        found = None
    _DETECTED.append(found)
    return found


def default_chip(query=None) -> str:
    """The chip to compile for when none is given: $PHOBOS_CHIP if set (checked), else the
    chip of the GPU present (sm_90a on H100/H200), else DEFAULT_CHIP. `query` replaces the
    device query (a callable returning (major, minor) or None), for tests without a GPU."""
    env = os.environ.get(CHIP_ENV, "").strip()
    if env:
        try:
            return check_chip(env)
        except TargetError as e:
            raise TargetError(f"{CHIP_ENV}={env}: {e}") from None
    capability = (query or device_capability)()
    return chip_for_capability(*capability) if capability else DEFAULT_CHIP


def max_shared_bytes(chip: str) -> int:
    """The shared memory a CTA may use on `chip` (227 KB on Hopper; Blackwell as Hopper)."""
    number = chip_number(check_chip(chip))
    return _MAX_SHARED.get(number, 232448 if number >= 90 else 98304)


def required_ptx(chip: str) -> int:
    """The lowest PTX ISA version (x10) Phobos accepts for `chip`."""
    need = CHIP_MIN_PTX[check_chip(chip)]
    if chip_number(chip) >= 90:
        need = max(need, PTX_FLOOR)
    return need


def default_features(chip: str) -> str:
    return f"+ptx{max(required_ptx(chip), PTX_FLOOR)}"


def check_target(chip: str, features: str | None = None) -> str:
    """Validates `chip` and `features` (default: derived from the chip) and
    returns the features string to use. Raises TargetError with the reason."""
    check_chip(chip)
    if not features:
        return default_features(chip)
    m = _FEATURES.match(features)
    if not m:
        raise TargetError(f"invalid features '{features}': expected +ptxNN (for example +ptx80)")
    version = int(m.group(1))
    need = required_ptx(chip)
    if version < need:
        raise TargetError(f"features '{features}' are too old for {chip}: it needs +ptx{need} or higher")
    if version > PTX_MAX:
        raise TargetError(f"features '{features}' are newer than the toolkit's ptxas supports (at most +ptx{PTX_MAX})")
    return features


def toolkit_dir() -> str | None:
    """The folder of the nvidia-cuda-nvcc-cu12 wheel (it holds bin/ptxas), or None.

    Found through the import system rather than PATH, so a system CUDA on PATH
    does not decide which ptxas builds the cubins.
    """
    try:
        spec = importlib.util.find_spec("nvidia.cuda_nvcc")
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    for folder in spec.submodule_search_locations or []:
        if os.path.isfile(os.path.join(folder, "bin", "ptxas")):
            return folder
    return None


_TARGET_ATTR = re.compile(r"#nvvm\.target(?:<([^>]*)>)?")
_FIELD = re.compile(r'(\w+)\s*=\s*"([^"]*)"')


def check_target_attrs(text: str) -> None:
    """Validates every `#nvvm.target<...>` in IR text (chip and features),
    before a pipeline that would otherwise abort on a bad one."""
    for m in _TARGET_ATTR.finditer(text):
        fields = dict(_FIELD.findall(m.group(1) or ""))
        chip = fields.get("chip", "sm_50")
        features = fields.get("features")
        if not features:
            check_chip(chip)
            raise TargetError(f"{m.group(0)} has no features; {chip} needs +ptx{required_ptx(chip)} or higher")
        check_target(chip, features)


# ----------------------------------------------------------------------------- upstream pipelines

# phobos-opt also runs upstream pipelines on users' own gpu.modules, which may
# target chips Phobos itself does not compile for. There only what would end
# the process is refused: a chip LLVM does not know, or a PTX version too old
# for the chip (the upstream default pairs every chip with +ptx60).
_OLDER_CHIPS_MIN_PTX = {"sm_50": 40, "sm_52": 41, "sm_53": 42, "sm_60": 50, "sm_61": 50, "sm_62": 50}


def abort_reason(chip: str, features: str | None) -> str | None:
    """Why LLVM would abort on this chip/features pair, or None."""
    known = {**_OLDER_CHIPS_MIN_PTX, **CHIP_MIN_PTX}
    if chip not in known:
        return f"unknown or unsupported chip '{chip}' (supported: {', '.join(known)})"
    m = re.search(r"\+ptx(\d+)", features or "+ptx60")
    if m is None:
        return f"features '{features}' name no PTX version (expected e.g. '{default_features_any(chip)}')"
    version = int(m.group(1))
    if version < known[chip]:
        return (
            f"PTX {version // 10}.{version % 10} does not support {chip}; "
            f"use features '{default_features_any(chip)}' or newer"
        )
    return None


def default_features_any(chip: str) -> str:
    known = {**_OLDER_CHIPS_MIN_PTX, **CHIP_MIN_PTX}
    return f"+ptx{max(PTX_FLOOR, known.get(chip, PTX_FLOOR))}"


def _option(options: str, name: str) -> str | None:
    m = re.search(rf"(?:^|\s){re.escape(name)}=(\"[^\"]*\"|\S+)", options)
    return m.group(1).strip('"') if m else None


def pipeline_abort_reason(pipeline: str) -> str | None:
    """Checks the chip/features options of the upstream GPU passes named in a pipeline."""
    for m in re.finditer(r"gpu-lower-to-nvvm-pipeline|nvvm-attach-target", pipeline):
        rest = pipeline[m.end() :]
        options = rest[1 : rest.find("}")] if rest.startswith("{") else ""
        if m.group(0) == "gpu-lower-to-nvvm-pipeline":
            chip, features = _option(options, "cubin-chip"), _option(options, "cubin-features")
        else:
            chip, features = _option(options, "chip"), _option(options, "features")
        problem = abort_reason(chip or "sm_50", features or "+ptx60")
        if problem:
            return f"'{m.group(0)}': {problem}"
    return None


def module_abort_reason(ir_text: str) -> str | None:
    """Checks every #nvvm.target<...> in IR text that a serialising pipeline would compile."""
    for m in _TARGET_ATTR.finditer(ir_text):
        fields = dict(_FIELD.findall(m.group(1) or ""))
        problem = abort_reason(fields.get("chip", "sm_50"), fields.get("features", "+ptx60"))
        if problem:
            return f"#nvvm.target: {problem}"
    return None
