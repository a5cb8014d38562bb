"""Every kernel of examples/ and bench/kernels/ (the kernels the GPU tests and
benchmarks launch) runs in the interpreter against its numpy reference.

Extents follow the kernel's contract: a dimension an @aligned promise covers
gets a whole number of tiles, every other one a ragged extent; a ragged extent
under a promise must be refused before anything runs. Outputs are poisoned
(NaN) and must be written everywhere; inputs must come back unchanged.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("mlir")

import phobos  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
import stdlib_kernels as sk  # noqa: E402

RNG = np.random.default_rng(11)


def _scale(args):
    return {"Y": args["alpha"] * args["X"].astype(np.float64)}


def _saxpy(args):
    return {"Y": args["a"] * args["X"].astype(np.float64) + args["Y"].astype(np.float64)}


def _double(args):
    return {"Y": 2.0 * args["X"].astype(np.float64)}


def _gemm(args):
    product = args["A"].astype(np.float64) @ args["B"].astype(np.float64)
    return {"C": args["alpha"] * product + args["beta"] * args["C"].astype(np.float64)}


def _gemm_nt(args):
    return {"C": args["A"].astype(np.float64) @ args["B"].astype(np.float64).T}


def _matmul(args):
    return {"C": args["A"].astype(np.float64) @ args["B"].astype(np.float64)}


def _softmax(args):
    x = args["X"].astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return {"Y": e / e.sum(axis=1, keepdims=True)}


def _layernorm(args):
    x = args["X"].astype(np.float64)
    d = x - x.mean(axis=1, keepdims=True)
    rstd = 1 / np.sqrt((d * d).mean(axis=1, keepdims=True) + args["eps"])
    return {"Y": d * rstd * args["Wt"] + args["B"]}


def _cumsum(args):
    return {"Y": np.cumsum(args["X"].astype(np.float64), axis=1)}


def _attention(args):
    q, k, v = (args[n].astype(np.float64) for n in "QKV")
    s = q @ k.transpose(0, 2, 1) * args["scale"]
    p = np.exp(s - s.max(axis=2, keepdims=True))
    return {"O": (p / p.sum(axis=2, keepdims=True)) @ v}


def _linear_attention(args):
    q, k, v = (args[n].astype(np.float64) for n in "QKV")
    scores = np.tril(q @ k.transpose(0, 2, 1))
    return {"O": (scores @ v) / scores.sum(axis=2, keepdims=True)}


def _math(args):
    """exp, log, sqrt, tanh, abs and the quotient in each type (math_accuracy.ph); the GPU's
    accuracy is test_math_gpu.py's business."""
    out = {}
    for t in ("", "16", "64"):
        x, z = args["X" + t], args["Z" + t]
        with np.errstate(invalid="ignore"):
            out["Y" + t] = np.stack([np.exp(x), np.log(x), np.sqrt(x), np.tanh(x), np.abs(x), x / z])
    return out


def _positive(args):
    """Feature maps for linear attention: |x| keeps the denominators away from zero."""
    for n in "QKV":
        args[n] = np.abs(args[n])


def _positive_eps(args):
    args["eps"] = abs(args["eps"])


