"""Check mode at the launch: read the kernel's check record, raise PromiseBroken.

A variant compiled in check mode (PHOBOS_CHECK=1, phobos.compile(check=True),
@checked) carries the sites of its device-side checks in its contract
(`checks`: check, message, location) and a check record in its module
(lowering/device_checks.py). Each launch of it waits for the kernel, reads the
record and, where a check failed, clears the record and raises PromiseBroken
naming the check, the kernel's source line, the CTA, the thread and the value.
The failing threads exited before the access their check guarded, so the CUDA
context stays usable.
"""

from __future__ import annotations

import ctypes
import os

from phobos.contract.check_record import CLAIM_CTAS, CLAIM_KEYS, CLAIM_SLOTS, RECORD, RECORD_WORDS, VALUE_WORD

from . import driver


def check_mode_default() -> bool:
    """PHOBOS_CHECK=1 compiles every kernel in check mode."""
    return os.environ.get("PHOBOS_CHECK", "") not in ("", "0")


class PromiseBroken(driver.KernelFault):
    """A promise the compiler relied on did not hold on the device (check mode).

    `check` names what failed (phobos.dialect.tile.CHECK_KINDS), `location` the
    kernel source's file:line:col, `cta` and `thread` the first thread that found
    it, `value` the offending value and `failures` how many checks failed."""

    def __init__(self, kernel: str, site: dict, cta: tuple, thread: int, value: int, failures: int):
        self.check = site["check"]
        self.location = site["location"]
        self.cta, self.thread, self.value, self.failures = cta, thread, value, failures
        others = f" ({failures - 1} more failed checks)" if failures > 1 else ""
        message = (
            f"kernel '{kernel}' broke a promise (check mode): {site['check']} check at {site['location']}: "
            f"{site['message']}; value = {value}; CTA {cta}, thread {thread}{others}. The failing threads exited "
            "before their accesses; the CUDA context is still usable"
        )
        super().__init__(message, 0, "PROMISE_BROKEN", kernel)


class CheckRecord:
    """The check record of one loaded check-mode variant on one device."""

    def __init__(self, device: driver.Device, cubin: bytes, sites: list[dict], kernel: str):
        self.device = device
        self.sites = sites
        self.kernel = kernel
        self.address, size = device.module_global(cubin, RECORD)
        assert size >= 4 * RECORD_WORDS, f"{RECORD} holds {size} bytes"
        # Stores several CTAs may make claim their elements in a table, emptied for the next launch.
        self.claims = []
        if any(site["check"] == "overlap" for site in sites):
            self.claims = [device.module_global(cubin, CLAIM_KEYS)[0], device.module_global(cubin, CLAIM_CTAS)[0]]

    def after_launch(self, stream: int) -> None:
        """Waits for `stream` and raises PromiseBroken if a check of the launch failed."""
        driver.synchronize(stream, kernel=self.kernel)
        words = (ctypes.c_int32 * RECORD_WORDS)()
        driver.check(driver.cu.cuMemcpyDtoH(ctypes.addressof(words), self.address, 4 * RECORD_WORDS), "cuMemcpyDtoH")
        error = decode(list(words), self.sites, self.kernel)
        if self.claims:
            keys, ctas = self.claims
            driver.check(driver.cu.cuMemsetD32(keys, 0, 2 * CLAIM_SLOTS), "cuMemsetD32")
            driver.check(driver.cu.cuMemsetD32(ctas, 0, CLAIM_SLOTS), "cuMemsetD32")
        if error is not None:
            driver.check(driver.cu.cuMemsetD32(self.address, 0, RECORD_WORDS), "cuMemsetD32")
            raise error


def decode(words: list[int], sites: list[dict], kernel: str) -> PromiseBroken | None:
    """The PromiseBroken a check record's RECORD_WORDS i32 words describe (None: no check failed)."""
    if not words[0]:
        return None
    raw = b"".join(int(w).to_bytes(4, "little", signed=True) for w in words[VALUE_WORD : VALUE_WORD + 2])
    value = int.from_bytes(raw, "little", signed=True)
    site = words[1]
    found = sites[site] if 0 <= site < len(sites) else {"check": "?", "message": f"site {site}", "location": "?"}
    return PromiseBroken(kernel, found, (words[2], words[3], words[4]), words[5], value, words[6])
