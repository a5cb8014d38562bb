# ruff: noqa: F821, E741
# (F821: @autotune constants and dimension symbols are free names in a kernel body, as in .ph;
# E741: the names of the .ph kernels, O and l, are kept.)
"""The Python twin of every kernel in examples/*.ph: the same kernel, written with @phobos.kernel.

test/unit/test_python_kernels.py compiles each twin and its .ph kernel to tile IR and requires
the two to be identical, so this file is also the reference of how each construct of the
language is spelled in Python (docs/python.md).
"""

import phobos
from phobos.lang import (
    arange,
    bf16,
    ctx,
    cumsum,
    dot,
    dot_t,
    exp,
    f16,
    f32,
    inf,
    padded,
    rowmax,
    rowsum,
    span,
    sqrt,
    tensor,
    tile,
    tmax,
    transpose,
    tril,
    where,
)


@phobos.kernel(
    autotune={"BM": [64, 32], "BN": [64, 32], "D": [64, 32, 128], "W": [256, 128]}, launch="W", pipeline=True
)
def attention(
    Q: tensor[f32, "H", "S", "D"],
    K: tensor[f32, "H", "S", "D"],
    V: tensor[f32, "H", "S", "D"],
    O: tensor[f32, "H", "S", "D"],
    scale: f32,
):
    i = ctx.block.x * BM
    h = ctx.block.y
    q = Q[h, span(i, BM), span(0, D)]
    m: tile[f32, BM, 1] = -inf
    l: tile[f32, BM, 1] = 0.0
    acc: tile[f32, BM, D] = 0.0
    for j in range(0, S, BN):
        s = where(arange(BN) + j < S, dot_t(q, K[h, span(j, BN), span(0, D)]) * scale, -inf)
        mj = tmax(m, rowmax(s))
        p = exp(s - mj)
        alpha = exp(m - mj)
        l = l * alpha + rowsum(p)
        acc = acc * alpha + dot(p, V[h, span(j, BN), span(0, D)])
        m = mj
    O[h, span(i, BM), span(0, D)] = acc / l


@phobos.kernel(
    autotune={"BM": [64, 128, 32], "BN": [64, 128, 32], "D": [64, 128, 32], "W": [128, 256]},
    launch="W",
    fastmath=True,
    pipeline=True,
    tensorcore=True,
)
def attention_f16(
    Q: tensor[f16, "H", "S", "D"],
    K: tensor[f16, "H", "S", "D"],
    V: tensor[f16, "H", "S", "D"],
    O: tensor[f16, "H", "S", "D"],
    scale: f32,
):
    i = ctx.block.x * BM
    h = ctx.block.y
    q = Q[h, span(i, BM), span(0, D)]
    m: tile[f32, BM, 1] = -inf
    l: tile[f32, BM, 1] = 0.0
    acc: tile[f32, BM, D] = 0.0
    for j in range(0, S, BN):
        s = where(arange(BN) + j < S, dot_t(q, K[h, span(j, BN), span(0, D)]) * scale, -inf)
        mj = tmax(m, rowmax(s))
        p = exp(s - mj)
        alpha = exp(m - mj)
        l = l * alpha + rowsum(p)
        acc = acc * alpha + dot(f16(p), V[h, span(j, BN), span(0, D)])
        m = mj
    O[h, span(i, BM), span(0, D)] = acc / l


@phobos.kernel(autotune={"BR": [4, 1, 16], "BN": [256, 1024], "W": [128, 256]}, launch="W")
def cumsum_rows(X: tensor[f32, "M", "N"], Y: tensor[f32, "M", "N"]):
    r = ctx.block.x * BR
    carry: tile[f32, BR, 1] = 0.0
    for c in range(0, N, BN):
        x = X[span(r, BR), span(c, BN)]
        Y[span(r, BR), span(c, BN)] = cumsum(x, 1) + carry
        carry = carry + rowsum(x)


