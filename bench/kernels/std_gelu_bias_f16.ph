// gelu_bias (f16) with the standard library: bench/stdlib_kernels.py writes this file, bench_stdlib.py times it.
@autotune(BN in [4096], W in [512, 256, 128, 1024], R in [1, 2, 4])
@launch(W)
kernel std_gelu_bias_f16(X: tensor<f16>[M, N], B: tensor<f16>[N], Y: tensor<f16>[M, N]) {
  let r = ctx.block.x * R
  Y[r :+ R, 0 :+ BN] = gelu(X[r :+ R, 0 :+ BN] + B[0 :+ BN])
}
