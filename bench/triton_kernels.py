"""The benchmark kernels written in Triton, for side-by-side timing with Phobos.

Each mirrors a kernel of bench/kernels/ (same tiles, same arithmetic, same
masking when the extent is not a whole number of tiles); Triton specialises
pointers and integer arguments divisible by 16 on its own.
"""

import triton
import triton.language as tl


@triton.jit
def saxpy(x_ptr, y_ptr, n, a, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, a * x + y, mask=mask)


@triton.jit
def scale(x_ptr, y_ptr, m, n, sx, sy, alpha, TM: tl.constexpr, TN: tl.constexpr):
    rows = tl.program_id(0) * TM + tl.arange(0, TM)[:, None]
    cols = tl.program_id(1) * TN + tl.arange(0, TN)[None, :]
    mask = (rows < m) & (cols < n)
    x = tl.load(x_ptr + rows * sx + cols, mask=mask)
    tl.store(y_ptr + rows * sy + cols, alpha * x, mask=mask)


@triton.jit
def scale_rowwise(x_ptr, y_ptr, m, n, sx, sy, alpha, TM: tl.constexpr, TN: tl.constexpr):
    # program (column tile, row tile): consecutive programs walk along rows
    rows = tl.program_id(1) * TM + tl.arange(0, TM)[:, None]
    cols = tl.program_id(0) * TN + tl.arange(0, TN)[None, :]
    mask = (rows < m) & (cols < n)
    x = tl.load(x_ptr + rows * sx + cols, mask=mask)
    tl.store(y_ptr + rows * sy + cols, alpha * x, mask=mask)


@triton.jit
def rowwalk(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    # program (c, row): BLOCK consecutive elements of one row, lanes stride 1
    offs = tl.program_id(1) * n + tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, 2.0 * tl.load(x_ptr + offs))


