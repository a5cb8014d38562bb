// cumsum: running sums along the rows, Y[i, j] = X[i, 0] + ... + X[i, j].
//
// Each CTA takes BR rows and walks along them one BR x BN tile at a time.
// cumsum(x, 1) scans a tile along its rows (axis 1; cumsum(x) alone scans
// down the columns, axis 0) inside each thread, then across the lanes of a warp
// (shuffles), then across warps (shared memory); `carry` holds each row's
// sum so far and is added to the next tile.
@autotune(BR in [4, 1, 16], BN in [256, 1024], W in [128, 256])
@launch(W)
kernel cumsum_rows(X: tensor<f32>[M, N], Y: tensor<f32>[M, N]) {
  let r = ctx.block.x * BR
  var carry: tile<f32>[BR, 1] = 0.0
  for c in range(0, N, BN) {
    let x = X[r :+ BR, c :+ BN]
    Y[r :+ BR, c :+ BN] = cumsum(x, 1) + carry
    carry = carry + rowsum(x)
  }
}
