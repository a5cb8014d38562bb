// A linear layer, Y = X Wt^T + Bias (torch.nn.functional.linear, torch.addmm(b, x, w.t())), f16 in
// and out with f32 sums, on the tensor cores: dot_t reads the weight [N, K] as stored (K-major
// for wgmma on sm_90a), and the epilogue adds the bias row and rounds to f16 in registers.
@autotune(TM in [128], TN in [256, 128], TK in [64], W in [256, 128])
@launch(W)
@tensorcore
@pipeline
kernel linear_f16(X: tensor<f16>[M, K], Wt: tensor<f16>[N, K], Bias: tensor<f16>[N], Y: tensor<f16>[M, N]) {
  let m0 = ctx.block.x * TM
  let n0 = ctx.block.y * TN
  var acc: tile<f32>[TM, TN] = 0.0
  for k in range(0, K, TK) {
    acc += dot_t(X[m0 :+ TM, k :+ TK], Wt[n0 :+ TN, k :+ TK])
  }
  Y[m0 :+ TM, n0 :+ TN] = f16(acc + Bias[n0 :+ TN])
}
