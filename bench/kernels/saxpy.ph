// Benchmark kernel: Y = a * X + Y over a vector of any length (masked tail).
@autotune(BLOCK in [1024, 4096])
@launch(256)
kernel saxpy(X: tensor<f32>[N], Y: tensor<f32>[N], a: f32) {
  let start = ctx.block.x * BLOCK
  Y[start :+ BLOCK] += a * X[start :+ BLOCK]
}
