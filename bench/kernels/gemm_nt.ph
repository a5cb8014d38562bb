// C = A @ B^T with B given as [N, K] (dot_t): the right operand's buffer is
// read along K. Ragged edges, cp.async ring.
@autotune(TILE_M in [128, 64], TILE_N in [128, 64], TILE_K in [8, 16], W in [256, 128])
@launch(W)
@pipeline
kernel gemm_nt(A: tensor<f32>[M, K], B: tensor<f32>[N, K], C: tensor<f32>[M, N]) {
  let pm = ctx.block.x
  let pn = ctx.block.y
  var acc: tile<f32>[TILE_M, TILE_N] = 0.0
  for kt in range(0, K, TILE_K) {
    var a = A[pm * TILE_M :+ TILE_M, kt :+ TILE_K]
    var b = B[pn * TILE_N :+ TILE_N, kt :+ TILE_K]
    acc += dot_t(a, b)
  }
  C[pm * TILE_M :+ TILE_M, pn * TILE_N :+ TILE_N] = acc
}
