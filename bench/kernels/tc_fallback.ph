// tc_fallback: a @tensorcore GEMM whose K step (8) mma.sync m16n8k16 cannot
// take, with a [16, 4] dot of its own whose accumulator does not split into
// m16 x n8 tiles: the original Phobos runs such dots on CUDA cores, and so
// does Phobos, with a warning (tensorcore-fallback.ph checks the warning and
// the record; test_tensorcore_fallback_gpu.py the results).
// C = A @ B, D = A[:, 0:8] @ E (E: [8, 4]).
@launch(128)
@tensorcore
kernel tc_fallback(A: tensor<f16>[M, K], B: tensor<f16>[K, N], C: tensor<f32>[M, N], E: tensor<f16>[8, 4], D: tensor<f32>[M, 4]) {
  let pm = program_id(0)
  let pn = program_id(1)
  var acc: tile<f32>[64, 64] = 0.0
  for kt in range(0, K, 8) {
    acc += dot(A[pm * 64 :+ 64, kt :+ 8], B[kt :+ 8, pn * 64 :+ 64])
  }
  C[pm * 64 :+ 64, pn * 64 :+ 64] = acc
  if pn == 0 {
    var side: tile<f32>[64, 4] = 0.0
    side += dot(A[pm * 64 :+ 64, 0 :+ 8], E[0 :+ 8, 0 :+ 4])
    D[pm * 64 :+ 64, 0 :+ 4] = side
  }
}
