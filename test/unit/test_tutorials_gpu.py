"""GPU tests of Triton's tutorials ported to @phobos.kernel (examples/python/0*.py; pytest -m gpu).

The kernels come from the ahead-of-time folders bench/aot_build.py builds for sm_90a
(`--only tutorials`: `aot/<file>.<kernel>[-<defines>]-sm_90a`); a test skips, naming the folder,
where it was not built, and without a GPU. A kernel whose @autotune constants the tutorial leaves
free has a folder of every candidate: each candidate is tested (the tuner may pick any of them),
then the tuned launch. Every test draws fresh random data, uses ragged shapes (with padding
between rows) and one aligned shape (the benchmark's variant: wgmma on sm_90a for the tensor-core
kernels), poisons the outputs inside guard zones, and compares with numpy in float64 at
thresholds fit to each kernel's arithmetic.

The shapes and the argument layouts below are also what bench/aot_build.py compiles.
"""

from __future__ import annotations

import numpy as np
import pytest
from aot_folders import folder
from guarded import RNG, Guarded

pytestmark = pytest.mark.gpu

CHIP = "sm_90a"
EPS = 2.0**-24  # f32's unit roundoff
EPS16 = 2.0**-11  # f16's

# (shapes) ragged ones run the generic variants, *_ALIGNED ones the benchmark's kind of variant
VECTOR_ADD = [1, 1000, 98433, 1000003]
VECTOR_ADD_ALIGNED = [12288]
SOFTMAX = [(1, 1), (37, 100), (1823, 781), (5, 3001), (3, 12000), (3, 20000), (64, 1024)]  # (M, N); 20000: two passes
MATMUL = [(1, 1, 1), (100, 72, 80), (255, 257, 129), (1000, 999, 1001)]  # (M, N, K)
MATMUL_REPACKED = [(1000, 999, 1001)]  # operands copied to 16-element pitches: the wgmma variant (runtime/repack.py)
MATMUL_ALIGNED = [(256, 384, 128)]
LAYER_NORM = [(1, 1), (37, 300), (64, 1000), (5, 3001), (3, 8192), (3, 16000)]  # (M, N), N <= 16384 (one tile per row)
DWDB_ALIGNED = [(256, 1024)]
# the fused backward's resident grid walks several rows per CTA only where M exceeds it
LAYER_NORM_FUSED = LAYER_NORM + [(5000, 300), (1030, 4100), (2000, 8192), (700, 16384)]
ATTENTION = [(1, 1), (3, 100), (2, 1000)]  # (heads, sequence)
ATTENTION_ALIGNED = [(2, 256)]
ATTENTION_D = [64, 128, 256]  # 256: beyond Triton's tutorial, FlashAttention-3's largest head


def pad_of(n: int) -> int:
    """Padding after each row of an input (outputs get 2 pad + 1): none for whole 16-element rows."""
    return 0 if n % 16 == 0 else 3


# ----------------------------------------------------------------------------- layouts (for bench/aot_build.py)


def _like(dtype, shape, pad=0):
    from phobos.runtime.aot import like

    return like(dtype, shape, strides=(shape[1] + pad, 1)) if len(shape) == 2 else like(dtype, shape)


def softmax_args(m, n):
    return (_like("f32", (m, n), pad_of(n)), _like("f32", (m, n), out_pad(n)))


def out_pad(n: int) -> int:
    return 2 * pad_of(n) + 1 if pad_of(n) else 0


def matmul_args(m, n, k):
    return (_like("f16", (m, k), pad_of(k)), _like("f16", (k, n), pad_of(n)), _like("f16", (m, n), out_pad(n)))


def layer_norm_fwd_args(m, n):
    p, q = pad_of(n), out_pad(n)
    rows = _like("f32", (m, 1))
    return (_like("f32", (m, n), p), _like("f32", (n,)), _like("f32", (n,)), _like("f32", (m, n), q), rows, rows, 1e-5)


def layer_norm_bwd_dx_args(m, n):
    p, q = pad_of(n), out_pad(n)
    rows = _like("f32", (m, 1))
    return (_like("f32", (m, n), p), _like("f32", (m, n), p), _like("f32", (n,)), rows, rows, _like("f32", (m, n), q))


def layer_norm_bwd_args(m, n):
    p, q = pad_of(n), out_pad(n)
    rows, cols = _like("f32", (m, 1)), _like("f32", (n,))
    return (_like("f32", (m, n), p), _like("f32", (m, n), p), cols, rows, rows, _like("f32", (m, n), q), cols, cols)


def layer_norm_dwdb_args(m, n):
    p, rows = pad_of(n), _like("f32", (m, 1))
    return (_like("f32", (m, n), p), _like("f32", (m, n), p), rows, rows, _like("f32", (n,)), _like("f32", (n,)))


