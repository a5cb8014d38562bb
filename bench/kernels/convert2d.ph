// Test kernel: 1-D tiles needed in two placements of the kernel's layout, which
// tile-convert-layouts resolves with tile.convert_layout (through shared
// memory). Each CTA reads a [B, B] tile of rows r :+ B, and
//   * its first column as a 1-D tile (placed down the rows) added along each
//     row (broadcast across the columns): A[i, j] = x[i, j] + X[r + j, 0];
//   * the sum of each row (down the rows) stored as a row of S;
//   * a bool tile (the column's signs) used the same way, in a `where`.
// The @autotune space spans layouts with replicas, several warps per
// dimension and tiles wider than the CTA.
@autotune(B in [32, 64, 16, 128], W in [128, 32, 256])
@launch(W)
kernel convert2d(X: tensor<f32>[M, N], A: tensor<f32>[M, N], S: tensor<f32>[G, N], P: tensor<f32>[M, N]) {
  let g = ctx.block.x
  let r = g * B
  let x = X[r :+ B, 0 :+ B]
  let col = X[r :+ B, 0]
  A[r :+ B, 0 :+ B] = x + col
  S[g, 0 :+ B] = sum(x, 1)
  P[r :+ B, 0 :+ B] = where(col > 0.0, x, -x)
}
