// Benchmark kernel: Y = alpha * X on TM x TN tiles, any M and N (masked edges).
@autotune(TM in [8, 64], TN in [128, 512])
@launch(256)
kernel scale(X: tensor<f32>[M, N], Y: tensor<f32>[M, N], alpha: f32) {
  let pm = ctx.block.x
  let pn = ctx.block.y
  var x = X[pm * TM :+ TM, pn * TN :+ TN]
  Y[pm * TM :+ TM, pn * TN :+ TN] = alpha * x
}
