// q8_qmma: the Q8_0 prompt projection, C = qmma_t(A, AS, W, WS) over a batch of rows: i8
// A [M, K] and W [N, K], one f32 scale per 32-element block of K, AS [M, KB] and the weight
// scales block-major, WS [KB, N]. Each block's i8 x i8 -> i32 dot runs on the tensor cores
// (mma.sync m16n8k32 .s8, sm_80 and newer); scales and sums are f32. No @aligned: ragged M,
// N and K are masked.
@autotune(TM in [64], TN in [64], THREADS in [128])
@launch(THREADS)
@tensorcore
kernel q8_qmma(A: tensor<i8>[M, K], AS: tensor<f32>[M, KB],
               W: tensor<i8>[N, K], WS: tensor<f32>[KB, N],
               C: tensor<f32>[M, N]) {
  let pm = ctx.block.x
  let pn = ctx.block.y
  C[pm * TM :+ TM, pn * TN :+ TN] = qmma_t(A[pm * TM :+ TM, :], AS[pm * TM :+ TM, :],
                                           W[pn * TN :+ TN, :], WS[:, pn * TN :+ TN])
}
