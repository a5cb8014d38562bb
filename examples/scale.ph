// scale: Y = alpha * X, one 32 x 128 tile per CTA.
//
// Shows the basics: tensor parameters with shared dimension symbols (M, N),
// the CTA's grid position (ctx.block), `:+` slices that read a tile and store
// one, a scalar broadcast over a tile, and @aligned, which promises that M and
// N are whole numbers of tiles so that no slice needs a mask.
@autotune(TM in [32], TN in [128])
@aligned(M = TM, N = TN)
kernel scale(X: tensor<f32>[M, N], Y: tensor<f32>[M, N], alpha: f32) {
  let pm = ctx.block.x
  let pn = ctx.block.y
  var x = X[pm * TM :+ TM, pn * TN :+ TN]
  Y[pm * TM :+ TM, pn * TN :+ TN] = alpha * x
}
