// Benchmark kernel for the tuner: saxpy with BLOCK over the original space, 16 to 8192
// (ten candidates; bench/bench_autotune.py tunes it against the hand-picked BLOCKs).
@autotune(BLOCK in [16, 8192])
@launch(256)
kernel saxpy(X: tensor<f32>[N], Y: tensor<f32>[N], a: f32) {
  let start = ctx.block.x * BLOCK
  Y[start :+ BLOCK] += a * X[start :+ BLOCK]
}
