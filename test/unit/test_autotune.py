"""@autotune without a GPU: the space, pruning, tuning keys, the winner's cache, the parallel compile
into the kernel cache, and the choice itself, driven by a fake runner and a fake timer."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import phobos
from phobos import fp8
from phobos.runtime import autotune as at
from phobos.runtime import driver
from phobos.runtime.aot import like
from phobos.runtime.binding import Signature
from phobos.runtime.kernel import TunedLoadedKernel

ROOT = Path(__file__).resolve().parents[2]
KERNELS = ROOT / "bench" / "kernels"

# A small space that compiles quickly: three candidates.
SAXPY3 = """\
@autotune(BLOCK in [256, 512, 1024])
@launch(256)
kernel saxpy3(X: tensor<f32>[N], Y: tensor<f32>[N], a: f32) {
  let start = ctx.block.x * BLOCK
  Y[start :+ BLOCK] += a * X[start :+ BLOCK]
}
"""

# Two values written high to low are taken as written (low to high would mean every power of two).
ALIGNED = """\
@autotune(TN in [512, 128], W in [256, 128])
@aligned(N = TN)
@launch(W)
kernel scale_tn(X: tensor<f32>[N], Y: tensor<f32>[N], alpha: f32) {
  let s = ctx.block.x * TN
  Y[s :+ TN] = alpha * X[s :+ TN]
}
"""


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


# ----------------------------------------------------------------------------- fakes


class FakeTimer:
    """Times from a table by candidate name; records what it was asked to time."""

    def __init__(self, times_ms: dict[str, float]):
        self.times = times_ms
        self.asked: list[str] = []

    def __call__(self, fn, candidate):
        self.asked.append(candidate.name)
        fn()
        t = self.times[candidate.name]
        return [t * 1.02, t, t * 0.99, t * 1.5]  # the median is what counts


class FakeRunner:
    """saxpy on the host: each candidate computes Y + a X, except those in `wrong` (off by one at
    element `at`) and those in `faulty` (a launch error)."""

    def __init__(self, x, y, a, wrong=(), faulty=(), at_index=7):
        self.x, self.y, self.a = x, y, a
        self.wrong, self.faulty, self.at = set(wrong), set(faulty), at_index
        self.outputs_info = [("Y", "f32")]
        self.bytes_moved = 3 * x.nbytes
        self.ran: list[str] = []
        self.launches = 0

    def outputs(self, c):
        self.ran.append(c.name)
        if c.name in self.faulty:
            raise driver.CudaError("cuLaunchKernelEx failed: CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", 701, "X")
        out = self.y + np.float32(self.a) * self.x
        if c.name in self.wrong:
            out[self.at] += 1
        return [out]

    def reference_outputs(self, fn):
        x, y = self.x.copy(), self.y.copy()
        got = fn(x, y, self.a)
        if got is None:
            return [y]
        return list(got) if isinstance(got, tuple) else [got]

    def launcher(self, c):
        def launch():
            self.launches += 1

        return launch


def fresh(configs):
    return [at.Candidate(i, dict(c)) for i, c in enumerate(configs)]


@pytest.fixture
def data():
    rng = np.random.default_rng(1)
    return rng.standard_normal(4096).astype(np.float32), rng.standard_normal(4096).astype(np.float32)


# ----------------------------------------------------------------------------- the space


def test_cartesian_product_first_values_first():
    space = {"TM": [8, 16, 32], "TN": [128, 256]}
    got = at.candidates(space)
    assert len(got) == 6
    assert got[0] == {"TM": 8, "TN": 128}  # candidate 0: what PHOBOS_AUTOTUNE_DEFAULT=first runs untuned
    assert got[1] == {"TM": 8, "TN": 256}
    assert {tuple(c.values()) for c in got} == {(m, n) for m in (8, 16, 32) for n in (128, 256)}
    assert at.candidates(space, {"TM": 16}) == [{"TM": 16, "TN": 128}, {"TM": 16, "TN": 256}]
    assert at.candidates({}) == [{}]


def test_space_from_source_powers_of_two_and_defines():
    text = (KERNELS / "scale.ph").read_text()  # TM in [8, 64], TN in [128, 512]
    space = at.source_space(text, "scale.ph", None, None)
    assert space.space == {"TM": [8, 16, 32, 64], "TN": [128, 256, 512]}
    assert len(space.configs) == 12
    fixed = at.source_space(text, "scale.ph", None, {"TM": 32})
    assert [c["TM"] for c in fixed.configs] == [32, 32, 32] and fixed.fixed == {"TM": 32}
    saxpy = at.source_space((ROOT / "examples" / "saxpy.ph").read_text(), "saxpy.ph", None, None)
    assert [c["BLOCK"] for c in saxpy.configs] == [256, 512, 1024]


def test_space_promises_and_threads_per_candidate():
    space = at.source_space(ALIGNED, "a.ph", None, None)
    assert space.configs == [{"TN": 512, "W": 256}, {"TN": 512, "W": 128}, {"TN": 128, "W": 256}, {"TN": 128, "W": 128}]
    assert space.promises == [{"N": 512}, {"N": 512}, {"N": 128}, {"N": 128}]
    assert space.threads == [256, 128, 256, 128]


def test_mlir_sources_have_no_space():
    text = (ROOT / "examples" / "scale.mlir").read_text()
    assert at.source_space(text, "examples/scale.mlir", None, None) is None
    assert at.source_space(text, "<text>", None, None) is None  # recognised by its text too


def test_conservative_order_smallest_first():
    configs = [{"TM": 32, "TN": 128}, {"TM": 8, "TN": 512}, {"TM": 8, "TN": 128}, {"TM": 16, "TN": 128}]
    assert at.conservative_order(configs)[0] == 2
    assert at.conservative_order(configs) == [2, 3, 1, 0]  # 1024, 2048, 4096 (8x512 before 32x128)


def test_config_spellings():
    assert at.config_name({"TM": 8, "TN": 128}) == "TM=8 TN=128"
    assert at.config_folder({"TM": 8, "TN": 128}) == "TM8-TN128"


# ----------------------------------------------------------------------------- tuning keys


def signature_2d():
    tensor = {"kind": "tensor", "dtype": "f32", "rank": 2, "dims": ["M", "N"], "shape": [None, None]}
    return Signature(
        {
            "format": 1,
            "kernel": "scale",
            "name": "scale",
            "params": [
                dict(tensor, name="X"),
                dict(tensor, name="Y"),
                {"name": "alpha", "kind": "scalar", "dtype": "f32"},
            ],
            "abi": [],
            "grid": [None, 1, 1],
        }
    )


def test_bucket():
    assert [at.bucket(n) for n in (0, 1, 2, 3, 4, 5, 1000, 1024, 1025)] == [1, 1, 2, 4, 4, 8, 1024, 1024, 2048]


def test_tuning_key_default_buckets_extents():
    sig = signature_2d()

    def key(m, n, **kw):
        args = (like("f32", (m, n)), like("f32", (m, n)), 2.0)
        return at.tuning_key(sig, args, sig.describe(args), **kw)

    assert key(4096, 4096) == "X=4096x4096;Y=4096x4096"
    assert key(3000, 4000) == key(4096, 4096)  # the same bucket: one tuning serves both
    assert key(4097, 4096) != key(4096, 4096)
    assert key(5, 7, key=["N"]) == "N=7"  # a dimension symbol: its exact extent
    assert key(5, 7, key=["X", "alpha"]) == "X=5x7;alpha=2.0"  # a tensor's shape, a scalar's value
    assert key(5, 7, key=lambda x, y, a: x.shape[0] % 2) == "call:1"
    with pytest.raises(ValueError, match="names no parameter or dimension"):
        key(5, 7, key=["K"])


# ----------------------------------------------------------------------------- pruning


def test_promise_violation():
    assert at.promise_violation({"N": 128}, {"N": 384}) is None
    why = at.promise_violation({"M": 32, "N": 512}, {"M": 64, "N": 384})
    assert why == "breaks @aligned(N = 512): N = 384 is not a multiple of 512"


def test_resource_violation_registers_shared_threads():
    limits = at.Limits(registers_per_thread=255, registers_per_cta=65536, shared_per_cta=232448, threads_per_cta=1024)
    fits = at.Resources(registers=64, shared_bytes=0, frame_bytes=0)
    assert at.resource_violation(fits, 1024, 0, limits) is None  # 64 x 1024 = 65536 exactly
    heavy = at.Resources(registers=72, shared_bytes=0, frame_bytes=0)  # 72 x 32 = 2304 per warp, x 32 warps
    assert "need 73728 registers per CTA, over the chip's 65536" in at.resource_violation(heavy, 1024, 0, limits)
    assert at.resource_violation(heavy, 512, 0, limits) is None
    odd = at.Resources(registers=65, shared_bytes=0, frame_bytes=0)  # rounds up to 72 per thread
    assert at.resource_violation(odd, 1024, 0, limits) is not None
    big = at.Resources(registers=32, shared_bytes=200 * 1024, frame_bytes=0)
    assert "bytes of shared memory per CTA exceed" in at.resource_violation(big, 256, 40 * 1024, limits)
    assert at.resource_violation(big, 256, 0, limits) is None
    assert "threads per CTA exceed" in at.resource_violation(None, 2048, 0, limits)
    assert at.chip_limits("sm_90").shared_per_cta == 232448
    assert at.chip_limits("sm_90a").shared_per_cta == 232448
    assert at.chip_limits("sm_75").shared_per_cta == 65536


def test_cubin_resources_agree_with_ptxas(tmp_path):
    """The registers read from the cubin's .nv.info are what ptxas -v reports for the same PTX."""
    from phobos.target import toolkit_dir

    k = phobos.compile(KERNELS / "saxpy.ph", defines={"BLOCK": 4096}, cache_dir=tmp_path / "c")
    art = k.artifact()
    res = at.cubin_resources(art.cubin, art.contract["kernel"])
    assert res is not None and res.registers and res.registers > 8
    assert res.shared_bytes == 0
    ptxas = os.path.join(toolkit_dir() or "", "bin", "ptxas")
    if not os.path.isfile(ptxas):
        pytest.skip("no ptxas")
    ptx = tmp_path / "k.ptx"
    ptx.write_text(art.asm["ptx"])
    out = subprocess.run(
        [ptxas, "-v", "-arch=sm_90", str(ptx), "-o", str(tmp_path / "k.cubin")], capture_output=True, text=True
    )
    used = re.search(r"Used (\d+) registers", out.stdout + out.stderr)
    assert used and int(used.group(1)) == res.registers
    assert at.cubin_resources(b"not an elf", "x") is None


