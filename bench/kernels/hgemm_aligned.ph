// hgemm.ph with its promise: @aligned on M, N and K drops every mask and the
// K remainder; 16-byte cp.async copies, checked at entry.
@autotune(TM in [128, 64], TN in [128, 64, 256], TK in [32, 64], W in [256, 128], MINB in [1, 2])
@launch(W, MINB)
@tensorcore
@pipeline
@aligned(M = TM, N = TN, K = TK)
kernel hgemm(A: tensor<f16>[M, K], B: tensor<f16>[K, N], C: tensor<f32>[M, N]) {
  let pm = ctx.block.x
  let pn = ctx.block.y
  var acc: tile<f32>[TM, TN] = 0.0
  for k in range(0, K, TK) {
    acc += dot(A[pm * TM :+ TM, k :+ TK], B[k :+ TK, pn * TN :+ TN])
  }
  C[pm * TM :+ TM, pn * TN :+ TN] = acc
}
