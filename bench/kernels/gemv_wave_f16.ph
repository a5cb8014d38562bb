// gemv_f16.ph for shapes that fill the GPU in whole waves: K a multiple of BK and N of BN
// (@aligned: no masks, fewer registers) and the occupancy fixed by @launch(W, MINB), so that
// the grid of cdiv(N, BN) x cdiv(T, TT) CTAs is one wave (or two) of the 132 x MINB that are
// resident at once. A CTA here walks the whole K (14 chunks at K = 14336), so a last, partial
// wave runs alone for a whole CTA's time: 4096 rows of BN = 4 are 1024 CTAs, 2.6 waves at the
// 3 CTAs per SM gemv_f16.ph's 80 registers allow, one wave (0.97) at MINB = 8 with W = 128.
// Each thread loads BK / W elements of each of the BN rows per chunk, as 16-byte vectors (BK is
// 8 W or 16 W: all lanes and warps lie along K). bench/bench_gemv.py times the space;
// gemv_f16.ph serves any shape.
@autotune(TT in [1, 2], BN in [4, 2, 8], BK in [1024, 2048], W in [128, 256], MINB in [8, 4, 2])
@launch(W, MINB)
@aligned(N = BN, K = BK)
kernel gemv_wave_f16(X: tensor<f16>[T, 1, K], Wt: tensor<f16>[N, K], Y: tensor<f16>[T, N]) {
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
