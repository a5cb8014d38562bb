// Reductions, index reductions and clamp in unsigned order (the signed reductions on
// the values with their top bit flipped), and u8 arithmetic that wraps.
kernel ured(X: tensor<u8>[M, N], Y: tensor<u32>[M, N], A: tensor<u8>[M, 1], B: tensor<u32>[M, 1], C: tensor<i32>[M, 1], D: tensor<u8>[M, N]) {
  let r = ctx.block.x * 4
  let x = X[r :+ 4, 0 :+ 32]
  let y = Y[r :+ 4, 0 :+ 32]
  A[r :+ 4, 0 :+ 1] = rowmax(x)
  B[r :+ 4, 0 :+ 1] = rowmin(y)
  C[r :+ 4, 0 :+ 1] = rowargmax(y)
  D[r :+ 4, 0 :+ 32] = clamp(x, 10, 200) + 100
}
