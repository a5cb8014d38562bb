// saxpy: Y = a * X + Y over a 1-D vector of any length N.
//
// Shows a kernel without promises: N is a runtime extent, so the last CTA's
// slice runs past the end and is masked (out-of-bounds elements read as zero
// and are not written). The block size is an @autotune constant (here the
// powers of two from 256 to 1024), and `+=` on a slice reads, adds and stores.
@autotune(BLOCK in [256, 1024])
@launch(256)
kernel saxpy(X: tensor<f32>[N], Y: tensor<f32>[N], a: f32) {
  let start = ctx.block.x * BLOCK
  Y[start :+ BLOCK] += a * X[start :+ BLOCK]
}
