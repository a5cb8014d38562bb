// f16 operands accumulating in f32 on CUDA cores (C is f32). Ragged edges;
// cp.async ring where the copies are at least 4 bytes (else synchronous).
@autotune(TILE_M in [128, 64], TILE_N in [128, 64], TILE_K in [16, 8], W in [256, 128])
@launch(W)
@pipeline
kernel gemm_f16(A: tensor<f16>[M, K], B: tensor<f16>[K, N], C: tensor<f32>[M, N]) {
  let pm = ctx.block.x
  let pn = ctx.block.y
  var acc: tile<f32>[TILE_M, TILE_N] = 0.0
  for kt in range(0, K, TILE_K) {
    var a = A[pm * TILE_M :+ TILE_M, kt :+ TILE_K]
    var b = B[kt :+ TILE_K, pn * TILE_N :+ TILE_N]
    acc += dot(a, b)
  }
  C[pm * TILE_M :+ TILE_M, pn * TILE_N :+ TILE_N] = acc
}
