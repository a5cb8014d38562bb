// tc_small_tf32: C = alpha * A @ B + beta * C with f32 operands (mma.sync on
// tf32) into an f32 accumulator, in 32 x 32 x 16 tiles on 256 threads: one
// m16 x n8 accumulator tile per warp, as the original Phobos's
// gemm_fp16tc_fp32acc example has it.
@autotune(TM in [32], TN in [32], TK in [16])
@launch(256)
@pipeline
@tensorcore
kernel tc_small_tf32(A: tensor<f32>[M, K], B: tensor<f32>[K, N], C: tensor<f32>[M, N], alpha: f32, beta: f32) {
  let pm = program_id(0)
  let pn = program_id(1)
  var acc: tile<f32>[TM, TN] = 0.0
  for kt in range(0, K, TK) {
    acc += dot(A[pm * TM :+ TM, kt :+ TK], B[kt :+ TK, pn * TN :+ TN])
  }
  let c_old = C[pm * TM :+ TM, pn * TN :+ TN]
  C[pm * TM :+ TM, pn * TN :+ TN] = alpha * acc + beta * c_old
}
