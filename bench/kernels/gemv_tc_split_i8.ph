// gemv_tc_i8.ph with K split S ways (S = the first extent of P): each CTA sums its share of K's
// chunks on the tensor cores (f16(W) widened in registers) and writes its partial, already times
// the row scale, to P[z]; gemv_reduce_f16.ph adds the S partials into Y. A [BN]-row tile per CTA
// leaves most of the GPU idle on weights of a few thousand rows (4096 x 14336: 128 CTAs of 4 warps,
// one per SM); S splits make S times as many. Grid: (cdiv(N, BN), cdiv(T, 16), S).
@autotune(BN in [32, 64], BK in [256, 512, 128], W in [128, 256], STAGES in [4, 3, 6])
@launch(W)
@tensorcore
@pipeline(STAGES)
kernel gemv_tc_split_i8(X: tensor<f16>[T, K], Wq: tensor<i8>[N, K], S: tensor<f32>[N], P: tensor<f32>[Z, T, N]) {
  let n0 = ctx.block.x * BN
  let t0 = ctx.block.y * 16
  let z = ctx.block.z
  let per = ((K + BK - 1) / BK + Z - 1) / Z * BK    // whole chunks, so splits never share one
  let k0 = z * per
  var acc: tile<f32>[16, BN] = 0.0
  for k in range(k0, min(K, k0 + per), BK) {
    acc += dot_t(X[t0 :+ 16, k :+ BK], f16(Wq[n0 :+ BN, k :+ BK]))
  }
  P[z, t0 :+ 16, n0 :+ BN] = acc * S[n0 :+ BN]
}
