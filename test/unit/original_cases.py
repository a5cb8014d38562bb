"""The original Phobos's example programs (github.com/joa/phobos-lang: the eight of its main branch,
kda_fp32 the latest, and three of its inference branch) run through this Phobos with their
`@cluster` lines removed: where each lives, the shapes it runs at, fresh random arguments inside
guard zones, and a float64 reference of what the program means under the original's SPEC.md, with
an error bound fit to its arithmetic (f16 or f32 inputs, f32 accumulation).

The programs are not part of this repository: scripts/original_programs.py takes them from a
checkout the user provides (or a git mirror of it), strips `@cluster` and builds the ahead-of-time
folders that test_original_programs_gpu.py launches; test_original_programs_interp.py runs the same
cases in the interpreter. Shared by all three.

Two rules of the original's SPEC.md shape the references:
- a slice that runs off a tensor reads zeros and its stores are skipped, and no kernel masks its
  softmax, so an attention whose key count is not a multiple of the key block (BC, CHUNK) also
  attends to the zero keys of the last block: score 0 (plus the chunk's gate in MoBA), value 0.
  The reference pads the keys the same way, with the block of the configuration that ran.
- tensor extents are assumed to be multiples of 4 (the shapes below are, except the last of each
  program, which goes beyond the original's contract: Phobos takes any extent).
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

EPS32 = 2.0**-24  # f32 unit roundoff
U16 = 2.0**-11  # f16 unit roundoff
UBF16 = 2.0**-8  # bf16 unit roundoff (8 significant bits)
TF32 = 2.0**-10  # one operand staged to tf32 (here) or f16 (the original): 10 stored mantissa bits
F16_TINY = 2.0**-24  # f16's smallest subnormal: the absolute error floor of an f16 result

RNG = np.random.default_rng()
SOURCE_SUFFIX = ".ph"


@dataclass
class T:
    """A tensor argument: `values` (float64 or int, rounded to `dtype`) or, if None, standard normal
    draws for an input and poison for an output; an output with values is read and written."""

    name: str
    dtype: str
    shape: tuple
    values: np.ndarray | None = None
    out: bool = False


@dataclass(frozen=True)
class Program:
    """One of the original's programs: where it lives there, its arguments, and its reference."""

    name: str  # file stem: the built folder's name
    branch: str
    path: str  # in the original repository
    args: Callable  # (shape, config) -> [T | float], in parameter order
    reference: Callable  # (values, scalars, config) -> {output: (float64 want, bound per element)}
    gpu_shapes: tuple
    interp_shapes: tuple
    interp_configs: tuple = ({},)  # overrides of the default config run in the interpreter
    representable: dict = field(default_factory=dict)  # output -> the type its values must be exact in


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


def _pad_rows(x: np.ndarray, block: int) -> np.ndarray:
    """x with zero rows up to a multiple of `block`: what the original's slices read past the end."""
    out = np.zeros((cdiv(x.shape[0], block) * block,) + x.shape[1:])
    out[: x.shape[0]] = x
    return out


# ----------------------------------------------------------------------------- saxpy


def _saxpy_args(shape, config):
    (n,) = shape
    return [T("x", "f32", (n,)), T("y", "f32", (n,)), T("out", "f32", (n,), out=True), 1.5]


def _saxpy_ref(v, s, config):
    (alpha,) = s
    ax = alpha * v["x"]
    return {"out": (ax + v["y"], 2 * EPS32 * (np.abs(ax) + np.abs(v["y"])))}


# ----------------------------------------------------------------------------- GEMM: C = alpha A B + beta C


def _gemm_args(dtype: str):
    def args(shape, config):
        m, n, k = shape
        c = RNG.standard_normal((m, n))
        return [T("A", dtype, (m, k)), T("B", dtype, (k, n)), T("C", dtype, (m, n), values=c, out=True), 1.5, -0.75]

    return args


def _gemm_ref(precision: str):
    """f32: f32 products and sums on CUDA cores; tf32: @tensorcore f32 operands, rounded to tf32
    here (to f16 in the original: the same 10 stored bits), f32 sums; f16: an f16 accumulator
    (one rounding per k16 step on mma.sync, per TILE_K step on CUDA cores) and an f16 C."""

    def ref(v, s, config):
        a, b, c = v["A"], v["B"], v["C"]
        alpha, beta = s
        k = a.shape[1]
        want = alpha * (a @ b) + beta * c
        size = abs(alpha) * (np.abs(a) @ np.abs(b)) + np.abs(beta * c)
        sums = 2 * (k + 16) * EPS32
        rtol = {"f32": sums, "tf32": 2 * TF32 + sums, "f16": (2 * cdiv(k, 16) + 4) * U16 + sums}[precision]
        bound = rtol * size
        if precision == "f16":
            bound = bound + U16 * np.abs(want) + F16_TINY
        return {"C": (want, bound)}

    return ref


