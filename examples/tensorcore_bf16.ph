// tensorcore_bf16: C = A @ B on the tensor cores, bf16 operands, an f32 accumulator,
// C rounded to bf16 on store.
//
// As tensorcore_f16.ph (mma.sync on sm_90, wgmma fed by TMA on sm_90a); bf16 keeps
// f32's range with 8 bits of precision, and the products and sums are f32.
@autotune(TM in [128, 64], TN in [128, 256, 64], TK in [64, 32], W in [256, 128])
@launch(W)
@tensorcore
@pipeline
kernel tensorcore_bf16(A: tensor<bf16>[M, K], B: tensor<bf16>[K, N], C: tensor<bf16>[M, N]) {
  let pm = ctx.block.x
  let pn = ctx.block.y
  var acc: tile<f32>[TM, TN] = 0.0
  for k in range(0, K, TK) {
    acc += dot(A[pm * TM :+ TM, k :+ TK], B[k :+ TK, pn * TN :+ TN])
  }
  C[pm * TM :+ TM, pn * TN :+ TN] = bf16(acc)
}
