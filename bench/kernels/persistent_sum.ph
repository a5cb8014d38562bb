// The sum of a vector in one launch, with a grid barrier (issue 23, items 5 and 7). The grid
// is every CTA the GPU holds at once (@persistent): CTA b adds the tiles b, b + G, b + 2G, ...
// (G = ctx.grid.x) in registers, writes its partial sum to P[b], and after grid_barrier()
// (every partial sum written and visible) CTA 0 adds the G partial sums into Y[0].
// P needs at least G elements.
@persistent
@autotune(B in [4096], W in [256])
@launch(W)
kernel persistent_sum(X: tensor<f32>[N], P: tensor<f32>[G], Y: tensor<f32>[1]) {
  let b = ctx.block.x
  let g = ctx.grid.x
  var acc: tile<f32>[B] = 0.0
  for t in range(b, (N + B - 1) / B, g) {
    acc += X[t * B :+ B]
  }
  P[b] = sum(acc)
  grid_barrier()
  if b == 0 {
    var total: f32 = 0.0
    for i in range(0, g, 1024) {
      total = total + sum(where(arange(1024) + i < g, P[i :+ 1024], 0.0))
    }
    Y[0] = total
  }
}