# ----------------------------------------------------------------------------- attention


def _softmax_rows(scores, score_err, v, nk: int, p_rounding: float, f16_out: bool):
    """softmax(scores) v row by row, and the bound of an online softmax whose scores are off by up
    to score_err: each weight p_j is then off by a factor within eta of 1, which moves the output
    by at most eta (sum p |v| / l + |o|); eta adds the rounding of p for the PV dot, f32 sums of
    nk terms and ex2.approx's error (a few ulps plus the argument's)."""
    top = scores.max(axis=1, keepdims=True)
    p = np.exp(scores - top)
    mass = p.sum(axis=1, keepdims=True)
    o = (p @ v) / mass
    spread = (p @ np.abs(v)) / mass + np.abs(o)
    reach = np.abs(scores - top).max(axis=1, keepdims=True)
    eta = 2 * score_err.max(axis=1, keepdims=True) + p_rounding + (2 * nk + 64) * EPS32 + 8 * EPS32 * (1 + reach)
    bound = eta * spread
    if f16_out:  # p below f16's normal range rounds absolutely; then O is rounded to f16
        bound = bound + nk * 2.0**-25 * np.abs(v).max(initial=0) / mass + U16 * np.abs(o) + F16_TINY
    return o, bound


def _attention_args(dtype: str, moba: bool = False):
    def args(shape, config):
        nq, nk = shape
        d = config["D"]
        tensors = [T(name, dtype, (nq if name == "Q" else nk, d)) for name in "QKV"]
        scalars = [d**-0.5] + ([1.0 / config["CHUNK"]] if moba else [])  # scale (, inv_chunk)
        return tensors + [T("O", dtype, (nq, d), out=True)] + scalars

    return args


def _flash_ref(dtype: str):
    """O = softmax(scale Q K^T) V over the keys padded with zeros to a multiple of BC. f16: exact
    products summed in f32; f32: operands on tf32 where @tensorcore runs the dot on mma.sync."""

    def ref(v, s, config):
        (scale,) = s
        q, k, vv = v["Q"], _pad_rows(v["K"], config["BC"]), _pad_rows(v["V"], config["BC"])
        d = q.shape[1]
        r = (d + 9) * EPS32 + (2 * TF32 if dtype == "f32" else 0.0)
        err = r * scale * (np.abs(q) @ np.abs(k).T)
        return {"O": _softmax_rows(scale * (q @ k.T), err, vv, k.shape[0], 2 * TF32, dtype == "f16")}

    return ref


def _moba_ref(v, s, config):
    """MoBA's routed attention: each key block (CHUNK rows, zero-padded) has a gate per query,
    inv_chunk q . (sum of the block's keys), added to every score of the block (the soft top-k:
    blocks the query routes to get more of its softmax mass); then softmax(scale q k^T + gate) V.
    The block's key sum is an f16 tile in the original and an f32 one here (a dot of f16 operands
    bound without a type); the bound allows both."""
    scale, inv = s
    c = config["CHUNK"]
    q, k, vv = v["Q"], _pad_rows(v["K"], c), _pad_rows(v["V"], c)
    nq, d = q.shape
    blocks = k.shape[0] // c
    ksum = k.reshape(blocks, c, d).sum(axis=1)
    kabs = np.abs(k).reshape(blocks, c, d).sum(axis=1)
    gate = inv * (q @ ksum.T)
    gate_err = (U16 + (c + d + 16) * EPS32) * inv * (np.abs(q) @ kabs.T)
    scores = scale * (q @ k.T) + np.repeat(gate, c, axis=1)
    err = (d + 9) * EPS32 * scale * (np.abs(q) @ np.abs(k).T) + np.repeat(gate_err, c, axis=1)
    err = err + EPS32 * np.abs(scores)
    return {"O": _softmax_rows(scores, err, vv, k.shape[0], 2 * TF32, True)}


# ----------------------------------------------------------------------------- gated linear attention (KDA)


def _kda_args(shape, config):
    (n,) = shape
    d = config["D"]
    gates = RNG.uniform(-0.1, 0.0, (n, 1))  # log a_t: forget gates a_t in (0.9, 1]
    tensors = [T(name, "f32", (n, d)) for name in "QKV"] + [T("G", "f32", (n, 1), values=gates)]
    return tensors + [T("O", "f32", (n, d), out=True), d**-0.5]


