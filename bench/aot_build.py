"""Compile, here, every kernel variant the GPU tests and benchmarks launch (the GPU machine has no MLIR).

    .venv/bin/python bench/aot_build.py [--out .cache/gpu]

Writes, under OUT (git-ignored; carried to the GPU machine):
  handwritten/<kernel>/    the hand-written cubins (bench/handwritten/build.py)
  aot/<name>[-DEFn]/       one ahead-of-time folder per bench/kernels source and
                           defines, with the generic variant and one variant per
                           argument layout the tests and benchmarks use
  COMMIT, FINGERPRINT      the commit and compiler fingerprint they were built from
Each folder is in the cache layout: phobos.load(folder) launches from it, and
phobos.compile(source, defines=..., cache_dir=folder) gets cache hits as long
as the compiler sources are unchanged.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import time
from pathlib import Path

import common

sys.path.insert(0, str(common.ROOT / "bench" / "handwritten"))
sys.path.insert(0, str(common.ROOT / "test" / "unit"))  # the GPU tests name the variants they launch

GIB = 1 << 28
T1 = [1, 3, 1000, 4096, 10000, 5000, 1000003, 1 << 20]  # 1-D sizes used by the tests
T2 = [(1, 1), (3, 5), (4097, 129), (256, 512), (64, 256), (5, 7), (33, 129), (64, 128), (4096, 4096)]


def vec(n, align=16):
    return f"f32[{n}]" + ("" if align == 16 else "@a1")


def mat(m, n):
    return f"f32[{m},{n}]"


def one_d(sizes, scalar="2.0"):
    out = []
    for n in sizes:
        out.append(f"{vec(n)} {vec(n)} {scalar}")
        out.append(f"{vec(n, 1)} {vec(n, 1)} {scalar}")
        out.append(f"{vec(n)} {vec(n, 1)} {scalar}")
    return out


# Leading strides of padded rows: the 2-D tests pad X by `pad` and Y by 2 pad + 1.
def two_d(shapes, pads=(0, 3)):
    from phobos.runtime.aot import like

    out = []
    for m, n in shapes:
        for pad in pads:
            x = like("f32", (m, n), strides=(n + pad, 1))
            y = like("f32", (m, n), strides=(n + 2 * pad + 1, 1))
            out.append((x, y, 2.0))
        out.append((like("f32", (m, n)), like("f32", (m, n)), 2.0))
    return out


def plan():
    """(source name, defines, example argument lists, check promises?[, chip]) to build."""
    from phobos.runtime.aot import parse_args_text

    bench_1d = [GIB, GIB - 4, GIB - 3]
    bench_2d = [(16384, 16384), (16383, 16380), (16381, 16381)]

    def p(texts):
        return [parse_args_text(t) for t in texts]

    jobs = []
    for block in (1024, 4096):
        jobs.append(("saxpy", {"BLOCK": block}, p(one_d(T1 + bench_1d)), True))
        jobs.append(("saxpy_aligned", {"BLOCK": block}, p(one_d([block, 4096, 1 << 20, GIB])), True))
    jobs.append(("saxpy_offsets", {}, p(one_d(T1 + bench_1d)), True))
    jobs.append(("saxpy_offsets_aligned", {}, p(one_d([1024, 1 << 20, GIB])), True))
    # broken promises, launched raw (check=False) by the trap tests
    jobs.append(("saxpy_aligned", {"BLOCK": 1024}, p(one_d([1000])), False))
    for tm, tn in ((32, 128), (16, 256), (8, 512)):
        jobs.append(("scale", {"TM": tm, "TN": tn}, two_d(T2) + two_d(bench_2d, pads=()), True))
        jobs.append(
            (
                "scale_aligned",
                {"TM": tm, "TN": tn},
                two_d([(256, 512), (4096, 4096)]) + two_d([(16384, 16384)], pads=()),
                True,
            )
        )
    from bench_bandwidth import ALIGNED_SWEEP

    for tm, tn, w in ALIGNED_SWEEP:
        jobs.append(("scale_aligned", {"TM": tm, "TN": tn, "W": w}, two_d([(16384, 16384)], pads=()), True))
    for tm, tn in ((32, 128), (8, 512)):
        jobs.append(("scale_rowwise", {"TM": tm, "TN": tn}, two_d(bench_2d, pads=()), True))
    jobs.append(("scale_offsets", {}, two_d(T2, pads=()) + two_d(bench_2d, pads=()), True))
    jobs.append(("scale_offsets_aligned", {}, two_d([(256, 512), (4096, 4096), (16384, 16384)], pads=()), True))
    jobs.append(("scale_aligned", {"TM": 32, "TN": 128}, two_d([(4097, 129)], pads=()), False))
    jobs.append(("rowwalk", {}, p(["f32[4096,4096] f32[4096,4096]"]), True))
    jobs.append(("colwalk", {}, p(["f32[4096,4096] f32[4096,4096]"]), True))
    jobs.extend(gemm_jobs())
    jobs.extend(reduce_jobs())
    jobs.extend(fused_jobs())
    jobs.extend(math_jobs())
    jobs.extend(builtin_jobs())
    jobs.extend(gather_jobs())
    jobs.extend(gemv_jobs())
    jobs.extend(gemv8_jobs())
    jobs.extend(persistent_jobs())
    jobs.extend(tensorcore_jobs())
    jobs.extend(splitk_jobs())
    jobs.extend(linear_jobs())
    jobs.extend(fallback_jobs())
    jobs.extend(unsigned_jobs())
    jobs.extend(widened_jobs())
    jobs.extend(fp8_jobs())
    jobs.extend(mma8_jobs())
    jobs.extend(wgmma8_jobs())
    jobs.extend(q8_jobs())
    jobs.extend(stdlib_jobs())
    jobs.extend(stdnn_jobs())
    return jobs


def stdlib_jobs():
    """test_stdlib_gpu.py and bench_stdlib.py: std.nn kernels and their hand-written twins
    (generic variants for the tests' ragged shapes, one for the benchmark's 32768 x 4096 rows)."""
    import bench_stdlib as b
    import stdlib_kernels as sk

    from phobos.runtime.aot import like

    jobs = []
    for impl in ("std", "hand"):
        for op in sk.OPS:
            for t in sk.TYPES:
                examples = [b.example_args(op, t, like)]
                jobs += [(sk.name(impl, op, t), defines, examples, True) for defines in b.configs()]
    return jobs


def stdnn_jobs():
    """test_stdlib_more_gpu.py: the rest of std.nn (bench/kernels/stdnn_*.ph), the generic variant
    (the tests' padded, misaligned ragged shapes) and one for their dense 37 x 4096 layout."""
    import test_stdlib_more_gpu as t

    from phobos.runtime.aot import like

    return [(t.kernel_name(op, ty), {}, [t.example_args(op, ty, like)], True) for op, ty in t.CASES]


def fp8_jobs():
    """test_fp8_gpu.py: fp8 conversions, the generic variant and the 16-byte aligned layout of 4096 elements."""
    import test_fp8_gpu as t

    from phobos.runtime.aot import like

    return [(name, {}, [args], True) for name, args in t.aligned_examples(like)]


# Sources that need PTX ISA features (the `features` compile option) wherever they are built:
# fp8 on mma.sync needs PTX ISA 8.4 (lowering/mma8.py), and a wgmma kernel's generic variant
# runs mma.sync.
FEATURES = {"tc_fp8": "+ptx84", "wgmma_fp8": "+ptx84", "wgmma_fp8_scaled": "+ptx84", "wgmma_fp8_fast": "+ptx84"}


def mma8_jobs():
    """test_tensorcore_8bit_gpu.py: 8-bit operands on mma.sync m16n8k32 (generic variants), fp8
    for the chips that have it (sm_89, sm_90, and sm_90a's mma.sync path)."""
    jobs = [("tc_i8", {}, [], True), ("tc_i8_nt", {}, [], True), ("tc_u8_nt", {}, [], True), ("tc_fp8", {}, [], True)]
    return jobs + [("tc_fp8", {}, [], True, chip) for chip in ("sm_89", "sm_90a")]


def wgmma8_jobs():
    """test_wgmma8_gpu.py and bench_gemm8.py: 8-bit and tf32 operands on sm_90a's wgmma (and the mma.sync
    kernel the benchmark compares), the variants for the tests' shapes whose rows TMA reads (K a
    multiple of 16) and the benchmark's sizes."""
    import bench_gemm8 as b
    import test_wgmma8_gpu as t

    jobs = []
    for name, operand, out, defines in t.VARIANTS + b.VARIANTS + b.MMA_SYNC:
        scalars = (1.0,) if name == "wgmma_fp8_scaled" else ()
        shapes = [s for s in t.SHAPES + b.SIZES if s[2] % 16 == 0]
        examples = [gemm_args(*s, dtype=operand, scalars=scalars, transposed=True, out=out) for s in shapes]
        jobs.append((name, defines, examples, True, "sm_90a"))
    import bench_hopper_gemm as h

    for name, defines in t.TF32_VARIANTS:  # f32 operands as tf32 (and bench_hopper_gemm's sizes)
        shapes = [s for s in t.SHAPES + h.SHAPES if s[2] % 4 == 0]
        jobs.append((name, defines, [gemm_args(*s, scalars=(), transposed=True) for s in shapes], True, "sm_90a"))
    return _merge(jobs)


def q8_jobs():
    """test_quantized_gpu.py: qdot_t and qmma_t, the Q8_0 contractions (generic variants), and
    bench_q8_qmma.py: q8_qmma_ring.ph's configurations at its shapes (the first is the tested one)."""
    import bench_q8_qmma as b

    from phobos.runtime.aot import like

    jobs = [("q8_qdot", {}, [], True), ("q8_qmma", {}, [], True)]
    shapes = [(like("i8", (m, k)), like("f32", (m, -(-k // 32))), like("i8", (n, k)), like("f32", (-(-k // 32), n)),
               like("f32", (m, n))) for m, n, k in b.SHAPES + [(64, 64, 64)]]  # fmt: skip
    # (64, 64, 64): test_qmma_runs_on_the_integer_tensor_cores's aligned launch, whose variant has the ring
    return jobs + [("q8_qmma_ring", d, shapes, True) for d in b.RING]


def unsigned_jobs():
    """test_unsigned_gpu.py: u8 and u32."""
    return [("unsigned_ops", {}, [], True), ("unsigned_reductions", {}, [], True)]


def widened_jobs():
    """test_widened_dot_gpu.py: the f16 x 8-bit dots widened in registers, with the pitched shapes' layouts."""
    import widened_cases as w

    from phobos.runtime.aot import like

    return [(n, {}, [w.layouts(n, s, like) for s in w.GPU_SHAPES if w.pitched(s)], True) for n in w.KERNELS]


def fallback_jobs():
    """test_tensorcore_fallback_gpu.py: the original Phobos's small @tensorcore tiles, and the CUDA-core fallback."""
    jobs = [("tc_small_f16", {}, [], True), ("tc_small_tf32", {}, [], True), ("tc_fallback", {}, [], True)]
    jobs += [("tc_small_f16", {}, [], True, "sm_90a"), ("tc_small_tf32", {}, [], True, "sm_90a")]
    return jobs


def tensorcore_jobs():
    """The @tensorcore GEMMs of test_tensorcore_gpu.py and bench_hgemm.py."""
    import bench_hgemm as b
    import test_tensorcore_gpu as t

    jobs = [("hgemm", d, [], True) for d in t.VARIANTS]
    jobs += [("hgemm_aligned", {}, [], True), ("hgemm_nt", {}, [], True), ("bgemm", {}, [], True)]
    for name, dtype, defines in b.VARIANTS:
        examples = [
            gemm_args(*s, dtype=dtype, scalars=()) for s in b.SIZES if name != "hgemm_aligned" or s[0] % 128 == 0
        ]
        jobs.append((name, defines, examples, True))
    # sm_90a (TMA + wgmma): variants for the shapes whose rows TMA can read (16-byte pitches)
    for name, defines in t.WGMMA_VARIANTS:
        nt = name == "hgemm_nt"
        examples = [gemm_args(*s, dtype=t.dtype_of(name), scalars=(), transposed=nt) for s in t.PITCHED]
        examples += [repacked_gemm_args(*s, dtype=t.dtype_of(name), transposed=nt) for s in t.REPACKED]
        jobs.append((name, defines, examples, True, "sm_90a"))
    for defines in b.TF32_VARIANTS:
        jobs.append(("tensorcore_tf32", defines, [gemm_args(*s, scalars=()) for s in b.SIZES], True))
    for name, operand, out, _ in t.EXAMPLES:  # examples/: the generic variant for sm_90, the tests' shapes for sm_90a
        jobs.append((name, {}, [], True))
        c = {"out": out, "c_align": 1}  # the tests' C: a view into a NaN frame (any pitch, any alignment)
        scalars = (1.5, -0.75) if name == "tensorcore_f16" else ()  # alpha, beta
        examples = [gemm_args(*s, dtype=operand, scalars=scalars, pads=(0, 0, 5), **c) for s in t.PITCHED[:3]]
        examples += [repacked_gemm_args(*s, dtype=operand, c_pad=5, scalars=scalars, **c) for s in t.REPACKED[:2]]
        jobs.append((name, {}, examples, True, "sm_90a"))
    for name, dtype, defines in b.WGMMA_VARIANTS:
        sizes = [s for s in b.SIZES if s[1] % 16 == 0 and s[2] % 16 == 0]
        examples = [gemm_args(*s, dtype=dtype, scalars=()) for s in sizes]
        if name != "hgemm_aligned":
            examples += [repacked_gemm_args(*s, dtype=dtype) for s in b.SIZES if s not in sizes]
        jobs.append((name, defines, examples, True, "sm_90a"))
    return _merge(jobs)


def splitk_jobs():
    """test_hgemm_splitk_gpu.py and bench_hopper_gemm.py: the split-K f16 GEMM on sm_90a (TMA +
    wgmma), a variant per (TM, TN, KS, W) with the tests' pitched and repacked layouts (which
    include the benchmark's skinny shapes)."""
    import test_hgemm_splitk_gpu as t

    jobs = []
    for variant in t.VARIANTS:
        examples = [gemm_args(*s, dtype="f16", scalars=()) for s in t.PITCHED]
        examples += [repacked_gemm_args(*s) for s in t.REPACKED]
        jobs.append(("hgemm_splitk", t.defines_of(variant), examples, True, "sm_90a"))
    return jobs


def linear_jobs():
    """test_linear_gpu.py and bench_linear.py: the f16 linear layer (Y = X W^T + b) on sm_90a, a
    variant per TN with the tests' pitched and repacked layouts (the benchmark's shapes among them)."""
    from bench_linear import SHAPES
    from test_linear_gpu import PITCHED, REPACKED, VARIANTS

    from phobos.runtime.aot import like
    from phobos.runtime.repack import PITCH_ELEMENTS

    def args(m, n, k, repacked=False):
        ld = -(-k // PITCH_ELEMENTS) * PITCH_ELEMENTS if repacked else k  # X's and W's rows: [*, K]
        x, w = (like("f16", (rows, k), strides=(ld, 1)) for rows in (m, n))
        return (x, w, like("f16", (n,)), like("f16", (m, n)))

    shapes = PITCHED + [s for s in SHAPES if s not in PITCHED]
    examples = [args(*s) for s in shapes] + [args(*s, repacked=True) for s in REPACKED]
    return [("linear_f16", dict(d), examples, True, "sm_90a") for d in VARIANTS]


def math_jobs():
    """The math accuracy kernels of test_math_gpu.py, precise and @fastmath (generic variants)."""
    from test_math_gpu import KERNELS

    return [(name, {}, [], True) for name in KERNELS.values()]


def builtin_jobs():
    """The kernels of test_math_functions_gpu.py and test_index_reductions_gpu.py (generic variants)."""
    from test_index_reductions_gpu import VARIANTS

    jobs = [("math_functions", {}, [], True)]
    return jobs + [("index_reductions", {"BR": br, "BC": bc, "W": w}, [], True) for br, bc, w in VARIANTS]


def persistent_jobs():
    """The kernels of test_control_flow_gpu.py (generic variants: ragged shapes) and the aligned
    layout of bench_persistent.py (2^28 floats summed)."""
    from bench_persistent import N as bench_n

    from phobos.runtime.aot import parse_args_text

    bench = parse_args_text(f"f32[{bench_n}] f32[16384] f32[1]")
    return [
        ("topk_rows", {}, [], True),
        ("persistent_sum", {}, [bench], True),
        ("persistent_rotate", {}, [], True),
    ]


def gather_jobs():
    """The gather, scatter and atomic kernels of test_gathers_gpu.py (generic variants: ragged shapes)
    and bench_gathers.py (a variant for the benchmark's aligned shapes too), and the vector reductions of
    test_vector_red_gpu.py (a variant per layout: the reduction width its key proves)."""
    import bench_gathers as b
    import vector_red_cases
    from gather_cases import BUILT

    from phobos.runtime.aot import like

    v, d, n = b.GATHER
    r, d2, m = b.SCATTER
    cn, ch, cw, cc, ck = b.CONV
    p = cn * ch * cw
    examples = {
        "gather_rows": [(like("f16", (v, d)), like("i32", (n,)), like("f16", (n, d)))],
        "scatter_add_rows": [(like("i32", (m,)), like("f32", (m, d2)), like("f32", (r, d2)))],
        "histogram": [(like("i32", (b.HIST_N,)), like("i32", (bins,))) for bins in (256, 4096)],
        "histogram_shared": [(like("i32", (b.HIST_N,)), like("i32", (bins,))) for bins in (256, 4096)],
        "conv3x3_nhwc": [(like("f32", (p, cc)), like("f32", (9 * cc, ck)), like("f32", (p, ck)), ch, cw)],
    }
    jobs = [(name, dict(defines), examples.get(name, []), True) for name, defines in BUILT]
    return _merge(jobs + vector_red_cases.aot_jobs(like))


def gemv_jobs():
    """bench_gemv.py and test_gemv_gpu.py: the decode GEMV kernels (bench/kernels/gemv_*.ph), each
    benchmark candidate with the layouts of its launches, the tested ones with the tests' pitched
    layouts and the generic variant (gemv_cases.py)."""
    import bench_gemv as b

    from phobos.runtime.aot import like

    return _merge(b.aot_jobs(like))


def gemv8_jobs():
    """bench_gemv8.py and test_gemv8_gpu.py: the decode GEMV kernels with 8-bit weights (gemv_i8.ph,
    gemv_q8_0.ph, gemv_fp8.ph), each benchmark candidate with the layouts of its launches, the
    tested ones with the tests' pitched layouts and the generic variant (gemv8_cases.py)."""
    import bench_gemv8 as b

    from phobos.runtime.aot import like

    return _merge(b.aot_jobs(like))


def reduce_jobs():
    """The reduction and layout-conversion kernels of test_reduce_gpu.py (generic variants: the tests'
    shapes are ragged)."""
    from test_reduce_gpu import CONVERT2D, REDUCE2D

    jobs = [
        (name, {"BR": br, "BC": bc, "W": w}, [], True) for name in ("reduce2d", "minmax2d") for br, bc, w in REDUCE2D
    ]
    return jobs + [("convert2d", {"B": b, "W": w}, [], True) for b, w in CONVERT2D]


# GEMM shapes (M, N, K) of test_gemm_gpu.py and bench_gemm.py.
GEMM_TESTS = [(1, 1, 1), (17, 33, 5), (255, 257, 129), (4095, 4097, 4093), (256, 512, 128), (4096, 4096, 4096)]
GEMM_PADS = [(3, 1, 5), (1, 0, 0), (0, 2, 0), (0, 0, 3)]
GEMM_BENCH = [(4096, 4096, 4096), (8192, 8192, 8192), (4095, 4097, 4093)]


def gemm_args(m, n, k, dtype="f32", pads=(0, 0, 0), scalars=(1.5, 0.5), transposed=False, out="f32", c_align=16):
    from phobos.runtime.aot import like

    def mat(rows, cols, pad):
        return like(dtype, (rows, cols), strides=(cols + pad, 1))

    b = mat(n, k, pads[1]) if transposed else mat(k, n, pads[1])
    c = like(out, (m, n), strides=(n + pads[2], 1), align=c_align)
    return (mat(m, k, pads[0]), b, c) + tuple(scalars)


def repacked_gemm_args(m, n, k, dtype="f16", transposed=False, **c):
    """A GEMM's arguments as the runtime repacks them (runtime/repack.py): A and B with rows
    pitched to 16 elements, C as it is (`c`: gemm_args's out and c_align, and c_pad, for it)."""
    from phobos.runtime.repack import PITCH_ELEMENTS

    def pad(cols):
        return -(-cols // PITCH_ELEMENTS) * PITCH_ELEMENTS - cols

    pads = (pad(k), pad(k if transposed else n), c.pop("c_pad", 0))
    scalars = c.pop("scalars", ())
    return gemm_args(m, n, k, dtype=dtype, pads=pads, scalars=scalars, transposed=transposed, **c)


def gemm_jobs():
    shapes = GEMM_TESTS + GEMM_BENCH
    masked = [gemm_args(*s) for s in shapes]
    masked += [gemm_args(*s, pads=pad) for s in ((255, 257, 129), (64, 64, 64)) for pad in GEMM_PADS]
    jobs = [("gemm", {}, masked, True), ("gemm_sync", {}, [gemm_args(*s) for s in shapes], True)]
    aligned = [gemm_args(*s) for s in ((256, 512, 128), (4096, 4096, 4096), (8192, 8192, 8192))]
    jobs.append(("gemm_aligned", {}, aligned, True))
    few = [(1, 1, 1), (255, 257, 129), (4096, 4096, 4096)]
    jobs.append(("gemm_nt", {}, [gemm_args(*s, scalars=(), transposed=True) for s in few], True))
    jobs.append(("gemm_f16", {}, [gemm_args(*s, dtype="f16", scalars=()) for s in few], True))
    # the bench's tile sweep
    from bench_gemm import SWEEP

    for defines in SWEEP[1:]:  # SWEEP[0] is the default, built above
        bench = [gemm_args(*s) for s in GEMM_BENCH]
        jobs.append(("gemm", defines, bench, True))
        jobs.append(("gemm_aligned", defines, bench[:2], True))
    return jobs


def fused_jobs():
    """The examples/ kernels of test_fused_gpu.py and bench_fused.py."""
    import test_fused_gpu as t

    jobs = []
    from phobos.runtime.aot import like

    for defines in t.ATTENTION_WGMMA:  # the tests' shapes: their rows are 16-byte pitched (TMA)
        d = defines["D"]
        shapes = [(like("f16", (h, s, d)),) * 4 + (d**-0.5,) for h, s in t.ATTENTION_SHAPES]
        jobs.append(("attention_f16", defines, shapes, True, "sm_90a"))
    for name, variants in (
        ("softmax", t.SOFTMAX),
        ("layernorm", t.LAYERNORM),
        ("attention", t.ATTENTION),
        ("attention_f16", t.ATTENTION_F16),
        ("cumsum_rows", t.CUMSUM),
        ("linear_attention", t.LINEAR_ATTENTION),
    ):
        for defines in variants:
            jobs.append((name, defines, [], True))
    # the benchmark's variants, specialised for its shapes (whole 16-byte rows)
    import bench_fused as b

    m, n = b.ROWS
    rows = like("f32", (m, n))
    vec = like("f32", (n,))
    for defines in b.SOFTMAX:
        jobs.append(("softmax", defines, [(rows, rows)], True))
    for defines in b.LAYERNORM:
        jobs.append(("layernorm", defines, [(rows, vec, vec, rows, 1e-5)], True))
    for name, dtype, variants, chip in (
        ("attention", "f32", b.ATTENTION, None),
        ("attention_f16", "f16", b.ATTENTION_F16, None),
        ("attention_f16", "f16", b.ATTENTION_WGMMA, "sm_90a"),
    ):
        for defines in variants:
            heads = like(dtype, (b.HEADS, b.SEQ, defines["D"]))
            jobs.append((name, defines, [(heads,) * 4 + (defines["D"] ** -0.5,)], True, *([chip] if chip else [])))
    return _merge(jobs)


def _merge(jobs):
    """One job per (source, defines), with the example argument lists of all of them."""
    merged: dict = {}
    for name, defines, examples, check, *chip in jobs:
        key = (name, tuple(sorted(defines.items())), check, *chip)
        merged.setdefault(key, (name, defines, [], check, *chip))[2].extend(examples)
    return list(merged.values())


def source_path(name: str) -> Path:
    if "." in name:  # '<file>.<kernel>': a @phobos.kernel of examples/python/<file>.py (tutorial_source)
        return tutorial_source(name)[0]
    for folder in (common.KERNELS, common.ROOT / "examples"):
        for ext in (".ph", ".mlir"):
            if (folder / f"{name}{ext}").exists():
                return folder / f"{name}{ext}"
    raise FileNotFoundError(name)


# ----------------------------------------------------------------------------- Triton's tutorials

TUTORIALS = common.ROOT / "examples" / "python"
TUTORIAL_CHIP = "sm_90a"  # the H200's own chip: what a decorated kernel compiles for there


def tutorial_source(name: str) -> tuple[Path, str]:
    """'03_matmul.matmul' -> (examples/python/03_matmul.py, 'matmul'): a decorated kernel of a tutorial."""
    stem, _, kernel = name.partition(".")
    path = TUTORIALS / f"{stem}.py"
    if not kernel or not path.exists():
        raise FileNotFoundError(name)
    return path, kernel


def tutorial_space(name: str, defines: dict) -> int:
    """How many @autotune candidates the kernel has with `defines` fixed (the front end; no MLIR)."""
    from phobos.runtime.autotune.space import source_space

    path, kernel = tutorial_source(name)
    space = source_space(path.read_text(), str(path), kernel, defines)
    if space is None:
        raise ValueError(f"{path}: the front end refuses kernel '{kernel}'")
    return len(space.configs)


def tutorial_jobs():
    """(name '<file>.<kernel>', defines, example argument lists) for the decorated kernels of
    examples/python/ at the layouts bench/bench_tutorials.py and test/unit/test_tutorials_gpu.py
    launch, all for sm_90a. A kernel whose defines leave @autotune constants free gets every
    candidate (autotune.json: phobos.load tunes among them on the GPU machine, as the decorated
    kernel tunes where it can compile); one with every constant fixed gets one folder."""
    import bench_tutorials as b
    import test_tutorials_gpu as t

    from phobos.runtime.aot import like

    cols = b.SOFTMAX_COLS + b.LAYER_NORM_COLS + [n for _, n in t.SOFTMAX + t.LAYER_NORM_FUSED]
    softmax, layer_norm = b._tutorial("02_fused_softmax"), b._tutorial("05_layer_norm")
    for n in cols:  # the bench and the tests restate the tutorials' tile rule: it must not drift
        assert b.softmax_defines(n) == t.softmax_defines(n) == softmax.for_columns(n).defines, n
        assert b.layer_norm_defines(n) == t.layer_norm_defines(n) == layer_norm.tile_for(n), n
    assert b.FUSED_MAX_N == layer_norm.FUSED_MAX_N
    jobs = []
    jobs.append(("01_vector_add.add", {}, [(like("f32", (n,)),) * 3 for n in b.VECTOR_ADD + t.VECTOR_ADD_ALIGNED]))
    softmax = {}
    for m, n in [(b.SOFTMAX_ROWS, n) for n in b.SOFTMAX_COLS] + t.SOFTMAX:
        softmax.setdefault(tuple(sorted(b.softmax_defines(n).items())), []).append(t.softmax_args(m, n))
    for n, threads in b.SOFTMAX_W.items():  # the thread counts timed beside the rule's
        for w in threads:
            softmax[tuple(sorted({**b.softmax_defines(n), "W": w}.items()))] = [t.softmax_args(b.SOFTMAX_ROWS, n)]
    for defines, examples in sorted(softmax.items()):
        jobs.append(("02_fused_softmax.softmax", dict(defines), examples))
    matmul = [t.matmul_args(s, s, s) for s in b.MATMUL] + [t.matmul_args(*s) for s in t.MATMUL_ALIGNED]
    matmul += [repacked_gemm_args(*s, out="f16", c_pad=t.out_pad(s[1])) for s in t.MATMUL_REPACKED]
    jobs.append(("03_matmul.matmul", {}, matmul))
    fwd, bwd, dwdb, fused = {}, {}, [], {}
    for m, n in [(b.LAYER_NORM_ROWS, n) for n in b.LAYER_NORM_COLS] + t.LAYER_NORM_FUSED:
        fused.setdefault(b.layer_norm_defines(n)["BN"], []).append(t.layer_norm_bwd_args(m, n))  # W: tuned
    for m, n in [(b.LAYER_NORM_ROWS, n) for n in b.LAYER_NORM_COLS] + t.LAYER_NORM:
        defines = tuple(sorted(b.layer_norm_defines(n).items()))
        fwd.setdefault(defines, []).append(t.layer_norm_fwd_args(m, n))
        bwd.setdefault(defines, []).append(t.layer_norm_bwd_dx_args(m, n))
        if (m, n) not in t.LAYER_NORM:  # tuned: the bench's layouts (the tests' ragged ones run generic variants)
            dwdb.append(t.layer_norm_dwdb_args(m, n))
    for n, threads in b.LAYER_NORM_W.items():  # the forward's thread counts timed beside the rule's
        for w in threads:
            fwd_w = tuple(sorted({**b.layer_norm_defines(n), "W": w}.items()))
            fwd.setdefault(fwd_w, []).append(t.layer_norm_fwd_args(b.LAYER_NORM_ROWS, n))
    for defines in sorted(fwd):
        jobs.append(("05_layer_norm.layer_norm_fwd", dict(defines), fwd[defines]))
        if defines in bwd:
            jobs.append(("05_layer_norm.layer_norm_bwd_dx", dict(defines), bwd[defines]))
    jobs.append(("05_layer_norm.layer_norm_bwd_dwdb", {}, dwdb + [t.layer_norm_dwdb_args(*s) for s in t.DWDB_ALIGNED]))
    for bn in sorted(fused):
        jobs.append(("05_layer_norm.layer_norm_bwd", {"BN": bn}, fused[bn]))
    for d in sorted(set(b.ATTENTION_D + t.ATTENTION_D)):  # the tests' D = 256: bench_attention_configs --d 256
        seqs = b.ATTENTION_SEQ if d in b.ATTENTION_D else [4096]
        heads = [(like("f16", (b.ATTENTION_HEADS, s, d)),) * 4 + (d**-0.5,) for s in seqs]
        heads += [(like("f16", (h, s, d)),) * 4 + (d**-0.5,) for h, s in t.ATTENTION_ALIGNED]
        for kernel in ("attention_fwd", "attention_fwd_causal"):
            jobs.append((f"06_fused_attention.{kernel}", {"D": d}, heads))
    return jobs


def build_tutorial(name: str, defines: dict, examples: list, out: Path, chip: str = TUTORIAL_CHIP) -> str:
    """One tutorial kernel's ahead-of-time folder (rebuilt from scratch: one build per folder)."""
    from aot_folders import folder_name

    import phobos
    from phobos.runtime.aot import compile_all_candidates

    path, kernel = tutorial_source(name)
    folder = out / "aot" / folder_name(name, defines, chip)
    shutil.rmtree(folder, ignore_errors=True)
    t0 = time.perf_counter()
    if tutorial_space(name, defines) > 1:
        manifest = compile_all_candidates(
            path, folder, kernel=kernel, chip=chip, defines=defines or None, examples=examples, progress=False
        )
        ok = [c for c in manifest["candidates"] if c.get("status") == "ok"]
        failed = [f"{c['folder']}: {c.get('reason')}" for c in manifest["candidates"] if c.get("status") != "ok"]
        what = f"{len(ok)} of {len(manifest['candidates'])} candidates" + "".join(
            f"\n    not built: {f}" for f in failed
        )
        if not ok:
            raise RuntimeError(f"no candidate of {name} compiled: {failed}")
    else:
        keys = phobos.compile_ahead(path, folder, kernel=kernel, chip=chip, defines=defines or None, examples=examples)
        what = f"{len(keys)} variants"
    for stage_texts in list(folder.rglob("asm")):  # tile/gpu/llvm/ptx texts: most of the bytes, not launched
        shutil.rmtree(stage_texts, ignore_errors=True)
    return f"{folder}: {what} in {time.perf_counter() - t0:.1f}s"


def decorated_twin(folder: Path, defines: dict, chip: str | None = None):
    """examples/python/twins.py's saxpy with `defines`, as the decorated kernel itself (a
    PythonKernel) reading and writing its variants in `folder`: bench_launch.py times its cached
    launch beside the .ph kernel's. The folder holds one build (the decorated kernel's), so
    phobos.load(folder) launches from it too."""
    sys.path.insert(0, str(common.ROOT / "examples" / "python"))
    import twins

    from phobos.decorator import PythonKernel
    from phobos.target import DEFAULT_CHIP

    base = twins.saxpy  # chip: the .ph kernel's (its folder is built for the default chip)
    options = dict(base._options, defines=defines, chip=chip or DEFAULT_CHIP, cache_dir=str(folder))
    return PythonKernel(base.__wrapped__, options)


TWIN = ("twins.saxpy", {"BLOCK": 1024})  # bench_launch.py's kernel: bench/kernels/saxpy.ph with BLOCK=1024


def build_twin(out: Path) -> str:
    from aot_folders import folder_name

    from phobos.runtime.aot import like

    name, defines = TWIN
    folder = out / "aot" / folder_name(name, defines)
    shutil.rmtree(folder, ignore_errors=True)
    k = decorated_twin(folder, defines)
    k.artifact(None)
    for n in (1024, 1 << 20):
        k.warmup(like("f32", (n,)), like("f32", (n,)), 2.0)
    return f"{folder}: {len(list(k.cache.entries()))} variants (the decorated kernel's own cache entries)"


def build_tutorials(out: Path, only: str | None) -> list[str]:
    """The tutorials' folders and bench_launch.py's decorated twin; returns what failed."""
    from phobos.frontend.errors import CompileError
    from phobos.runtime.kernel import CompilerUnavailableError

    failures = []
    jobs = [(name, defines, examples, build_tutorial) for name, defines, examples in tutorial_jobs()]
    jobs.append((TWIN[0], TWIN[1], [], lambda *_: build_twin(out)))
    for name, defines, examples, build in jobs:
        if only and only != "tutorials" and only not in name:
            continue
        try:
            print(build(name, defines, examples, out), flush=True)
        except (CompilerUnavailableError, CompileError, RuntimeError, ValueError, TypeError, OSError) as e:
            failures.append(f"{name} {defines}: {type(e).__name__}: {e}")
            print(f"FAILED {name} {defines}: {e}", flush=True)
    return failures


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=common.ARTIFACTS)
    parser.add_argument(
        "--only", help="build only sources whose name contains this ('tutorials': examples/python's, and the twin)"
    )
    ns = parser.parse_args()
    import build as handwritten

    import phobos
    from phobos.runtime.kernel import CompilerUnavailableError

    ns.out.mkdir(parents=True, exist_ok=True)
    if not ns.only:  # start clean: an ahead-of-time folder holds one build of its kernel
        for stale in ("aot", "handwritten"):
            shutil.rmtree(ns.out / stale, ignore_errors=True)
    handwritten.build(ns.out / "handwritten")
    failures = []
    from aot_folders import folder_name

    for name, defines, examples, check, *chip in plan():
        chip = chip[0] if chip else None
        if ns.only and ns.only not in name:
            continue
        folder = ns.out / "aot" / folder_name(name, defines, chip)
        suffix = folder.name[len(name) :]
        t0 = time.perf_counter()
        try:
            keys = phobos.compile_ahead(
                source_path(name),
                folder,
                defines=defines or None,
                examples=examples,
                check=check,
                features=FEATURES.get(name),
                **({"chip": chip} if chip else {}),
            )
        except (CompilerUnavailableError, RuntimeError, ValueError, TypeError, OSError) as e:
            failures.append(f"{name}{suffix}: {type(e).__name__}: {e}")
            print(f"FAILED {name}{suffix}: {e}")
            continue
        print(f"{folder}: {len(keys)} variants in {time.perf_counter() - t0:.1f}s")
    failures += build_tutorials(ns.out, ns.only)
    sha = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=common.ROOT, capture_output=True, text=True
    ).stdout.strip()
    (ns.out / "COMMIT").write_text(sha + "\n")
    from phobos.contract.fingerprint import compiler_fingerprint

    (ns.out / "FINGERPRINT").write_text(compiler_fingerprint() + "\n")
    if failures:
        print("\n".join(["", "not built:"] + failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
