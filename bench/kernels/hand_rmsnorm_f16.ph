// rmsnorm (f16) written out by hand: bench/stdlib_kernels.py writes this file, bench_stdlib.py times it.
@autotune(BN in [4096], W in [512, 256, 128, 1024], R in [1, 2, 4])
@launch(W)
kernel hand_rmsnorm_f16(X: tensor<f16>[M, N], Wt: tensor<f32>[N], Y: tensor<f16>[M, N], eps: f32) {
  let r = ctx.block.x * R
  let x = X[r :+ R, 0 :+ BN]
  let w = Wt[0 :+ BN]
  let n = i32(N)
  let v = where(iota(BN) < n, f32(x), 0.0)
  Y[r :+ R, 0 :+ BN] = v * rsqrt(rowsum(v * v) / f32(n) + eps) * f32(w)
}
