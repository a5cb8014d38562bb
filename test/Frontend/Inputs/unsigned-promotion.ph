// Where unsigned and signed integers meet: u8 + i8 is u8, u32 + i32 is u32 (an
// unsigned type wins at equal width, as in C and Triton), u8 + i32 is i32 (u8
// widens with extui); f32 to u8 saturates; a compound assignment wraps.
kernel prom(X: tensor<u8>[N], Y: tensor<i8>[N], Z: tensor<u32>[N], W: tensor<i32>[N], F: tensor<f32>[N], O1: tensor<u8>[N], O2: tensor<u32>[N], O3: tensor<i32>[N], O4: tensor<u8>[N]) {
  let s = ctx.block.x * 32
  let x = X[s :+ 32]
  let y = Y[s :+ 32]
  let z = Z[s :+ 32]
  let w = W[s :+ 32]
  O1[s :+ 32] = (x + y) / 16
  O2[s :+ 32] = (z + w) >> 28
  O3[s :+ 32] = x + w
  O4[s :+ 32] = u8(F[s :+ 32])
  O1[s :+ 32] += 250
}
