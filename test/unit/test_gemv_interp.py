"""The decode GEMV / skinny GEMM kernels (bench/kernels/gemv_*.ph) in the interpreter, in CI: the
same launches, buffers, references and bounds as test_gemv_gpu.py (gemv_cases.py), on small
ragged shapes, for every family and tested configuration."""

from __future__ import annotations

from pathlib import Path

import gemv_cases as G
import pytest

pytest.importorskip("mlir")

ROOT = Path(__file__).resolve().parents[2]
KERNELS = ROOT / "bench" / "kernels"


def _kernels(monkeypatch, tmp_path, family, defines):
    import phobos

    monkeypatch.setenv("PHOBOS_INTERPRET", "1")
    monkeypatch.setenv("PHOBOS_CACHE_DIR", str(tmp_path))
    main = phobos.compile(KERNELS / f"{G.KERNEL[family]}.ph", defines=defines)
    reduce = phobos.compile(KERNELS / f"{G.REDUCE[0]}.ph", defines=G.REDUCE[1]) if family.endswith("split") else None
    return main, reduce


@pytest.mark.parametrize("shape", G.INTERP_SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("case", G.TESTED, ids=lambda c: c[0] + "".join(f"-{k}{v}" for k, v in c[1].items()))
def test_gemv_in_the_interpreter(monkeypatch, tmp_path, case, shape):
    family, defines = case
    G.run_case(_kernels(monkeypatch, tmp_path, family, defines), family, defines, shape, framework="numpy")


@pytest.mark.parametrize("shape", G.WAVE_INTERP_SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("case", G.WAVE_TESTED, ids=lambda c: c[0] + "".join(f"-{k}{v}" for k, v in c[1].items()))
def test_gemv_wave_in_the_interpreter(monkeypatch, tmp_path, case, shape):
    family, defines = case
    G.run_case(_kernels(monkeypatch, tmp_path, family, defines), family, defines, shape, framework="numpy")


def test_split_ranges_cover_k_in_whole_chunks():
    for k, bk, s in [(301, 64, 2), (2500, 1024, 3), (4096, 2048, 4), (14336, 128, 8), (1, 128, 3)]:
        ranges = G.split_ranges(k, bk, s)
        assert ranges[0][0] == 0 and ranges[-1][1] == k
        assert all(a == b for (_, a), (b, _) in zip(ranges, ranges[1:]))
        assert all(a % bk == 0 for a, b in ranges if a < b)
