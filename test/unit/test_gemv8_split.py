"""The split 16-token GEMVs with 8-bit weights on the tensor cores (gemv_tc_split_i8.ph,
gemv_tc_split_fp8.ph, then gemv_reduce_f16.ph: gemv8_cases.Split): K's chunks split three ways
(a ragged share each), each split's f32 partial written already scaled, the partials added into Y.
The interpreter runs them on small ragged shapes in CI, with a planted error that must be seen; on
the GPU (pytest -m gpu, the ahead-of-time folders of bench/aot_build.py's gemv8 jobs) the shapes of
test_gemv8_gpu.py, ragged and pitched, inside guard zones with Y poisoned."""

from __future__ import annotations

from pathlib import Path

import gemv8_cases as G
import pytest

ROOT = Path(__file__).resolve().parents[2]
KERNELS = ROOT / "bench" / "kernels"
INTERP = [(f, d, shape) for f, d in G.SPLIT_TESTED for shape in G.interp_shapes(f)]
GPU = [(f, d, shape) for f, d in G.SPLIT_TESTED for shape in G.gpu_shapes(f)]


def _id(case) -> str:
    family, defines, shape = case
    return "-".join([family] + [f"{k}{v}" for k, v in defines.items()] + ["x".join(map(str, shape))])


def _interpreted(monkeypatch, tmp_path, family: str, defines: dict) -> G.Split:
    import phobos

    monkeypatch.setenv("PHOBOS_INTERPRET", "1")
    monkeypatch.setenv("PHOBOS_CACHE_DIR", str(tmp_path))
    kernel = phobos.compile(KERNELS / f"{G.KERNEL[family]}.ph", defines=defines)
    reduce = phobos.compile(KERNELS / f"{G.REDUCE[0]}.ph", defines=G.REDUCE[1])
    return G.Split(kernel, reduce, G.TEST_SPLITS)


@pytest.mark.parametrize("case", INTERP, ids=_id)
def test_split_gemv8_in_the_interpreter(monkeypatch, tmp_path, case):
    pytest.importorskip("mlir")
    family, defines, shape = case
    G.run_case(_interpreted(monkeypatch, tmp_path, family, defines), family, shape, framework="numpy")


@pytest.mark.parametrize("family,defines", G.SPLIT_TESTED, ids=lambda v: str(v))
def test_split_gemv8_check_catches_a_planted_error(monkeypatch, tmp_path, family, defines):
    pytest.importorskip("mlir")
    kernel = _interpreted(monkeypatch, tmp_path, family, defines)
    with pytest.raises(AssertionError, match="max error"):
        G.run_case(kernel, family, G.interp_shapes(family)[0], framework="numpy", plant=True)


@pytest.mark.gpu
@pytest.mark.parametrize("case", GPU, ids=_id)
def test_split_gemv8_against_float64(case):
    from aot_folders import aot

    family, defines, shape = case
    G.skip_without_fp8(family)
    kernel = G.Split(aot(G.KERNEL[family], defines), aot(*G.REDUCE), G.TEST_SPLITS)
    G.run_case(kernel, family, shape)