@phobos.kernel(
    autotune={"TILE_M": [32, 256], "TILE_N": [32, 256], "TILE_K": [4, 32]},
    launch=256,
    pipeline=True,
    aligned={"M": "TILE_M", "N": "TILE_N", "K": "TILE_K"},
)
def gemm(A: tensor[f32, "M", "K"], B: tensor[f32, "K", "N"], C: tensor[f32, "M", "N"], alpha: f32, beta: f32):
    pm = ctx.block.x
    pn = ctx.block.y
    acc: tile[f32, TILE_M, TILE_N] = 0.0
    for kt in range(0, K, TILE_K):
        a = A[span(pm * TILE_M, TILE_M), span(kt, TILE_K)]
        b = B[span(kt, TILE_K), span(pn * TILE_N, TILE_N)]
        acc += dot(a, b)
    c_old = C[span(pm * TILE_M, TILE_M), span(pn * TILE_N, TILE_N)]
    C[span(pm * TILE_M, TILE_M), span(pn * TILE_N, TILE_N)] = alpha * acc + beta * c_old


@phobos.kernel(
    autotune={"BN": [4096, 1024, 2048, 8192], "W": [512, 256, 1024], "MINB": [1, 2, 4]}, launch=("W", "MINB")
)
def layernorm(X: tensor[f32, "M", "N"], Wt: tensor[f32, "N"], B: tensor[f32, "N"], Y: tensor[f32, "M", "N"], eps: f32):
    r = ctx.block.x
    n = f32(N)
    if N <= BN:
        x = X[span(r, 1), span(0, BN)]
        d = where(arange(BN) < N, x - rowsum(x) / n, 0.0)
        rstd = 1.0 / sqrt(rowsum(d * d) / n + eps)
        Y[span(r, 1), span(0, BN)] = d * rstd * Wt[span(0, BN)] + B[span(0, BN)]
    else:
        total: tile[f32, 1, 1] = 0.0
        for c in range(0, N, BN):
            total = total + rowsum(X[span(r, 1), span(c, BN)])
        mean = total / n
        squares: tile[f32, 1, 1] = 0.0
        for c in range(0, N, BN):
            d = where(arange(BN) + c < N, X[span(r, 1), span(c, BN)] - mean, 0.0)
            squares = squares + rowsum(d * d)
        rstd = 1.0 / sqrt(squares / n + eps)
        for c in range(0, N, BN):
            Y[span(r, 1), span(c, BN)] = (X[span(r, 1), span(c, BN)] - mean) * rstd * Wt[span(c, BN)] + B[span(c, BN)]


@phobos.kernel(autotune={"C": [32, 64], "D": [32, 64], "W": [128, 256]}, launch="W")
def linear_attention(
    Q: tensor[f32, "H", "S", "D"],
    K: tensor[f32, "H", "S", "D"],
    V: tensor[f32, "H", "S", "D"],
    O: tensor[f32, "H", "S", "D"],
):
    h = ctx.block.x
    state: tile[f32, D, D] = 0.0
    z: tile[f32, 1, D] = 0.0
    for c in range(0, S, C):
        q = Q[h, span(c, C), span(0, D)]
        k = K[h, span(c, C), span(0, D)]
        v = V[h, span(c, C), span(0, D)]
        ksum = transpose(cumsum(transpose(k), 1)) + z
        num = dot(q, state) + dot(tril(dot_t(q, k)), v)
        O[h, span(c, C), span(0, D)] = num / rowsum(q * ksum)
        state = state + dot(transpose(k), v)
        z = z + transpose(rowsum(transpose(k)))


@phobos.kernel(autotune={"BLOCK": [256, 1024]}, launch=256)
def saxpy(X: tensor[f32, "N"], Y: tensor[f32, "N"], a: f32):
    start = ctx.block.x * BLOCK
    Y[span(start, BLOCK)] += a * X[span(start, BLOCK)]


@phobos.kernel(autotune={"TM": [32], "TN": [128]}, aligned={"M": "TM", "N": "TN"})
def scale(X: tensor[f32, "M", "N"], Y: tensor[f32, "M", "N"], alpha: f32):
    pm = ctx.block.x
    pn = ctx.block.y
    x = X[span(pm * TM, TM), span(pn * TN, TN)]
    Y[span(pm * TM, TM), span(pn * TN, TN)] = alpha * x


