// layernorm (f32) written out by hand: bench/stdlib_kernels.py writes this file, bench_stdlib.py times it.
@autotune(BN in [4096], W in [512, 256, 128, 1024], R in [1, 2, 4])
@launch(W)
kernel hand_layernorm_f32(X: tensor<f32>[M, N], Wt: tensor<f32>[N], B: tensor<f32>[N], Y: tensor<f32>[M, N], eps: f32) {
  let r = ctx.block.x * R
  let x = X[r :+ R, 0 :+ BN]
  let w = Wt[0 :+ BN]
  let b = B[0 :+ BN]
  let n = i32(N)
  let v = f32(x)
  let valid = iota(BN) < n
  let mean = rowsum(where(valid, v, 0.0)) / f32(n)
  let d = where(valid, v - mean, 0.0)
  let variance = rowsum(d * d) / f32(n)
  Y[r :+ R, 0 :+ BN] = d * rsqrt(variance + eps) * f32(w) + f32(b)
}
