"""The decode GEMV kernels with 8-bit weights (bench/kernels/gemv_i8.ph, gemv_fp8.ph,
gemv_q8_0.ph, gemv_q8_0_rows.ph) in the interpreter, in CI: the same launches, buffers, references and bounds as
test_gemv8_gpu.py (gemv8_cases.py), on small ragged shapes, for every tested configuration; and
one planted error per kernel, which the check must catch."""

from __future__ import annotations

from pathlib import Path

import gemv8_cases as G
import pytest

pytest.importorskip("mlir")

ROOT = Path(__file__).resolve().parents[2]
KERNELS = ROOT / "bench" / "kernels"
CASES = [(family, defines, shape) for family, defines in G.TESTED for shape in G.interp_shapes(family)]


def _kernel(monkeypatch, tmp_path, family, defines):
    import phobos

    monkeypatch.setenv("PHOBOS_INTERPRET", "1")
    monkeypatch.setenv("PHOBOS_CACHE_DIR", str(tmp_path))
    return phobos.compile(KERNELS / f"{G.KERNEL[family]}.ph", defines=defines)


def _id(case) -> str:
    family, defines, shape = case
    return "-".join([family] + [f"{k}{v}" for k, v in defines.items()] + ["x".join(map(str, shape))])


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_gemv8_in_the_interpreter(monkeypatch, tmp_path, case):
    family, defines, shape = case
    G.run_case(_kernel(monkeypatch, tmp_path, family, defines), family, shape, framework="numpy")


@pytest.mark.parametrize("family", sorted(set(G.KERNEL) - set(G.SPLIT)))  # the split ones: test_gemv8_split.py
def test_gemv8_check_catches_a_planted_error(monkeypatch, tmp_path, family):
    defines = next(d for f, d in G.TESTED if f == family)
    kernel = _kernel(monkeypatch, tmp_path, family, defines)
    with pytest.raises(AssertionError, match="max error"):
        G.run_case(kernel, family, G.interp_shapes(family)[0], framework="numpy", plant=True)
