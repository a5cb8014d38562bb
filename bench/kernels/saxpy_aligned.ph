// Benchmark kernel: saxpy with the promise that N is a whole number of blocks.
@autotune(BLOCK in [1024, 4096])
@aligned(N = BLOCK)
@launch(256)
kernel saxpy_aligned(X: tensor<f32>[N], Y: tensor<f32>[N], a: f32) {
  let start = ctx.block.x * BLOCK
  Y[start :+ BLOCK] += a * X[start :+ BLOCK]
}
