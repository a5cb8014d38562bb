// q8_qdot: the Q8_0 decode projection, C = qdot_t(A, AS, W, WS) row by row: i8 activations
// A [M, K] and weights W [N, K], one f32 scale per 32-element block of K (AS [M, KB],
// WS [N, KB], KB = ceil(K / 32)). A program owns one row and TN outputs and walks the whole
// of K, which is a runtime extent (`:`). No @aligned: ragged N (and K) are masked.
@autotune(TN in [32])
@launch(128)
kernel q8_qdot(A: tensor<i8>[M, K], AS: tensor<f32>[M, KB],
               W: tensor<i8>[N, K], WS: tensor<f32>[N, KB],
               C: tensor<f32>[M, N]) {
  let pn = ctx.block.x
  let pm = ctx.block.y
  C[pm :+ 1, pn * TN :+ TN] = qdot_t(A[pm :+ 1, :], AS[pm :+ 1, :],
                                     W[pn * TN :+ TN, :], WS[pn * TN :+ TN, :])
}
