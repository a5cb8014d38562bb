// wgmma_fp8: C = A @ B^T in f32 from f8e4m3 operands on sm_90a's warpgroup tensor cores
// (wgmma.mma_async m64nNk32 .f32.e4m3.e4m3, TMA-fed 128-byte swizzled stages). B is [N, K],
// so both operands are K-major, as 8-bit wgmma needs; a K tile is one 128-byte row. The
// products are exact, the sums f32. Other chips (and rows TMA cannot read) run mma.sync
// m16n8k32, which needs --features +ptx84. Ragged M, N and K: TMA zero-fills past the edges.
@autotune(TM in [128], TN in [128, 256], TK in [128], W in [256], MINB in [1])
@launch(W, MINB)
@tensorcore
@pipeline
kernel wgmma_fp8(A: tensor<f8e4m3>[M, K], B: tensor<f8e4m3>[N, K], C: tensor<f32>[M, N]) {
  let pm = ctx.block.x
  let pn = ctx.block.y
  var acc: tile<f32>[TM, TN] = 0.0
  for k in range(0, K, TK) {
    acc += dot_t(A[pm * TM :+ TM, k :+ TK], B[pn * TN :+ TN, k :+ TK])
  }
  C[pm * TM :+ TM, pn * TN :+ TN] = acc
}
