// wgmma_u8: C = A @ B^T in i32 from u8 operands on sm_90a's warpgroup tensor cores
// (wgmma.mma_async m64nNk32 .s32.u8.u8, TMA-fed 128-byte swizzled stages). B is [N, K],
// so both operands are K-major, as 8-bit wgmma needs; a K tile is one 128-byte row.
// Other chips (and rows TMA cannot read) run mma.sync m16n8k32. Ragged M, N and K: TMA
// zero-fills past the edges, the stores are masked.
@autotune(TM in [128], TN in [128], TK in [128], W in [256], MINB in [1])
@launch(W, MINB)
@tensorcore
@pipeline
kernel wgmma_u8(A: tensor<u8>[M, K], B: tensor<u8>[N, K], C: tensor<i32>[M, N]) {
  let pm = ctx.block.x
  let pn = ctx.block.y
  var acc: tile<i32>[TM, TN] = 0
  for k in range(0, K, TK) {
    acc += dot_t(A[pm * TM :+ TM, k :+ TK], B[pn * TN :+ TN, k :+ TK])
  }
  C[pm * TM :+ TM, pn * TN :+ TN] = acc
}
