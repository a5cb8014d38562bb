// Test kernel for the tuner: candidates with STEP = 2 leave every other block of Y unwritten.
// They move half the bytes, so they time fastest, and they are wrong: tuning must reject them.
// There is no grid rule (the start is not a plain multiple of a tile): launch with
// grid=lambda m: (cdiv(m["N"], m["BLOCK"]),).
@autotune(BLOCK in [256, 1024], STEP in [1, 2])
@launch(256)
kernel scale_gaps(X: tensor<f32>[N], Y: tensor<f32>[N], a: f32) {
  let start = ctx.block.x * BLOCK * STEP
  Y[start :+ BLOCK] = a * X[start :+ BLOCK]
}
