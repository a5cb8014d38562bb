// softmax (f32) written out by hand: bench/stdlib_kernels.py writes this file, bench_stdlib.py times it.
@autotune(BN in [4096], W in [512, 256, 128, 1024], R in [1, 2, 4])
@launch(W)
kernel hand_softmax_f32(X: tensor<f32>[M, N], Y: tensor<f32>[M, N]) {
  let r = ctx.block.x * R
  let v = f32(padded(X[r :+ R, 0 :+ BN], -inf))
  let e = exp(v - rowmax(v))
  Y[r :+ R, 0 :+ BN] = e / rowsum(e)
}
