// layernorm (f16) with the standard library: bench/stdlib_kernels.py writes this file, bench_stdlib.py times it.
@autotune(BN in [4096], W in [512, 256, 128, 1024], R in [1, 2, 4])
@launch(W)
kernel std_layernorm_f16(X: tensor<f16>[M, N], Wt: tensor<f32>[N], B: tensor<f32>[N], Y: tensor<f16>[M, N], eps: f32) {
  let r = ctx.block.x * R
  Y[r :+ R, 0 :+ BN] = layer_norm_rows(X[r :+ R, 0 :+ BN], Wt[0 :+ BN], B[0 :+ BN], i32(N), eps)
}
