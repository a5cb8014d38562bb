// wgmma_tf32: C = A @ B^T in f32 from f32 operands read as tf32 on sm_90a's warpgroup tensor
// cores (wgmma.mma_async m64nNk8 .f32.tf32.tf32, TMA-fed 128-byte swizzled stages). B is
// [N, K], so both operands are K-major, as tf32 wgmma needs; a K tile is one 128-byte row (32
// elements). wgmma uses the top 19 bits of each f32 (truncation: up to 2^-10 relative per
// operand); the products and sums are f32. Other chips (and rows TMA cannot read) run
// mma.sync m16n8k8, which rounds each operand to tf32 first. Ragged M, N and K: TMA
// zero-fills past the edges.
@autotune(TM in [128], TN in [128, 256], TK in [32], W in [256], MINB in [1])
@launch(W, MINB)
@tensorcore
@pipeline
kernel wgmma_tf32(A: tensor<f32>[M, K], B: tensor<f32>[N, K], C: tensor<f32>[M, N]) {
  let pm = ctx.block.x
  let pn = ctx.block.y
  var acc: tile<f32>[TM, TN] = 0.0
  for k in range(0, K, TK) {
    acc += dot_t(A[pm * TM :+ TM, k :+ TK], B[pn * TN :+ TN, k :+ TK])
  }
  C[pm * TM :+ TM, pn * TN :+ TN] = acc
}
