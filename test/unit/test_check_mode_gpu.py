"""Check mode on the GPU: each kind of broken promise is reported by the check that guards it,
at its source line, with its CTA and value; correct launches give the right answer; and the CUDA
context survives every report.

The kernels (check_mode_kernels.py) are compiled in check mode into
$PHOBOS_GPU_ARTIFACTS/check by `python test/unit/check_mode_kernels.py $PHOBOS_GPU_ARTIFACTS`.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from check_mode_kernels import COPY, MM, MM_SIZE, N_COPY, SPREAD, marker_line

import phobos
from phobos.contract.check_record import RECORD, RECORD_WORDS
from phobos.runtime.check_record import decode

pytestmark = pytest.mark.gpu

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(os.environ.get("PHOBOS_GPU_ARTIFACTS", ROOT / ".cache" / "gpu"))
GUARD = 256
RNG = np.random.default_rng()


def _kernel(name: str):
    folder = ARTIFACTS / "check" / name
    if not folder.is_dir():
        pytest.skip(f"no check-mode folder {folder}; run test/unit/check_mode_kernels.py")
    return phobos.load(folder)


class _Buffers:
    """X (random) and Y (poisoned) inside guard zones of random values, on the GPU."""

    def __init__(self, n: int, misalign: int = 0):
        import torch

        self.n = n
        self.x_all = torch.tensor(RNG.standard_normal(n + 2 * GUARD).astype(np.float32), device="cuda")
        self.y_host = RNG.standard_normal(n + 2 * GUARD).astype(np.float32)
        self.y_host[GUARD : GUARD + n] = np.nan
        self.y_all = torch.tensor(self.y_host, device="cuda")
        self.x = self.x_all[GUARD + misalign : GUARD + misalign + n]
        self.y = self.y_all[GUARD : GUARD + n]

    def guards_intact(self) -> bool:
        y = self.y_all.cpu().numpy()
        end = GUARD + self.n
        return np.array_equal(y[:GUARD], self.y_host[:GUARD]) and np.array_equal(y[end:], self.y_host[end:])


def _still_usable():
    """The context works after a report: the copy kernel runs and is right."""
    k = _kernel("copy")
    b = _Buffers(N_COPY)
    k(b.x, b.y, sync=True)
    np.testing.assert_array_equal(b.y.cpu().numpy(), b.x.cpu().numpy())
    assert b.guards_intact()


def test_correct_copy_passes_check_mode():
    k = _kernel("copy")
    assert k.artifact("X=a16.e16.s;Y=a16.e16.s").contract["checks"]  # the vector variant carries checks
    b = _Buffers(N_COPY)
    k(b.x, b.y, sync=True)
    np.testing.assert_array_equal(b.y.cpu().numpy(), b.x.cpu().numpy())
    assert b.guards_intact()


def _raw_launch(x, y, n: int, grid: int):
    """Launches the copy kernel's 16-byte-vector variant with cupy, past every check of
    phobos's launcher, and decodes its check record (None: no check failed)."""
    cp = pytest.importorskip("cupy")
    art = _kernel("copy").artifact("X=a16.e16.s;Y=a16.e16.s")
    path = ARTIFACTS / "check" / "copy.cubin"
    path.write_bytes(art.cubin)
    module = cp.RawModule(path=str(path))
    fn = module.get_function(art.contract["kernel"])
    record = cp.ndarray((RECORD_WORDS,), cp.int32, memptr=module.get_global(RECORD))
    record[:] = 0
    fn((grid,), (art.contract["threads"],), (x, np.int64(n), y))
    cp.cuda.Device().synchronize()
    return decode([int(w) for w in record.get()], art.contract["checks"], art.contract["kernel"])


def test_slice_past_the_end_reported_at_its_line_and_cta():
    """A grid one CTA too large (phobos's launcher refuses it; a raw launch does not): the
    analysis took each slice as inside (the grid rule), so its mask was dropped; the last
    CTA's read is reported before it happens, and the other CTAs copy."""
    cp = pytest.importorskip("cupy")
    tiles = N_COPY // 256
    x = cp.asarray(RNG.standard_normal(N_COPY + 512).astype(np.float32))
    y = cp.full(N_COPY + 512, cp.nan, cp.float32)
    e = _raw_launch(x[:N_COPY], y[:N_COPY], N_COPY, tiles + 1)
    assert e is not None and e.check == "bounds"
    assert e.location.split(":")[1] == str(marker_line(COPY, "read"))
    assert e.cta == (tiles, 0, 0)
    assert e.value == N_COPY  # the slice's start
    assert 0 <= e.thread < 256
    np.testing.assert_array_equal(y[:N_COPY].get(), x[:N_COPY].get())
    assert bool(cp.isnan(y[N_COPY:]).all())  # nothing written past the end
    _still_usable()


def test_broken_aligned_reported_with_the_extent():
    k = _kernel("copy")
    n = 1000  # not a multiple of 256
    b = _Buffers(n)
    with pytest.raises(phobos.PromiseBroken) as info:
        k(b.x, b.y, check=False)  # past the host's @aligned check: the device reports it
    e = info.value
    assert e.check == "aligned" and e.value == n
    assert "N is a multiple of 256" in str(e)
    assert b.guards_intact()
    assert np.isnan(b.y.cpu().numpy()).all()  # every thread exited at entry
    _still_usable()


