// Decode GEMV and skinny GEMM on CUDA cores: Y[T, N] = X[T, K] @ W[N, K]^T (a linear layer, W
// row-major as torch.nn.Linear keeps it), f16 in, f32 accumulation, f16 out.
//
// CTA (x, y) takes rows n0 .. n0 + BN of W and tokens t0 .. t0 + TT, and walks the whole K in
// chunks of BK = 8 KV W: each thread loads KV 16-byte vectors of every one of its BN rows per
// chunk (all lanes and warps lie along K, so no thread loads what another does) and keeps an
// f32 product per element it loaded (`fma` into a [TT, BN, BK] accumulator); one row reduction
// at the end. X is passed as [T, 1, K] (x[:, None, :]): the unit dimension lets its tile
// broadcast against the [BN, BK] tile of W (the language has no reshape), and it makes X the
// layout's widest memory tile, which puts every lane and warp along K.
// Registers grow as TT x BN x KV: TT = 8 is the most that fits; more tokens run in groups
// (grid y) or on the tensor cores (gemv_tc_f16.ph). bench/bench_gemv.py times the space.
@autotune(TT in [1, 2, 4, 8], BN in [2, 1, 4], KV in [1, 2], W in [256, 128])
@launch(W)
kernel gemv_f16(X: tensor<f16>[T, 1, K], Wt: tensor<f16>[N, K], Y: tensor<f16>[T, N]) {
  let BK = 8 * KV * W
  let n0 = ctx.block.x * BN
  let t0 = ctx.block.y * TT
  var acc: tile<f32>[TT, BN, BK] = 0.0
  for k in range(0, K, BK) {
    let x = X[t0 :+ TT, 0 :+ 1, k :+ BK]
    let w = Wt[n0 :+ BN, k :+ BK]
    acc = fma(f32(x), f32(w), acc)
  }
  Y[t0 :+ TT, n0 :+ BN] = sum(acc, 2)
}
