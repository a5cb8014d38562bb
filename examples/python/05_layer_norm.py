# ruff: noqa: F821
"""Triton's tutorial 05 (layer normalization) as Phobos kernels, forward and backward.

forward:  y = (x - mean) * rstd * w + b per row, also storing mean and rstd (as Triton's does);
backward: layer_norm_bwd, in one pass over dy and x: the grid is every CTA the GPU holds at once
          (persistent), each CTA walks the rows b, b + G, b + 2G, ..., writes each row's dx and
          sums dy * xhat and dy down its rows in registers, then adds those column sums into DW
          and DB with atomic_add (so DW and DB must start at zero). Triton's tutorial gets the
          same single pass with one program per row adding into GROUP partial rows under spin
          locks, and a second kernel to sum them.
          The two-kernel form reads dy and x twice: dx per row (layer_norm_bwd_dx), then
          layer_norm_bwd_dwdb, where each CTA sums a BM x BC block down its rows and adds the
          partial sums into DW and DB with atomic_add. backward() uses it past FUSED_MAX_N
          columns, where the fused kernel's registers spill.
Rows longer than one tile (N > BN) are not handled by these kernels (the tutorial's limit too).
"""

import numpy as np

import phobos
from phobos.lang import arange, atomic_add, ctx, f32, rowsum, span, sqrt, sum, tensor, tile, where


@phobos.kernel(autotune={"BN": [1024, 256, 512, 2048, 4096, 8192, 16384], "W": [256, 128, 512, 1024]}, launch="W")
def layer_norm_fwd(
    X: tensor[f32, "M", "N"],
    Wt: tensor[f32, "N"],
    B: tensor[f32, "N"],
    Y: tensor[f32, "M", "N"],
    Mean: tensor[f32, "M", 1],
    Rstd: tensor[f32, "M", 1],
    eps: f32,
):
    r = ctx.block.x
    n = f32(N)
    x = X[span(r, 1), span(0, BN)]
    mean = rowsum(x) / n
    d = where(arange(BN) < N, x - mean, 0.0)
    rstd = 1.0 / sqrt(rowsum(d * d) / n + eps)
    Mean[span(r, 1), :] = mean
    Rstd[span(r, 1), :] = rstd
    Y[span(r, 1), span(0, BN)] = d * rstd * Wt[span(0, BN)] + B[span(0, BN)]


@phobos.fn
def row_dx(xhat, wdy, rstd, n):
    """dx of one row from its xhat, w * dy and rstd (n: the row's length): both backward forms'."""
    c1 = rowsum(xhat * wdy) / n
    c2 = rowsum(wdy) / n
    return (wdy - (xhat * c1 + c2)) * rstd


@phobos.kernel(autotune={"BN": [1024, 256, 512, 2048, 4096, 8192, 16384], "W": [256, 128, 512, 1024]}, launch="W")
def layer_norm_bwd_dx(
    DY: tensor[f32, "M", "N"],
    X: tensor[f32, "M", "N"],
    Wt: tensor[f32, "N"],
    Mean: tensor[f32, "M", 1],
    Rstd: tensor[f32, "M", 1],
    DX: tensor[f32, "M", "N"],
):
    r = ctx.block.x
    n = f32(N)
    rstd = Rstd[span(r, 1), :]
    xhat = where(arange(BN) < N, (X[span(r, 1), span(0, BN)] - Mean[span(r, 1), :]) * rstd, 0.0)
    wdy = Wt[span(0, BN)] * DY[span(r, 1), span(0, BN)]
    DX[span(r, 1), span(0, BN)] = row_dx(xhat, wdy, rstd, n)


@phobos.kernel(autotune={"BM": [32, 16, 64], "BC": [256, 128, 512]}, launch=256)
def layer_norm_bwd_dwdb(
    DY: tensor[f32, "M", "N"],
    X: tensor[f32, "M", "N"],
    Mean: tensor[f32, "M", 1],
    Rstd: tensor[f32, "M", 1],
    DW: tensor[f32, "N"],
    DB: tensor[f32, "N"],
):
    c = ctx.block.x * BC
    r = ctx.block.y * BM
    dy = DY[span(r, BM), span(c, BC)]
    xhat = (X[span(r, BM), span(c, BC)] - Mean[span(r, BM), :]) * Rstd[span(r, BM), :]
    atomic_add(DW[span(c, BC)], sum(dy * xhat, 0))
    atomic_add(DB[span(c, BC)], sum(dy, 0))


@phobos.kernel(
    autotune={"BN": [1024, 256, 512, 2048, 4096, 8192, 16384], "W": [256, 128, 512, 1024]}, launch="W", persistent=True
)
def layer_norm_bwd(
    DY: tensor[f32, "M", "N"],
    X: tensor[f32, "M", "N"],
    Wt: tensor[f32, "N"],
    Mean: tensor[f32, "M", 1],
    Rstd: tensor[f32, "M", 1],
    DX: tensor[f32, "M", "N"],
    DW: tensor[f32, "N"],
    DB: tensor[f32, "N"],
):
    b = ctx.block.x
    g = ctx.grid.x
    n = f32(N)
    w = Wt[span(0, BN)]
    dw: tile[f32, 1, BN] = 0.0
    db: tile[f32, 1, BN] = 0.0
    for r in range(b, M, g):
        rstd = Rstd[span(r, 1), :]
        xhat = where(arange(BN) < N, (X[span(r, 1), span(0, BN)] - Mean[span(r, 1), :]) * rstd, 0.0)
        dy = DY[span(r, 1), span(0, BN)]
        DX[span(r, 1), span(0, BN)] = row_dx(xhat, w * dy, rstd, n)
        dw = dw + dy * xhat
        db = db + dy
    atomic_add(DW[span(0, BN)], sum(dw, 0))
    atomic_add(DB[span(0, BN)], sum(db, 0))


