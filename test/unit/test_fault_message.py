"""What a kernel fault says (issue 30, item 3), with the CUDA driver mocked: the kernel, the
driver's error, that the driver does not say where (the cubin has no line info), and how to
find the faulting access: compute-sanitizer (no check mode exists yet to point at). Errors that are no
fault on the device (a launch refused for its resources) and driver errors outside a launch
keep their short form."""

from __future__ import annotations

import pytest

from phobos.runtime import driver

ERRORS = {
    700: ("CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered"),
    719: ("CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"),
    701: ("CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", "too many resources requested for launch"),
    1: ("CUDA_ERROR_INVALID_VALUE", "invalid argument"),
}


class _FakeDriver:
    """The two calls the fault path makes, answering with a fixed error code."""

    def __init__(self, code: int):
        self.code = code

    def CUresult(self, code):  # noqa: N802 (the driver's name)
        return code

    def cuStreamSynchronize(self, stream):  # noqa: N802
        return (self.code,)


@pytest.fixture
def fake(monkeypatch):
    monkeypatch.setattr(driver, "error_text", lambda code: ERRORS[int(code)])

    def use(code: int) -> None:
        monkeypatch.setattr(driver, "cu", _FakeDriver(code))

    return use


def _fault(code: int, **kwargs) -> driver.KernelFault:
    with pytest.raises(driver.KernelFault) as info:
        driver.raise_error(code, "cuStreamSynchronize", **kwargs)
    return info.value


def test_a_device_fault_names_the_kernel_and_how_to_find_the_line(fake):
    fake(700)
    e = _fault(700, kernel="saxpy")
    text = str(e)
    assert (e.kernel, e.name, e.code) == ("saxpy", "CUDA_ERROR_ILLEGAL_ADDRESS", 700)
    assert text.startswith("kernel 'saxpy' failed: CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access")
    assert "the CUDA context is now unusable" in text
    assert "The driver does not say where in 'saxpy' it faulted (the cubin carries no line info)" in text
    assert "rerun with PHOBOS_CHECK=1, which reports it at its source line" in text
    assert "compute-sanitizer --tool memcheck python SCRIPT" in text and "--tool racecheck" in text
    assert isinstance(e, driver.CudaError)


def test_a_fault_seen_at_a_later_sync_names_the_last_kernel(fake):
    fake(719)
    with pytest.raises(driver.KernelFault) as info:
        driver.synchronize(0)  # no kernel named: the last one Phobos launched
    text = str(info.value)
    assert text.startswith("cuStreamSynchronize failed: CUDA_ERROR_LAUNCH_FAILED: unspecified launch failure")
    assert "(the last kernel Phobos launched was '" in text
    assert "a kernel traps when a promise it checks at entry (@aligned) is broken" in text
    assert "rerun under compute-sanitizer" in text


@pytest.mark.parametrize("code", [701, 1])
def test_a_refused_launch_keeps_the_short_form(fake, code):
    fake(code)
    name, text = ERRORS[code]
    assert str(_fault(code, kernel="gemm")) == f"kernel 'gemm' failed: {name}: {text}"


def test_driver_errors_outside_a_launch_are_no_kernel_fault(fake):
    fake(1)
    with pytest.raises(driver.CudaError) as info:
        driver.raise_error(1, "cuMemAlloc")
    assert not isinstance(info.value, driver.KernelFault)
    assert str(info.value) == "cuMemAlloc failed: CUDA_ERROR_INVALID_VALUE: invalid argument"
