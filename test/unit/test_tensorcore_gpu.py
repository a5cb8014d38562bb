"""GPU tests of `dot` on the tensor cores (@tensorcore: ldmatrix + mma.sync, and TMA + wgmma on sm_90a; pytest -m gpu).

bench/kernels/hgemm.ph (f16, masked, cp.async ring), hgemm_aligned.ph (the
@aligned form), hgemm_nt.ph (dot_t) and bgemm.ph (bf16), compiled ahead of
time by bench/aot_build.py (tensorcore_jobs), for sm_90 (mma.sync) and, where
the rows are 16-byte pitched, for sm_90a (TMA + wgmma). Fresh random data, ragged and
aligned shapes, poisoned outputs with guard zones, float64 numpy references:
the products of f16/bf16 inputs are exact in f32, so the bound is the f32
accumulation's, as for the CUDA-core GEMM.
"""

from __future__ import annotations

import numpy as np
import pytest
from aot_folders import aot
from guarded import Guarded

pytestmark = pytest.mark.gpu


# The variants the tests launch (bench/aot_build.py builds the same ones).
VARIANTS = [{}, {"TM": 64, "TN": 64, "W": 128}, {"TK": 64, "MINB": 2}]
RAGGED = [(1, 1, 1), (17, 33, 5), (255, 257, 129), (1000, 999, 1001)]
WHOLE = [(256, 512, 128), (1024, 1024, 1024)]
# sm_90a: (source, defines); shapes whose rows TMA reads (K and N multiples of 16 elements),
# ragged in every dimension against the tiles (M any, N and K not multiples of the tiles).
WGMMA_VARIANTS = [
    ("hgemm", {"TK": 64}),
    ("hgemm", {"TN": 256, "TK": 64}),
    ("hgemm", {"TM": 64, "TN": 64, "TK": 64, "W": 128}),
    ("hgemm_nt", {"TK": 64}),
    ("bgemm", {"TK": 64}),
]
PITCHED = [(1000, 1008, 1040), (17, 64, 16), (255, 272, 144), (256, 512, 128), (1024, 1024, 1024)]
# shapes whose rows TMA cannot read: the runtime repacks A and B (runtime/repack.py)
REPACKED = [(1000, 999, 1001), (255, 257, 129), (17, 33, 5)]


def dtype_of(name: str) -> str:
    return "bf16" if name == "bgemm" else "f16"


# examples/: (source, operand type, C type), and whether it runs on wgmma on sm_90a
EXAMPLES = [
    ("tensorcore_f16", "f16", "f32", True),
    ("tensorcore_f16_acc16", "f16", "f16", False),
    ("tensorcore_bf16", "bf16", "bf16", True),
    ("tensorcore_tf32", "f32", "f32", False),
]


def _operand(shape, dtype):
    import torch

    g = Guarded("torch", shape, dtype=np.float16 if dtype == "f16" else np.float32)
    if dtype == "bf16":  # values that bf16 holds exactly, in a bf16 buffer with the same guard zones
        g.values = torch.from_numpy(g.values).bfloat16().float().numpy()
        host = torch.from_numpy(g.host).bfloat16()
        host[torch.from_numpy(g._indices())] = torch.from_numpy(g.values.reshape(-1)).bfloat16()
        g.host_bf16 = host
        g.flat = host.cuda()
        g.view = torch.as_strided(g.flat, g.shape, g.strides, g.offset)
    return g


def _ran(kernel, instruction: str) -> None:
    """The variant that ran took the path the test is about."""
    path = kernel._last.contract.get("shared_memory", {}).get("tensor_cores", {})
    assert path.get("instruction") == instruction, path


def _product(a, b, transposed=False):
    """(A B in float64, |A| |B|: the size the error bounds scale with) of two operands' values."""
    av, bv = a.values.astype(np.float64), b.values.astype(np.float64)
    bv = bv.T if transposed else bv
    return av @ bv, np.abs(av) @ np.abs(bv)


def _check(kernel, m, n, k, dtype="f16", transposed=False, instruction=None):
    a = _operand((m, k), dtype)
    b = _operand((n, k) if transposed else (k, n), dtype)
    c = Guarded("torch", (m, n), poison=True)
    kernel(a.view, b.view, c.view)
    if instruction is not None:
        _ran(kernel, instruction)
    ref, size = _product(a, b, transposed)
    c.check(ref, rtol=4 * (k + 8) * 2.0**-24, size=size)
    av, bv = a.values.astype(np.float64), b.values.astype(np.float64)
    if dtype == "f16":  # the inputs are untouched (guard zones included)
        a.check(av, rtol=0)
        b.check(bv, rtol=0)


@pytest.mark.parametrize("defines", VARIANTS, ids=str)
@pytest.mark.parametrize("shape", RAGGED + WHOLE, ids=str)
def test_hgemm(defines, shape):
    _check(aot("hgemm", defines), *shape)


@pytest.mark.parametrize("shape", WHOLE, ids=str)
def test_hgemm_aligned(shape):
    _check(aot("hgemm_aligned", {}), *shape)


def test_hgemm_aligned_refuses_a_ragged_size():
    with pytest.raises(ValueError, match=r"@aligned"):
        _check(aot("hgemm_aligned", {}), 255, 256, 128)


@pytest.mark.parametrize("shape", RAGGED + WHOLE[:1], ids=str)
def test_hgemm_nt(shape):
    _check(aot("hgemm_nt", {}), *shape, transposed=True)


@pytest.mark.parametrize("shape", RAGGED + WHOLE[:1], ids=str)
def test_bgemm(shape):
    _check(aot("bgemm", {}), *shape, dtype="bf16")


