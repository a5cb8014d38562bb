// Decode GEMV with f8e4m3 weights: Y[T, N] = X[T, K] @ (s[n] W[N, K])^T, that is
// y[t, n] = s[n] * sum_k x[t, k] w[n, k]; X f16, W f8e4m3 (OCP e4m3fn, torch.float8_e4m3fn),
// s f32 (one scale per output row; a per-tensor scale is N copies of it), f32 accumulation,
// f16 out. fp8 has no arithmetic: each weight is converted to f32 in registers (exact, as is
// its product with an f16). gemv_i8.ph with fp8 weights.
//
// W is passed as it is stored, [N, K]; X as [T, 1, K] (x[:, None, :]), whose unit dimension lets
// its tile broadcast against W's [BN, BK] tile. W's tile sits along the layout's last dimension,
// so its proven 16-element vectors count (choose_kernel_layout): each thread holds runs of 16
// elements along K, one 16-byte W access per row and run, two 16-byte X accesses.
// BK = 16 KV W: each thread loads KV vectors of every one of its BN rows per chunk; registers
// grow as TT x BN x 16 KV (twice gemv_f16's per token and row), so TT = 4 is the most that fits.
// The row scale is applied once, after the row reduction. Grid: (cdiv(N, BN), cdiv(T, TT)).
@autotune(TT in [1, 2, 4], BN in [2, 1, 4], KV in [1, 2], W in [256, 128])
@launch(W)
kernel gemv_fp8(X: tensor<f16>[T, 1, K], Wq: tensor<f8e4m3>[N, K], S: tensor<f32>[N], Y: tensor<f16>[T, N]) {
  let BK = 16 * KV * W
  let n0 = ctx.block.x * BN
  let t0 = ctx.block.y * TT
  var acc: tile<f32>[TT, BN, BK] = 0.0
  for k in range(0, K, BK) {
    let x = X[t0 :+ TT, 0 :+ 1, k :+ BK]
    let w = Wq[n0 :+ BN, k :+ BK]
    acc = fma(f32(x), f32(w), acc)
  }
  Y[t0 :+ TT, n0 :+ BN] = sum(acc, 2) * S[n0 :+ BN]
}
