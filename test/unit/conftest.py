"""pytest configuration for test/unit.

Tests marked `gpu` need an NVIDIA GPU and its driver. Where `cuInit` fails (no
driver library, no device) they are skipped with the reason, so CI without a
GPU stays green; on the GPU machine, `pytest -m gpu` runs them.
"""

import functools
import os
import sys

import pytest

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if os.path.join(_ROOT, "python") not in sys.path:  # the GPU machine runs from a checkout, without installing
    sys.path.insert(0, os.path.join(_ROOT, "python"))


@pytest.fixture
def interpret_mode(monkeypatch, tmp_path):
    """Every launch of the test runs in the interpreter, with a kernel cache of its own."""
    monkeypatch.setenv("PHOBOS_INTERPRET", "1")
    monkeypatch.setenv("PHOBOS_CACHE_DIR", str(tmp_path))


@functools.lru_cache(maxsize=1)
def gpu_unavailable_reason():
    """None when a CUDA GPU can run kernels here, else why not."""
    try:
        from phobos.runtime import driver
    except ImportError as e:  # pragma: no cover
        return f"the Phobos runtime cannot be imported: {e}"
    try:
        driver.init()
    except driver.CudaError as e:
        return str(e).split(". ")[0]
    return None


def pytest_collection_modifyitems(config, items):
    reason = None
    for item in items:
        if "gpu" in item.keywords:
            if reason is None:
                reason = gpu_unavailable_reason() or ""
            if reason:
                item.add_marker(pytest.mark.skip(reason=f"needs a GPU: {reason}"))
