// tc_fp8: C = A @ B^T in f32 from f8e4m3 operands on the tensor cores (mma.sync m16n8k32
// .f32.e4m3.e4m3.f32: sm_89 or later, PTX ISA 8.4, so compile with --features +ptx84).
// B given as [N, K], so both operands come by ldmatrix. The products are exact; the sums f32.
// No @aligned: ragged M, N and K are masked (zeros past the edges).
@autotune(TM in [128], TN in [128], TK in [64], W in [256])
@launch(W)
@tensorcore
@pipeline
kernel tc_fp8(A: tensor<f8e4m3>[M, K], B: tensor<f8e4m3>[N, K], C: tensor<f32>[M, N]) {
  let pm = ctx.block.x
  let pn = ctx.block.y
  var acc: tile<f32>[TM, TN] = 0.0
  for k in range(0, K, TK) {
    acc += dot_t(A[pm * TM :+ TM, k :+ TK], B[pn * TN :+ TN, k :+ TK])
  }
  C[pm * TM :+ TM, pn * TN :+ TN] = acc
}
