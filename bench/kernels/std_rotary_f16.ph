// rotary (f16) with the standard library: bench/stdlib_kernels.py writes this file, bench_stdlib.py times it.
@autotune(BN in [4096], W in [512, 256, 128, 1024], R in [1, 2, 4])
@launch(W)
kernel std_rotary_f16(X: tensor<f16>[M, D], C: tensor<f32>[M, H], S: tensor<f32>[M, H], Y: tensor<f16>[M, D]) {
  let r = ctx.block.x * R
  let h = BN / 2
  let x1 = X[r :+ R, 0 :+ BN / 2]
  let x2 = X[r :+ R, h :+ BN / 2]
  let c = C[r :+ R, 0 :+ BN / 2]
  let s = S[r :+ R, 0 :+ BN / 2]
  Y[r :+ R, 0 :+ BN / 2] = rotary_first(x1, x2, c, s)
  Y[r :+ R, h :+ BN / 2] = rotary_second(x1, x2, c, s)
}
