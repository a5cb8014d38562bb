"""NVIDIA targets: which chips the toolchain knows and the PTX they need.

LLVM ends the whole process (`LLVM ERROR: PTX version 6.0 does not support
target 'sm_90'`) when a chip is paired with too old a PTX version, and the
upstream defaults pair every chip with +ptx60. So every chip/features pair is
checked here, in Python, before any pipeline that serialises to PTX runs.
"""

from __future__ import annotations

import re
from typing import Iterable, Optional

# The lowest PTX ISA version (x10) that supports each chip (PTX ISA release notes).
MIN_PTX = {
    "sm_50": 40, "sm_52": 41, "sm_53": 42, "sm_60": 50, "sm_61": 50, "sm_62": 50,
    "sm_70": 60, "sm_72": 61, "sm_75": 63, "sm_80": 70, "sm_86": 71, "sm_87": 74,
    "sm_89": 78, "sm_90": 78, "sm_90a": 80,
}
# Phobos always asks for at least this much (tile kernels use PTX 8.0 features on sm_90).
DEFAULT_PTX = 80
SUPPORTED_CHIPS = tuple(MIN_PTX)


def ptx_version(features: str) -> Optional[int]:
    """The x10 PTX version named by a features string such as '+ptx80' (None if absent)."""
    m = re.search(r"\+ptx(\d+)", features or "")
    return int(m.group(1)) if m else None


def check_target(chip: str, features: Optional[str]) -> Optional[str]:
    """None when the pair is safe to hand to LLVM, else the reason it is not."""
    if chip not in MIN_PTX:
        return (f"unknown or unsupported chip '{chip}' (supported: {', '.join(SUPPORTED_CHIPS)})")
    version = ptx_version(features or "+ptx60")
    if version is None:
        return f"features '{features}' name no PTX version (expected e.g. '+ptx{max(DEFAULT_PTX, MIN_PTX[chip])}')"
    if version < MIN_PTX[chip]:
        return (f"PTX {version // 10}.{version % 10} does not support {chip}; "
                f"use features '+ptx{max(DEFAULT_PTX, MIN_PTX[chip])}' or newer")
    return None


def features_for(chip: str) -> str:
    return f"+ptx{max(DEFAULT_PTX, MIN_PTX.get(chip, DEFAULT_PTX))}"


def _options(text: str, start: int) -> str:
    """The `{...}` options text that follows position `start`, if any."""
    if start < len(text) and text[start] == "{":
        end = text.find("}", start)
        return text[start + 1:end if end >= 0 else len(text)]
    return ""


def _option(options: str, name: str) -> Optional[str]:
    m = re.search(rf"(?:^|\s){re.escape(name)}=(\"[^\"]*\"|\S+)", options)
    return m.group(1).strip('"') if m else None


def check_pipeline_text(pipeline: str) -> Optional[str]:
    """Checks the chip/features options of the upstream GPU passes in a pipeline."""
    for m in re.finditer(r"gpu-lower-to-nvvm-pipeline|nvvm-attach-target", pipeline):
        options = _options(pipeline, m.end())
        if m.group(0) == "gpu-lower-to-nvvm-pipeline":
            chip = _option(options, "cubin-chip") or "sm_50"
            features = _option(options, "cubin-features") or "+ptx60"
        else:
            chip = _option(options, "chip") or "sm_50"
            features = _option(options, "features") or "+ptx60"
        problem = check_target(chip, features)
        if problem:
            return f"'{m.group(0)}': {problem}"
    return None


def check_module_targets(targets: Iterable[tuple]) -> Optional[str]:
    """Checks (chip, features) pairs read from #nvvm.target attributes."""
    for chip, features in targets:
        problem = check_target(chip, features)
        if problem:
            return f"#nvvm.target: {problem}"
    return None