# Past 8192 columns the fused kernel's per-thread registers (a row of x, dy and w, and two column
# sums, BN / W each) spill at every thread count (16384: 200 to 5400 spill instructions), so the
# two-kernel form is used there (measured on the H100 at 4096 x 16384: 3.7 ms fused, 0.48 ms two).
FUSED_MAX_N = 8192


def backward(dy, x, w, mean, rstd, dx, dw, db, interpret: bool = False) -> None:
    """dx, and dw and db added into DW and DB (which start at zero): the fused kernel up to
    FUSED_MAX_N columns, the two kernels past it (layer_norm_bwd_dwdb at its tuned tile)."""
    n = x.shape[1]
    launch = (lambda k: k.interpret) if interpret else (lambda k: k)
    if n <= FUSED_MAX_N:
        launch(layer_norm_bwd.with_defines(**tile_for(n)))(dy, x, w, mean, rstd, dx, dw, db)
        return
    launch(layer_norm_bwd_dx.with_defines(**tile_for(n)))(dy, x, w, mean, rstd, dx)
    dwdb = layer_norm_bwd_dwdb.with_defines(BM=16, BC=128) if interpret else layer_norm_bwd_dwdb
    launch(dwdb)(dy, x, mean, rstd, DW=dw, DB=db)


def tile_for(n: int) -> dict:
    """The row's tile, and 16 columns a thread (at least 128 threads, at most 1024): at 8192 columns
    1024 threads take 39 registers each, so one CTA fits an SM and the forward ran at 0.96x Triton's
    tutorial; 512 threads take 64, two CTAs fit, and it ran at 1.29x (H100, bench/results, stop 43)."""
    bn = min(max(256, 1 << (n - 1).bit_length()), 16384)
    return {"BN": bn, "W": min(max(bn // 16, 128), 1024)}


def reference(x, w, b, dy, eps):
    """Forward and backward in float64: (y, mean, rstd, dx, dw, db)."""
    x, w, b, dy = (a.astype(np.float64) for a in (x, w, b, dy))
    mean = x.mean(axis=1, keepdims=True)
    rstd = 1.0 / np.sqrt(((x - mean) ** 2).mean(axis=1, keepdims=True) + eps)
    xhat = (x - mean) * rstd
    wdy = w * dy
    dx = (wdy - (xhat * (xhat * wdy).mean(axis=1, keepdims=True) + wdy.mean(axis=1, keepdims=True))) * rstd
    return xhat * w + b, mean, rstd, dx, (dy * xhat).sum(axis=0), dy.sum(axis=0)


def run(m: int = 1151, n: int = 1000, interpret: bool = False, seed: int = 0, eps: float = 1e-5) -> dict:
    """Forward and backward on random data; the largest error of each output against float64."""
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((m, n)) * 2 + 0.5).astype(np.float32)
    w, b = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    dy = rng.standard_normal((m, n)).astype(np.float32)
    y, dx = (np.full((m, n), np.nan, np.float32) for _ in range(2))
    mean, rstd = (np.full((m, 1), np.nan, np.float32) for _ in range(2))
    dw, db = (np.zeros(n, np.float32) for _ in range(2))  # layer_norm_bwd_dwdb adds into them
    fwd, bwd = layer_norm_fwd.with_defines(**tile_for(n)), layer_norm_bwd_dx.with_defines(**tile_for(n))
    dwdb = layer_norm_bwd_dwdb.with_defines(BM=16, BC=128) if interpret else layer_norm_bwd_dwdb
    launch = (lambda k: k.interpret) if interpret else (lambda k: k)
    launch(fwd)(x, w, b, y, mean, rstd, eps=eps)
    launch(bwd)(dy, x, w, mean, rstd, dx)
    launch(dwdb)(dy, x, mean, rstd, DW=dw, DB=db)
    chosen = (np.full((m, n), np.nan, np.float32), np.zeros(n, np.float32), np.zeros(n, np.float32))
    backward(dy, x, w, mean, rstd, *chosen, interpret=interpret)  # the fused kernel up to FUSED_MAX_N
    want = reference(x, w, b, dy, eps)
    got = (y, mean, rstd, dx, dw, db, *chosen)
    names = ("y", "mean", "rstd", "dx", "dw", "db", "backward() dx", "backward() dw", "backward() db")
    return {k: float(np.max(np.abs(g - e) / (1 + np.abs(e)))) for k, g, e in zip(names, got, want + want[3:])}


if __name__ == "__main__":
    print("layer norm: max relative error", run())
