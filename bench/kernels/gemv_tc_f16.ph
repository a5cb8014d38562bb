// Skinny GEMM on the tensor cores: Y[T, N] = X[T, K] @ W[N, K]^T, f16 in, f32 accumulation
// (mma.sync m16n8k16), f16 out. The tokens are the 16 rows of the mma tile (rows past T read
// as zeros and are not stored), W's rows its columns: CTA (x, y) takes BN rows of W and 16
// tokens and streams [BN, BK] tiles of W through the 3-stage cp.async ring of @pipeline
// (16-byte copies; two stages in flight while the third is multiplied), which is what keeps
// enough bytes in flight for the memory system without holding them in registers.
// For 8 to 16 tokens, where the CUDA-core kernel (gemv_f16.ph) runs out of registers and FMA
// throughput. STAGES: the ring's depth (@pipeline(STAGES); 3 is a plain @pipeline's), for more of W
// in flight per CTA. Grid: (cdiv(N, BN), cdiv(T, 16)).
@autotune(BN in [64, 32, 128], BK in [128, 64, 256, 512], W in [128, 256], STAGES in [3, 5, 4])
@launch(W)
@tensorcore
@pipeline(STAGES)
kernel gemv_tc_f16(X: tensor<f16>[T, K], Wt: tensor<f16>[N, K], Y: tensor<f16>[T, N]) {
  let n0 = ctx.block.x * BN
  let t0 = ctx.block.y * 16
  var acc: tile<f32>[16, BN] = 0.0
  for k in range(0, K, BK) {
    acc += dot_t(X[t0 :+ 16, k :+ BK], Wt[n0 :+ BN, k :+ BK])
  }
  Y[t0 :+ 16, n0 :+ BN] = acc
}
