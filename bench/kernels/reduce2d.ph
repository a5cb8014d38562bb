// Test kernel: every way a [BR, BC] tile moves between threads. Each CTA
// reads one tile of rows (out-of-bounds elements read as zero) and writes its
// row sums and maxima, its column sums, the row maxima broadcast back
// over the rows, the running sums along the rows, the tile transposed, and
// its total. The @autotune space spans layouts that reduce in a thread, in a
// warp, across warps, and with threads holding replicas.
@autotune(BR in [8, 1, 32], BC in [128, 32, 512], W in [128, 32, 256])
@launch(W)
kernel reduce2d(
  X: tensor<f32>[M, N], RS: tensor<f32>[M], RX: tensor<f32>[M, 1],
  CS: tensor<f32>[G, N], D: tensor<f32>[M, N], P: tensor<f32>[M, N], T: tensor<f32>[N, M],
  TOT: tensor<f32>[G]
) {
  let g = ctx.block.x
  let r = g * BR
  let x = X[r :+ BR, 0 :+ BC]
  RS[r :+ BR] = sum(x, 1)
  RX[r :+ BR, 0 :+ 1] = rowmax(x)
  CS[g, 0 :+ BC] = sum(x, 0)
  D[r :+ BR, 0 :+ BC] = x - rowmax(x)
  P[r :+ BR, 0 :+ BC] = cumsum(x, 1)
  T[0 :+ BC, r :+ BR] = transpose(x)
  TOT[g] = sum(x)
}
