# ruff: noqa: E741
"""Triton's tutorial kernels 01, 02, 03 (f16), 05 (forward and backward) and 06 (forward), written
here from the tutorials (triton is only on the GPU machine), for bench/bench_tutorials.py."""

import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    x = tl.load(in_ptr + row * in_stride + cols, mask=cols < n_cols, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    e = tl.exp(x)
    tl.store(out_ptr + row * out_stride + cols, e / tl.sum(e, axis=0), mask=cols < n_cols)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr):  # fmt: skip
    pid = tl.program_id(0)
    num_m, num_n = tl.cdiv(M, BM), tl.cdiv(N, BN)
    group = GROUP_M * num_n
    first_m = (pid // group) * GROUP_M
    size_m = min(num_m - first_m, GROUP_M)
    pid_m = first_m + ((pid % group) % size_m)
    pid_n = (pid % group) // size_m
    rm = (pid_m * BM + tl.arange(0, BM)) % M
    rn = (pid_n * BN + tl.arange(0, BN)) % N
    rk = tl.arange(0, BK)
    a = a_ptr + rm[:, None] * sam + rk[None, :] * sak
    b = b_ptr + rk[:, None] * sbk + rn[None, :] * sbn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        acc = tl.dot(tl.load(a, mask=rk[None, :] < K - k * BK, other=0.0),
                     tl.load(b, mask=rk[:, None] < K - k * BK, other=0.0), acc)  # fmt: skip
        a += BK * sak
        b += BK * sbk
    cm = pid_m * BM + tl.arange(0, BM)
    cn = pid_n * BN + tl.arange(0, BN)
    tl.store(
        c_ptr + cm[:, None] * scm + cn[None, :] * scn, acc.to(tl.float16), mask=(cm[:, None] < M) & (cn[None, :] < N)
    )


@triton.jit
def layer_norm_fwd_kernel(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    X += row * stride
    Y += row * stride
    mean = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mean += tl.load(X + cols, mask=cols < N, other=0.0).to(tl.float32)
    mean = tl.sum(mean, axis=0) / N
    var = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.0).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.0)
        var += x * x
    rstd = 1 / tl.sqrt(tl.sum(var, axis=0) / N + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        x = tl.load(X + cols, mask=mask, other=0.0).to(tl.float32)
        y = (x - mean) * rstd * tl.load(W + cols, mask=mask) + tl.load(B + cols, mask=mask)
        tl.store(Y + cols, y, mask=mask)


@triton.jit
def layer_norm_bwd_dx_kernel(DX, DY, PDW, PDB, X, W, Mean, Rstd, Lock, stride, N, GROUP: tl.constexpr,
                             BLOCK_SIZE: tl.constexpr):  # fmt: skip
    # the tutorial's first backward kernel: dx of one row, and its dy * xhat and dy added into row
    # (row % GROUP) of the partial sums PDW, PDB under that row's spin lock (Lock[g]; Lock[GROUP + g]
    # says whether the partial row was written yet)
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < N
    x = tl.load(X + row * stride + cols, mask=mask, other=0.0)
    dy = tl.load(DY + row * stride + cols, mask=mask, other=0.0)
    w = tl.load(W + cols, mask=mask, other=0.0)
    mean, rstd = tl.load(Mean + row), tl.load(Rstd + row)
    xhat = tl.where(mask, (x - mean) * rstd, 0.0)
    wdy = tl.where(mask, w * dy, 0.0)
    c1 = tl.sum(xhat * wdy, axis=0) / N
    c2 = tl.sum(wdy, axis=0) / N
    tl.store(DX + row * stride + cols, (wdy - (xhat * c1 + c2)) * rstd, mask=mask)
    g = row % GROUP
    part_dw, part_db = dy * xhat, dy
    while tl.atomic_cas(Lock + g, 0, 1) == 1:
        pass
    if tl.load(Lock + GROUP + g) == 0:
        tl.atomic_xchg(Lock + GROUP + g, 1)
    else:
        part_dw += tl.load(PDW + g * N + cols, mask=mask, other=0.0)
        part_db += tl.load(PDB + g * N + cols, mask=mask, other=0.0)
    tl.store(PDW + g * N + cols, part_dw, mask=mask)
    tl.store(PDB + g * N + cols, part_db, mask=mask)
    tl.debug_barrier()  # every thread's stores made before the lock is released (the tutorial's fix)
    tl.atomic_xchg(Lock + g, 0)


@triton.jit
def layer_norm_bwd_dwdb_kernel(PDW, PDB, DW, DB, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # the tutorial's second backward kernel: the M partial rows summed, BLOCK_N columns per program
    cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    dw = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    db = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for i in range(0, M, BLOCK_M):
        rows = i + tl.arange(0, BLOCK_M)
        mask = (rows[:, None] < M) & (cols[None, :] < N)
        dw += tl.load(PDW + rows[:, None] * N + cols[None, :], mask=mask, other=0.0)
        db += tl.load(PDB + rows[:, None] * N + cols[None, :], mask=mask, other=0.0)
    tl.store(DW + cols, tl.sum(dw, axis=0), mask=cols < N)
    tl.store(DB + cols, tl.sum(db, axis=0), mask=cols < N)


def layer_norm_backward(dy, x, w, mean, rstd, dx, dw, db):
    """The tutorial's backward as its autograd function launches it: the lock-guarded partial sums
    (GROUP rows of them, by the tutorial's rule on N), then their reduction."""
    import torch

    m, n = x.shape
    group = 256 if n <= 1024 else 128 if n <= 4096 else 96 if n <= 8192 else 64
    locks = torch.zeros(2 * group, dtype=torch.int32, device=x.device)
    pdw = torch.empty((group, n), dtype=x.dtype, device=x.device)
    pdb = torch.empty((group, n), dtype=x.dtype, device=x.device)
    block = min(65536 // x.element_size(), triton.next_power_of_2(n))
    warps = min(max(block // 256, 1), 8)
    layer_norm_bwd_dx_kernel[(m,)](dx, dy, pdw, pdb, x, w, mean, rstd, locks, x.stride(0), n, GROUP=group,
                                   BLOCK_SIZE=block, num_warps=warps)  # fmt: skip
    layer_norm_bwd_dwdb_kernel[(triton.cdiv(n, 128),)](pdw, pdb, dw, db, group, n, BLOCK_M=32, BLOCK_N=128)


@triton.jit
def attn_fwd_kernel(Q, K, V, O, sm_scale, S, HEAD_DIM: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
                    CAUSAL: tl.constexpr):  # fmt: skip
    start_m = tl.program_id(0)
    off = tl.program_id(1).to(tl.int64) * S * HEAD_DIM
    offs_m = start_m * BM + tl.arange(0, BM)
    offs_n = tl.arange(0, BN)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(Q + off + offs_m[:, None] * HEAD_DIM + offs_d[None, :], mask=offs_m[:, None] < S, other=0.0)
    m_i = tl.zeros([BM], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BM], dtype=tl.float32) + 1.0
    acc = tl.zeros([BM, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    hi = tl.minimum((start_m + 1) * BM, S) if CAUSAL else S
    for start_n in range(0, hi, BN):
        cols = start_n + offs_n
        k = tl.load(K + off + cols[None, :] * HEAD_DIM + offs_d[:, None], mask=cols[None, :] < S, other=0.0)
        qk = tl.dot(q, k) * qk_scale
        keep = cols[None, :] < S
        if CAUSAL:
            keep = keep & (offs_m[:, None] >= cols[None, :])
        qk = tl.where(keep, qk, -1.0e6)
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(V + off + cols[:, None] * HEAD_DIM + offs_d[None, :], mask=cols[:, None] < S, other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), v)
        m_i = m_ij
    acc = acc / l_i[:, None]
    tl.store(O + off + offs_m[:, None] * HEAD_DIM + offs_d[None, :], acc.to(tl.float16), mask=offs_m[:, None] < S)
