// layernorm: each row of X normalised to zero mean and unit variance, then
// scaled and shifted: Y = (x - mean) / sqrt(var + eps) * Wt + B.
//
// One CTA per row. When the row fits in one tile (N <= BN) it stays in
// registers: X is read once and Y written once. The columns past N read as
// zero, which the sum for the mean ignores; for the variance they are
// selected away with a column index from arange, since x - mean is not zero
// there. Longer rows are read three times: for the mean, for the variance
// around it, and to write the result.
// MINB: CTAs per SM the registers must allow (ptxas otherwise gives the
// 256-thread form 80 registers, three CTAs per SM, and runs it ~3% slower).
@autotune(BN in [4096, 1024, 2048, 8192], W in [512, 256, 1024], MINB in [1, 2, 4])
@launch(W, MINB)
kernel layernorm(X: tensor<f32>[M, N], Wt: tensor<f32>[N], B: tensor<f32>[N], Y: tensor<f32>[M, N], eps: f32) {
  let r = ctx.block.x
  let n = f32(N)
  if N <= BN {
    let x = X[r :+ 1, 0 :+ BN]
    let d = where(arange(BN) < N, x - rowsum(x) / n, 0.0)
    let rstd = 1.0 / sqrt(rowsum(d * d) / n + eps)
    Y[r :+ 1, 0 :+ BN] = d * rstd * Wt[0 :+ BN] + B[0 :+ BN]
  } else {
    var total: tile<f32>[1, 1] = 0.0
    for c in range(0, N, BN) {
      total = total + rowsum(X[r :+ 1, c :+ BN])
    }
    let mean = total / n
    var squares: tile<f32>[1, 1] = 0.0
    for c in range(0, N, BN) {
      let d = where(arange(BN) + c < N, X[r :+ 1, c :+ BN] - mean, 0.0)
      squares = squares + rowsum(d * d)
    }
    let rstd = 1.0 / sqrt(squares / n + eps)
    for c in range(0, N, BN) {
      Y[r :+ 1, c :+ BN] = (X[r :+ 1, c :+ BN] - mean) * rstd * Wt[c :+ BN] + B[c :+ BN]
    }
  }
}