def _kda_ref(v, s, config):
    """The recurrence the chunked kernel computes, token by token: S_t = a_t S_{t-1} + k_t^T v_t,
    o_t = scale q_t S_t with a_t = exp(G_t). The bound scales with the same recurrence on
    absolute values: f32 dots of D and C terms per chunk, the state carried over the chunks, and
    the decays exp(+-b) of up to C log-gates (their relative errors grow with |b|)."""
    (scale,) = s
    q, k, vv, g = v["Q"], v["K"], v["V"], v["G"][:, 0]
    n, d = q.shape
    state, size_state = np.zeros((d, d)), np.zeros((d, d))
    want, size = np.empty((n, d)), np.empty((n, d))
    for t in range(n):
        a = np.exp(g[t])
        state = a * state + np.outer(k[t], vv[t])
        size_state = a * size_state + np.outer(np.abs(k[t]), np.abs(vv[t]))
        want[t] = scale * (q[t] @ state)
        size[t] = scale * (np.abs(q[t]) @ size_state)
    c = config["C"]
    decay = c * float(np.abs(g).max(initial=0))
    rtol = (4 * (d + c) + 4 * cdiv(n, c) + 64 + 16 * decay) * EPS32
    return {"O": (want, rtol * size)}


# ----------------------------------------------------------------------------- quantized


def _q8_args(shape, config):
    k, n = shape
    kb = cdiv(k, config["BLK"])
    w = RNG.integers(-127, 128, (k, n))
    scales = RNG.uniform(0.001, 0.02, (kb, n))
    return [T("A", "f32", (1, k)), T("W", "i8", (k, n), values=w), T("S", "f32", (kb, n), values=scales),
            T("C", "f32", (1, n), out=True)]  # fmt: skip


def _q8_ref(v, s, config):
    """Q8_0 matvec: C = sum over blocks b of 32 rows of (A_b W_b) S[b] (the last block zero-padded)."""
    blk = config["BLK"]
    a, w, sc = v["A"][0], v["W"], v["S"]
    kb = sc.shape[0]
    pa, pw = np.zeros(kb * blk), np.zeros((kb * blk, w.shape[1]))
    pa[: a.size], pw[: w.shape[0]] = a, w
    parts = np.einsum("bi,bin->bn", pa.reshape(kb, blk), pw.reshape(kb, blk, -1))
    sizes = np.einsum("bi,bin->bn", np.abs(pa).reshape(kb, blk), np.abs(pw).reshape(kb, blk, -1))
    want = (parts * sc).sum(axis=0)[None]
    size = (sizes * sc).sum(axis=0)[None]
    return {"C": (want, (blk + kb + 8) * EPS32 * size)}


def _quant_args(shape, config):
    m, n = shape
    scales = RNG.uniform(0.005, 0.05, (m, n)) * RNG.choice([-1, 1], (m, n))
    return [T("W", "i8", (m, n), values=RNG.integers(-127, 128, (m, n))), T("S", "bf16", (m, n), values=scales),
            T("H", "f16", (m, n)), T("C", "f32", (m, n), out=True)]  # fmt: skip


def _quant_ref(v, s, config):
    """C = bf16(W S + (H + S)) read back as f32: the f32 sum's roundings, then bf16's (C's values
    must be bf16 numbers: Program.representable)."""
    w, sc, h = v["W"], v["S"], v["H"]
    want = w * sc + (h + sc)
    size = np.abs(w * sc) + np.abs(h) + np.abs(sc)
    return {"C": (want, UBF16 * (np.abs(want) + 4 * EPS32 * size) + 4 * EPS32 * size)}


# ----------------------------------------------------------------------------- the programs

_GEMM_GPU = ((260, 380, 324), (512, 256, 384), (37, 45, 29))
_GEMM_INTERP = ((36, 44, 28), (37, 45, 29))
_GEMM_TILES = ({}, {"TILE_M": 64, "TILE_N": 64, "TILE_K": 32})
_ATTN_GPU = ((260, 516), (256, 512), (13, 29))
_ATTN_INTERP = ((12, 20), (9, 13))

