// gemv_tc_f16.ph without @pipeline: each K step loads its [16, BK] and [BN, BK] tiles with
// 16-byte ld.global into registers, stores them to shared memory and runs the mma.sync steps
// after one barrier (no cp.async ring: one tile in flight per CTA, the overlap comes from the
// 4 CTAs an SM holds at BN = 64, BK = 256: 120 registers, 42 KB of shared memory each). The
// same W tiles as the cp.async form, read the way gemv_f16.ph reads them: bench/bench_gemv.py
// sets the two side by side to tell the copy path from the access pattern.
// Grid: (cdiv(N, BN), cdiv(T, 16)).
@autotune(BN in [64], BK in [256], W in [128])
@launch(W)
@tensorcore
kernel gemv_tc_sync_f16(X: tensor<f16>[T, K], Wt: tensor<f16>[N, K], Y: tensor<f16>[T, N]) {
  let n0 = ctx.block.x * BN
  let t0 = ctx.block.y * 16
  var acc: tile<f32>[16, BN] = 0.0
  for k in range(0, K, BK) {
    acc += dot_t(X[t0 :+ 16, k :+ BK], Wt[n0 :+ BN, k :+ BK])
  }
  Y[t0 :+ 16, n0 :+ BN] = acc
}
