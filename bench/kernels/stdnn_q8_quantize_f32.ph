// Test kernel (test_stdlib_more_gpu.py): std.nn's Q8_0 quantisation of f32 rows held as NB blocks
// of 32 (X: [M, NB, 32], llama.cpp's layout): the scale of each block into S, its quants into Q.
// One row and BB blocks per CTA (a ragged block count is masked).
import std.nn

@autotune(BB in [8])
@launch(128)
kernel stdnn_q8_quantize_f32(X: tensor<f32>[M, NB, 32], S: tensor<f32>[M, NB, 1], Q: tensor<i8>[M, NB, 32]) {
  let r = ctx.block.x
  let b = ctx.block.y * BB
  let x = X[r, b :+ BB, 0 :+ 32]
  let s = q8_0_scale(x)
  S[r, b :+ BB, 0 :+ 1] = s
  Q[r, b :+ BB, 0 :+ 32] = q8_0_quantize(x, s)
}
