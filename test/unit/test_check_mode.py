"""Check mode without a GPU: the checks in the IR, the record in the PTX, the sites in the
contract, the PromiseBroken a record decodes to, the compile option and its cache key."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from check_mode_kernels import COPY, MM, OVERLAP, SPREAD, hinted_copy_module, marker_line, short_first_buffer

import phobos
from phobos.compiler import compile_artifact, compile_stages
from phobos.contract.check_record import RECORD_WORDS, VALUE_WORD
from phobos.frontend import CompileError
from phobos.runtime.check_record import PromiseBroken, decode

ROOT = Path(__file__).resolve().parents[2]
VECTOR_KEY = "X=a16.e16.s;Y=a16.e16.s"


def _gpu_ir(source, check: bool, key=VECTOR_KEY) -> str:
    return compile_stages(source, until="gpu", key=key, options={"check": check} if check else None)["gpu"]


def test_check_mode_adds_checks_only_when_asked():
    plain, checked = _gpu_ir(COPY, False), _gpu_ir(COPY, True)
    assert "__phobos_check" not in plain and "phobos.checks" not in plain
    assert "llvm.call @__phobos_check_fail" in checked
    # @aligned no longer traps in check mode: it is a recorded check like the others
    assert "llvm.intr.trap" in plain and "llvm.intr.trap" not in checked


def test_copy_sites_name_each_check_and_line():
    contract = compile_artifact(COPY, key=VECTOR_KEY, options={"check": True}).contract
    sites = {(s["check"], int(s["location"].split(":")[1])) for s in contract["checks"]}
    read = marker_line(COPY, "read")
    assert ("aligned", 1) in sites  # at the @aligned promise
    assert ("bounds", read) in sites and ("alignment", read) in sites  # the read slice, its 16-byte vectors
    assert contract["options"] == {"check": True}


def test_hinted_offsets_checked_at_hint_and_access():
    text, hint_line = hinted_copy_module()
    contract = compile_artifact(text, key=VECTOR_KEY + ";s=4;n=16", options={"check": True}).contract
    by_kind = {}
    for s in contract["checks"]:
        by_kind.setdefault(s["check"], []).append(s)
    assert int(by_kind["hint"][0]["location"].split(":")[-2]) == hint_line
    assert "multiples of 4" in by_kind["hint"][0]["message"]
    # the load's vectors rely on the hint: their checks say so
    contiguity = by_kind["contiguity"][0]["message"]
    assert re.search(rf"relying on the tile.hint at .*check_mode_kernels.py:{hint_line}:", contiguity)
    assert {"contiguity", "alignment", "uniform mask", "bounds"} <= set(by_kind)


def test_check_mode_ptx_has_the_record_and_exits():
    ptx = compile_stages(COPY, until="ptx", key=VECTOR_KEY, options={"check": True})["ptx"]
    assert re.search(r"\.visible \.global \.align 8 \.b8 __phobos_check\[48\]", ptx)
    assert "exit;" in ptx and "trap;" not in ptx
    # the alignment is checked, so LLVM is not told it (it would fold the check away)
    assert ".ptr .align 16" not in ptx and re.search(r"and\.b64\s+%rd\d+, %rd\d+, 15;", ptx)
    plain = compile_stages(COPY, until="ptx", key=VECTOR_KEY)["ptx"]
    assert "__phobos_check" not in plain and ".ptr .align 16" in plain


def test_overlapping_store_is_an_error_under_checked():
    with pytest.raises(CompileError) as info:
        compile_stages(OVERLAP, until="gpu")
    assert f":{marker_line(OVERLAP, 'store')}:" in str(info.value)
    assert "may store to the same elements of 'Y'" in str(info.value)


def _record(site, cta, thread, value, failures):
    words = [1, site, *cta, thread, failures, 0, 0, 0, 0, 0]
    raw = value.to_bytes(8, "little", signed=True)
    words[VALUE_WORD] = int.from_bytes(raw[:4], "little", signed=True)
    words[VALUE_WORD + 1] = int.from_bytes(raw[4:], "little", signed=True)
    assert len(words) == RECORD_WORDS
    return words


def test_record_decodes_to_promise_broken():
    sites = [{"check": "bounds", "message": "the slice lies inside", "location": "k.ph:4:23"}]
    e = decode(_record(0, (16, 0, 0), 37, -5, 3), sites, "copy")
    assert isinstance(e, PromiseBroken) and isinstance(e, phobos.KernelFault)
    assert (e.check, e.location, e.cta, e.thread, e.value, e.failures) == ("bounds", "k.ph:4:23", (16, 0, 0), 37, -5, 3)
    text = str(e)
    assert "kernel 'copy'" in text and "k.ph:4:23" in text and "CTA (16, 0, 0), thread 37" in text
    assert "value = -5" in text and "2 more failed checks" in text and "context is still usable" in text
    assert decode([0] * RECORD_WORDS, sites, "copy") is None
    big = decode(_record(0, (0, 0, 0), 0, 1 << 40, 1), sites, "copy")
    assert big.value == 1 << 40 and "more failed" not in str(big)


def test_check_option_is_part_of_the_cache_family(monkeypatch, tmp_path):
    monkeypatch.delenv("PHOBOS_CHECK", raising=False)
    plain = phobos.compile(COPY, cache_dir=tmp_path)
    checked = phobos.compile(COPY, cache_dir=tmp_path, check=True)
    assert plain.family != checked.family and checked.options == {"check": True}
    monkeypatch.setenv("PHOBOS_CHECK", "1")
    assert phobos.compile(COPY, cache_dir=tmp_path).family == checked.family
    assert phobos.compile(COPY, cache_dir=tmp_path, check=False).family == plain.family


@pytest.mark.parametrize(
    "operands, attrs, expected",
    [
        ("%c, %i", 'check = "nonsense", message = ""', "expects check to be one of"),
        ("%i, %i", 'check = "hint", message = ""', "expects the condition to be an i1"),
        ("%t, %i", 'check = "hint", message = ""', "to have the condition's shape"),
    ],
)
def test_check_op_verifier(operands, attrs, expected):
    text = f"""func.func @k(%i: index) attributes {{tile.kernel}} {{
  %c = arith.constant true
  %t = arith.constant dense<true> : tensor<4xi1>
  "tile.check"({operands}) {{{attrs}}} : ({", ".join(_types(operands))}) -> ()
  return
}}"""
    with pytest.raises(CompileError) as info:
        compile_stages(text, until="tile")
    assert expected in str(info.value)


def _types(operands: str) -> list[str]:
    return [{"%c": "i1", "%i": "index", "%t": "tensor<4xi1>"}[o.strip()] for o in operands.split(",")]


def test_decorator_keywords(tmp_path):
    from check_mode_kernels import decorated_copies

    copy_checked, copy_check = decorated_copies(tmp_path)
    for k in (copy_checked, copy_check):
        kinds = {s["check"] for s in k.artifact(VECTOR_KEY).contract["checks"]}
        assert {"aligned", "bounds", "alignment"} <= kinds
    assert copy_check.options == {"check": True} and not copy_checked.options  # @checked is in the source


def _sites(source, check: str, **compile_args) -> list[dict]:
    contract = compile_artifact(source, options={"check": True}, **compile_args).contract
    return [s for s in contract["checks"] if s["check"] == check]


def test_shared_memory_accesses_checked_against_their_buffers():
    shared = _sites(MM, "shared", chip="sm_90")
    assert {int(s["location"].split(":")[1]) for s in shared} == {marker_line(MM, "dot")}
    messages = " ".join(s["message"] for s in shared)
    for access in ("store", "load"):  # the copies into the buffers, the dot's reads
        assert re.search(rf"this (memref|vector)\.{access} of \d element\(s\)", messages)
    assert "buffer 'lhs of the dot" in messages and "(384 elements at byte 0)" in messages
    assert "buffer 'rhs of the dot" in messages
    with short_first_buffer():  # the view each access is checked against is the lowering's own
        short = " ".join(s["message"] for s in _sites(MM, "shared", chip="sm_90"))
    assert "(372 elements at byte 0)" in short and "(384 elements" not in short
    assert "phobos.checks" not in _gpu_ir(MM, False, key=None)


def test_tma_copies_and_wgmma_stages_checked_against_the_buffers():
    key = ";".join(f"{p}=a16.e16x16x16.s16x16" for p in "QKVO")
    with open(ROOT / "examples" / "attention_f16.ph", encoding="utf-8") as f:
        shared = _sites(f.read(), "shared", chip="sm_90a", key=key)
    tma = [s for s in shared if s["message"].startswith("this TMA copy of 8192 bytes")]
    assert tma and "'rhs of the dot at" in tma[0]["message"]
    # the wgmma operands, read through matrix descriptors, have their ring stage checked
    stages = [s for s in shared if s["message"].startswith("this wgmma reads the shared-memory buffer")]
    assert len(stages) == 2 and all("below its 3 stages" in s["message"] for s in stages)


def test_overlapping_store_claims_its_elements_in_check_mode():
    sites = _sites(SPREAD, "overlap", chip="sm_90")
    assert [int(s["location"].split(":")[1]) for s in sites] == [marker_line(SPREAD, "store")]
    assert "grid axis x" in sites[0]["message"]
    checked = compile_artifact(SPREAD, chip="sm_90", options={"check": True}).asm["ptx"]
    plain = compile_artifact(SPREAD, chip="sm_90").asm["ptx"]
    assert "__phobos_claimed_by" in checked and re.search(r"call[.\w]* \(\w+\), \s*__phobos_claim,", checked)
    assert "__phobos_claim" not in plain
