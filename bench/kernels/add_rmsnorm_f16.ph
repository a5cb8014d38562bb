// Residual add + RMSNorm in f16, the pair every LLaMA-style block runs between its attention and
// MLP: H = X + Res (the new residual stream, stored) and Y = H / rms(H) * Wt, rows of N <= BN
// columns, R rows per CTA. bench_add_norm.py times it beside a copy of the same bytes and
// torch.compile's kernel (issue 27, item 2); test_add_norm_interp.py checks it against NumPy.
@autotune(BN in [4096], R in [1, 2, 4], W in [128, 256, 512])
@launch(W)
kernel add_rmsnorm_f16(X: tensor<f16>[M, N], Res: tensor<f16>[M, N], Wt: tensor<f32>[N],
                       H: tensor<f16>[M, N], Y: tensor<f16>[M, N], eps: f32) {
  let r = ctx.block.x * R
  let h = X[r :+ R, 0 :+ BN] + Res[r :+ R, 0 :+ BN]
  H[r :+ R, 0 :+ BN] = h
  Y[r :+ R, 0 :+ BN] = rms_norm_rows(h, Wt[0 :+ BN], i32(N), eps)
}