PROGRAMS = [
    Program("saxpy_fp32", "main", "examples/saxpy_fp32.ph", _saxpy_args, _saxpy_ref,
            ((1000004,), (4096,), (37,)), ((1000,), (37,)), ({}, {"BLOCK": 1024})),
    Program("gemm_fp32", "main", "examples/gemm_fp32.ph", _gemm_args("f32"), _gemm_ref("f32"),
            _GEMM_GPU, _GEMM_INTERP, _GEMM_TILES),
    Program("gemm_fp16", "main", "examples/gemm_fp16.ph", _gemm_args("f16"), _gemm_ref("f16"),
            _GEMM_GPU, _GEMM_INTERP, _GEMM_TILES),
    Program("gemm_fp16tc_fp32acc", "main", "examples/gemm_fp16tc_fp32acc.ph", _gemm_args("f32"), _gemm_ref("tf32"),
            _GEMM_GPU, _GEMM_INTERP, _GEMM_TILES),
    Program("matmul_cluster_fp32", "main", "examples/matmul_cluster_fp32.ph", _gemm_args("f32"), _gemm_ref("f32"),
            _GEMM_GPU, _GEMM_INTERP, _GEMM_TILES),
    Program("flash_attention_fp32", "main", "examples/flash_attention_fp32.ph", _attention_args("f32"),
            _flash_ref("f32"), _ATTN_GPU, _ATTN_INTERP, ({}, {"BR": 16, "BC": 16})),
    Program("flash_attention_fp16", "main", "examples/flash_attention_fp16.ph", _attention_args("f16"),
            _flash_ref("f16"), _ATTN_GPU, _ATTN_INTERP, ({}, {"BR": 16, "BC": 16})),
    Program("kda_fp32", "main", "examples/kda_fp32.ph", _kda_args, _kda_ref,
            ((1000,), (512,), (37,)), ((100,), (37,)), ({}, {"C": 64})),
    Program("moba_efficient", "inference", "examples/moba_efficient.ph", _attention_args("f16", moba=True),
            _moba_ref, _ATTN_GPU, ((36, 52), (9, 13)), ({}, {"BR": 32, "CHUNK": 32})),
    Program("q8_matvec", "inference", "phobos-lang/examples/q8_matvec.ph", _q8_args, _q8_ref,
            ((4004, 1000), (4096, 1024), (29, 37)), ((100, 100), (29, 37))),
    Program("quant_types", "inference", "phobos-lang/examples/quant_types.ph", _quant_args, _quant_ref,
            ((260, 380), (256, 512), (37, 45)), ((36, 68), (37, 45)), representable={"C": "bf16"}),
]  # fmt: skip
BY_NAME = {p.name: p for p in PROGRAMS}


def shape_id(shape) -> str:
    return "x".join(map(str, shape))


# ----------------------------------------------------------------------------- sources


def strip_cluster(text: str) -> str:
    """The program without its `@cluster(...)` attributes (the original's cluster tuning, which this
    Phobos has no counterpart of); each removed line stays as an empty one, so that diagnostics
    keep the original's line numbers."""
    lines = text.split("\n")
    out, depth = [], 0
    for line in lines:
        if depth == 0 and not line.lstrip().startswith("@cluster"):
            out.append(line)
            continue
        depth += line.count("(") - line.count(")")  # an attribute may span lines
        out.append("")
    return "\n".join(out)


def export_from_mirror(git_dir: Path, dest: Path) -> dict[str, Path]:
    """Each program's source, as the original's branches hold it, written to dest/<name>.ph."""
    dest.mkdir(parents=True, exist_ok=True)
    found = {}
    for p in PROGRAMS:
        text = None
        for ref in (p.branch, f"origin/{p.branch}"):
            run = subprocess.run(
                ["git", f"--git-dir={git_dir}", "show", f"{ref}:{p.path}"], capture_output=True, text=True
            )
            if run.returncode == 0:
                text = run.stdout
                break
        if text is None:
            raise FileNotFoundError(f"{git_dir}: no {p.branch}:{p.path} (nor origin/{p.branch})")
        found[p.name] = dest / f"{p.name}{SOURCE_SUFFIX}"
        found[p.name].write_text(text, encoding="utf-8")
    return found


def find_sources(root: Path) -> dict[str, Path]:
    """<name>.ph of each program under root (a folder of the files, or a checkout: searched
    recursively); a git directory (a mirror) is exported first, into root's sibling temp folder
    by the caller. Missing programs are left out; a name found twice is an error."""
    found: dict[str, Path] = {}
    for p in PROGRAMS:
        hits = sorted(root.rglob(f"{p.name}{SOURCE_SUFFIX}"))
        if len(hits) > 1:
            raise ValueError(f"{root}: {p.name}{SOURCE_SUFFIX} found {len(hits)} times: {', '.join(map(str, hits))}")
        if hits:
            found[p.name] = hits[0]
    return found


def is_git_dir(path: Path) -> bool:
    return (path / "HEAD").is_file() and (path / "objects").is_dir()


