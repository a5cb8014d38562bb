// tc_small_f16: C = alpha * A @ B + beta * C with f16 operands, an f16
// accumulator and f16 C, in 32 x 32 x 16 tiles on 256 threads (8 warps, at
// least 2 CTAs per SM): each warp holds one m16 x n8 tile of the accumulator,
// four registers per thread. The shape of the original Phobos's gemm_fp16
// example; tensorcore-small-tiles.ph checks its PTX, test_tensorcore_fallback_gpu.py
// its results.
@autotune(TM in [32], TN in [32], TK in [16])
@launch(256, 2)
@pipeline
@tensorcore
kernel tc_small_f16(A: tensor<f16>[M, K], B: tensor<f16>[K, N], C: tensor<f16>[M, N], alpha: f32, beta: f32) {
  let pm = program_id(0)
  let pn = program_id(1)
  var acc: tile<f16>[TM, TN] = 0.0
  for kt in range(0, K, TK) {
    acc += dot(A[pm * TM :+ TM, kt :+ TK], B[kt :+ TK, pn * TN :+ TN])
  }
  let c_old = C[pm * TM :+ TM, pn * TN :+ TN]
  C[pm * TM :+ TM, pn * TN :+ TN] = alpha * acc + beta * c_old
}
