// bf16 GEMM on the tensor cores: ldmatrix + mma.sync m16n8k16 (nvvm.mma.sync), f32
// accumulator, C = A B stored as f32. Ragged edges stay masked (the copies
// zero-fill); the K loop is a cp.async ring where rows are 16-byte aligned.
@autotune(TM in [128, 64], TN in [128, 64, 256], TK in [32, 64], W in [256, 128], MINB in [1, 2])
@launch(W, MINB)
@tensorcore
@pipeline
kernel bgemm(A: tensor<bf16>[M, K], B: tensor<bf16>[K, N], C: tensor<f32>[M, N]) {
  let pm = ctx.block.x
  let pn = ctx.block.y
  var acc: tile<f32>[TM, TN] = 0.0
  for k in range(0, K, TK) {
    acc += dot(A[pm * TM :+ TM, k :+ TK], B[k :+ TK, pn * TN :+ TN])
  }
  C[pm * TM :+ TM, pn * TN :+ TN] = acc
}
