// f16 C = A B^T on the tensor cores (dot_t): B's tile is staged as [n][k] and
// read by ldmatrix without .trans.
@autotune(TM in [128, 64], TN in [128, 64], TK in [32, 64], W in [256, 128])
@launch(W)
@tensorcore
@pipeline
kernel hgemm_nt(A: tensor<f16>[M, K], B: tensor<f16>[N, K], C: tensor<f32>[M, N]) {
  let pm = ctx.block.x
  let pn = ctx.block.y
  var acc: tile<f32>[TM, TN] = 0.0
  for k in range(0, K, TK) {
    acc += dot_t(A[pm * TM :+ TM, k :+ TK], B[pn * TN :+ TN, k :+ TK])
  }
  C[pm * TM :+ TM, pn * TN :+ TN] = acc
}