# ----------------------------------------------------------------------------- kernels


def _kernels(name: str, defines: dict | None = None) -> list:
    """[(config, LoadedKernel)] of a folder: its one kernel, or every compiled @autotune candidate."""
    import phobos
    from phobos.runtime.kernel import TunedLoadedKernel

    path = folder(name, defines, CHIP)
    if not path.is_dir():
        pytest.skip(f"no ahead-of-time folder {path}; run bench/aot_build.py --only tutorials")
    k = phobos.load(path)
    if isinstance(k, TunedLoadedKernel):
        return [(k.manifest["candidates"][i]["config"], c) for i, c in sorted(k.candidates.items())]
    return [(defines or {}, k)]


def _tuned(name: str, defines: dict | None = None):
    import phobos

    path = folder(name, defines, CHIP)
    if not path.is_dir():
        pytest.skip(f"no ahead-of-time folder {path}; run bench/aot_build.py --only tutorials")
    return phobos.load(path)


def _failures(results: list) -> None:
    bad = [f"{config}: {why}" for config, why in results if why]
    assert not bad, f"{len(bad)} of {len(results)} variants wrong:\n" + "\n".join(bad)


def _run(config, fn) -> tuple:
    try:
        fn()
    except AssertionError as e:
        return config, str(e).splitlines()[0]
    return config, None


# ----------------------------------------------------------------------------- 01 vector add


def _check_add(kernel, n):
    x, y = Guarded("torch", (n,)), Guarded("torch", (n,))
    out = Guarded("torch", (n,), poison=True)
    kernel(x.view, y.view, out.view)
    exact = x.values.astype(np.float64) + y.values
    out.check(exact, rtol=EPS, size=np.abs(exact))  # one correctly rounded add
    x.unchanged()
    y.unchanged()


@pytest.mark.parametrize("n", VECTOR_ADD + VECTOR_ADD_ALIGNED)
def test_vector_add(n):
    _failures([_run(c, lambda k=k: _check_add(k, n)) for c, k in _kernels("01_vector_add.add")])


def test_vector_add_tuned():
    _check_add(_tuned("01_vector_add.add"), VECTOR_ADD[2])


# ----------------------------------------------------------------------------- 02 fused softmax


