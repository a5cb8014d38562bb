// Decode GEMV with Q8_0 weights: y[t, n] = sum_b d[n, b] * sum_{k in block b} x[t, k] q[n, k],
// blocks of 32 along K (the layout of std.nn's q8_0 helpers and qdot_t: q i8 [N, K], d f32
// [N, K/32]; K a multiple of 32, as the format has it); X f16, f32 accumulation, f16 out.
//
// Tiles have rank 3 at most, so the block is a dimension of its own and the rows are a loop:
// q is passed as [N, K/32, 32] (q.view(N, -1, 32)), d as [N, K/32, 1] (d[..., None]) and X as
// [T, K/32, 32] (x.view(T, -1, 32)), all views. CTA (x, y) takes rows n0 .. n0 + BR one after
// the other and tokens t0 .. t0 + TT; per row it walks K in chunks of BB blocks (BB = KV W / 2,
// 16 KV elements per thread): the [1, BB, 32] tile of q gives each thread runs of 16 i8 (one
// 16-byte access per vector, two 16-byte X accesses), the [1, BB, 1] tile of scales one 4-byte
// read per thread and vector, which the two lanes of a block share, and the accumulator keeps
// x q d per element it loaded (the scale folded into the weight before the fma, so no
// per-chunk reduction). Registers grow as TT x 16 KV; one row reduction per row.
// Unlike gemv_i8.ph, q is not passed as [N, K]: its per-block scale broadcasts only over a block
// dimension of its own (the language has no reshape), and the view costs nothing.
// Grid: (cdiv(N, BR), cdiv(T, TT)).
@autotune(TT in [1, 2, 4], BR in [2, 1, 4], KV in [2, 1, 4], W in [256, 128])
@launch(W)
kernel gemv_q8_0(X: tensor<f16>[T, KB, 32], Q: tensor<i8>[N, KB, 32], D: tensor<f32>[N, KB, 1], Y: tensor<f16>[T, N]) {
  let BB = KV * W / 2
  let n0 = ctx.block.x * BR
  let t0 = ctx.block.y * TT
  var y: tile<f32>[TT, BR] = 0.0
  for r in range(0, BR) {
    var acc: tile<f32>[TT, BB, 32] = 0.0
    for b in range(0, KB, BB) {
      let x = X[t0 :+ TT, b :+ BB, :]
      let wd = f32(Q[n0 + r :+ 1, b :+ BB, :]) * D[n0 + r :+ 1, b :+ BB, :]
      acc = fma(f32(x), wd, acc)
    }
    y = where(arange(BR) == i32(r), rowsum(sum(acc, 1)), y)
  }
  Y[t0 :+ TT, n0 :+ BR] = y
}
