// gemv_f16.ph with K split S ways (S = the first extent of P): CTA (x, y, z) covers the
// z-th run of whole BK chunks of K and stores its partial sums, in f32, to P[z]; the second
// phase (gemv_reduce_f16.ph) adds the S partials and rounds them to f16. For weights with few
// rows, where BN-row blocks alone do not fill the GPU. Grid: (cdiv(N, BN), cdiv(T, TT), S).
@autotune(TT in [1, 2, 4, 8], BN in [2, 1, 4], KV in [1, 2], W in [256, 128])
@launch(W)
kernel gemv_split_f16(X: tensor<f16>[T, 1, K], Wt: tensor<f16>[N, K], P: tensor<f32>[S, T, N]) {
  let BK = 8 * KV * W
  let n0 = ctx.block.x * BN
  let t0 = ctx.block.y * TT
  let s = ctx.block.z
  let per = ((K + BK - 1) / BK + S - 1) / S * BK    // whole chunks, so splits never share one
  let k0 = s * per
  var acc: tile<f32>[TT, BN, BK] = 0.0
  for k in range(k0, min(K, k0 + per), BK) {
    let x = X[t0 :+ TT, 0 :+ 1, k :+ BK]
    let w = Wt[n0 :+ BN, k :+ BK]
    acc = fma(f32(x), f32(w), acc)
  }
  P[s, t0 :+ TT, n0 :+ BN] = sum(acc, 2)
}
