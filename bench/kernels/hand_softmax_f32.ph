// softmax (f32) written out by hand: bench/stdlib_kernels.py writes this file, bench_stdlib.py times it.
@autotune(BN in [4096], W in [512, 256, 128, 1024])
@launch(W)
kernel hand_softmax_f32(X: tensor<f32>[M, N], Y: tensor<f32>[M, N]) {
  let r = ctx.block.x
  let v = f32(padded(X[r :+ 1, 0 :+ BN], -inf))
  let e = exp(v - rowmax(v))
  Y[r :+ 1, 0 :+ BN] = e / rowsum(e)
}
