"""GPU tests of @autotune (pytest -m gpu; skipped without a GPU).

The candidates come precompiled (the GPU machine has no MLIR): bench/autotune_build.py writes one
folder per kernel with every candidate (phobos aot --all-candidates) under
$PHOBOS_AUTOTUNE_ARTIFACTS (default .cache/autotune). Each test tunes a private copy of a folder,
so winners stored by one test never decide another.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np
import pytest

import phobos
from phobos.runtime import autotune as at

pytestmark = pytest.mark.gpu

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(os.environ.get("PHOBOS_AUTOTUNE_ARTIFACTS", ROOT / ".cache" / "autotune"))


@pytest.fixture
def folder(tmp_path):
    def copy(name: str) -> Path:
        src = ARTIFACTS / name
        if not (src / "autotune.json").is_file():
            pytest.skip(f"no candidates folder {src}; run bench/autotune_build.py")
        copies = len(list(tmp_path.glob(f"{name}*")))  # a test may load two fresh copies
        dst = tmp_path / (name if not copies else f"{name}-{copies}")
        shutil.copytree(src, dst)
        return dst

    return copy


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def cdiv(a, b):
    return -(-a // b)


def test_tuning_picks_a_correct_and_the_fastest_measured_candidate(folder, torch):
    k = phobos.load(folder("saxpy_tune"))
    n = 1 << 22
    x = torch.randn(n, device="cuda")
    y = torch.randn(n, device="cuda")
    y0 = y.clone()
    result = k.autotune(x, y, 2.0)
    torch.cuda.synchronize()
    assert torch.equal(y, y0)  # tuning ran on copies: the caller's tensors are untouched
    timed = [c for c in result.candidates if c.time_ms is not None]
    assert len(timed) == 10 and all(c.status in ("ok", "best", "reference") for c in timed)
    assert result.best.time_ms == min(c.time_ms for c in timed)
    assert k.best_config == result.best_config
    assert result.compile_s == 0.0 and result.timing_s > 0 and result.check_s > 0
    assert all(len(c.times_ms) >= 10 for c in timed)
    # GB/s is physical: below 6 TB/s, above 50 GB/s for the winner of a 48 MiB saxpy
    assert 50 < result.gbps(result.best) < 6000
    k(x, y, 2.0)
    torch.cuda.synchronize()
    want = y0.double() + 2.0 * x.double()
    assert torch.allclose(y.double(), want, rtol=1e-6, atol=1e-6)
    assert k._last.contract["bindings"] == result.best_config  # the launch used the winner


def test_a_wrong_candidate_is_rejected_even_when_fastest(folder, torch):
    k = phobos.load(folder("scale_gaps"))
    n = 1 << 24
    x = torch.randn(n, device="cuda")
    y = torch.empty(n, device="cuda")

    def grid(meta):
        return (cdiv(meta["N"], meta["BLOCK"]),)

    result = k.autotune(x, y, 3.0, grid=grid)
    by = {c.name: c for c in result.candidates}
    for block in (256, 512, 1024):
        gaps = by[f"BLOCK={block} STEP=2"]
        assert gaps.status == "wrong" and "Y differs from the reference" in gaps.reason, gaps
        assert gaps.time_ms is None
        assert by[f"BLOCK={block} STEP=1"].status in ("ok", "best", "reference")
    assert result.best_config["STEP"] == 1
    # they are faster: timed on their own, each beats every correct candidate
    timer = at.EventTimer()
    runner = at.DeviceRunner(k.signature, (x, y, 3.0), k.signature.describe((x, y, 3.0)), grid=grid)
    try:
        wrong = [c for c in result.candidates if c.status == "wrong"]
        fastest_wrong = min(np.median(timer(runner.launcher(c), c)) for c in wrong)
    finally:
        runner.close()
        timer.close()
    assert fastest_wrong < result.best.time_ms

    # with a user reference (in float64) the same candidates are rejected
    def reference(X, Y, a):
        return a * X.astype(np.float64)

    again = k.autotune(x, y, 3.0, grid=grid, reference=reference)
    assert {c.name for c in again.candidates if c.status == "wrong"} == {f"BLOCK={b} STEP=2" for b in (256, 512, 1024)}
    k(x, y, 3.0, grid=grid)
    torch.cuda.synchronize()
    assert torch.allclose(y, 3.0 * x)


def test_outputs_compared_on_the_device_agree_with_the_host(folder, torch, monkeypatch):
    """torch arguments: the candidates' outputs are compared on the GPU (device copies, nothing read
    back); the verdicts and the reasons, down to the numbers, are those of the host comparison
    (and of cupy's, where it is installed)."""
    k = phobos.load(folder("scale_gaps"))
    n = 1 << 20
    x = torch.randn(n, device="cuda")
    y = torch.empty(n, device="cuda")

    def grid(meta):
        return (cdiv(meta["N"], meta["BLOCK"]),)

    def verdicts(result):
        return {
            c.name: (c.status if c.status == "wrong" else "right", c.reason if c.status == "wrong" else "")
            for c in result.candidates
        }

    monkeypatch.delenv(at.ENV_COMPARE, raising=False)
    on_gpu = k.autotune(x, y, 3.0, grid=grid, store=False)
    assert on_gpu.compared_on == "torch"
    assert sum(v[0] == "wrong" for v in verdicts(on_gpu).values()) == 3
    monkeypatch.setenv(at.ENV_COMPARE, "host")
    on_host = k.autotune(x, y, 3.0, grid=grid, store=False)
    assert on_host.compared_on == "host"
    assert verdicts(on_gpu) == verdicts(on_host)
    try:
        import cupy  # noqa: F401
    except ImportError:
        return
    monkeypatch.setenv(at.ENV_COMPARE, "cupy")
    on_cupy = k.autotune(x, y, 3.0, grid=grid, store=False)
    assert on_cupy.compared_on == "cupy"
    assert verdicts(on_cupy) == verdicts(on_host)


def test_first_launch_tunes_once_and_stays_correct(folder, torch):
    path = folder("saxpy_tune")
    k = phobos.load(path)
    n = 1000003  # ragged: the masked variant
    x = torch.randn(n, device="cuda")
    y = torch.randn(n, device="cuda")
    y0 = y.clone()
    k(x, y, 2.0)  # tunes on copies, then launches the winner once on y
    torch.cuda.synchronize()
    assert torch.allclose(y.double(), y0.double() + 2.0 * x.double(), rtol=1e-6, atol=1e-6)
    first = k.tuning
    assert first is not None and k.best_config == first.best_config
    assert first.tuning_key == "X=1048576;Y=1048576"
    # the same bucket and key: no new tuning, the same winner
    x2, y2 = torch.randn(1000001, device="cuda"), torch.randn(1000001, device="cuda")
    y2c = y2.clone()
    k(x2, y2, -1.0)
    torch.cuda.synchronize()
    assert k.tuning is first
    assert torch.allclose(y2, y2c - x2, rtol=1e-6, atol=1e-6)
    # a new kernel object (a new process, as far as the store is concerned) launches the stored winner
    k2 = phobos.load(path)
    y3 = y0.clone()
    k2(x, y3, 2.0)
    torch.cuda.synchronize()
    assert k2.tuning is None and k2.best_config == first.best_config
    assert torch.equal(y3, y)


def test_autotune_off_launches_the_untuned_default(folder, torch, monkeypatch):
    """PHOBOS_AUTOTUNE=0: nothing is tuned; the launch runs the cost model's pick (the manifest's
    facts), or candidate 0 with PHOBOS_AUTOTUNE_DEFAULT=first."""
    monkeypatch.setenv(at.ENV, "0")
    monkeypatch.delenv(at.ENV_DEFAULT, raising=False)
    x = torch.randn(1 << 22, device="cuda")
    k = phobos.load(folder("saxpy_tune"))
    y = torch.zeros_like(x)
    k(x, y, 2.0)
    torch.cuda.synchronize()
    choice = k._tuner.last_default
    assert k.tuning is None and choice.how == "model" and k.best_config == choice.config
    assert k._last.contract["bindings"] == choice.config and choice.config["BLOCK"] >= 512
    assert torch.allclose(y, 2.0 * x)
    monkeypatch.setenv(at.ENV_DEFAULT, "first")
    k = phobos.load(folder("saxpy_tune"))
    y = torch.zeros_like(x)
    k(x, y, 2.0)
    torch.cuda.synchronize()
    assert k.tuning is None and k._last.contract["bindings"] == {"BLOCK": 16}
    assert torch.allclose(y, 2.0 * x)


def test_scale_2d_padded_rows_and_guard_zones(folder, torch):
    """Candidates run on scratch buffers laid out like the arguments (padded rows: the same key)."""
    k = phobos.load(folder("scale"))
    m, n = 1000, 1000
    fx = torch.randn(m * (n + 3) + 64, device="cuda")
    fy = torch.randn(m * (n + 7) + 64, device="cuda")
    fy0 = fy.clone()
    x = torch.as_strided(fx, (m, n), (n + 3, 1), 32)
    y = torch.as_strided(fy, (m, n), (n + 7, 1), 32)
    result = k.autotune(x, y, 2.0)
    torch.cuda.synchronize()
    assert torch.equal(fy, fy0)
    assert result.spec_key == k.key(x, y, 2.0).to_text()
    assert sum(c.time_ms is not None for c in result.candidates) == 12
    k(x, y, 2.0)
    torch.cuda.synchronize()
    assert torch.allclose(y, 2.0 * x)
    inside = torch.zeros_like(fy, dtype=torch.bool)
    torch.as_strided(inside, (m, n), (n + 7, 1), 32).fill_(True)
    assert torch.equal(fy[~inside], fy0[~inside])  # padding and guard zones unchanged


def test_numpy_arguments_and_a_reference(folder):
    k = phobos.load(folder("scale"))
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1000, 1000)).astype(np.float32)
    y = np.full_like(x, np.nan)
    calls = []

    def reference(X, Y, alpha):
        calls.append(X.shape)
        Y[...] = alpha * X.astype(np.float64)

    result = k.autotune(x, y, 0.5, reference=reference)
    assert calls == [(1000, 1000)] and np.isnan(y).all()  # the caller's y is untouched
    assert all(c.status in ("ok", "best") for c in result.candidates)
    k(x, y, 0.5)
    np.testing.assert_allclose(y, 0.5 * x, rtol=1e-6)


def test_event_timer_measures_device_time(torch):
    from phobos.runtime import driver

    driver.init()
    a = torch.empty(1 << 26, device="cuda")  # 256 MiB
    samples = at.EventTimer()(lambda: a.fill_(1.0))
    bandwidth = a.numel() * 4 / (np.median(samples) * 1e6)  # GB/s of a write-only fill
    assert len(samples) >= 10 and 300 < bandwidth < 6000
