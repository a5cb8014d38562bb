// gemm_fp32: C = alpha * A @ B + beta * C in fp32, one TILE_M x TILE_N tile of C per CTA.
//
// The reference kernel of the @aligned documentation. Shows a tile accumulator
// (`var acc: tile<f32>[...] = 0.0`) carried through a `for` loop over K in
// steps of TILE_K, `acc += dot(a, b)` (one tile.dot that accumulates in
// place), the @autotune search space (each two-value range means the powers
// of two between its ends; `phobos compile -D TILE_M=64 ...` picks others),
// @launch, @pipeline, and @aligned on all three extents, which the kernel
// checks at entry. Drop the @aligned line to get the masked variant.
@autotune(TILE_M in [32, 256], TILE_N in [32, 256], TILE_K in [4, 32])
@launch(256)
@pipeline
@aligned(M = TILE_M, N = TILE_N, K = TILE_K)
kernel gemm(A: tensor<f32>[M, K],
              B: tensor<f32>[K, N],
              C: tensor<f32>[M, N],
              alpha: f32,
              beta: f32) {
  let pm = ctx.block.x
  let pn = ctx.block.y


  var acc: tile<f32>[TILE_M, TILE_N] = 0.0


  for kt in range(0, K, TILE_K) {
    var a = A[pm * TILE_M :+ TILE_M, kt :+ TILE_K]
    var b = B[kt :+ TILE_K, pn * TILE_N :+ TILE_N]
    acc += dot(a, b)
  }


  let c_old = C[pm * TILE_M :+ TILE_M, pn * TILE_N :+ TILE_N]
  C[pm * TILE_M :+ TILE_M, pn * TILE_N :+ TILE_N] = alpha * acc + beta * c_old
}
