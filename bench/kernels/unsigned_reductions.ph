// unsigned_reductions: rowmax/rowmin/rowargmax and clamp in unsigned order, u8 wrap-around
// (test_unsigned_gpu.py; the same kernel as test/Frontend/Inputs/unsigned-reductions.ph).
kernel unsigned_reductions(X: tensor<u8>[M, N], Y: tensor<u32>[M, N], A: tensor<u8>[M, 1], B: tensor<u32>[M, 1], C: tensor<i32>[M, 1], D: tensor<u8>[M, N]) {
  let r = ctx.block.x * 4
  let x = X[r :+ 4, 0 :+ 32]
  let y = Y[r :+ 4, 0 :+ 32]
  A[r :+ 4, 0 :+ 1] = rowmax(x)
  B[r :+ 4, 0 :+ 1] = rowmin(y)
  C[r :+ 4, 0 :+ 1] = rowargmax(y)
  D[r :+ 4, 0 :+ 32] = clamp(x, 10, 200) + 100
}
