// Skinny GEMM with Q8_0 weights on the tensor cores: y[t, n] = sum_b d[n, b] * sum_{k in block b}
// x[t, k] q[n, k], blocks of 32 along K; X f16 [T, K], q i8 [N, K], the scales transposed, DT f32
// [K/32, N] (repacked once, as weights are, so a block's BN scales are one contiguous read); f32
// accumulation, f16 out. gemv_q8_0.ph's sum for 2 to 16 tokens on mma.sync: each 32-block is its
// own dot (f16(q) widened in registers, lowering/widened_fragments.py) whose f32 partial is
// scaled by its block's d and added to the sum; four blocks per iteration, each a staged pair of
// [16, 32] X and [BN, 32] q tiles in the STAGES-deep cp.async ring. The scales are not dot
// operands, so no ring brings them: each iteration loads the blocks' d two iterations ahead (the
// a* and c* tiles), so that the L2 latency of a scale read is not waited for by the fma that uses
// it (a warp issues in order: such a wait stops its next dot too). Reads past K/32 are masked (zero).
// Grid: (cdiv(N, BN), cdiv(T, 16)).
@autotune(BN in [64, 32, 128], W in [128, 256], STAGES in [4, 3, 6])
@launch(W)
@tensorcore
@pipeline(STAGES)
kernel gemv_tc_q8_0(X: tensor<f16>[T, K], Q: tensor<i8>[N, K], DT: tensor<f32>[KB, N], Y: tensor<f16>[T, N]) {
  let n0 = ctx.block.x * BN
  let t0 = ctx.block.y * 16
  var acc: tile<f32>[16, BN] = 0.0
  var a0 = DT[0 :+ 1, n0 :+ BN]
  var a1 = DT[1 :+ 1, n0 :+ BN]
  var a2 = DT[2 :+ 1, n0 :+ BN]
  var a3 = DT[3 :+ 1, n0 :+ BN]
  var c0 = DT[4 :+ 1, n0 :+ BN]
  var c1 = DT[5 :+ 1, n0 :+ BN]
  var c2 = DT[6 :+ 1, n0 :+ BN]
  var c3 = DT[7 :+ 1, n0 :+ BN]
  for k in range(0, K, 128) {
    acc += dot_t(X[t0 :+ 16, k :+ 32], f16(Q[n0 :+ BN, k :+ 32])) * a0
    acc += dot_t(X[t0 :+ 16, k + 32 :+ 32], f16(Q[n0 :+ BN, k + 32 :+ 32])) * a1
    acc += dot_t(X[t0 :+ 16, k + 64 :+ 32], f16(Q[n0 :+ BN, k + 64 :+ 32])) * a2
    acc += dot_t(X[t0 :+ 16, k + 96 :+ 32], f16(Q[n0 :+ BN, k + 96 :+ 32])) * a3
    let b = k / 32 + 8
    a0 = c0
    a1 = c1
    a2 = c2
    a3 = c3
    c0 = DT[b :+ 1, n0 :+ BN]
    c1 = DT[b + 1 :+ 1, n0 :+ BN]
    c2 = DT[b + 2 :+ 1, n0 :+ BN]
    c3 = DT[b + 3 :+ 1, n0 :+ BN]
  }
  Y[t0 :+ 16, n0 :+ BN] = acc
}
