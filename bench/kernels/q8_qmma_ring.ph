// q8_qmma_ring: q8_qmma.ph's Q8_0 prompt projection, C = qmma_t(A, AS, W, WS), with its 32-element
// blocks streamed through a @pipeline ring of S stages and larger tiles. qmma_t is a loop over
// K in blocks of 32 (docs/language.md); in q8_qmma.ph each block's [TM, 32] and [TN, 32] operand
// tiles are read, stored to shared memory and waited for (two barriers) before its mma, so
// every block is a round trip to memory. Here the planner makes that loop a ring: S - 1 blocks'
// cp.async copies are in flight while one is multiplied (one barrier per block). The block's
// sum is still scaled and added on the CUDA cores (cvt, the scale product, mul, add per
// accumulator): TM x TN / THREADS accumulators per thread. Same arguments as q8_qmma.ph.
@autotune(TM in [128, 64], TN in [64, 128], THREADS in [256, 128], S in [4, 3, 6])
@launch(THREADS)
@tensorcore
@pipeline(S)
kernel q8_qmma_ring(A: tensor<i8>[M, K], AS: tensor<f32>[M, KB],
                    W: tensor<i8>[N, K], WS: tensor<f32>[KB, N],
                    C: tensor<f32>[M, N]) {
  let pm = ctx.block.x
  let pn = ctx.block.y
  C[pm * TM :+ TM, pn * TN :+ TN] = qmma_t(A[pm * TM :+ TM, :], AS[pm * TM :+ TM, :],
                                           W[pn * TN :+ TN, :], WS[:, pn * TN :+ TN])
}
