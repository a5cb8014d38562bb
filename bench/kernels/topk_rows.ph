// Row top-k with `while` and `break` (issue 23, item 7): the K largest values of each row
// of X and their column indices, largest first (ties: the lowest index first), one row per
// CTA. A row with fewer than K elements stops at its end (`break`), leaving the rest of its
// outputs untouched. Single elements: V[r, j] and I[r, j] are written one at a time.
// N <= BN; the values are finite (-inf marks the positions already taken).
@autotune(BN in [1024], W in [128])
@launch(W)
kernel topk_rows(X: tensor<f32>[M, N], V: tensor<f32>[M, K], I: tensor<i32>[M, K]) {
  let r = ctx.block.x
  var x = padded(X[r :+ 1, 0 :+ BN], -inf)
  var j = 0
  while j < K {
    let m = max(x)
    if m == -inf {
      break
    }
    let at = argmax(x)
    V[r, j] = m
    I[r, j] = at
    x = where(arange(BN) == at, -inf, x)
    j = j + 1
  }
}
