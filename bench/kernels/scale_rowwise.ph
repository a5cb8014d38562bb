// Benchmark kernel: scale with the grid walking along rows: ctx.block.x picks
// the column tile, so consecutive CTAs read neighbouring chunks of the same
// rows (scale.ph walks down the columns of tiles instead).
@autotune(TM in [8, 64], TN in [128, 512])
@launch(256)
kernel scale_rowwise(X: tensor<f32>[M, N], Y: tensor<f32>[M, N], alpha: f32) {
  let pn = ctx.block.x
  let pm = ctx.block.y
  var x = X[pm * TM :+ TM, pn * TN :+ TN]
  Y[pm * TM :+ TM, pn * TN :+ TN] = alpha * x
}
