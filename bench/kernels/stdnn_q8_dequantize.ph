// Test kernel (test_stdlib_more_gpu.py): std.nn's Q8_0 dequantisation of the quants Q with the
// block scales S into f32 (llama.cpp's layout, [M, NB, 32]), one row and BB blocks per CTA.
import std.nn

@autotune(BB in [8])
@launch(128)
kernel stdnn_q8_dequantize(Q: tensor<i8>[M, NB, 32], S: tensor<f32>[M, NB, 1], Y: tensor<f32>[M, NB, 32]) {
  let r = ctx.block.x
  let b = ctx.block.y * BB
  Y[r, b :+ BB, 0 :+ 32] = q8_0_dequantize(Q[r, b :+ BB, 0 :+ 32], S[r, b :+ BB, 0 :+ 1])
}
