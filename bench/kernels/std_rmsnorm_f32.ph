// rmsnorm (f32) with the standard library: bench/stdlib_kernels.py writes this file, bench_stdlib.py times it.
@autotune(BN in [4096], W in [512, 256, 128, 1024], R in [1, 2, 4])
@launch(W)
kernel std_rmsnorm_f32(X: tensor<f32>[M, N], Wt: tensor<f32>[N], Y: tensor<f32>[M, N], eps: f32) {
  let r = ctx.block.x * R
  Y[r :+ R, 0 :+ BN] = rms_norm_rows(X[r :+ R, 0 :+ BN], Wt[0 :+ BN], i32(N), eps)
}
