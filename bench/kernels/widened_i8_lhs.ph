// C[M, N] = f16(A[M, K]) @ B[K, N] with i8 A (test_widened_dot_gpu.py): the signed widening folded
// into mma.sync's A fragments (lowering/widened_fragments.py; the warps' rows interleave), B f16 by
// ldmatrix.trans, no ring (a plain loop: synchronous copies), f32 out.
@autotune(TM in [64], TN in [32], TK in [32], W in [128])
@launch(W)
@tensorcore
kernel widened_i8_lhs(A: tensor<i8>[M, K], B: tensor<f16>[K, N], C: tensor<f32>[M, N]) {
  let m0 = ctx.block.x * TM
  let n0 = ctx.block.y * TN
  var acc: tile<f32>[TM, TN] = 0.0
  for k in range(0, K, TK) {
    acc += dot(f16(A[m0 :+ TM, k :+ TK]), B[k :+ TK, n0 :+ TN])
  }
  C[m0 :+ TM, n0 :+ TN] = acc
}