def softmax_defines(n: int) -> dict:
    """02_fused_softmax.for_columns's tile (bench_tutorials.softmax_defines reads the tutorial's own)."""
    bn = min(max(256, 1 << (n - 1).bit_length()), 16384)
    return {"BN": bn, "W": min(max(bn // 8, 128), 512)}


@pytest.mark.parametrize("shape", SOFTMAX, ids=str)
def test_softmax(shape):
    m, n = shape
    [(_, kernel)] = _kernels("02_fused_softmax.softmax", softmax_defines(n))
    x = Guarded("torch", shape, pad=pad_of(n), values=RNG.standard_normal(shape) * 4)
    y = Guarded("torch", shape, pad=out_pad(n), poison=True)
    kernel(x.view, y.view)
    xv = x.values.astype(np.float64)
    shifted = xv - xv.max(axis=1, keepdims=True)
    e = np.exp(shifted)
    want = e / e.sum(axis=1, keepdims=True)
    # relative to each element: the row sum's rounding, the fast division's 2 ulp, and the fast
    # exp's 2 + 1.173 |x - max| ulp (the kernel is @fastmath, as Triton's tl.exp and `/` are)
    ulps = 16 + np.log2(n + 1) + 1.2 * np.abs(shifted)
    y.check(want, rtol=1.0, size=ulps * 8 * EPS * want)
    x.unchanged()


# ----------------------------------------------------------------------------- 03 matmul (f16, f32 accumulation)


def _check_matmul(kernel, m, n, k):
    a = Guarded("torch", (m, k), pad=pad_of(k), dtype=np.float16)
    b = Guarded("torch", (k, n), pad=pad_of(n), dtype=np.float16)
    c = Guarded("torch", (m, n), pad=out_pad(n), dtype=np.float16, poison=True)
    kernel(a.view, b.view, c.view)
    av, bv = a.values.astype(np.float64), b.values.astype(np.float64)
    exact = av @ bv
    # the f16 inputs are exact; f32 accumulation of k products (bounded by k ulps of sum |a||b|,
    # doubled for the tensor cores' internal rounding) and the f16 output's rounding
    size = (k + 16) * 2 * EPS * (np.abs(av) @ np.abs(bv)) + 2 * EPS16 * np.abs(exact)
    c.check(exact, rtol=1.0, size=size)
    a.unchanged()
    b.unchanged()


@pytest.mark.parametrize("shape", MATMUL + MATMUL_ALIGNED, ids=str)
def test_matmul(shape):
    _failures([_run(cfg, lambda k=k: _check_matmul(k, *shape)) for cfg, k in _kernels("03_matmul.matmul")])


def test_matmul_aligned_runs_wgmma():
    """The benchmark's layout (whole 16-byte rows): each candidate launches its specialised variant
    (not the generic one), and the tiles wgmma takes run on wgmma with TMA operands."""
    paths = {}
    for config, k in _kernels("03_matmul.matmul"):
        _check_matmul(k, *MATMUL_ALIGNED[0])
        assert k._last is not k.variant(), f"{config}: the generic variant ran on the benchmark's layout"
        paths[str(config)] = k._last.contract["shared_memory"]["tensor_cores"]
    assert any(p["instruction"] == "wgmma" for p in paths.values()), paths


def test_matmul_tuned():
    _check_matmul(_tuned("03_matmul.matmul"), *MATMUL_ALIGNED[0])


# ----------------------------------------------------------------------------- 05 layer norm


def layer_norm_defines(n: int) -> dict:
    """05_layer_norm.tile_for's tile: 16 columns a thread, 128 to 1024 threads."""
    bn = min(max(256, 1 << (n - 1).bit_length()), 16384)
    return {"BN": bn, "W": min(max(bn // 16, 128), 1024)}


def _layer_norm_data(m, n):
    p = pad_of(n)
    x = Guarded("torch", (m, n), pad=p, values=RNG.standard_normal((m, n)) * 2 + 0.5)
    w, b = Guarded("torch", (n,)), Guarded("torch", (n,))
    dy = Guarded("torch", (m, n), pad=p)
    return x, w, b, dy


def _layer_norm_ref(x, w, b, dy, eps=1e-5):
    x, w, b, dy = (g.values.astype(np.float64) for g in (x, w, b, dy))
    mean = x.mean(axis=1, keepdims=True)
    rstd = 1.0 / np.sqrt(((x - mean) ** 2).mean(axis=1, keepdims=True) + eps)
    xhat = (x - mean) * rstd
    wdy = w * dy
    c1, c2 = (xhat * wdy).mean(axis=1, keepdims=True), wdy.mean(axis=1, keepdims=True)
    dx = (wdy - (xhat * c1 + c2)) * rstd
    sizes = {
        "y": np.abs(xhat * w) + np.abs(b),
        "mean": np.abs(x).mean(axis=1, keepdims=True),
        "dx": (np.abs(wdy) + np.abs(xhat) * np.abs(xhat * wdy).mean(axis=1, keepdims=True) + np.abs(c2)) * rstd,
        "dw": (np.abs(dy) * np.abs(xhat)).sum(axis=0),
        "db": np.abs(dy).sum(axis=0),
    }
    want = {"y": xhat * w + b, "mean": mean, "rstd": rstd, "dx": dx}
    return dict(want, dw=(dy * xhat).sum(axis=0), db=dy.sum(axis=0)), sizes


@pytest.mark.parametrize("shape", LAYER_NORM, ids=str)
def test_layer_norm_forward_and_backward(shape):
    m, n = shape
    q = out_pad(n)
    [(_, fwd)] = _kernels("05_layer_norm.layer_norm_fwd", layer_norm_defines(n))
    [(_, bwd)] = _kernels("05_layer_norm.layer_norm_bwd_dx", layer_norm_defines(n))
    x, w, b, dy = _layer_norm_data(m, n)
    want, size = _layer_norm_ref(x, w, b, dy)
    y = Guarded("torch", (m, n), pad=q, poison=True)
    mean, rstd = Guarded("torch", (m, 1), poison=True), Guarded("torch", (m, 1), poison=True)
    fwd(x.view, w.view, b.view, y.view, mean.view, rstd.view, 1e-5)
    rows = (64 + 8 * np.log2(n + 1)) * EPS  # tile-wide sums of n terms, then a few roundings per element
    y.check(want["y"], rtol=rows, size=size["y"])
    mean.check(want["mean"], rtol=rows, size=size["mean"])
    rstd.check(want["rstd"], rtol=2 * rows)
    # the backward on the kernel's own mean and rstd (as the tutorial chains them)
    dx = Guarded("torch", (m, n), pad=q, poison=True)
    bwd(dy.view, x.view, w.view, mean.view, rstd.view, dx.view)
    dx.check(want["dx"], rtol=4 * rows, size=size["dx"])
    for g in (x, w, b, dy):
        g.unchanged()


def _backward_inputs(m, n):
    """x, w, dy, and the float64 reference's mean and rstd rounded to f32 as the backward's inputs
    (so that the outputs' own error is what is measured), with the reference and error sizes."""
    x, w, b, dy = _layer_norm_data(m, n)
    want, size = _layer_norm_ref(x, w, b, dy)
    mean = Guarded("torch", (m, 1), values=want["mean"])
    rstd = Guarded("torch", (m, 1), values=want["rstd"])
    return x, w, dy, mean, rstd, want, size


def _check_column_sums(dw, db, want, size, m):
    """DW and DB hold their random starting values plus dw and db: a column sum of m terms (m
    ulps at worst, in any order of the partial sums), each from xhat's roundings, added to the
    start (one more rounding of its size)."""
    for g, name, extra in ((dw, "dw", 128), (db, "db", 16)):
        start = g.values.astype(np.float64)
        g.check(start + want[name], rtol=(m + extra) * EPS, size=size[name] + np.abs(start))


@pytest.mark.parametrize("shape", LAYER_NORM + DWDB_ALIGNED, ids=str)
def test_layer_norm_dw_db(shape):
    m, n = shape
    x, w, dy, mean, rstd, want, size = _backward_inputs(m, n)

    def check(k):
        # the kernel adds its column sums into DW and DB (atomic_add): they start at random values
        dw, db = Guarded("torch", (n,)), Guarded("torch", (n,))
        k(dy.view, x.view, mean.view, rstd.view, dw.view, db.view)
        _check_column_sums(dw, db, want, size, m)

    _failures([_run(cfg, lambda k=k: check(k)) for cfg, k in _kernels("05_layer_norm.layer_norm_bwd_dwdb")])


@pytest.mark.parametrize("shape", LAYER_NORM_FUSED, ids=str)
def test_layer_norm_fused_backward(shape):
    m, n = shape
    x, w, dy, mean, rstd, want, size = _backward_inputs(m, n)
    rows = (64 + 8 * np.log2(n + 1)) * EPS

    def check(k):  # every thread count (the resident grid's size follows it)
        dx = Guarded("torch", (m, n), pad=out_pad(n), poison=True)
        dw, db = Guarded("torch", (n,)), Guarded("torch", (n,))  # the kernel adds into them: random starts
        k(dy.view, x.view, w.view, mean.view, rstd.view, dx.view, dw.view, db.view)
        dx.check(want["dx"], rtol=4 * rows, size=size["dx"])
        _check_column_sums(dw, db, want, size, m)
        for g in (x, w, dy, mean, rstd):
            g.unchanged()

    bn = {"BN": layer_norm_defines(n)["BN"]}
    _failures([_run(cfg, lambda k=k: check(k)) for cfg, k in _kernels("05_layer_norm.layer_norm_bwd", bn)])


# ----------------------------------------------------------------------------- 06 fused attention (f16, f32 statistics)


def _attention_ref(q, k, v, scale, causal):
    s = np.einsum("hid,hjd->hij", q, k) * scale
    if causal:
        s = np.where(np.tril(np.ones(s.shape[1:], bool)), s, -np.inf)
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    p /= p.sum(axis=-1, keepdims=True)
    return np.einsum("hij,hjd->hid", p, v), np.einsum("hij,hjd->hid", p, np.abs(v))


def _check_attention(kernel, h, s, d, causal):
    q, k, v = (Guarded("torch", (h * s, d), dtype=np.float16) for _ in range(3))
    o = Guarded("torch", (h * s, d), dtype=np.float16, poison=True)
    view = lambda g: g.view.view(h, s, d)  # noqa: E731
    scale = 1 / np.sqrt(d)
    kernel(view(q), view(k), view(v), view(o), float(scale))
    qv, kv, vv = (g.values.astype(np.float64).reshape(h, s, d) for g in (q, k, v))
    ref, size = _attention_ref(qv, kv, vv, scale, causal)
    # f32 scores and online softmax (fastmath exp), P rounded to f16 for the second dot, f16 output
    rtol = (d + 64) * 16 * EPS + 2 * EPS16
    o.check(ref.reshape(h * s, d), rtol=rtol, size=(size + np.abs(ref)).reshape(h * s, d))
    for g in (q, k, v):
        g.unchanged()


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("d", ATTENTION_D)
@pytest.mark.parametrize("shape", ATTENTION + ATTENTION_ALIGNED, ids=str)
def test_attention(shape, d, causal):
    name = "06_fused_attention.attention_fwd_causal" if causal else "06_fused_attention.attention_fwd"
    results = [_run(cfg, lambda k=k: _check_attention(k, *shape, d, causal)) for cfg, k in _kernels(name, {"D": d})]
    _failures(results)


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_attention_tuned(causal):
    name = "06_fused_attention.attention_fwd_causal" if causal else "06_fused_attention.attention_fwd"
    _check_attention(_tuned(name, {"D": 64}), *ATTENTION_ALIGNED[0], 64, causal)
