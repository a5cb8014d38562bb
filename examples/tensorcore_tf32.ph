// tensorcore_tf32: C = A @ B of f32 matrices on the tensor cores, as tf32.
//
// Under @tensorcore a dot of f32 operands runs mma.sync m16n8k8 on tf32: each
// operand element is rounded to 10 bits of mantissa (cvt.rna, as cuBLAS
// does; the hardware alone would truncate), the products and sums are f32.
// That is about 1e-3 relative error per product instead of f32's 6e-8; drop
// @tensorcore for f32 products on CUDA cores (gemm_fp32.ph). The interpreter
// computes this dot in f32.
@autotune(TM in [128, 64], TN in [128, 64], TK in [32, 16], W in [256, 128])
@launch(W)
@tensorcore
@pipeline
kernel tensorcore_tf32(A: tensor<f32>[M, K], B: tensor<f32>[K, N], C: tensor<f32>[M, N]) {
  let pm = ctx.block.x
  let pn = ctx.block.y
  var acc: tile<f32>[TM, TN] = 0.0
  for k in range(0, K, TK) {
    acc += dot(A[pm * TM :+ TM, k :+ TK], B[k :+ TK, pn * TN :+ TN])
  }
  C[pm * TM :+ TM, pn * TN :+ TN] = acc
}
