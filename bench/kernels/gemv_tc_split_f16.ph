// gemv_tc_f16.ph with K split S ways (S = the first extent of P), f32 partials to P[z] for
// gemv_reduce_f16.ph to add: a [BN]-row tile per CTA leaves most of the GPU idle on weights
// of a few thousand rows. Grid: (cdiv(N, BN), cdiv(T, 16), S).
@autotune(BN in [64, 32, 128], BK in [128, 64, 256], W in [128, 256])
@launch(W)
@tensorcore
@pipeline
kernel gemv_tc_split_f16(X: tensor<f16>[T, K], Wt: tensor<f16>[N, K], P: tensor<f32>[S, T, N]) {
  let n0 = ctx.block.x * BN
  let t0 = ctx.block.y * 16
  let s = ctx.block.z
  let per = ((K + BK - 1) / BK + S - 1) / S * BK    // whole chunks, so splits never share one
  let k0 = s * per
  var acc: tile<f32>[16, BN] = 0.0
  for k in range(k0, min(K, k0 + per), BK) {
    acc += dot_t(X[t0 :+ 16, k :+ BK], Wt[n0 :+ BN, k :+ BK])
  }
  P[s, t0 :+ 16, n0 :+ BN] = acc
}
