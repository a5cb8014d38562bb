"""The weight loads of the decode GEMV kernels with 8-bit weights (bench/kernels/gemv_i8.ph,
gemv_fp8.ph, gemv_q8_0.ph; the cp.async copies of gemv_tc_i8.ph and gemv_tc_fp8.ph) are 16-byte
vectors in the PTX of the variant a launch on contiguous, 16-byte aligned arguments gets
(gemv8_cases.layouts, the pitched cases of test_gemv8_gpu.py), for every tested configuration
(gemv_q8_0 at TT = 1 included) on sm_90 and sm_90a.

gemv_i8 and gemv_fp8 take W as [N, K]: its [BN, BK] tile has a lower rank than the [TT, 1, BK]
tiles of X, and its 16-element vectors reach the layout only where the layout counts the widths
of lower-rank tiles along its last dimension (kernel_layout.choose_kernel_layout); otherwise W
gets X's 8 (8-byte loads). Which loads read the weights is found by following each load's
address back through the PTX to the kernel's parameters: the weights are the second pointer
parameter of all three kernels.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import gemv8_cases as G
import pytest

pytest.importorskip("mlir")

ROOT = Path(__file__).resolve().parents[2]
KERNELS = ROOT / "bench" / "kernels"
CHIPS = ("sm_90", "sm_90a")
CASES = [(f, d, chip) for f, d in G.TESTED for chip in CHIPS]

_POINTER = re.compile(r"\.param \.u64 \.ptr\b[^,\n]*?(\w+_param_\d+)")
_INSTRUCTION = re.compile(r"^\s*(?:@!?%\w+\s+)?([a-z][\w.]*)\s+([^;]*);", re.M)
_NAME = re.compile(r"%\w+|\b\w+_param_\d+\b")
_NO_RESULT = ("st.", "red.", "bra", "ret", "bar.", "prefetch")


def _split_result(operands: str) -> tuple[str, str]:
    """(result, the other operands) of an instruction's operand text; a vector result is {..}."""
    if operands.startswith("{"):
        end = operands.index("}") + 1
        return operands[:end], operands[end:]
    result, _, rest = operands.partition(",")
    return result, rest


def sources(ptx: str) -> dict[str, set[str]]:
    """For each register, the registers and parameters some instruction computes it from."""
    found: dict[str, set[str]] = defaultdict(set)
    for opcode, operands in _INSTRUCTION.findall(ptx):
        if opcode.startswith(_NO_RESULT):
            continue
        result, rest = _split_result(operands)
        for reg in _NAME.findall(result):
            found[reg].update(_NAME.findall(rest))
    return found


def parameters_of(found: dict[str, set[str]], reg: str) -> set[str]:
    """The kernel parameters `reg` is computed from, through any chain of instructions."""
    seen, todo, params = {reg}, [reg], set()
    while todo:
        for source in found.get(todo.pop(), ()):
            if source.startswith("%") and source not in seen:
                seen.add(source)
                todo.append(source)
            elif not source.startswith("%"):
                params.add(source)
    return params


def global_loads_from(ptx: str, param: str) -> list[str]:
    """The opcodes of the global loads whose address is computed from parameter `param`."""
    found = sources(ptx)
    loads = []
    for opcode, operands in _INSTRUCTION.findall(ptx):
        if opcode.startswith("ld.global"):
            address = re.search(r"\[(%\w+)", operands)
            if address and param in parameters_of(found, address.group(1)):
                loads.append(opcode)
    return loads


def async_copies_from(ptx: str, param: str) -> list[str]:
    """The byte counts of the cp.async copies whose global address is computed from `param`."""
    found = sources(ptx)
    sizes = []
    for opcode, operands in _INSTRUCTION.findall(ptx):
        if opcode.startswith("cp.async") and opcode.endswith(".shared.global"):
            _, source, size = (x.strip() for x in operands.split(",")[:3])
            address = re.search(r"\[(%\w+)", source)
            if address and param in parameters_of(found, address.group(1)):
                sizes.append(size)
    return sizes


def aligned_ptx(family: str, defines: dict, chip: str) -> str:
    """The PTX of the variant for the first pitched GPU test shape's contiguous, aligned arguments."""
    import phobos
    from phobos.compiler import compile_stages
    from phobos.runtime.aot import like

    path = KERNELS / f"{G.KERNEL[family]}.ph"
    shape = next(s for s in G.gpu_shapes(family) if G.pitched(s[1], s[2]))
    _, args = G.layouts(family, shape, like)[0]
    key = phobos.compile(path, defines=defines).key(*args).to_text()
    return compile_stages(str(path), defines=defines, key=key, chip=chip, until="ptx")["ptx"]


def _id(case) -> str:
    family, defines, chip = case
    return "-".join([family] + [f"{k}{v}" for k, v in defines.items()] + [chip])


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_weight_loads_are_16_byte_vectors(monkeypatch, tmp_path, case):
    family, defines, chip = case
    monkeypatch.setenv("PHOBOS_CACHE_DIR", str(tmp_path))  # phobos.compile's, for the key
    ptx = aligned_ptx(family, defines, chip)
    pointers = _POINTER.findall(ptx)
    assert len(pointers) == 4, pointers  # X, the weights, the scales, Y
    if family in G.STAGED:  # the tensor-core forms stage both operands by cp.async: 16 bytes a copy
        for param in pointers[:2]:
            assert not global_loads_from(ptx, param)
            copies = async_copies_from(ptx, param)
            assert copies and set(copies) == {"16"}, copies
        return
    weights = global_loads_from(ptx, pointers[1])
    assert weights, "no global load reads the weights"
    assert set(weights) == {"ld.global.nc.v4.b32"}, weights
    tokens = global_loads_from(ptx, pointers[0])
    assert tokens and set(tokens) == {"ld.global.nc.v4.b32"}, tokens


def test_the_tracer_tells_loads_apart():
    """The address tracing the test relies on, on a hand-written fragment: a load through an
    offset register counts for its base's parameter only."""
    ptx = """
    .param .u64 .ptr .align 16 k_param_0,
    .param .u64 .ptr .align 16 k_param_1,
	ld.param.b64 	%rd1, [k_param_0];
	ld.param.b64 	%rd2, [k_param_1];
	add.s64 	%rd3, %rd2, %rd4;
	@%p1 bra 	$L__BB0_2;
	ld.global.nc.v4.b32 	{%r1, %r2, %r3, %r4}, [%rd3+16];
	ld.global.nc.v2.b32 	{%r5, %r6}, [%rd1];
    """
    assert _POINTER.findall(ptx) == ["k_param_0", "k_param_1"]
    assert global_loads_from(ptx, "k_param_1") == ["ld.global.nc.v4.b32"]
    assert global_loads_from(ptx, "k_param_0") == ["ld.global.nc.v2.b32"]
