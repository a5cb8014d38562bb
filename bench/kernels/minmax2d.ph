// Test kernel: the maximum and minimum reductions over a [BR, BC] tile, on
// the layouts of reduce2d.ph. Each CTA reads one tile of rows twice, with the
// fill value each reduction needs where the tile leaves X (-inf for a
// maximum, inf for a minimum), and writes its row minima, its column maxima
// and minima, and its overall maximum and minimum.
@autotune(BR in [8, 1, 32], BC in [128, 32, 512], W in [128, 32, 256])
@launch(W)
kernel minmax2d(
  X: tensor<f32>[M, N], RN: tensor<f32>[M, 1], CX: tensor<f32>[G, N], CN: tensor<f32>[G, N],
  TX: tensor<f32>[G], TN: tensor<f32>[G]
) {
  let g = ctx.block.x
  let r = g * BR
  let hi = padded(X[r :+ BR, 0 :+ BC], -inf)
  let lo = padded(X[r :+ BR, 0 :+ BC], inf)
  RN[r :+ BR, 0 :+ 1] = rowmin(lo)
  CX[g, 0 :+ BC] = max(hi, 0)
  CN[g, 0 :+ BC] = min(lo, 0)
  TX[g] = max(hi)
  TN[g] = min(lo)
}