# ----------------------------------------------------------------------------- checking, timing, choosing


def test_fake_timer_picks_the_fastest(data):
    x, y = data
    cands = fresh([{"BLOCK": b} for b in (256, 512, 1024, 2048)])
    timer = FakeTimer({"BLOCK=256": 9.0, "BLOCK=512": 4.0, "BLOCK=1024": 3.0, "BLOCK=2048": 5.0})
    best, _, _ = at.evaluate(cands, FakeRunner(x, y, 2.0), timer)
    assert best.config == {"BLOCK": 1024} and best.status == "best"
    assert best.time_ms == pytest.approx((3.0 + 3.06) / 2)  # the median of the samples
    assert sorted(timer.asked) == sorted(c.name for c in cands)
    assert cands[0].status == "reference"  # the smallest BLOCK is the reference


def test_wrong_candidate_rejected_even_when_fastest(data):
    x, y = data
    cands = fresh([{"BLOCK": b} for b in (256, 512, 1024)])
    timer = FakeTimer({"BLOCK=256": 9.0, "BLOCK=512": 1.0, "BLOCK=1024": 3.0})
    runner = FakeRunner(x, y, 2.0, wrong={"BLOCK=512"})
    best, _, _ = at.evaluate(cands, runner, timer)
    assert best.config == {"BLOCK": 1024}
    wrong = cands[1]
    assert wrong.status == "wrong" and "Y differs from the reference in 1 of 4096 elements (first at 7" in wrong.reason
    assert "BLOCK=512" not in timer.asked  # never timed, never chosen


