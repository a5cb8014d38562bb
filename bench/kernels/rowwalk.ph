// Coalescing experiment, row walk: each CTA reads 256 consecutive elements of
// one row (stride 1 across lanes) and writes them doubled. Neighbouring CTAs
// (ctx.block.x) take neighbouring chunks of the same row.
@aligned(N = 256)
@launch(256)
kernel rowwalk(X: tensor<f32>[M, N], Y: tensor<f32>[M, N]) {
  let row = ctx.block.y
  let c = ctx.block.x * 256
  Y[row :+ 1, c :+ 256] = 2.0 * X[row :+ 1, c :+ 256]
}
