// gelu_bias (f16) written out by hand: bench/stdlib_kernels.py writes this file, bench_stdlib.py times it.
@autotune(BN in [4096], W in [512, 256, 128, 1024], R in [1, 2, 4])
@launch(W)
kernel hand_gelu_bias_f16(X: tensor<f16>[M, N], B: tensor<f16>[N], Y: tensor<f16>[M, N]) {
  let r = ctx.block.x * R
  let v = f32(X[r :+ R, 0 :+ BN] + B[0 :+ BN])
  Y[r :+ R, 0 :+ BN] = 0.5 * v * (1.0 + erf(v * 0.7071067811865476))
}
