// Misused qdot_t / qmma_t: each a located error (test/Frontend/quantized.ph).
kernel bad(A: tensor<i8>[M, K], AS: tensor<f32>[M, KB], W: tensor<i8>[N, K], WS: tensor<f32>[N, KB],
           C: tensor<f32>[M, N]) {
  let a = A[0 :+ 1, 0 :+ 32]
  let x = qdot_t(A[0 :+ 1, :], AS[0 :+ 4, :], W[0 :+ 8, :], WS[0 :+ 8, :])
  let y = qdot_t(A[0 :+ 1, 0 :+ 48], AS[0 :+ 1, 0 :+ 2], W[0 :+ 8, 0 :+ 48], WS[0 :+ 8, 0 :+ 2])
  let z = qmma_t(A[0 :+ 8, :], AS[0 :+ 8, :], WS[0 :+ 8, :], WS[:, 0 :+ 8])
}
