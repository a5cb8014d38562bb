// Test kernel: cumsum down the rows (axis 0, the default) and along them, and the
// index reductions (argmax along the rows, rowargmin, argmax of the whole tile)
// of one [BR, BC] tile per CTA (out-of-bounds elements read as zero).
// test_index_reductions_gpu.py compares each with numpy on ragged shapes.
@autotune(BR in [32, 8, 64], BC in [64, 128, 32], W in [128, 32, 256])
@launch(W)
kernel index_reductions(
  X: tensor<f32>[M, N], C0: tensor<f32>[M, N], C1: tensor<f32>[M, N],
  AM: tensor<i32>[M], RA: tensor<i32>[M, 1], T: tensor<i32>[G]
) {
  let g = ctx.block.x
  let r = g * BR
  let x = X[r :+ BR, 0 :+ BC]
  C0[r :+ BR, 0 :+ BC] = cumsum(x)
  C1[r :+ BR, 0 :+ BC] = cumsum(x, 1)
  AM[r :+ BR] = argmax(x, 1)
  RA[r :+ BR, 0 :+ 1] = rowargmin(x)
  T[g] = argmax(x)
}