# source -> (reference, the tensors it writes without reading them first[, options])
# options: "rtol" (default 1e-5), "prepare" (adjusts the random arguments)
KERNELS = {
    "examples/scale.ph": (_scale, {"Y"}),
    "examples/scale.mlir": (_scale, {"Y"}),
    "examples/saxpy.ph": (_saxpy, set()),
    "examples/gemm_fp32.ph": (_gemm, set()),
    "examples/tensorcore_f16.ph": (_gemm, set()),
    "examples/tensorcore_f16_acc16.ph": (_matmul, {"C"}, {"rtol": 2e-2}),  # f16 sums and an f16 C
    "examples/tensorcore_tf32.ph": (_matmul, {"C"}),  # the interpreter's dot is f32 (the GPU's tf32)
    "bench/kernels/scale.ph": (_scale, {"Y"}),
    "bench/kernels/scale_aligned.ph": (_scale, {"Y"}),
    "bench/kernels/scale_rowwise.ph": (_scale, {"Y"}),
    "bench/kernels/scale_offsets.mlir": (_scale, {"Y"}),
    "bench/kernels/scale_offsets_aligned.mlir": (_scale, {"Y"}),
    "bench/kernels/saxpy.ph": (_saxpy, set()),
    "bench/kernels/saxpy_aligned.ph": (_saxpy, set()),
    "bench/kernels/saxpy_offsets.mlir": (_saxpy, set()),
    "bench/kernels/saxpy_offsets_aligned.mlir": (_saxpy, set()),
    "bench/kernels/rowwalk.ph": (_double, {"Y"}),
    "bench/kernels/colwalk.ph": (_double, {"Y"}),
    "bench/kernels/saxpy_tune.ph": (_saxpy, set()),
    "bench/kernels/gemm.ph": (_gemm, set()),
    "bench/kernels/gemm_aligned.ph": (_gemm, set()),
    "bench/kernels/gemm_sync.ph": (_gemm, set()),
    "bench/kernels/gemm_nt.ph": (_gemm_nt, {"C"}),
    "bench/kernels/gemm_f16.ph": (_matmul, {"C"}),
    "bench/kernels/math_accuracy.ph": (_math, {"Y", "Y16", "Y64"}),
    "bench/kernels/math_accuracy_fast.ph": (_math, {"Y", "Y16", "Y64"}),
    "bench/kernels/hgemm.ph": (_matmul, {"C"}),
    "bench/kernels/hgemm_aligned.ph": (_matmul, {"C"}),
    "bench/kernels/hgemm_nt.ph": (_gemm_nt, {"C"}),
    "examples/softmax.ph": (_softmax, {"Y"}),
    "examples/layernorm.ph": (_layernorm, {"Y"}, {"prepare": _positive_eps}),
    "examples/cumsum_rows.ph": (_cumsum, {"Y"}),
    "examples/attention.ph": (_attention, {"O"}, {"rtol": 1e-4}),  # scores up to ~300: exp amplifies their rounding
    "examples/attention_f16.ph": (_attention, {"O"}, {"rtol": 2.0**-10}),
    "examples/linear_attention.ph": (_linear_attention, {"O"}, {"prepare": _positive}),
}
# Sources left out, with the reason: their tests live elsewhere.
UNCOVERED = {
    # the autotune tests' deliberately wrong candidate space; its grid is the caller's (no grid rule)
    "bench/kernels/scale_gaps.ph",
    # every way a tile moves between threads, on the GPU (test_reduce_gpu.py); its grid is the caller's
    "bench/kernels/reduce2d.ph",
    # its max/min twin: on the GPU in test_reduce_gpu.py, here in test_minmax2d_in_the_interpreter
    "bench/kernels/minmax2d.ph",
    # bf16 operands (numpy has no bf16 arrays); on the GPU in test_tensorcore_gpu.py
    "bench/kernels/bgemm.ph",
    "examples/tensorcore_bf16.ph",
    # while/break and single elements: test_exits_interp.py (test_topk_rows_bench_kernel)
    "bench/kernels/topk_rows.ph",
    # @persistent with grid_barrier: test_persistent_runtime.py (through phobos.compile, grid or none)
    "bench/kernels/persistent_sum.ph",
    "bench/kernels/persistent_rotate.ph",
    # gathers, scatters and atomics: test_gather_kernels.py runs each on gather_cases.py's cases
    "bench/kernels/conv3x3_nhwc.ph",
    "bench/kernels/embedding_bag.ph",
    "bench/kernels/gather_rows.ph",
    "bench/kernels/histogram.ph",
    "bench/kernels/histogram_shared.ph",
    "bench/kernels/scatter_add_rows.ph",
    "bench/kernels/splitk_gemm.ph",
    "bench/kernels/hgemm_splitk.ph",
    # f16 scatter-add (paired and vector reds on the device): test_vector_red.py runs it here
    "bench/kernels/scatter_add_rows_f16.ph",
    # the math builtins: test_builtins_interp.py; u8/u32: test_unsigned.py (the same kernels as
    # test/Frontend/Inputs/unsigned-*.ph)
    "bench/kernels/math_functions.ph",
    "bench/kernels/unsigned_ops.ph",
    "bench/kernels/unsigned_reductions.ph",
    # the caller's grid or fixed shapes, with the GPU tests' checks: the tests below
    "bench/kernels/convert2d.ph",
    "bench/kernels/index_reductions.ph",
    "bench/kernels/tc_fallback.ph",
    "bench/kernels/tc_small_f16.ph",
    "bench/kernels/tc_small_tf32.ph",
    # 8-bit dots on the tensor cores: test_mma8.py runs each in the interpreter (exact i8 sums)
    "bench/kernels/tc_i8.ph",
    "bench/kernels/tc_i8_nt.ph",
    "bench/kernels/tc_fp8.ph",
    # u8 dots: test_u8_dot.py runs each in the interpreter (exact u8 sums)
    "bench/kernels/tc_u8_nt.ph",
    "bench/kernels/wgmma_u8.ph",
    # f16 x 8-bit dots widened in registers: test_widened_dot.py runs each against float64
    "bench/kernels/widened_u8_rhs.ph",
    "bench/kernels/widened_i8_lhs.ph",
    # Q8_0 contractions (qdot_t, qmma_t): test_quantized.py runs each against float64 on ragged shapes
    "bench/kernels/q8_qdot.ph",
    "bench/kernels/q8_qmma.ph",
    "bench/kernels/q8_qmma_ring.ph",
    # 8-bit dots on sm_90a's wgmma: test_wgmma8.py runs each in the interpreter (exact i8, f32-bounded fp8)
    "bench/kernels/wgmma_i8.ph",
    "bench/kernels/wgmma_fp8.ph",
    "bench/kernels/wgmma_fp8_scaled.ph",
    "bench/kernels/wgmma_fp8_fast.ph",
    # tf32 on wgmma: test_wgmma8.py runs it in the interpreter (f32 products and sums)
    "bench/kernels/wgmma_tf32.ph",
    # the f16 linear layer with bias: test_linear.py runs it in the interpreter
    "bench/kernels/linear_f16.ph",
    # fp8 conversions: test_fp8.py (every code, ties, saturation, NaN, ragged lengths, guard zones)
    "bench/kernels/fp8_encode.ph",
    "bench/kernels/fp8_decode.ph",
    # decode GEMV / skinny GEMM: test_gemv_interp.py runs each on gemv_cases.py's cases
    "bench/kernels/gemv_f16.ph",
    "bench/kernels/gemv_split_f16.ph",
    "bench/kernels/gemv_reduce_f16.ph",
    "bench/kernels/gemv_tc_f16.ph",
    "bench/kernels/gemv_tc_split_f16.ph",
    "bench/kernels/gemv_wave_f16.ph",
    "bench/kernels/gemv_tc_sync_f16.ph",
    # decode GEMV with 8-bit weights: test_gemv8_interp.py runs each on gemv8_cases.py's cases
    "bench/kernels/gemv_i8.ph",
    "bench/kernels/gemv_fp8.ph",
    "bench/kernels/gemv_q8_0.ph",
    "bench/kernels/gemv_q8_0_rows.ph",
    "bench/kernels/gemv_tc_i8.ph",
    "bench/kernels/gemv_tc_fp8.ph",
    "bench/kernels/gemv_tc_q8_0.ph",
    # the split ones: test_gemv8_split.py (with gemv_reduce_f16.ph, a planted error)
    "bench/kernels/gemv_tc_split_i8.ph",
    "bench/kernels/gemv_tc_split_fp8.ph",
    # residual add + RMSNorm: test_add_norm_interp.py (ragged rows and columns, R = 1, 2, 4)
    "bench/kernels/add_rmsnorm_f16.ph",
}
# the rest of std.nn (stdnn_*): test_stdlib_more_interp.py runs each on the GPU test's cases
UNCOVERED |= {f"bench/kernels/{p.name}" for p in (ROOT / "bench" / "kernels").glob("stdnn_*.ph")}
# bench_stdlib.py's kernels (std_* and hand_*): test_stdlib_bench_kernels.py runs each here
UNCOVERED |= {f"bench/kernels/{sk.name(impl, op, t)}.ph" for impl in ("std", "hand") for op in sk.OPS for t in sk.TYPES}
RAGGED = [37, 129, 1, 200]  # extents for dimensions no promise covers