@pytest.mark.parametrize("name,defines", WGMMA_VARIANTS, ids=str)
@pytest.mark.parametrize("shape", PITCHED, ids=str)
def test_wgmma(name, defines, shape):
    """sm_90a: TMA copies (zeros past every edge), the mbarrier ring and wgmma, on ragged and whole tiles."""
    kernel = aot(name, defines, chip="sm_90a")
    _check(kernel, *shape, dtype=dtype_of(name), transposed=name == "hgemm_nt", instruction="wgmma")


@pytest.mark.parametrize("name,defines", WGMMA_VARIANTS, ids=str)
@pytest.mark.parametrize("shape", REPACKED, ids=str)
def test_wgmma_on_repacked_operands(name, defines, shape):
    """Rows of 1001 halves (2002 bytes) TMA cannot read: the launch copies A and B into 16-element
    pitched scratch rows and runs the wgmma variant on them; the inputs stay untouched (_check)."""
    kernel = aot(name, defines, chip="sm_90a")
    _check(kernel, *shape, dtype=dtype_of(name), transposed=name == "hgemm_nt", instruction="wgmma")


def test_wgmma_with_no_k_writes_zeros():
    """K = 0: the main loop, which keeps a wgmma group in flight and starts its sum by the first
    wgmma's scale-d, runs no iteration; C must be the zero the sum starts from, not the undefined
    registers the loop carries in."""
    import torch

    kernel = aot("hgemm", {"TK": 64}, chip="sm_90a")
    a = torch.randn(100, 64, device="cuda").half()[:, :0]  # 16-byte pitched rows of no element
    b = torch.randn(0, 128, device="cuda").half()
    c = torch.full((100, 128), float("nan"), device="cuda")
    kernel(a, b, c)
    _ran(kernel, "wgmma")
    assert torch.equal(c, torch.zeros_like(c))


def test_wgmma_falls_back_to_mma_sync_on_rows_tma_cannot_read(monkeypatch):
    """Without repacking (PHOBOS_REPACK=0), rows of 2002 bytes run the generic variant: mma.sync."""
    monkeypatch.setenv("PHOBOS_REPACK", "0")
    kernel = aot("hgemm", {"TK": 64}, chip="sm_90a")
    _check(kernel, 255, 257, 1001, instruction="mma.sync")


def name_takes_alpha_beta(kernel) -> bool:
    return len(kernel.signature.params) == 5


def _example_check(kernel, m, n, k, operand, out, instruction):
    """An example's C = A B against float64, with the tolerance of its arithmetic: f32 sums of
    exact products (f16, bf16), f16 sums (one rounding per k16 step), tf32 operands (rounded to 10
    mantissa bits), and the rounding of a bf16 C; C sits in a NaN-filled frame that must stay NaN."""
    import torch

    a = _operand((m, k), operand)
    b = _operand((k, n), operand)
    tdt = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}[out]
    frame = torch.full((m + 3, n + 5), float("nan"), dtype=tdt, device="cuda")
    c = frame[1 : m + 1, 2 : n + 2]
    scalars, c0 = (), None
    if name_takes_alpha_beta(kernel):  # C = alpha A B + beta C: C starts as random values
        scalars = (1.5, -0.75)
        c0 = np.random.default_rng().standard_normal((m, n)).astype(np.float32)
        c.copy_(torch.from_numpy(c0).to(tdt))
        c0 = c.float().cpu().numpy().astype(np.float64)
    kernel(a.view, b.view, c, *scalars)
    _ran(kernel, instruction)
    ref, size = _product(a, b)
    if c0 is not None:
        ref = scalars[0] * ref + scalars[1] * c0
        size = abs(scalars[0]) * size + abs(scalars[1] * c0)
    rtol = 4 * (k + 8) * 2.0**-24
    if out == "f16":
        rtol = (k / 16 + 2) * 2.0**-11
    elif operand == "f32":
        rtol += 1.01 * 2.0**-10
    elif out == "bf16":
        rtol += 2.0**-8
    got = frame.float().cpu().numpy().astype(np.float64)
    inner = got[1 : m + 1, 2 : n + 2]
    outside = np.ones(got.shape, bool)
    outside[1 : m + 1, 2 : n + 2] = False
    assert np.isnan(got[outside]).all(), "the kernel wrote outside C"
    assert not np.isnan(inner).any(), "some elements of C were never written"
    err = np.abs(inner - ref)
    worst = np.max(err / (size + 1e-300))
    assert (err <= rtol * size).all(), f"max error {err.max()} (relative {worst}, allowed {rtol})"


@pytest.mark.parametrize("name,operand,out,_", EXAMPLES, ids=[e[0] for e in EXAMPLES])
@pytest.mark.parametrize("shape", RAGGED + WHOLE[:1], ids=str)
def test_examples(name, operand, out, _, shape):
    """examples/ on sm_90 (mma.sync; tf32 for f32 operands, f16 accumulators)."""
    _example_check(aot(name), *shape, operand, out, "mma.sync")


@pytest.mark.parametrize("name,operand,out,wgmma", EXAMPLES, ids=[e[0] for e in EXAMPLES])
@pytest.mark.parametrize("shape", PITCHED[:3] + REPACKED[:2], ids=str)
def test_examples_on_sm_90a(name, operand, out, wgmma, shape):
    """examples/ built for sm_90a: wgmma where the dot can (repacked operands included), else mma.sync."""
    _example_check(aot(name, chip="sm_90a"), *shape, operand, out, "wgmma" if wgmma else "mma.sync")
