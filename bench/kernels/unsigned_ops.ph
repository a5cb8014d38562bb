// unsigned_ops: u8 and u32 division, remainder, shifts, max, compares and conversions
// (test_unsigned_gpu.py; the same kernel as test/Frontend/Inputs/unsigned-ops.ph).
kernel unsigned_ops(X: tensor<u8>[N], Y: tensor<u32>[N], F: tensor<f32>[N], Q: tensor<u8>[N], R: tensor<u32>[N], G: tensor<f32>[N], B: tensor<i32>[N], s: u32) {
  let i = ctx.block.x * 64
  let x = X[i :+ 64]
  let y = Y[i :+ 64]
  let w: tile<u32>[64] = u32(x)
  Q[i :+ 64] = x / 3 + (x >> 1) % 7
  R[i :+ 64] = tmax(y / s, w) + (y >> 3) + u32(F[i :+ 64])
  G[i :+ 64] = f32(y) + f32(x)
  B[i :+ 64] = where(y > 2147483648, 1, 0) + where(x >= 200, 10, 0)
}