def test_failing_candidate_reported(data):
    x, y = data
    cands = fresh([{"BLOCK": b} for b in (256, 512)])
    best, _, _ = at.evaluate(
        cands, FakeRunner(x, y, 2.0, faulty={"BLOCK=512"}), FakeTimer({"BLOCK=256": 2.0, "BLOCK=512": 1.0})
    )
    assert best.config == {"BLOCK": 256}
    assert cands[1].status == "failed" and "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES" in cands[1].reason


def test_failing_reference_candidate_falls_back_to_the_next(data):
    x, y = data
    cands = fresh([{"BLOCK": b} for b in (256, 512, 1024)])
    runner = FakeRunner(x, y, 2.0, faulty={"BLOCK=256"}, wrong={"BLOCK=1024"})
    best, _, _ = at.evaluate(cands, runner, FakeTimer({"BLOCK=512": 2.0, "BLOCK=1024": 1.0}))
    assert cands[1].status == "best" and cands[1].reason == "also the reference"
    assert cands[2].status == "wrong"


def test_user_reference_in_place_and_returned(data):
    x, y = data

    def in_place(X, Y, a):
        Y += a * X

    def returned(X, Y, a):
        return (Y.astype(np.float64) + a * X.astype(np.float64),)  # float64: equal within f32 tolerance

    def off(X, Y, a):
        return Y + a * X + 1e-3

    for reference in (in_place, returned):
        cands = fresh([{"BLOCK": 256}, {"BLOCK": 512}])
        best, _, _ = at.evaluate(
            cands, FakeRunner(x, y, 2.0), FakeTimer({"BLOCK=256": 2.0, "BLOCK=512": 1.0}), reference=reference
        )
        assert best.config == {"BLOCK": 512} and cands[0].status == "ok"
    cands = fresh([{"BLOCK": 256}, {"BLOCK": 512}])
    best, _, _ = at.evaluate(cands, FakeRunner(x, y, 2.0), FakeTimer({}), reference=off)
    assert best is None and all(c.status == "wrong" for c in cands)
    # a looser tolerance accepts it
    cands = fresh([{"BLOCK": 256}, {"BLOCK": 512}])
    best, _, _ = at.evaluate(
        cands, FakeRunner(x, y, 2.0), FakeTimer({"BLOCK=256": 2.0, "BLOCK=512": 1.0}), reference=off, atol=1e-2
    )
    assert best.config == {"BLOCK": 512}


def test_compare_tolerances_by_dtype():
    a = np.linspace(-1, 1, 101).astype(np.float32)
    assert at.compare("Y", "f32", a, a * (1 + 1e-7)) is None
    assert at.compare("Y", "f32", a, a * (1 + 1e-4)) is not None
    h = a.astype(np.float16)
    assert at.compare("Y", "f16", h, (a * (1 + 5e-4)).astype(np.float16)) is None
    assert at.compare("Y", "bf16", a, a * (1 + 1e-2)) is None
    i = np.arange(10, dtype=np.int32)
    assert at.compare("Y", "i32", i, i) is None
    assert "1 of 10" in at.compare("Y", "i32", i, i + (i == 3))
    n = np.array([np.nan, 1.0], np.float32)
    assert at.compare("Y", "f32", n, n.copy()) is None  # NaN where the reference has NaN agrees
    assert at.compare("Y", "f32", n, np.array([0.0, 1.0], np.float32)) is not None
    assert "shape" in at.compare("Y", "f32", a, a[:5])


