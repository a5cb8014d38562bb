// Skinny GEMM with per-channel int8 weights on the tensor cores: Y[T, N] = X[T, K] @ (s[n] W[N, K])^T,
// y[t, n] = s[n] * sum_k x[t, k] w[n, k]; X f16, W i8, s f32 (one scale per output row), f32
// accumulation, f16 out: gemv_i8.ph's sum for 2 to 16 tokens, where the CUDA-core form is bound by
// its FMAs. gemv_tc_f16.ph with 8-bit weights: the tokens are the 16 rows of the mma tile (rows
// past T read as zeros and are not stored), W's rows its columns; CTA (x, y) takes BN rows of W and
// streams [BN, BK] byte tiles of W through a STAGES-deep cp.async ring (16-byte copies). f16(W)
// is folded into the dot: each thread reads its fragments as byte pairs from shared memory and
// widens them in registers (lowering/widened_fragments.py), so W crosses memory as bytes.
// Every f16 x i8 product is exact in f32; the row scale is applied once, after the sum.
// Grid: (cdiv(N, BN), cdiv(T, 16)).
@autotune(BN in [64, 32, 128], BK in [256, 128, 512], W in [128, 256], STAGES in [4, 3, 6])
@launch(W)
@tensorcore
@pipeline(STAGES)
kernel gemv_tc_i8(X: tensor<f16>[T, K], Wq: tensor<i8>[N, K], S: tensor<f32>[N], Y: tensor<f16>[T, N]) {
  let n0 = ctx.block.x * BN
  let t0 = ctx.block.y * 16
  var acc: tile<f32>[16, BN] = 0.0
  for k in range(0, K, BK) {
    acc += dot_t(X[t0 :+ 16, k :+ BK], f16(Wq[n0 :+ BN, k :+ BK]))
  }
  Y[t0 :+ 16, n0 :+ BN] = acc * S[n0 :+ BN]
}
