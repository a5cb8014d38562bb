// wgmma_fp8_scaled: C = f16(scale * (A @ B^T)) from f8e4m3 operands with a per-tensor scale
// (scale = scale_a * scale_b of the quantised operands) in the epilogue, on sm_90a's wgmma
// (.f32.e4m3.e4m3): the usual fp8 GEMM with weights stored [N, K]. Ragged M, N and K.
@autotune(TM in [128], TN in [128, 256], TK in [128], W in [256], MINB in [1])
@launch(W, MINB)
@tensorcore
@pipeline
kernel wgmma_fp8_scaled(A: tensor<f8e4m3>[M, K], B: tensor<f8e4m3>[N, K], C: tensor<f16>[M, N], scale: f32) {
  let pm = ctx.block.x
  let pn = ctx.block.y
  var acc: tile<f32>[TM, TN] = 0.0
  for k in range(0, K, TK) {
    acc += dot_t(A[pm * TM :+ TM, k :+ TK], B[pn * TN :+ TN, k :+ TK])
  }
  C[pm * TM :+ TM, pn * TN :+ TN] = f16(scale * acc)
}