def test_result_table_and_json(data):
    x, y = data
    cands = fresh([{"BLOCK": b} for b in (256, 512, 1024)])
    cands[2].reject("pruned", "breaks @aligned(N = 1024): N = 4095 is not a multiple of 1024")
    runner = FakeRunner(x, y, 2.0)
    best, check_s, timing_s = at.evaluate(cands, runner, FakeTimer({"BLOCK=256": 2.0, "BLOCK=512": 1.0}))
    result = at.TuneResult("saxpy", cands, best, bytes_moved=runner.bytes_moved)
    table = result.table()
    lines = table.splitlines()
    assert lines[0].split()[:4] == ["candidate", "status", "time", "(us)"]
    assert lines[2].startswith("BLOCK=512") and "best" in lines[2]
    assert lines[-1].startswith("BLOCK=1024") and "pruned" in lines[-1] and "N = 4095" in lines[-1]
    gbps = result.gbps(best)
    assert gbps == pytest.approx(3 * 4096 * 4 / (best.time_ms * 1e6))
    row = json.loads(json.dumps(result.to_json()))["candidates"][0]
    assert row["candidate"] == "BLOCK=512" and row["vs_best"] == 1.0


def test_progress_only_on_a_terminal():
    quiet = io.StringIO()
    bar = at.Progress("compile", 3, stream=quiet)
    bar.step("BLOCK=256")
    bar.close()
    assert quiet.getvalue() == ""  # not a terminal: silent

    class Tty(io.StringIO):
        def isatty(self):
            return True

    loud = Tty()
    bar = at.Progress("compile", 2, stream=loud)
    bar.step("BLOCK=256")
    bar.step("BLOCK=512")
    bar.close()
    assert "compile [" in loud.getvalue() and "2/2" in loud.getvalue()


# ----------------------------------------------------------------------------- the tuner, fakes for the device


def test_tune_compiles_in_parallel_then_from_the_cache_and_stores_the_winner(tmp_path, data, monkeypatch):
    monkeypatch.delenv(at.ENV_JOBS, raising=False)
    x, y = data
    src = write(tmp_path, "saxpy3.ph", SAXPY3)
    cache = tmp_path / "cache"
    times = {"BLOCK=256": 3.0, "BLOCK=512": 1.5, "BLOCK=1024": 2.0}

    k = phobos.compile(src, cache_dir=cache)
    timer = FakeTimer(times)
    result = k.autotune(x, y, 2.0, runner=FakeRunner(x, y, 2.0), timer=timer, jobs=2, progress=False)
    assert result.best_config == {"BLOCK": 512} == k.best_config
    assert result.compiled == 3 and result.compile_s > 0  # a cold cache: every candidate compiled
    assert all(c.resources is not None and c.resources.registers for c in result.candidates)
    stored = Path(result.stored_at)
    assert stored.is_file() and stored.is_relative_to(cache / "autotune" / k.family)
    record = json.loads(stored.read_text())
    assert record["best"] == {"BLOCK": 512} and record["tuning_key"] == "X=4096;Y=4096"

    # a second tuning (a new kernel object, forced) compiles nothing: the candidates are in the kernel cache
    k2 = phobos.compile(src, cache_dir=cache)
    again = k2.autotune(x, y, 2.0, runner=FakeRunner(x, y, 2.0), timer=FakeTimer(times), progress=False)
    assert again.compiled == 0 and again.compile_s == 0.0 and again.best_config == {"BLOCK": 512}

    # force=False: the stored winner, nothing runs
    runner = FakeRunner(x, y, 2.0)
    k3 = phobos.compile(src, cache_dir=cache)
    cached = k3.autotune(x, y, 2.0, runner=runner, timer=FakeTimer({}), force=False)
    assert cached.from_cache and cached.best_config == {"BLOCK": 512} and runner.ran == []

    # another bucket of extents misses the store
    x2, y2 = np.ones(5000, np.float32), np.ones(5000, np.float32)
    tuner = k3._get_tuner(explicit=True)
    sig = k3.signature
    spec = sig.bind((x2, y2, 2.0), sig.describe((x2, y2, 2.0)), grid=(0, 0, 0), check_promises=False).key.to_text()
    tkey = at.tuning_key(sig, (x2, y2, 2.0), sig.describe((x2, y2, 2.0)))
    assert tkey == "X=8192;Y=8192"
    assert tuner.store.get(k3.family, spec, tkey, result.device) is None
    assert tuner.store.get(k3.family, result.spec_key, result.tuning_key, result.device) is not None


def test_launch_decision_uses_the_store_without_tuning(tmp_path, data):
    """What a launch on a new layout does (Tuner.decide): the stored winner, no compile or run."""
    x, y = data
    src = write(tmp_path, "saxpy3.ph", SAXPY3)
    cache = tmp_path / "cache"
    k = phobos.compile(src, cache_dir=cache)
    k.autotune(
        x,
        y,
        2.0,
        runner=FakeRunner(x, y, 2.0),
        timer=FakeTimer({"BLOCK=256": 3.0, "BLOCK=512": 5.0, "BLOCK=1024": 1.0}),
    )
    k2 = phobos.compile(src, cache_dir=cache)
    tuner = k2._get_tuner()
    sig = k2.signature
    args = (x, y, 2.0)
    views = sig.describe(args)
    spec = sig.bind(args, views, grid=(0, 0, 0), check_promises=False).key.to_text()

    def no_tuning(*a, **kw):
        raise AssertionError("a stored winner must not be tuned again")

    tuner.tune = no_tuning
    index = tuner.decide(sig, args, views, spec)
    assert tuner.configs[index] == {"BLOCK": 1024}
    assert tuner.decide(sig, args, views, spec) == index  # remembered in this process too