def test_every_kernel_source_is_covered():
    sources = {str(p.relative_to(ROOT)) for d in ("examples", "bench/kernels") for p in (ROOT / d).iterdir()}
    sources = {s for s in sources if s.endswith((".ph", ".mlir"))}
    assert sources - UNCOVERED == set(KERNELS), "a kernel source without an interpreter test (add it to KERNELS)"


def _extents(contract: dict, ragged_promise: bool) -> dict[str, int]:
    divisors = {p["symbol"]: p["divisor"] for p in contract["promises"]}
    symbols = []
    for p in contract["params"]:
        for d in p.get("dims") or []:
            if d not in symbols and not d.isdigit():
                symbols.append(d)
    extents = {}
    for i, s in enumerate(symbols):
        if s in divisors:
            extents[s] = divisors[s] * 3 + (1 if ragged_promise else 0)
        else:
            extents[s] = RAGGED[i % len(RAGGED)]
    return extents


def _arguments(contract: dict, extents: dict[str, int], poisoned: set) -> dict:
    args = {}
    for p in contract["params"]:
        if p["kind"] == "scalar":
            args[p["name"]] = float(RNG.uniform(0.5, 2.0)) * RNG.choice([-1.0, 1.0])
            continue
        static = p.get("shape") or [None] * len(p["dims"])
        shape = tuple(s if s is not None else int(d) if d.isdigit() else extents[d] for d, s in zip(p["dims"], static))
        dtype = {"f16": np.float16, "f64": np.float64}.get(p["dtype"], np.float32)
        values = (RNG.uniform(0.5, 1.5, shape) * RNG.choice([-1, 1], shape)).astype(dtype)
        args[p["name"]] = np.full(shape, np.nan, dtype) if p["name"] in poisoned else values
    return args


