// wgmma_fp8_fast: wgmma_fp8.ph under @fastmath: C = A @ B^T in f32 from f8e4m3 operands, the sums
// kept in the tensor cores' own fp8 accumulation for the whole K (about 13 bits kept per step, as
// torch._scaled_mm(use_fast_accum=True)) instead of promoted into f32 after each K tile, so the
// main loop keeps one wgmma group in flight across iterations. B is [N, K] (K-major, as 8-bit
// wgmma needs); ragged M, N and K: TMA zero-fills past the edges.
@autotune(TM in [128], TN in [128, 256], TK in [128], W in [256], MINB in [1])
@launch(W, MINB)
@tensorcore
@pipeline
@fastmath
kernel wgmma_fp8_fast(A: tensor<f8e4m3>[M, K], B: tensor<f8e4m3>[N, K], C: tensor<f32>[M, N]) {
  let pm = ctx.block.x
  let pn = ctx.block.y
  var acc: tile<f32>[TM, TN] = 0.0
  for k in range(0, K, TK) {
    acc += dot_t(A[pm * TM :+ TM, k :+ TK], B[pn * TN :+ TN, k :+ TK])
  }
  C[pm * TM :+ TM, pn * TN :+ TN] = acc
}
