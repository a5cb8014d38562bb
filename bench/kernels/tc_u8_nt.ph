// tc_u8_nt: C = A @ B^T in i32 from u8 operands on the tensor cores (mma.sync m16n8k32
// .s32.u8.u8.s32): tc_i8_nt.ph with unsigned bytes (the tile.dot carries tile.unsigned).
// No @aligned: ragged M, N and K are masked (zeros past the edges).
@autotune(TM in [128], TN in [128], TK in [64], W in [256])
@launch(W)
@tensorcore
@pipeline
kernel tc_u8_nt(A: tensor<u8>[M, K], B: tensor<u8>[N, K], C: tensor<i32>[M, N]) {
  let pm = ctx.block.x
  let pn = ctx.block.y
  var acc: tile<i32>[TM, TN] = 0
  for k in range(0, K, TK) {
    acc += dot_t(A[pm * TM :+ TM, k :+ TK], B[pn * TN :+ TN, k :+ TK])
  }
  C[pm * TM :+ TM, pn * TN :+ TN] = acc
}
