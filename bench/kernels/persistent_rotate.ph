// Many grid barriers in one launch (issue 23, item 5): with N = G * B (G = ctx.grid.x), CTA b
// owns A[b * B :+ B]. Each round every CTA reads its neighbour's block, waits at a barrier,
// and writes what it read plus one into its own block, so after `rounds` rounds block b holds
// X's block (b + rounds) mod G plus rounds: right only if every barrier waits for every CTA
// and makes every store before it visible after it.
@persistent
@autotune(B in [1024], W in [256])
@launch(W)
kernel persistent_rotate(X: tensor<f32>[N], A: tensor<f32>[N], R: tensor<f32>[N], rounds: i32) {
  let b = ctx.block.x
  let g = ctx.grid.x
  A[b * B :+ B] = X[b * B :+ B]
  for r in range(0, rounds) {
    grid_barrier()
    let v = A[((b + 1) % g) * B :+ B]
    grid_barrier()
    A[b * B :+ B] = v + 1.0
  }
  R[b * B :+ B] = A[b * B :+ B]
}