def test_promise_pruning_before_compiling(tmp_path, data):
    x = np.ones(384, np.float32)
    y = np.zeros(384, np.float32)
    src = write(tmp_path, "aligned.ph", ALIGNED)
    k = phobos.compile(src, cache_dir=tmp_path / "cache")
    runner = FakeRunner(x, y, 2.0)
    runner.outputs = lambda c: [2.0 * x]
    result = k.autotune(x, y, 2.0, runner=runner, timer=FakeTimer({"TN=128 W=128": 2.0, "TN=128 W=256": 1.0}))
    by = {c.name: c for c in result.candidates}
    assert by["TN=512 W=128"].status == "pruned"
    assert by["TN=512 W=128"].reason == "breaks @aligned(N = 512): N = 384 is not a multiple of 512"
    assert not by["TN=512 W=256"].compiled  # pruned before compiling
    assert result.compiled == 2 and result.best_config == {"TN": 128, "W": 256}
    assert by["TN=128 W=256"].threads == 256


def test_compile_errors_are_reasons(tmp_path, data):
    """A candidate the compiler refuses (here a tile over the front end's element limit) is
    reported with the compiler's first error; the others are tuned."""
    x, y = data
    text = SAXPY3.replace("[256, 512, 1024]", "[256, 512, 33554432]")  # three values: as written
    src = write(tmp_path, "big.ph", text)
    k = phobos.compile(src, cache_dir=tmp_path / "cache")
    result = k.autotune(
        x, y, 2.0, runner=FakeRunner(x, y, 2.0), timer=FakeTimer({"BLOCK=256": 1.0, "BLOCK=512": 2.0}), jobs=1
    )
    bad = [c for c in result.candidates if c.config == {"BLOCK": 33554432}][0]
    assert bad.status in ("failed", "pruned") and bad.reason
    assert result.best_config == {"BLOCK": 256}


def test_autotune_off_and_trivial_spaces(tmp_path, monkeypatch):
    src = write(tmp_path, "saxpy3.ph", SAXPY3)
    monkeypatch.setattr(driver, "available", lambda: True)
    k = phobos.compile(src, cache_dir=tmp_path / "c")
    assert k._launch_tuner() is not None and len(k._launch_tuner()) == 3
    monkeypatch.setenv(at.ENV, "0")
    assert phobos.compile(src, cache_dir=tmp_path / "c")._launch_tuner() is None  # PHOBOS_AUTOTUNE=0
    monkeypatch.delenv(at.ENV)
    assert phobos.compile(src, cache_dir=tmp_path / "c", autotune=False)._launch_tuner() is None
    assert phobos.compile(src, cache_dir=tmp_path / "c", defines={"BLOCK": 512})._launch_tuner() is None
    assert phobos.compile(ROOT / "examples" / "scale.mlir", cache_dir=tmp_path / "c")._launch_tuner() is None
    with pytest.raises(ValueError, match="no @autotune space"):
        phobos.compile(ROOT / "examples" / "scale.mlir", cache_dir=tmp_path / "c").autotune(
            like("f32", (64, 128)), like("f32", (64, 128)), 2.0, runner=object()
        )
    monkeypatch.setattr(driver, "available", lambda: False)  # no GPU: a launch compiles nothing extra
    assert phobos.compile(src, cache_dir=tmp_path / "c")._launch_tuner() is None


def test_env_values():
    for value, on in (("0", False), ("off", False), ("1", True), ("", True), ("yes", True)):
        os.environ[at.ENV] = value
        try:
            assert at.enabled() is on
        finally:
            del os.environ[at.ENV]


# ----------------------------------------------------------------------------- ahead of time: every candidate


def test_aot_all_candidates_then_tune_from_the_folder(tmp_path, data):
    x, y = data
    src = write(tmp_path, "aligned.ph", ALIGNED)
    out = tmp_path / "aot"
    manifest = phobos.runtime.aot.compile_all_candidates(
        src, out, examples=[(like("f32", (384,)), like("f32", (384,)), 2.0), (like("f32", (4096,)),) * 2 + (2.0,)]
    )
    assert [c["status"] for c in manifest["candidates"]] == ["ok"] * 4
    big = [c for c in manifest["candidates"] if c["config"]["TN"] == 512][0]
    assert len(big["skipped_examples"]) == 1 and "@aligned(N = 512) is broken" in big["skipped_examples"][0]
    assert (out / "autotune.json").is_file() and (out / "candidates" / "TN128-W256").is_dir()
    k = phobos.load(out)
    assert isinstance(k, TunedLoadedKernel) and k.name == "scale_tn"
    x4, y4 = np.ones(4096, np.float32), np.zeros(4096, np.float32)
    runner = FakeRunner(x4, y4, 2.0)
    runner.outputs = lambda c: [2.0 * x4]
    times = {"TN=128 W=128": 4.0, "TN=128 W=256": 3.0, "TN=512 W=128": 1.0, "TN=512 W=256": 2.0}
    result = k.autotune(x4, y4, 2.0, runner=runner, timer=FakeTimer(times))
    assert result.best_config == {"TN": 512, "W": 128} and result.compiled == 0
    assert Path(result.stored_at).is_relative_to(out / "autotune")  # next to the folder's kernels
    # the variant for a key the folder lacks is that candidate's failure, not the tuning's
    x3, y3 = np.ones(384 * 3, np.float32)[1:385], np.zeros(384, np.float32)  # a misaligned base: another key
    runner = FakeRunner(x3, y3, 2.0)
    runner.outputs = lambda c: [2.0 * x3]
    result = k.autotune(x3, y3, 2.0, runner=runner, timer=FakeTimer(times))
    assert {c.status for c in result.candidates if c.config["TN"] == 512} == {"pruned"}


