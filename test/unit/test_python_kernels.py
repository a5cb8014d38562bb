"""@phobos.kernel: every examples/*.ph kernel and its Python twin (examples/python/twins.py) give
identical tile IR, under the first value of each @autotune constant and under the last."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

pytest.importorskip("mlir")

from phobos.frontend import CompileError, check_source, compile_to_tile_ir  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted(p for p in (ROOT / "examples").glob("*.ph"))


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def twins():
    return _load(ROOT / "examples" / "python" / "twins.py", "phobos_twins")


def _kernel_name(path: Path) -> str:
    (kernel,) = check_source(path.read_text(), str(path)).kernels
    return kernel.name


def _configs(path: Path) -> list[dict]:
    (kernel,) = check_source(path.read_text(), str(path)).kernels
    space = kernel.info.space
    return [{}, {name: values[-1] for name, values in space.items()}]


def test_every_example_has_a_twin(twins):
    missing = [p.name for p in EXAMPLES if not hasattr(twins, _kernel_name(p))]
    assert not missing, f"examples without a Python twin in examples/python/twins.py: {missing}"


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_twin_tile_ir_is_identical(twins, path):
    kernel = getattr(twins, _kernel_name(path))
    assert kernel.origin.endswith("twins.py")
    for defines in _configs(path):
        try:
            ph = str(compile_to_tile_ir(path.read_text(), str(path), defines))
        except CompileError as e:  # a configuration the checker refuses: the twin is refused alike
            with pytest.raises(CompileError) as python:
                compile_to_tile_ir(kernel.source_text, kernel.origin, defines)
            assert [d[3:] for d in python.value.diagnostics] == [d[3:] for d in e.diagnostics]
            continue
        python = str(compile_to_tile_ir(kernel.source_text, kernel.origin, defines))
        assert python == ph, f"{path.name} under {defines}: the Python twin's tile IR differs"