@phobos.kernel(autotune={"BN": [4096, 1024, 2048, 8192], "W": [512, 256, 1024]}, launch="W")
def softmax(X: tensor[f32, "M", "N"], Y: tensor[f32, "M", "N"]):
    r = ctx.block.x
    if N <= BN:
        x = padded(X[span(r, 1), span(0, BN)], -inf)
        e = exp(x - rowmax(x))
        Y[span(r, 1), span(0, BN)] = e / rowsum(e)
    else:
        m: tile[f32, 1, 1] = -inf
        s: tile[f32, 1, 1] = 0.0
        for c in range(0, N, BN):
            x = padded(X[span(r, 1), span(c, BN)], -inf)
            mc = tmax(m, rowmax(x))
            s = s * exp(m - mc) + rowsum(exp(x - mc))
            m = mc
        for c in range(0, N, BN):
            x = X[span(r, 1), span(c, BN)]
            Y[span(r, 1), span(c, BN)] = exp(x - m) / s


@phobos.kernel(
    autotune={"TM": [128, 64], "TN": [128, 256, 64], "TK": [64, 32], "W": [256, 128]},
    launch="W",
    tensorcore=True,
    pipeline=True,
)
def tensorcore_bf16(A: tensor[bf16, "M", "K"], B: tensor[bf16, "K", "N"], C: tensor[bf16, "M", "N"]):
    pm = ctx.block.x
    pn = ctx.block.y
    acc: tile[f32, TM, TN] = 0.0
    for k in range(0, K, TK):
        acc += dot(A[span(pm * TM, TM), span(k, TK)], B[span(k, TK), span(pn * TN, TN)])
    C[span(pm * TM, TM), span(pn * TN, TN)] = bf16(acc)


@phobos.kernel(
    autotune={"TM": [128, 64], "TN": [128, 256, 64], "TK": [64, 32], "W": [256, 128]},
    launch="W",
    tensorcore=True,
    pipeline=True,
)
def tensorcore_f16(A: tensor[f16, "M", "K"], B: tensor[f16, "K", "N"], C: tensor[f32, "M", "N"], alpha: f32, beta: f32):
    pm = ctx.block.x
    pn = ctx.block.y
    acc: tile[f32, TM, TN] = 0.0
    for k in range(0, K, TK):
        acc += dot(A[span(pm * TM, TM), span(k, TK)], B[span(k, TK), span(pn * TN, TN)])
    c = C[span(pm * TM, TM), span(pn * TN, TN)]
    C[span(pm * TM, TM), span(pn * TN, TN)] = alpha * acc + beta * c


@phobos.kernel(
    autotune={"TM": [128, 64], "TN": [128, 64], "TK": [64, 32], "W": [256, 128]},
    launch="W",
    tensorcore=True,
    pipeline=True,
)
def tensorcore_f16_acc16(A: tensor[f16, "M", "K"], B: tensor[f16, "K", "N"], C: tensor[f16, "M", "N"]):
    pm = ctx.block.x
    pn = ctx.block.y
    acc: tile[f16, TM, TN] = 0.0
    for k in range(0, K, TK):
        acc += dot(A[span(pm * TM, TM), span(k, TK)], B[span(k, TK), span(pn * TN, TN)])
    C[span(pm * TM, TM), span(pn * TN, TN)] = acc


@phobos.kernel(
    autotune={"TM": [128, 64], "TN": [128, 64], "TK": [32, 16], "W": [256, 128]},
    launch="W",
    tensorcore=True,
    pipeline=True,
)
def tensorcore_tf32(A: tensor[f32, "M", "K"], B: tensor[f32, "K", "N"], C: tensor[f32, "M", "N"]):
    pm = ctx.block.x
    pn = ctx.block.y
    acc: tile[f32, TM, TN] = 0.0
    for k in range(0, K, TK):
        acc += dot(A[span(pm * TM, TM), span(k, TK)], B[span(k, TK), span(pn * TN, TN)])
    C[span(pm * TM, TM), span(pn * TN, TN)] = acc