def test_cli_tune_compile_only_and_aot(tmp_path):
    src = write(tmp_path, "aligned.ph", ALIGNED)
    env = dict(os.environ, PHOBOS_CACHE_DIR=str(tmp_path / "cache"))
    run = [sys.executable, "-m", "phobos.cli.driver"]
    done = subprocess.run(
        run + ["tune", str(src), "--args", "f32[384] f32[384] 2.0", "--compile-only"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert "TN=512 W=128  pruned" in done.stdout and "N = 384 is not a multiple of 512" in done.stdout
    assert "TN=128 W=256  compiled" in done.stdout
    bad = subprocess.run(run + ["tune", str(src), "--args", "f32[384] nonsense"], capture_output=True, text=True)
    assert bad.returncode == 1 and "--args" in bad.stderr and "Traceback" not in bad.stderr
    aot = subprocess.run(
        run + ["aot", str(src), "-o", str(tmp_path / "aot"), "--all-candidates", "--args", "f32[512] f32[512] 2.0"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert aot.returncode == 0, aot.stderr
    assert "autotune.json: 4 candidates" in aot.stdout
    assert json.loads((tmp_path / "aot" / "autotune.json").read_text())["kernel"] == "scale_tn"


# ----------------------------------------------------------------------------- comparing where the outputs are


def _mismatches():
    """(got, want, expected message parts) cases every comparison backend must agree on."""
    a = np.linspace(-1, 1, 101).astype(np.float32)
    i = np.arange(12, dtype=np.int32).reshape(3, 4)
    n = np.array([np.nan, 1.0, 2.0], np.float32)
    off = a.copy()
    off[7] += 0.5
    return [
        ("f32", a, a.copy(), None),
        ("f32", a, a * (1 + 1e-7), None),
        ("f32", off, a, ["1 of 101 elements", "first at 7", "max abs error 0.5"]),
        ("i32", i, i.copy(), None),
        ("i32", i + (i == 6), i, ["1 of 12 elements", "first at (1, 2)"]),
        ("f32", n, n.copy(), None),  # NaN where the reference has NaN agrees
        ("f32", np.array([np.nan, 1, 2], np.float32), np.array([0, 1, 2], np.float32), ["1 of 3", "max abs error nan"]),
        ("f32", a, a[:5], ["has shape (101,), the reference (5,)"]),
    ]


def test_compare_with_a_numpy_like_module_matches_the_numpy_path():
    # the cupy path is compare's numpy code with the module swapped: run it with numpy itself
    for dtype, got, want, parts in _mismatches():
        default = at.TOLERANCES.get(dtype, (0.0, 0.0))
        why = at._compare_xp(np, "Y", got, want, *default)
        assert why == at.compare("Y", dtype, got, want)
        assert (why is None) == (parts is None), (dtype, why)
        for part in parts or ():
            assert part in why


def test_compare_on_torch_tensors_agrees_with_numpy():
    torch = pytest.importorskip("torch")
    for dtype, got, want, _parts in _mismatches():
        on_host = at.compare("Y", dtype, got, want)
        assert at.compare("Y", dtype, torch.from_numpy(got), torch.from_numpy(want)) == on_host
        assert at.compare("Y", dtype, torch.from_numpy(got), want) == on_host  # a host reference is moved
    bits = torch.tensor([1.0, 2.0], dtype=torch.bfloat16).float()
    assert at.compare("Y", "bf16", bits, bits * (1 + 1e-3)) is None


def test_array_module():
    assert at._array_module(np.zeros(2)) is None
    assert at._array_module([1, 2]) is None

    class FakeTorch:
        pass

    FakeTorch.__module__ = "torch"
    assert at._array_module(FakeTorch()) == "torch"
    FakeTorch.__module__ = "cupy._core.core"
    assert at._array_module(FakeTorch()) == "cupy"


def test_compare_backend_follows_the_arguments_else_the_host(monkeypatch):
    from phobos.runtime.arrays import ArrayArg

    def view(framework):
        return ArrayArg(0, (4,), (1,), "f32", -1 if framework == "numpy" else 0, framework)

    monkeypatch.delenv(at.ENV_COMPARE, raising=False)
    have = {m: m in sys.modules for m in ("torch", "cupy")}
    if not any(have.values()):  # neither framework imported: numpy arguments compare on the host
        assert at.compare_backend([view("numpy")]) == "host"
    assert at.compare_backend([view("torch")], "host") == "host"
    monkeypatch.setenv(at.ENV_COMPARE, "host")
    assert at.compare_backend([view("torch")]) == "host"
    monkeypatch.setenv(at.ENV_COMPARE, "gpu")
    with pytest.raises(ValueError, match="auto, host, torch or cupy"):
        at.compare_backend([view("numpy")])
    monkeypatch.delenv(at.ENV_COMPARE)
    # a framework that is missing or reaches no GPU gives way to the host
    monkeypatch.setitem(sys.modules, "cupy", None)  # import cupy raises ImportError
    assert at.compare_backend([view("cupy")], "cupy") == "host"


def test_aot_without_the_generic_variant_or_the_stage_texts(tmp_path):
    src = write(tmp_path, "aligned.ph", ALIGNED)
    out = tmp_path / "aot"
    # two keys: N = 384 with X's base not 16-byte aligned, N = 4096 aligned
    examples = [(like("f32", (384,), align=4), like("f32", (384,)), 2.0), (like("f32", (4096,)),) * 2 + (2.0,)]
    with pytest.raises(ValueError, match="needs keys or examples"):
        at.compile_candidates(src, out, chip="sm_90", generic=False)
    manifest = at.compile_candidates(src, out, chip="sm_90", examples=examples, generic=False, stages=False, jobs=1)
    assert [c["status"] for c in manifest["candidates"]] == ["ok"] * 4
    assert manifest["compile_workers"] == 1 and manifest["variants"] == 6  # TN=512 takes only N = 4096
    big = [c for c in manifest["candidates"] if c["config"]["TN"] == 512][0]
    assert len(big["keys"]) == 1 and "N = 384 is not a multiple of 512" in big["skipped_examples"][0]
    small = [c for c in manifest["candidates"] if c["config"]["TN"] == 128][0]
    assert len(small["keys"]) == 2 and "" not in small["keys"] and not small["skipped_examples"]
    entries = list((out / "candidates").glob("*/*/*/entry.json"))
    assert len(entries) == 6 and not list((out / "candidates").glob("*/*/generic"))
    assert not list((out / "candidates").glob("*/*/*/asm"))
    # what launching needs is there: each candidate's variant for the example keys, no compiler
    k = phobos.load(out)
    assert isinstance(k, TunedLoadedKernel) and k.name == "scale_tn"
    x, y = np.ones(4096, np.float32), np.zeros(4096, np.float32)
    key = k.key(x, y, 2.0).to_text()
    assert key in small["keys"] and key in big["keys"]
    assert k.candidates[0]._variant(k.key(x, y, 2.0), None).cubin
    runner = FakeRunner(x, y, 2.0)
    runner.outputs = lambda c: [2.0 * x]
    times = {"TN=128 W=128": 4.0, "TN=128 W=256": 3.0, "TN=512 W=128": 1.0, "TN=512 W=256": 2.0}
    result = k.autotune(x, y, 2.0, runner=runner, timer=FakeTimer(times))
    assert result.best_config == {"TN": 512, "W": 128} and all(c.status != "failed" for c in result.candidates)


def test_a_failing_device_comparison_falls_back_to_the_host():
    class Scratch:
        def snapshot(self, backend):
            raise TypeError(f"{backend} cannot view this memory")

        def download(self):
            return np.zeros(3, np.float32)

    runner = object.__new__(at.DeviceRunner)  # only what _read uses
    runner.compare_on, runner.compare_fallback = "torch", None
    got = runner._read(Scratch())
    assert isinstance(got, np.ndarray) and runner.compare_on == "host"
    assert runner.compare_fallback == "torch: TypeError: torch cannot view this memory"


# ----------------------------------------------------------------------------- fp8 outputs


def _e4m3(*values):
    return fp8.encode(np.array(values, np.float64), "f8e4m3")


def test_fp8_outputs_compare_as_values_not_codes():
    # 256 and 288 are neighbouring codes (0x70, 0x71): as integers they differ by 1, as values by 32
    assert "1 of 1" in at.compare("Y", "f8e4m3", _e4m3(288.0), _e4m3(256.0), rtol=0.0, atol=1.0)
    # equal values with different codes agree: -0 and +0, and the two NaNs of f8e4m3
    assert at.compare("Y", "f8e4m3", _e4m3(-0.0), _e4m3(0.0)) is None
    assert at.compare("Y", "f8e4m3", np.array([0xFF], np.uint8), np.array([0x7F], np.uint8)) is None
    # one unit in the last place is within the default tolerance, as for the other floats; two are not
    assert at.compare("Y", "f8e4m3", _e4m3(1.125, -3.5), _e4m3(1.0, -3.25)) is None
    assert (
        at.compare("Y", "f8e5m2", fp8.encode(np.array([1.25]), "f8e5m2"), fp8.encode(np.array([1.0]), "f8e5m2")) is None
    )
    why = at.compare("Y", "f8e4m3", _e4m3(1.0, 1.25), _e4m3(1.0, 1.0))
    assert "1 of 2 elements (first at 1: 1.25 vs 1;" in why  # the message shows values, not codes
    # a poisoned (all bits set: NaN) element never agrees with a number
    assert at.compare("Y", "f8e5m2", np.array([0xFF], np.uint8), fp8.encode(np.array([2.0]), "f8e5m2")) is not None


def test_compare_infinities_agree_only_when_equal():
    # (an infinite reference made the tolerance infinite: any value agreed with it)
    inf = np.array([np.inf, -np.inf, 1.0], np.float32)
    assert at.compare("Y", "f32", inf, np.array([np.inf, -np.inf, 1.0 + 1e-7], np.float32)) is None
    assert "1 of 3" in at.compare("Y", "f32", inf, np.array([-np.inf, -np.inf, 1.0], np.float32))
    assert "1 of 1" in at.compare("Y", "f32", np.array([1.0], np.float32), np.array([np.inf], np.float32))
    assert "1 of 1" in at.compare("Y", "f8e5m2", fp8.encode(np.array([2.0]), "f8e5m2"), np.array([0x7C], np.uint8))


def _fp8_runner(out_codes, dtype="f8e4m3"):
    """A DeviceRunner with only what reference_outputs reads: X (f32, on the host) in, Y (fp8) out."""
    from phobos.runtime.arrays import HOST

    class Pristine:
        def download(self):
            return out_codes.copy()

    x = np.array([1.0, -2.5, 300.0, 1000.0], np.float32)
    runner = object.__new__(at.DeviceRunner)
    runner.signature = type("Sig", (), {"tensors": [0, 1]})()
    runner.args = [x, None]
    runner._pristine = {1: Pristine()}
    runner._host_inputs = {0: type("View", (), {"device": HOST, "host": x})()}
    runner.written = [1]
    runner.outputs_info = [("Y", dtype)]
    runner.compare_on = "host"
    return runner, x


def test_fp8_reference_outputs_are_converted_not_truncated():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    runner, x = _fp8_runner(np.zeros(4, np.uint8))
    kernel = fp8.encode(x, "f8e4m3")  # what a kernel writing Y = X gives: 1000 saturates to 448
    for reference in (
        lambda X, Y: X,  # float32 values, returned
        lambda X, Y: X.clip(-448, 448).astype(ml_dtypes.float8_e4m3fn),  # ml_dtypes' fp8 (1000 -> NaN)
        lambda X, Y: fp8.encode(X, "f8e4m3"),  # codes
    ):
        (want,) = runner.reference_outputs(reference)
        assert want.dtype == np.uint8 and want.tolist() == kernel.tolist()
        assert at.compare("Y", "f8e4m3", kernel, want) is None

    def in_place(X, Y):
        Y[:] = fp8.encode(X * 2, "f8e4m3")

    (want,) = runner.reference_outputs(in_place)
    assert want.tolist() == fp8.encode(x * 2, "f8e4m3").tolist()
    # ml_dtypes' f8e5m2 values for an f8e4m3 output are converted by value
    (want,) = runner.reference_outputs(lambda X, Y: X.clip(-448, 448).astype(ml_dtypes.float8_e5m2))
    assert at.compare("Y", "f8e4m3", kernel, want) is None


def test_fp8_outputs_through_evaluate():
    x = np.linspace(-4, 4, 64)
    exact = fp8.encode(x, "f8e4m3")
    ulp_off = exact.copy()
    ulp_off[5] += 1  # one unit in the last place (a different rounding): agrees
    wrong = exact.copy()
    wrong[9] ^= 0x80  # the sign flipped

    class Fp8Runner(FakeRunner):
        def outputs(self, c):
            return [{"BLOCK=256": exact, "BLOCK=512": ulp_off, "BLOCK=1024": wrong}[c.name].copy()]

    runner = Fp8Runner(x, x, 1.0)
    runner.outputs_info = [("Y", "f8e4m3")]
    cands = fresh([{"BLOCK": b} for b in (256, 512, 1024)])
    times = {"BLOCK=256": 3.0, "BLOCK=512": 2.0, "BLOCK=1024": 1.0}
    best, _, _ = at.evaluate(cands, runner, FakeTimer(times), reference=lambda X, Y, a: X.astype(np.float32))
    assert [c.status for c in cands] == ["ok", "best", "wrong"]
    assert "first at 9" in cands[2].reason


def test_reordered_sums_agree_relative_to_the_largest_magnitude():
    # Attention's candidates sum their key blocks in other orders: an output near zero amid ones
    # near 1 may differ by a unit of the large ones (here 4e-4 on 1e-3: 40% of itself), which the
    # default tolerance allows; ten such units, or a wrong value, do not pass.
    want = np.array([1.0, -0.8, 1e-3], np.float16)
    assert at.compare("O", "f16", np.array([1.0, -0.8, 1.4e-3], np.float16), want) is None
    assert "1 of 3" in at.compare("O", "f16", np.array([1.0, -0.8, 1.1e-2], np.float16), want)
    # the largest element keeps its own relative tolerance (not twice it)
    assert "1 of 3" in at.compare("O", "f16", np.array([1.0025, -0.8, 1e-3], np.float16), want)
    # a caller's atol is taken as given: no floor from the largest magnitude
    assert "1 of 3" in at.compare("O", "f16", np.array([1.0, -0.8, 1.4e-3], np.float16), want, atol=1e-5)
