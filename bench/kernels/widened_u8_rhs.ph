// C[M, N] = A[M, K] @ f16(B[N, K])^T with u8 B (test_widened_dot_gpu.py): the unsigned widening
// folded into mma.sync's B fragments (lowering/widened_fragments.py), rows and columns over
// several warps each, a cp.async ring, f32 out.
@autotune(TM in [64], TN in [64], TK in [64], W in [128])
@launch(W)
@tensorcore
@pipeline
kernel widened_u8_rhs(A: tensor<f16>[M, K], B: tensor<u8>[N, K], C: tensor<f32>[M, N]) {
  let m0 = ctx.block.x * TM
  let n0 = ctx.block.y * TN
  var acc: tile<f32>[TM, TN] = 0.0
  for k in range(0, K, TK) {
    acc += dot_t(A[m0 :+ TM, k :+ TK], f16(B[n0 :+ TN, k :+ TK]))
  }
  C[m0 :+ TM, n0 :+ TN] = acc
}