@pytest.mark.parametrize("source", sorted(KERNELS))
def test_kernel_matches_numpy(interpret_mode, source):
    reference, poisoned, *options = KERNELS[source]
    options = options[0] if options else {}
    k = phobos.compile(ROOT / source)
    contract = k.contract
    args = _arguments(contract, _extents(contract, ragged_promise=False), poisoned)
    if "prepare" in options:
        options["prepare"](args)
    before = {n: v.copy() for n, v in args.items() if isinstance(v, np.ndarray)}
    expected = reference(args)
    names = [p["name"] for p in contract["params"]]
    k(*(args[n] for n in names))
    rtol = options.get("rtol", 1e-5)
    for name, value in expected.items():
        k_extent = args["A"].shape[1] if "A" in args else 1
        np.testing.assert_allclose(args[name], value, rtol=rtol, atol=rtol * np.sqrt(k_extent), err_msg=name)
    for name, value in before.items():
        if name not in expected:
            np.testing.assert_array_equal(args[name], value, err_msg=f"{name} is an input and must not change")


@pytest.mark.parametrize("source", sorted(s for s in KERNELS if "aligned" in s or s.startswith("examples/")))
def test_a_broken_promise_is_refused_before_anything_runs(interpret_mode, source):
    k = phobos.compile(ROOT / source)
    contract = k.contract
    if not contract["promises"]:
        pytest.skip("no @aligned promise")
    reference, poisoned, *_ = KERNELS[source]
    args = _arguments(contract, _extents(contract, ragged_promise=True), poisoned)
    before = {n: v.copy() for n, v in args.items() if isinstance(v, np.ndarray)}
    with pytest.raises(ValueError, match=r"@aligned\(.*\) is broken"):
        k(*(args[p["name"]] for p in contract["params"]))
    for name, value in before.items():
        np.testing.assert_array_equal(args[name], value)


@pytest.mark.parametrize("br,bc,w", [(8, 32, 32), (1, 128, 32)])
def test_minmax2d_in_the_interpreter(interpret_mode, br, bc, w):
    from test_reduce_gpu import minmax_reference

    k = phobos.compile(ROOT / "bench/kernels/minmax2d.ph", defines={"BR": br, "BC": bc, "W": w})
    rng = np.random.default_rng(7)
    m, n = 3 * br - 1 if br > 1 else 5, bc - 3
    g = -(-m // br)
    x = rng.standard_normal((m, n)).astype(np.float32)
    outs = {
        "RN": np.full((m, 1), np.nan, np.float32),
        "CX": np.full((g, n), np.nan, np.float32),
        "CN": np.full((g, n), np.nan, np.float32),
        "TX": np.full((g,), np.nan, np.float32),
        "TN": np.full((g,), np.nan, np.float32),
    }
    k(x, *outs.values(), grid=(g,))
    for name, ref in minmax_reference(x.astype(np.float64), br, bc).items():
        np.testing.assert_array_equal(outs[name], ref, err_msg=name)


@pytest.mark.parametrize("b,w", [(32, 128), (16, 256), (64, 32)])
def test_convert2d_in_the_interpreter(interpret_mode, b, w):
    from test_reduce_gpu import check_convert2d

    check_convert2d(phobos.compile(ROOT / "bench/kernels/convert2d.ph", defines={"B": b, "W": w}), b, "numpy")


@pytest.mark.parametrize("br,bc,w", [(32, 64, 128), (8, 32, 256)])
@pytest.mark.parametrize("ties", [False, True])
def test_index_reductions_in_the_interpreter(interpret_mode, br, bc, w, ties):
    from test_index_reductions_gpu import check_index_reductions

    kernel = phobos.compile(ROOT / "bench/kernels/index_reductions.ph", defines={"BR": br, "BC": bc, "W": w})
    check_index_reductions(kernel, br, bc, ties, "numpy")


@pytest.mark.parametrize("name", ["tc_small_f16", "tc_small_tf32", "tc_fallback"])
@pytest.mark.parametrize("shape", [(1, 1, 1), (17, 33, 5), (100, 70, 49)], ids=str)
def test_tensorcore_kernels_in_the_interpreter(interpret_mode, name, shape):
    import test_tensorcore_fallback_gpu as tc

    check = {"tc_small_f16": tc.check_small_f16, "tc_small_tf32": tc.check_small_tf32, "tc_fallback": tc.check_fallback}
    check[name](phobos.compile(ROOT / f"bench/kernels/{name}.ph"), *shape, "numpy")
