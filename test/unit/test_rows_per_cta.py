"""The rows-per-CTA sweep of bench/bench_rows_per_cta.py: each f16 row kernel with R rows per CTA,
in the interpreter against NumPy (test_stdlib_gpu.py's inputs, references and bounds) on row counts
that leave the last CTA's rows partly past the tensor, with guard zones."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
import bench_rows_per_cta as rows  # noqa: E402


@pytest.mark.parametrize("op", rows.OPS)
@pytest.mark.parametrize("r", [2, 4])
def test_rows_per_cta_in_the_interpreter(monkeypatch, tmp_path, op, r):
    from test_stdlib_gpu import RTOL, inputs

    import phobos

    monkeypatch.setenv("PHOBOS_INTERPRET", "1")
    monkeypatch.setenv("PHOBOS_CACHE_DIR", str(tmp_path))
    path = tmp_path / f"{rows.kernel_name(op)}.ph"
    path.write_text(rows.source(op), encoding="utf-8")
    kernel = phobos.compile(path, defines={"R": r, "W": 128})
    m, n = 2 * r + 1, 301  # the last CTA holds one row of the tensor and r - 1 rows past it
    args, y, want, size, scalars = inputs(op, m, n, "f16", framework="numpy")
    kernel(*(a.view for a in args), y.view, *scalars)
    y.check(want, rtol=RTOL["f16"], size=size)
    for a in args:
        a.unchanged()
