"""Calling a kernel on a machine without a CUDA device: one phobos.NoDeviceError that says how
to run the same call in the interpreter, with no chained traceback (issue 28, item 1)."""

from __future__ import annotations

import traceback
from pathlib import Path

import numpy as np
import pytest

import phobos
from phobos.runtime import driver

ROOT = Path(__file__).resolve().parents[2]


class _NoDriver:
    """cuda-bindings as it behaves without libcuda.so: cuInit raises (cuda.pathfinder's error)."""

    @staticmethod
    def cuInit(flags):
        raise RuntimeError('"cuda" is an NVIDIA driver library and can only be found via system search')


@pytest.fixture
def no_device(monkeypatch):
    monkeypatch.delenv("PHOBOS_INTERPRET", raising=False)
    monkeypatch.setattr(driver, "_initialized", False)
    monkeypatch.setattr(driver, "cu", _NoDriver)


def test_calling_a_kernel_without_a_device_says_how_to_interpret(no_device, tmp_path):
    k = phobos.compile(ROOT / "examples/scale.ph", cache_dir=tmp_path)
    x = np.ones((64, 128), np.float32)
    with pytest.raises(phobos.NoDeviceError) as info:
        k(x, np.empty_like(x), 2.0)
    e = info.value
    message = str(e)
    assert message.startswith("no CUDA device was found")
    assert "PHOBOS_INTERPRET=1" in message and "k.interpret(...)" in message
    assert isinstance(e, phobos.NoCudaDriverError)  # callers that caught the old error still do
    assert e.__cause__ is None and e.__suppress_context__  # no "The above exception was the direct cause"
    frames = traceback.extract_tb(e.__traceback__)
    assert len(frames) <= 2, [f.name for f in frames]  # this test and Kernel.__call__, not the driver's


def test_grid_launch_without_a_device_raises_the_same_error(no_device, tmp_path):
    k = phobos.compile(ROOT / "examples/scale.ph", cache_dir=tmp_path)
    x = np.ones((64, 128), np.float32)
    with pytest.raises(phobos.NoDeviceError, match="PHOBOS_INTERPRET=1") as info:
        k[(2, 1)](x, np.empty_like(x), 2.0)
    assert info.value.__cause__ is None and len(traceback.extract_tb(info.value.__traceback__)) <= 2


def test_phobos_run_without_a_device_names_the_interpreter_flag(no_device, capsys):
    from phobos.cli.driver import main

    code = main(["run", str(ROOT / "examples/scale.ph"), "--args", "f32[64,128] f32[64,128] 2.0"])
    err = capsys.readouterr().err
    assert code == 1 and "no CUDA device was found" in err and "--interpret" in err
    assert "Traceback" not in err
