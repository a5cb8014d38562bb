"""f16 x 8-bit dots whose 8-bit operand mma.sync widens in registers (lowering/widened_fragments.py),
without a GPU: the kernels in the interpreter against float64 (widened_cases.py, as
test_widened_dot_gpu.py runs them on the GPU), a planted error the check must catch, the plan (which
operands are widened, and why wgmma is not taken) and the PTX (bytes staged by 16-byte cp.async,
2-byte shared reads, prmt, no cvt, mma.sync on f16)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import widened_cases as W

pytest.importorskip("mlir")

ROOT = Path(__file__).resolve().parents[2]
KERNELS = ROOT / "bench" / "kernels"


def _interpreted(monkeypatch, tmp_path, name):
    import phobos

    monkeypatch.setenv("PHOBOS_INTERPRET", "1")
    monkeypatch.setenv("PHOBOS_CACHE_DIR", str(tmp_path))
    return phobos.compile(KERNELS / f"{name}.ph")


@pytest.mark.parametrize("shape", W.INTERP_SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("name", W.KERNELS)
def test_widened_dot_in_the_interpreter(monkeypatch, tmp_path, name, shape):
    W.run_case(_interpreted(monkeypatch, tmp_path, name), name, shape, framework="numpy")


@pytest.mark.parametrize("name", W.KERNELS)
def test_widened_dot_check_catches_a_planted_error(monkeypatch, tmp_path, name):
    kernel = _interpreted(monkeypatch, tmp_path, name)
    with pytest.raises(AssertionError, match="max error"):
        W.run_case(kernel, name, W.INTERP_SHAPES[0], framework="numpy", plant=True)


def _ptx(source: Path | str, args: str, chip: str = "sm_90a", defines: dict | None = None) -> str:
    from phobos.compiler import compile_source

    text = source.read_text() if isinstance(source, Path) else source
    return compile_source(text, stage="ptx", chip=chip, args=args, defines=defines or {})


def _count(ptx: str, mnemonic: str) -> int:
    return len(re.findall(rf"^\s*{re.escape(mnemonic)}", ptx, re.M))


def _aligned_ptx(monkeypatch, tmp_path, name: str, chip: str) -> str:
    """The PTX of the variant for contiguous, 16-byte aligned arguments at the first pitched GPU shape."""
    import phobos
    from phobos.compiler import compile_stages
    from phobos.runtime.aot import like

    monkeypatch.setenv("PHOBOS_CACHE_DIR", str(tmp_path))
    path = KERNELS / f"{name}.ph"
    args = W.layouts(name, next(s for s in W.GPU_SHAPES if W.pitched(s)), like)
    key = phobos.compile(path).key(*args).to_text()
    return compile_stages(str(path), key=key, chip=chip, until="ptx")["ptx"]


@pytest.mark.parametrize("chip", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("name", W.KERNELS)
def test_the_bytes_are_staged_and_widened_in_registers(monkeypatch, tmp_path, name, chip):
    """The 8-bit operand crosses memory as bytes: copied into shared memory 16 bytes at a time,
    never loaded from global memory into registers; each fragment pair is one 2-byte shared read
    widened by one prmt and one xor (the exponent, and for i8 the sign flip), no cvt; the dot is
    mma.sync on f16 (on sm_90a too: wgmma cannot widen)."""
    ptx = _aligned_ptx(monkeypatch, tmp_path, name, chip)
    loads = re.findall(r"ld\.global[\w.]*", ptx)
    copies = re.findall(r"cp\.async\.\w+\.shared\.global \[[^]]+\], \[[^]]+\], (\d+)", ptx)
    if name == "widened_u8_rhs":  # a ring: every copy of both operands asynchronous, 16 bytes
        assert copies and set(copies) == {"16"} and not loads, (copies, loads)
    else:  # synchronous copies through registers, 16 bytes each
        assert loads and set(loads) == {"ld.global.nc.v4.b32"} and not copies, (copies, loads)
    pairs = _count(ptx, "ld.shared.b16")
    assert pairs > 0 and _count(ptx, "prmt.b32") == pairs
    # the exponent under each byte, and for i8 its sign bit flipped: one xor of 0x6480_6480
    # (u8: 0x6400_6400, an or to LLVM)
    flip = "1686135936" if name == "widened_i8_lhs" else "1677747200"
    assert len(re.findall(rf"(?:xor|or)\.b32\s+%r\d+, %r\d+, {flip};", ptx)) == pairs
    assert _count(ptx, "add.rn.f16x2") == pairs  # the exponent's 1024 (+ 128) taken off each pair
    assert not re.search(r"cvt\.\w+\.f16\.[su]", ptx) and not re.search(r"cvt\.rn\.f32\.[su]8", ptx)
    mma = _count(ptx, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32")
    assert mma > 0 and "wgmma" not in ptx
    # B: two pairs per n8 tile and k16 step, each feeding every m16 tile; A: four per m16 tile
    assert mma % pairs == 0 or pairs % mma == 0


def test_the_plan_says_why_not_wgmma():
    from phobos.compiler.explain import explain_source, render_text

    key = "A=a16.e16x16.s16;B=a16.e16x16.s16;C=a16.e16x16.s16"
    text = render_text(explain_source(KERNELS / "widened_i8_lhs.ph", key=key, chip="sm_90a"))
    assert "not wgmma" in text and "its lhs is widened from 8 bits in registers" in text
    assert "tile 64x32 x i8" in text and "staged: the dot lowering copies this tile" in text
    assert "its lhs is widened in registers: i8 bytes staged as they are" in text and "(prmt, xor, sub.f16x2)" in text


def test_the_contract_names_the_widened_operands(capsys):
    from phobos.cli.driver import main as phobos_main

    assert phobos_main(["compile", str(KERNELS / "gemv_tc_fp8.ph"), "--emit", "contract", "--chip", "sm_90a"]) == 0
    widened = json.loads(capsys.readouterr().out)["shared_memory"]["tensor_cores"]["widened"]
    assert [(w["operand"], w["at"].split(":")[0].endswith("gemv_tc_fp8.ph")) for w in widened] == [("rhs", True)]
    assert widened[0]["reads"].startswith("f8e4m3 bytes") and "cvt.rn.f16x2" in widened[0]["reads"]


_ORIENTED = """
@launch(128)
@tensorcore
kernel oriented(A: tensor<f16>[M, K], B: tensor<i8>[K, N], C: tensor<f32>[M, N]) {
  let m0 = ctx.block.x * 64
  var acc: tile<f32>[64, 32] = 0.0
  for k in range(0, K, 32) {
    acc += dot(A[m0 :+ 64, k :+ 32], f16(B[k :+ 32, 0 :+ 32]))
  }
  C[m0 :+ 64, 0 :+ 32] = acc
}
"""


def test_a_buffer_across_k_is_not_widened(monkeypatch, tmp_path):
    """B held [k][n] would put a fragment's pair in two rows: the conversion stays in registers
    (the tile takes the accumulator's layout, 2-byte loads) and the dot reads an f16 buffer."""
    from phobos.compiler import compile_stages

    ptx = compile_stages(_ORIENTED, key=None, chip="sm_80", until="ptx")["ptx"]
    assert _count(ptx, "ld.shared.b16") == 0 and _count(ptx, "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16") > 0
