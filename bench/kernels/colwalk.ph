// Coalescing experiment, column walk: each CTA reads 256 consecutive elements
// of one column (stride N across lanes) and writes them doubled: the same
// bytes and arithmetic as rowwalk.ph. Neighbouring CTAs (ctx.block.x) take
// neighbouring columns, so the lines they share may still be in L2.
@aligned(M = 256)
@launch(256)
kernel colwalk(X: tensor<f32>[M, N], Y: tensor<f32>[M, N]) {
  let col = ctx.block.x
  let r = ctx.block.y * 256
  Y[r :+ 256, col :+ 1] = 2.0 * X[r :+ 256, col :+ 1]
}
