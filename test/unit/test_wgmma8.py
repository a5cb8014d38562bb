"""8-bit operands on sm_90a's wgmma (lowering/wgmma8.py): the kernels in the interpreter
against numpy, and the compiler's decisions (the instruction, the TMA maps of 1-byte
elements, the K-major rule and its located warning, the PTX ISA each needs).

The kernels are bench/kernels/wgmma_i8.ph, wgmma_fp8.ph and wgmma_fp8_scaled.ph, which
test_wgmma8_gpu.py runs on the GPU. Interpreter references: exact int64 sums wrapped to i32
for i8; for fp8 the float64 sum of the decoded values, within K f32 roundings (2^-24 each) of
the sum of |products|.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

import phobos
from phobos.target import toolkit_dir

ROOT = Path(__file__).resolve().parents[2]
KERNELS = ROOT / "bench" / "kernels"
PHOBOS = str(ROOT / ".venv" / "bin" / "phobos")
RNG = np.random.default_rng()
ALIGNED = "A=a16.e16x16.s16;B=a16.e16x16.s16;C=a16.e16x16.s16"


def _fp8_codes(shape, fmt: str) -> np.ndarray:
    """Random codes of `fmt` without NaN and Inf (they would poison whole rows)."""
    codes = RNG.integers(0, 256, shape).astype(np.uint8)
    if fmt == "f8e4m3":
        codes[(codes & 0x7F) == 0x7F] = 0
    else:  # e5m2: exponent 31 is Inf / NaN
        codes[(codes & 0x7C) == 0x7C] = 0
    return codes


@pytest.mark.parametrize("shape", [(130, 129, 97), (128, 256, 256)], ids=str)
def test_wgmma_i8_is_exact_in_the_interpreter(interpret_mode, shape):
    m, n, k = shape
    kernel = phobos.compile(KERNELS / "wgmma_i8.ph")
    a = RNG.integers(-128, 128, (m, k)).astype(np.int8)
    b = RNG.integers(-128, 128, (n, k)).astype(np.int8)
    c = np.full((m, n), -1, np.int32)
    kernel(a, b, c)
    want = a.astype(np.int64) @ b.astype(np.int64).T
    assert np.abs(want).max() > 2**15, "the sums must pass i16"
    np.testing.assert_array_equal(c, want.astype(np.int32))


@pytest.mark.parametrize("shape", [(130, 129, 97), (64, 256, 64)], ids=str)
def test_wgmma_tf32_in_the_interpreter(interpret_mode, shape):
    """The interpreter computes the tf32 dot in f32: within K f32 roundings of float64."""
    m, n, k = shape
    kernel = phobos.compile(KERNELS / "wgmma_tf32.ph")
    a = RNG.standard_normal((m, k)).astype(np.float32)
    b = RNG.standard_normal((n, k)).astype(np.float32)
    c = np.full((m, n), np.nan, np.float32)
    kernel(a, b, c)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    bound = (k + 8) * 2.0**-24 * (np.abs(a64) @ np.abs(b64).T)
    assert np.all(np.abs(c - a64 @ b64.T) <= bound)


@pytest.mark.parametrize(
    "source,fmt", [("wgmma_fp8", "f8e4m3"), ("wgmma_fp8_scaled", "f8e4m3"), ("wgmma_fp8_fast", "f8e4m3")]
)
def test_wgmma_fp8_in_the_interpreter(interpret_mode, source, fmt):
    from phobos import fp8

    ml_dtypes = pytest.importorskip("ml_dtypes")
    m, n, k = 130, 129, 97
    kernel = phobos.compile(KERNELS / f"{source}.ph")
    a_codes, b_codes = _fp8_codes((m, k), fmt), _fp8_codes((n, k), fmt)
    a, b = (fp8.decode(x, fmt).astype(np.float64) for x in (a_codes, b_codes))
    dtype = ml_dtypes.float8_e4m3fn if fmt == "f8e4m3" else ml_dtypes.float8_e5m2
    want = a @ b.T
    bound = k * 2.0**-24 * (np.abs(a) @ np.abs(b).T)
    if source != "wgmma_fp8_scaled":
        c = np.full((m, n), np.nan, np.float32)
        kernel(a_codes.view(dtype), b_codes.view(dtype), c)
        assert np.all(np.abs(c - want) <= bound), np.max(np.abs(c - want) - bound)
        return
    scale = 2.0**-12  # sums reach 2^24 (products up to 448^2): scaled into f16's range
    c = np.full((m, n), np.nan, np.float16)
    kernel(a_codes.view(dtype), b_codes.view(dtype), c, scale)
    exact = scale * want
    # the f32 sum's bound, scaled, then f16's rounding (half an ulp: 2^-11 relative, 2^-25 subnormal)
    tol = scale * bound * (1 + 2.0**-20) + np.maximum(np.abs(exact) * 2.0**-11, 2.0**-25)
    assert np.all(np.isfinite(c)) and np.all(np.abs(c - exact) <= tol), np.max(np.abs(c - exact) - tol)


def _compile(source: str, emit: str, *extra: str) -> subprocess.CompletedProcess:
    args = [PHOBOS, "compile", str(KERNELS / f"{source}.ph"), "--chip", "sm_90a", "--emit", emit, *extra]
    return subprocess.run(args, capture_output=True, text=True, check=False)


def _tensor_cores(source: str, *extra: str) -> dict:
    done = _compile(source, "contract", "--key", ALIGNED, *extra)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["shared_memory"]["tensor_cores"]


def test_wgmma_i8_contract_names_the_instruction_and_byte_maps():
    used = _tensor_cores("wgmma_i8")
    assert used["instruction"] == "wgmma"
    assert used["dots"][0]["instruction"] == "wgmma.mma_async.sync.aligned.m64n128k32.s32.s8.s8"
    # a 128-byte swizzled row is 128 one-byte elements: A in 8-row boxes and whole, B whole
    assert [m["box"] for m in used["tensor_maps"]] == [[128, 8], [128, 8, 2, 4, 2], [128, 128]]


def test_fp8_wgmma_needs_no_ptx84_but_its_fallback_does():
    """ptxas takes wgmma e4m3 at PTX ISA 8.0 (sm_90a's floor); the generic variant, whose rows TMA
    cannot read, runs mma.sync, which needs +ptx84."""
    assert _tensor_cores("wgmma_fp8")["dots"][0]["instruction"].endswith("k32.f32.e4m3.e4m3")
    generic = _compile("wgmma_fp8", "ptx")
    assert generic.returncode != 0 and "+ptx84" in generic.stderr
    assert _compile("wgmma_fp8", "ptx", "--features", "+ptx84").returncode == 0


def test_plain_dot_of_i8_falls_back_with_a_located_warning():
    """tc_i8's B is [k][n]: 8-bit wgmma has no transpose, so the dot stays on mma.sync and says so
    at the dot, in the contract and in phobos explain."""
    done = _compile("tc_i8", "contract", "--key", ALIGNED)
    assert done.returncode == 0, done.stderr
    assert "tc_i8.ph:13:12: warning: @tensorcore: this dot runs on mma.sync, not wgmma" in done.stderr
    assert "write dot_t(a, b) with b as [N, K]" in done.stderr
    used = json.loads(done.stdout)["shared_memory"]["tensor_cores"]
    assert used["instruction"] == "mma.sync"
    assert "its rhs is stored [k][n]" in used["why not wgmma"]


def test_dot_t_with_k64_tiles_stays_on_mma_sync_quietly():
    """tc_i8_nt's K tile (64) is half a swizzled row of bytes: mma.sync, its layout unchanged, no warning."""
    done = _compile("tc_i8_nt", "contract", "--key", ALIGNED)
    assert done.returncode == 0 and "warning" not in done.stderr, done.stderr
    used = json.loads(done.stdout)["shared_memory"]["tensor_cores"]
    assert used["instruction"] == "mma.sync"
    assert "k = 128" in used["why not wgmma"]


def _wgmma_block(ptx: str) -> tuple[list[str], list[str]]:
    """(scale-d predicates of the wgmmas in issue order, the instructions after the wait)."""
    scales = re.findall(r"setp\.ne\.b32 p, (\d), 0;\s*wgmma\.mma_async", ptx)
    after = ptx.split("wgmma.wait_group.sync.aligned", 1)[1].splitlines()[1:]
    return scales, [line.split()[0] for line in after if line.strip()]


@pytest.mark.parametrize("tn", [128, 256])
def test_fp8_sums_are_promoted_into_f32_after_each_dot(tn):
    """The fp8 accumulator of wgmma is narrower than f32: each dot's first k32 step starts from
    zero (scale-d 0) and the partial is added into the f32 accumulator after the wait, one
    add.rn.f32 per accumulator register (TN / 2 of them per thread). i8 sums stay in the wgmma
    accumulator (exact), every step scale-d 1, nothing added."""
    done = _compile("wgmma_fp8", "ptx", "--key", ALIGNED, "-D", f"TN={tn}")
    assert done.returncode == 0, done.stderr
    scales, _ = _wgmma_block(done.stdout)
    assert scales == ["0", "1", "1", "1"]  # TK = 128: four k32 steps, the first from zero
    # (where the adds are laid out depends on the ring's schedule: under warp roles the stage's
    # release follows the wait; the kernel's only f32 adds are the promotion's)
    assert done.stdout.count("add.rn.f32") == tn // 2
    done = _compile("wgmma_i8", "ptx", "--key", ALIGNED)
    assert done.returncode == 0, done.stderr
    scales, after = _wgmma_block(done.stdout)
    assert set(scales) == {"1"} and "add.s32" not in after[:8]


@pytest.mark.parametrize("tn", [128, 256])
def test_fp8_sums_under_fastmath_stay_in_the_tensor_cores_with_a_group_in_flight(tn):
    """@fastmath (wgmma_fp8_fast.ph) keeps the fp8 sums in wgmma's own accumulation, as
    torch._scaled_mm(use_fast_accum=True) does: no add.rn.f32 after the wait, the main loop keeps
    one group in flight (wait_group 1) with the first step's scale-d a run-time predicate on the
    e4m3 instruction, and ptxas takes it without serialising the wgmmas (no C7515)."""
    done = _compile("wgmma_fp8_fast", "ptx", "--key", ALIGNED, "-D", f"TN={tn}")
    assert done.returncode == 0, done.stderr
    ptx = done.stdout
    assert "wgmma.wait_group.sync.aligned \t1;" in ptx
    flagged = rf"setp\.ne\.b32 p, %r\d+, 0;\s*wgmma\.mma_async\.sync\.aligned\.m64n{tn}k32\.f32\.e4m3\.e4m3"
    assert re.search(flagged, ptx)
    assert "add.rn.f32" not in ptx.split("wgmma.wait_group.sync.aligned \t1;", 1)[1].split("bra", 1)[0]
    contract = json.loads(_compile("wgmma_fp8_fast", "contract", "--key", ALIGNED).stdout)
    notes = json.dumps(contract)
    assert "1 wgmma group in flight" in notes or '"wgmma groups in flight": 1' in notes
    if toolkit_dir() is None:
        return
    from phobos.compiler.ptxas import ptxas_path

    out = subprocess.run(
        [ptxas_path(toolkit_dir()), "-arch=sm_90a", "-v", "-", "-o", "/dev/null"],
        input=ptx, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "C7515" not in out.stderr and "spill stores" in out.stderr
    assert " 0 bytes spill stores" in out.stderr


def test_tf32_dot_t_runs_on_wgmma_k8_with_32_element_rows():
    """f32 operands of dot_t are K-major: wgmma m64nNk8 .tf32, a 128-byte swizzled row is 32
    elements (A boxes [32, 8], B [32, TN]), one wgmma group in flight; ptxas takes it."""
    used = _tensor_cores("wgmma_tf32")
    assert used["instruction"] == "wgmma"
    assert used["dots"][0]["instruction"] == "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32"
    assert [m["box"] for m in used["tensor_maps"]] == [[32, 8], [32, 8, 2, 4, 2], [32, 128]]
    done = _compile("wgmma_tf32", "ptx", "--key", ALIGNED)
    assert done.returncode == 0, done.stderr
    assert "wgmma.wait_group.sync.aligned \t1;" in done.stdout
    assert len(re.findall(r"wgmma\.mma_async\.sync\.aligned\.m64n128k8\.f32\.tf32\.tf32", done.stdout)) == 4


def test_plain_tf32_dot_falls_back_with_a_located_warning():
    """examples/tensorcore_tf32.ph's B is [k][n]: tf32 wgmma has no transpose, so the dot runs
    mma.sync (rounding each operand to tf32) and says so at the dot."""
    args = [PHOBOS, "compile", str(ROOT / "examples" / "tensorcore_tf32.ph"), "--chip", "sm_90a"]
    done = subprocess.run([*args, "--emit", "contract", "--key", ALIGNED], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "tensorcore_tf32.ph:18:12: warning: @tensorcore: this dot runs on mma.sync, not wgmma" in done.stderr
    assert "tf32 wgmma reads both operands K-major" in done.stderr
    assert json.loads(done.stdout)["shared_memory"]["tensor_cores"]["instruction"] == "mma.sync"