def test_lying_hint_reported_at_the_hint():
    k = _kernel("hinted_copy")
    hint_line = (ARTIFACTS / "check" / "hinted_copy" / "hint_line").read_text().strip()
    n = N_COPY - 4  # X[i + 4] stays inside X
    b = _Buffers(N_COPY)
    k(b.x, b.y, 4, n, sync=True)  # true: offsets + 4 are multiples of 4 in runs of 4
    expect = b.x_all.cpu().numpy()[GUARD + 4 : GUARD + 4 + n]
    np.testing.assert_array_equal(b.y.cpu().numpy()[:n], expect)
    b = _Buffers(N_COPY)
    with pytest.raises(phobos.PromiseBroken) as info:
        k(b.x, b.y, 5, n)  # a lie: offsets + 5 are not multiples of 4
    e = info.value
    assert e.check == "hint"
    assert e.location.endswith(f"check_mode_kernels.py:{hint_line}:" + e.location.rsplit(":", 1)[1])
    assert e.value % 4 != 0
    assert 0 <= e.cta[0] < N_COPY // 1024
    # threads holding no group's first element found nothing wrong in their own elements and
    # stored what they read; none read or wrote outside the tensors (the bounds checks)
    assert b.guards_intact()
    _still_usable()


def test_misaligned_base_under_a_vector_access():
    """A raw launch of the 16-byte-vector variant on a pointer 4 bytes off (phobos's own launch
    would pick the scalar variant): the vector read's alignment check reports it, no fault."""
    cp = pytest.importorskip("cupy")
    buf = cp.asarray(RNG.standard_normal(N_COPY + 8).astype(np.float32))
    y = cp.full(N_COPY, cp.nan, cp.float32)
    e = _raw_launch(buf[1 : 1 + N_COPY], y, N_COPY, N_COPY // 256)  # 4 bytes past a 16-byte boundary
    assert e is not None and e.check == "alignment"
    assert e.location.split(":")[1] == str(marker_line(COPY, "read"))
    assert e.value % 16 == 4  # the address
    assert bool(cp.isnan(y).all())  # no vector was read or written
    _still_usable()


def test_overlapping_store_reported_with_both_ctas():
    """`spread` stores Y[0 :+ 256] from every CTA (a warning at compile time): one CTA is fine,
    four overlap, and the store is reported at its line with the CTA that found another CTA's
    claim and that CTA's index. The claims are cleared after each launch, the failed one too."""
    k = _kernel("spread")
    for _ in range(2):  # the second launch finds the first one's claims cleared
        b = _Buffers(256)
        k(b.x, b.y, sync=True)
        np.testing.assert_array_equal(b.y.cpu().numpy(), b.x.cpu().numpy())
        assert b.guards_intact()
    x = _Buffers(1024)
    y = _Buffers(256)
    with pytest.raises(phobos.PromiseBroken) as info:
        k(x.x, y.y)
    e = info.value
    assert e.check == "overlap"
    assert e.location.split(":")[1] == str(marker_line(SPREAD, "store"))
    assert 0 <= e.cta[0] < 4 and 0 <= e.value < 4 and e.value != e.cta[0]
    assert y.guards_intact()
    b = _Buffers(256)
    k(b.x, b.y, sync=True)  # no stale claim of the failed launch is left
    np.testing.assert_array_equal(b.y.cpu().numpy(), b.x.cpu().numpy())
    _still_usable()


def _mm_inputs():
    import torch

    n = MM_SIZE
    a = torch.tensor(RNG.standard_normal((n, n)).astype(np.float32), device="cuda")
    b = torch.tensor(RNG.standard_normal((n, n)).astype(np.float32), device="cuda")
    c = torch.full((n, n), float("nan"), device="cuda")
    return a, b, c


def test_dot_through_shared_memory_passes_its_checks():
    a, b, c = _mm_inputs()
    _kernel("mm")(a, b, c, sync=True)
    want = a.cpu().numpy().astype(np.float64) @ b.cpu().numpy().astype(np.float64)
    np.testing.assert_allclose(c.cpu().numpy(), want, rtol=1e-4, atol=1e-4 * np.sqrt(MM_SIZE))


def test_buffer_planned_too_small_reported_before_the_overrun():
    """The same dot lowered with its lhs buffer one row short: the accesses to that row, which
    would land in the rhs buffer, are reported at the dot's line with the index past the end."""
    a, b, c = _mm_inputs()
    with pytest.raises(phobos.PromiseBroken) as info:
        _kernel("short_buffer")(a, b, c)
    e = info.value
    assert e.check == "shared"
    assert e.location.split(":")[1] == str(marker_line(MM, "dot"))
    assert "'lhs of the dot" in str(e) and "(372 elements at byte 0)" in str(e)
    assert 372 - 4 < e.value < 384  # an index into the missing row
    _still_usable()
