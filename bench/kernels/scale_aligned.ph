// Benchmark kernel: scale with the promise that M and N are whole numbers of tiles.
// W (threads per CTA) is swept with the tile shape by bench_bandwidth.py.
@autotune(TM in [8, 128], TN in [128, 512], W in [256, 128, 512])
@aligned(M = TM, N = TN)
@launch(W)
kernel scale_aligned(X: tensor<f32>[M, N], Y: tensor<f32>[M, N], alpha: f32) {
  let pm = ctx.block.x
  let pn = ctx.block.y
  var x = X[pm * TM :+ TM, pn * TN :+ TN]
  Y[pm * TM :+ TM, pn * TN :+ TN] = alpha * x
}
