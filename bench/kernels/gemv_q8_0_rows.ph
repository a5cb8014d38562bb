// Decode GEMV with Q8_0 weights, BR rows of W at once: the decode form (1 to a few tokens) of
// gemv_q8_0.ph, with the same arguments (q [N, K/32, 32], d [N, K/32, 1], X [T, K/32, 32], all
// views; K a multiple of 32) and the same sum, y[t, n] = sum_b d[n, b] sum_{k in b} x[t, k] q[n, k].
//
// gemv_q8_0.ph walks its BR rows one after the other, because a tile has rank 3 at most and its
// tokens take one dimension: every row is a round trip to DRAM and a CTA-wide reduction before
// the next row's loads go out, which held it at 0.37-0.49x copy on the H100. Here a CTA takes
// one token (grid y) and a [BR, BB, 32] tile of q per chunk: every thread loads 16-byte runs of
// BR rows together, so BR x 16 KV bytes per thread are in flight, as in gemv_i8.ph. X's [1, BB,
// 32] tile broadcasts over the rows; the block scale is folded into the weight before the fma
// (q d, one rounding), and one reduction per token closes the BR rows. Registers grow as
// BR x 16 KV. Y is passed as [T, N, 1] (y[:, :, None], a view): the reduction leaves a [BR, 1]
// tile, which the point subscript on t stores as [1, BR, 1]. Tokens past the first re-read W (from L2 at best): for T = 1 to 2; more tokens are
// gemv_q8_0.ph's (TT per CTA). Grid: (cdiv(N, BR), T).
@autotune(BR in [4, 2], KV in [1, 2], W in [128, 256])
@launch(W)
kernel gemv_q8_0_rows(X: tensor<f16>[T, KB, 32], Q: tensor<i8>[N, KB, 32], D: tensor<f32>[N, KB, 1], Y: tensor<f16>[T, N, 1]) {
  let BB = KV * W / 2
  let n0 = ctx.block.x * BR
  let t = ctx.block.y
  var acc: tile<f32>[BR, BB, 32] = 0.0
  for b in range(0, KB, BB) {
    let x = X[t :+ 1, b :+ BB, :]
    let wd = f32(Q[n0 :+ BR, b :+ BB, :]) * D[n0 :+ BR, b :+ BB, :]
    acc = fma(f32(x), wd, acc)
  }
  Y[t, n0 :+ BR, :] = rowsum(sum(acc, 2))
}
