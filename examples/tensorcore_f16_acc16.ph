// tensorcore_f16_acc16: C = A @ B in f16 throughout, the accumulator tile f16 too.
//
// `var acc: tile<f16>` makes the dot accumulate in f16: mma.sync m16n8k16
// with f16 accumulators (half the accumulator registers of an f32 one, and
// f16's 11-bit precision for the running sums: fine for short K, lossy for
// long ones). The wgmma path accumulates in f32 only, so on sm_90a too this
// kernel runs mma.sync, and its contract says why.
@autotune(TM in [128, 64], TN in [128, 64], TK in [64, 32], W in [256, 128])
@launch(W)
@tensorcore
@pipeline
kernel tensorcore_f16_acc16(A: tensor<f16>[M, K], B: tensor<f16>[K, N], C: tensor<f16>[M, N]) {
  let pm = ctx.block.x
  let pn = ctx.block.y
  var acc: tile<f16>[TM, TN] = 0.0
  for k in range(0, K, TK) {
    acc += dot(A[pm * TM :+ TM, k :+ TK], B[k :+ TK, pn * TN :+ TN])
  }
  C[pm * TM :+ TM, pn * TN :+ TN] = acc
}
