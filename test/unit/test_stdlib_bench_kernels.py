"""The kernels of bench_stdlib.py: written with the standard library, each compiles to the same PTX
as the same computation written out by hand (kernel names and debug lines aside), so inlining
leaves nothing behind; and the checked-in files are what bench/stdlib_kernels.py writes."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

pytest.importorskip("mlir")

from phobos.compiler import compile_stages  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
import stdlib_kernels as sk  # noqa: E402


def _ptx(name: str) -> str:
    text = compile_stages(str(sk.KERNELS / f"{name}.ph"), until="ptx")["ptx"]
    lines = [ln for ln in text.splitlines() if not re.match(r"\s*(\.loc|\.file|//)", ln)]
    return "\n".join(lines).replace(name, "KERNEL")


@pytest.mark.parametrize("op", sk.OPS)
@pytest.mark.parametrize("t", sk.TYPES)
def test_std_kernel_has_the_hand_written_ptx(op, t):
    std, hand = _ptx(sk.name("std", op, t)), _ptx(sk.name("hand", op, t))
    assert "ld.global" in std and std == hand


def test_checked_in_kernels_are_generated():
    for impl in ("std", "hand"):
        for op in sk.OPS:
            for t in sk.TYPES:
                path = sk.KERNELS / f"{sk.name(impl, op, t)}.ph"
                assert path.read_text(encoding="utf-8") == sk.source(impl, op, t), (
                    f"run bench/stdlib_kernels.py ({path})"
                )


@pytest.mark.parametrize("defines", [{"W": 512}, {"R": 4, "W": 128}], ids=str)
@pytest.mark.parametrize("impl", ["std", "hand"])
@pytest.mark.parametrize("op", sk.OPS)
@pytest.mark.parametrize("t", sk.TYPES)
def test_kernel_in_the_interpreter(monkeypatch, tmp_path, impl, op, t, defines):
    """Each kernel against NumPy in the interpreter, on a ragged shape (rows no multiple of R: the
    last CTA's missing rows stay masked), with the GPU test's inputs, references and bounds
    (test_stdlib_gpu.py) on host buffers with guard zones."""
    from test_stdlib_gpu import RTOL, inputs

    import phobos

    monkeypatch.setenv("PHOBOS_INTERPRET", "1")
    monkeypatch.setenv("PHOBOS_CACHE_DIR", str(tmp_path))
    m, n = (3, 4096) if op == "rotary" else (5, 301)
    kernel = phobos.compile(sk.KERNELS / f"{sk.name(impl, op, t)}.ph", defines=defines)
    args, y, want, size, scalars = inputs(op, m, n, t, framework="numpy")
    kernel(*(a.view for a in args), y.view, *scalars)
    y.check(want, rtol=RTOL[t], size=size)
    for a in args:
        a.unchanged()
