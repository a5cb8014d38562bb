"""What one process reuses between compiles of a kernel's variants (compiler/memo.py): the tile IR
before tile-specialize, and the PTX and cubin of an LLVM module that printed the same. A variant
compiled after others must be the bytes it is when compiled alone; other sources, defines and
kernels must not share."""

from __future__ import annotations

from pathlib import Path

import pytest

from phobos import frontend
from phobos.compiler import driver, memo, ptxas
from phobos.target import toolkit_dir

ROOT = Path(__file__).resolve().parents[2]
SAXPY = str(ROOT / "examples" / "saxpy.ph")
GEMM = str(ROOT / "examples" / "gemm_fp32.ph")
# saxpy's keys: extents divisible by 4 and by 16 give the same code (4-wide vectors at most)
SAXPY_KEYS = ["", "X=a16.e4.s;Y=a16.e4.s", "X=a16.e16.s;Y=a16.e16.s", "X=a16.e1.s;Y=a16.e1.s"]
GEMM_KEYS = ["", "A=a16.e16x16.s16;B=a16.e16x16.s16;C=a16.e16x16.s16", "A=a16.e1x1.s1;B=a16.e1x1.s1;C=a16.e1x1.s1"]
TWO_KERNELS = """
@launch(128)
kernel first(X: tensor<f32>[N]) {
  X[ctx.block.x * 128 :+ 128] += 1.0
}

@launch(256)
kernel second(X: tensor<f32>[N]) {
  X[ctx.block.x * 256 :+ 256] *= 2.0
}
"""
needs_ptxas = pytest.mark.skipif(ptxas.ptxas_path(toolkit_dir() or "") is None, reason="no ptxas")


@pytest.fixture(autouse=True)
def in_process(monkeypatch):
    """Compiles in this process (as in a tuning's candidate child), each test from an empty memo."""
    monkeypatch.setenv("PHOBOS_CONTAINMENT", "off")
    memo.forget()
    yield
    memo.forget()


def artifact(source, key=None, defines=None, kernel=None, source_name=None) -> tuple:
    done = driver._compile(source, kernel, key or None, "sm_90", defines, None, "artifact", source_name=source_name)
    return done.cubin, done.asm, done.contract, done.program


def alone(source, key=None, **kw) -> tuple:
    memo.forget()
    return artifact(source, key, **kw)


def counting(monkeypatch, module, name) -> list:
    calls: list = []
    real = getattr(module, name)
    monkeypatch.setattr(module, name, lambda *a, **kw: calls.append(1) or real(*a, **kw))
    return calls


@needs_ptxas
@pytest.mark.parametrize("source, keys", [(SAXPY, SAXPY_KEYS), (GEMM, GEMM_KEYS)])
def test_variants_compiled_one_after_another_are_the_bytes_of_each_alone(source, keys, monkeypatch):
    expected = [alone(source, key, source_name=source) for key in keys]
    memo.forget()
    front_ends = counting(monkeypatch, frontend, "compile_to_tile_ir")
    assert [artifact(source, key, source_name=source) for key in keys] == expected
    assert len(front_ends) == 1  # the later variants parsed the kept tile IR


@needs_ptxas
def test_a_variant_whose_llvm_module_prints_the_same_takes_the_kept_ptx_and_cubin(monkeypatch):
    e4, e16 = SAXPY_KEYS[1], SAXPY_KEYS[2]
    expected = alone(SAXPY, e16, source_name=SAXPY)
    memo.forget()
    assembled = counting(monkeypatch, ptxas, "assemble")
    artifact(SAXPY, e4, source_name=SAXPY)
    assert artifact(SAXPY, e16, source_name=SAXPY) == expected
    assert len(assembled) == 1  # no second ptxas run
    artifact(SAXPY, SAXPY_KEYS[3], source_name=SAXPY)  # other code: compiled
    assert len(assembled) == 2


@needs_ptxas
def test_other_defines_kernels_and_sources_share_nothing(tmp_path, monkeypatch):
    two = tmp_path / "two.ph"
    two.write_text(TWO_KERNELS)
    cases = [
        (SAXPY, {"BLOCK": 256}, None),
        (SAXPY, {"BLOCK": 512}, None),
        (str(two), None, "first"),
        (str(two), None, "second"),
    ]
    expected = [alone(source, defines=d, kernel=k, source_name=source) for source, d, k in cases]
    memo.forget()
    front_ends = counting(monkeypatch, frontend, "compile_to_tile_ir")
    got = [artifact(source, defines=d, kernel=k, source_name=source) for source, d, k in cases]
    assert got == expected and len(front_ends) == len(cases)
    assert [c[2]["name"] for c in got[2:]] == ["first", "second"]


def test_ptx_with_debug_directives_is_not_kept():
    memo.keep_binaries("k", "llvm", "tk", '.version 8.0\n\t.file\t1 "k.ph"\n', b"\x7fELF")
    assert memo.binaries("k", "llvm", "tk") is None
    memo.keep_binaries("k", "llvm", "tk", ".version 8.0\n", b"\x7fELF")
    assert memo.binaries("k", "llvm", "tk") == (".version 8.0\n", b"\x7fELF")
    assert memo.binaries("other kernel", "llvm", "tk") is None and memo.binaries("k", "llvm", "other") is None


def test_the_memos_hold_the_latest_kernel_only():
    memo.keep_tile_ir("a", "module a")
    memo.keep_tile_ir("b", "module b")
    assert memo.tile_ir("a") is None and memo.tile_ir("b") == "module b"
    for i in range(memo.MAX_BINARIES + 1):
        memo.keep_binaries("k", f"llvm {i}", "tk", "ptx", b"")
    assert memo.binaries("k", "llvm 0", "tk") is None and memo.binaries("k", f"llvm {memo.MAX_BINARIES}", "tk")
    memo.keep_binaries("k2", "llvm 1", "tk", "ptx", b"")
    assert memo.binaries("k", "llvm 1", "tk") is None