@triton.jit
def colwalk(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    # program (col, r): BLOCK consecutive elements of one column, lanes stride n
    rows = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    offs = rows * n + tl.program_id(0)
    tl.store(y_ptr + offs, 2.0 * tl.load(x_ptr + offs))


def cdiv(a, b):
    return (a + b - 1) // b


def launch_saxpy(x, y, a, block=1024, warps=8):
    saxpy[(cdiv(x.numel(), block),)](x, y, x.numel(), a, BLOCK=block, num_warps=warps)


def launch_scale(x, y, alpha, tm=32, tn=128, warps=8):
    m, n = x.shape
    scale[(cdiv(m, tm), cdiv(n, tn))](x, y, m, n, x.stride(0), y.stride(0), alpha, TM=tm, TN=tn, num_warps=warps)


def launch_scale_rowwise(x, y, alpha, tm=32, tn=128, warps=8):
    m, n = x.shape
    scale_rowwise[(cdiv(n, tn), cdiv(m, tm))](
        x, y, m, n, x.stride(0), y.stride(0), alpha, TM=tm, TN=tn, num_warps=warps
    )


def launch_walk(kind, x, y, block=256, warps=8):
    m, n = x.shape
    if kind == "row":
        rowwalk[(n // block, m)](x, y, n, BLOCK=block, num_warps=warps)
    else:
        colwalk[(n, m // block)](x, y, n, BLOCK=block, num_warps=warps)


# fp32 matmul (no TF32: input_precision="ieee"), tuned over the usual tile configs.
_MATMUL_CONFIGS = [
    triton.Config({"BM": bm, "BN": bn, "BK": bk, "G": 8}, num_warps=w, num_stages=s)
    for bm, bn, bk, w, s in [
        (128, 128, 32, 8, 3),
        (128, 128, 16, 8, 4),
        (128, 64, 32, 4, 4),
        (64, 128, 32, 4, 4),
        (128, 256, 16, 8, 3),
        (64, 64, 32, 4, 4),
        (256, 128, 16, 8, 3),
    ]
]


@triton.autotune(configs=_MATMUL_CONFIGS, key=["m", "n", "k"])
@triton.jit
def matmul_f32(
    a_ptr,
    b_ptr,
    c_ptr,
    m,
    n,
    k,
    sam,
    sak,
    sbk,
    sbn,
    scm,
    scn,
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
    G: tl.constexpr,
):
    pid = tl.program_id(0)
    grid_m, grid_n = tl.cdiv(m, BM), tl.cdiv(n, BN)
    group = pid // (G * grid_n)
    first_m = group * G
    size_m = min(grid_m - first_m, G)
    pm = first_m + (pid % (G * grid_n)) % size_m
    pn = (pid % (G * grid_n)) // size_m
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, k, BK):
        a = tl.load(
            a_ptr + rm[:, None] * sam + (k0 + rk)[None, :] * sak,
            mask=(rm[:, None] < m) & ((k0 + rk)[None, :] < k),
            other=0.0,
        )
        b = tl.load(
            b_ptr + (k0 + rk)[:, None] * sbk + rn[None, :] * sbn,
            mask=((k0 + rk)[:, None] < k) & (rn[None, :] < n),
            other=0.0,
        )
        acc = tl.dot(a, b, acc, input_precision="ieee")
    tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn, acc, mask=(rm[:, None] < m) & (rn[None, :] < n))


def launch_matmul_f32(a, b, c):
    m, k = a.shape
    n = b.shape[1]

    def grid(meta):
        return (cdiv(m, meta["BM"]) * cdiv(n, meta["BN"]),)

    matmul_f32[grid](a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1))


@triton.jit
def softmax_rows(x_ptr, y_ptr, n, sx, sy, BLOCK: tl.constexpr):
    """One program per row, the whole row in one block (n <= BLOCK)."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    inside = cols < n
    x = tl.load(x_ptr + row * sx + cols, mask=inside, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + row * sy + cols, e / tl.sum(e, axis=0), mask=inside)


@triton.jit
def layernorm_rows(x_ptr, w_ptr, b_ptr, y_ptr, n, sx, sy, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    inside = cols < n
    x = tl.load(x_ptr + row * sx + cols, mask=inside, other=0.0)
    d = tl.where(inside, x - tl.sum(x, axis=0) / n, 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(d * d, axis=0) / n + eps)
    w = tl.load(w_ptr + cols, mask=inside)
    b = tl.load(b_ptr + cols, mask=inside)
    tl.store(y_ptr + row * sy + cols, d * rstd * w + b, mask=inside)


def launch_softmax(x, y, warps=8):
    m, n = x.shape
    softmax_rows[(m,)](x, y, n, x.stride(0), y.stride(0), BLOCK=triton.next_power_of_2(n), num_warps=warps)


def launch_layernorm(x, w, b, y, eps, warps=8):
    m, n = x.shape
    layernorm_rows[(m,)](x, w, b, y, n, x.stride(0), y.stride(0), eps, BLOCK=triton.next_power_of_2(n), num_warps=warps)


# f16/bf16 matmul on the tensor cores, f32 accumulation, tuned over the usual tile configs.
_TC_CONFIGS = [
    triton.Config({"BM": bm, "BN": bn, "BK": bk, "G": 8}, num_warps=w, num_stages=s)
    for bm, bn, bk, w, s in [
        (128, 256, 64, 8, 3),
        (128, 128, 64, 8, 4),
        (128, 128, 32, 4, 4),
        (256, 128, 64, 8, 3),
        (64, 128, 64, 4, 4),
        (128, 64, 64, 4, 4),
    ]
]


@triton.autotune(configs=_TC_CONFIGS, key=["m", "n", "k"])
@triton.jit
def matmul_tc(
    a_ptr,
    b_ptr,
    c_ptr,
    m,
    n,
    k,
    sam,
    sak,
    sbk,
    sbn,
    scm,
    scn,
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
    G: tl.constexpr,
):
    pid = tl.program_id(0)
    grid_m, grid_n = tl.cdiv(m, BM), tl.cdiv(n, BN)
    group = pid // (G * grid_n)
    first_m = group * G
    size_m = min(grid_m - first_m, G)
    pm = first_m + (pid % (G * grid_n)) % size_m
    pn = (pid % (G * grid_n)) // size_m
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, k, BK):
        a = tl.load(
            a_ptr + rm[:, None] * sam + (k0 + rk)[None, :] * sak,
            mask=(rm[:, None] < m) & ((k0 + rk)[None, :] < k),
            other=0.0,
        )
        b = tl.load(
            b_ptr + (k0 + rk)[:, None] * sbk + rn[None, :] * sbn,
            mask=((k0 + rk)[:, None] < k) & (rn[None, :] < n),
            other=0.0,
        )
        acc = tl.dot(a, b, acc)
    c = acc.to(c_ptr.dtype.element_ty)
    tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn, c, mask=(rm[:, None] < m) & (rn[None, :] < n))


def launch_matmul(a, b, c):
    m, k = a.shape
    n = b.shape[1]

    def grid(meta):
        return (cdiv(m, meta["BM"]) * cdiv(n, meta["BN"]),)

    matmul_tc[grid](a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1))
