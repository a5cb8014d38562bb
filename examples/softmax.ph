// softmax: every row of X scaled to sum to one, Y = exp(x - max) / sum(exp(x - max)).
//
// One CTA per row. When the row fits in one tile (N <= BN) it is read once,
// reduced twice in registers (rowmax, then rowsum) and written once: the
// kernel moves 8 bytes per element, like a copy. The columns past N read as
// -inf (padded), which the max ignores and exp turns into zeros that the sum
// ignores. Longer rows take two passes: an online max and sum over the row's
// tiles (each new maximum rescales the running sum), then the normalised
// values. rowmax and rowsum combine each thread's elements, then the lanes of
// a warp with shuffles, then the warps through a few bytes of shared memory.
@autotune(BN in [4096, 1024, 2048, 8192], W in [512, 256, 1024])
@launch(W)
kernel softmax(X: tensor<f32>[M, N], Y: tensor<f32>[M, N]) {
  let r = ctx.block.x
  if N <= BN {
    let x = padded(X[r :+ 1, 0 :+ BN], -inf)
    let e = exp(x - rowmax(x))
    Y[r :+ 1, 0 :+ BN] = e / rowsum(e)
  } else {
    var m: tile<f32>[1, 1] = -inf
    var s: tile<f32>[1, 1] = 0.0
    for c in range(0, N, BN) {
      let x = padded(X[r :+ 1, c :+ BN], -inf)
      let mc = tmax(m, rowmax(x))
      s = s * exp(m - mc) + rowsum(exp(x - mc))
      m = mc
    }
    for c in range(0, N, BN) {
      let x = X[r :+ 1, c :+ BN]
      Y[r :+ 1, c :+ BN] = exp(x - m) / s
    }
  }
}