def original_sources(root: Path, work: Path) -> dict[str, Path]:
    """The programs found at root: a folder of .ph files, a checkout, or a git directory holding
    both branches (exported into work first)."""
    return export_from_mirror(root, work / "exported") if is_git_dir(root) else find_sources(root)


def stripped_sources(root: Path, work: Path) -> dict[str, Path]:
    """The programs found at root, `@cluster` stripped, as work/<name>.ph."""
    out = {}
    for name, path in original_sources(root, work).items():
        out[name] = work / f"{name}{SOURCE_SUFFIX}"
        out[name].write_text(strip_cluster(path.read_text(encoding="utf-8")), encoding="utf-8")
    return out


def default_config(text: str, origin: str) -> dict:
    """The first value of each @autotune space (what an untuned launch runs); needs the front end."""
    from phobos.runtime.autotune.space import source_space

    space = source_space(text, origin, None, None)
    if space is None:
        raise ValueError(f"{origin}: the front end refuses the program (phobos check {origin} says why)")
    return dict(space.configs[0]) if space.configs else {}


# ----------------------------------------------------------------------------- launching and checking

_NUMPY = {"f32": np.float32, "f16": np.float16, "i8": np.int8}


def _bf16_bits(values: np.ndarray) -> np.ndarray:
    """bf16 bit patterns (int16) of values that bf16 holds exactly."""
    return (np.asarray(values, np.float32).view(np.uint32) >> 16).astype(np.uint16).view(np.int16)


def bf16_round(x) -> np.ndarray:
    """x rounded to bf16 (ties to even), as float64."""
    m, e = np.frexp(np.asarray(x, np.float64))
    return np.ldexp(np.rint(m * 2**8) / 2**8, e)


def _guarded(framework: str, t: T):
    from guarded import Guarded

    if t.dtype == "bf16":
        return _bf16_guarded(framework, t)
    return Guarded(framework, t.shape, dtype=_NUMPY[t.dtype], values=t.values, poison=t.out and t.values is None)


def _bf16_guarded(framework: str, t: T):
    """A bf16 input: for the interpreter, an ml_dtypes bfloat16 array; for torch, the guard-zone
    bookkeeping on the int16 bits (numpy has no bf16 of its own) under a torch.bfloat16 view."""
    from guarded import Guarded

    values = bf16_round(RNG.standard_normal(t.shape) if t.values is None else t.values)
    if framework == "numpy":  # the kernel gets an ml_dtypes copy (an input: never written)
        import ml_dtypes

        g = Guarded(framework, t.shape, dtype=np.float32, values=values)
        g.view = g.view.astype(ml_dtypes.bfloat16)
        return g
    import torch

    g = Guarded(framework, t.shape, dtype=np.int16, values=_bf16_bits(values))
    g.flat = g.flat.view(torch.bfloat16)
    g.view = g._view(g.flat)
    g.download = lambda: _bf16_download(g)
    g.values = values
    return g


def _bf16_download(g) -> np.ndarray:
    import torch

    torch.cuda.synchronize()
    return g.flat.view(torch.int16).cpu().numpy()


def layouts(program: Program, shape, config: dict, like) -> tuple:
    """The example arguments of one launch (contiguous tensors as `like` placeholders), for the
    ahead-of-time build's specialised variants."""
    return tuple(like(a.dtype, a.shape) if isinstance(a, T) else a for a in program.args(shape, config))


def run_case(kernel, program: Program, shape, config: dict, framework: str = "torch", ran=None) -> None:
    """Launch `kernel` (the program, its constants `config`) on fresh random arguments inside guard
    zones, outputs poisoned, and check each output against the float64 reference within its bound
    and every other buffer untouched. `ran()` says which constants the launch ran with (a tuned
    kernel's winner: the references of attention depend on the key block); default `config`."""
    args = program.args(shape, config)
    bufs = {a.name: _guarded(framework, a) for a in args if isinstance(a, T)}
    kernel(*[bufs[a.name].view if isinstance(a, T) else a for a in args])
    used = dict(config, **((ran() if ran else None) or {}))
    values = {name: np.asarray(g.values, np.float64) for name, g in bufs.items()}
    scalars = [a for a in args if not isinstance(a, T)]
    expected = program.reference(values, scalars, used)
    for name, g in bufs.items():
        if name not in expected:
            g.unchanged()
            continue
        want, bound = expected[name]
        g.check(want, rtol=1.0, size=bound + 1e-300)
        if name in program.representable:
            got = g.download()[g._indices()].astype(np.float64)
            assert np.array_equal(got, bf16_round(got)), f"{name}: values that are not bf16 numbers"
