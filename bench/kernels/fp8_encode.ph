// fp8_encode: f32, f16 and bf16 converted to f8e4m3 and f8e5m2 (round to nearest even, saturating
// to the largest finite value, NaN stays NaN) by a store, an explicit conversion and an assignment
// (test_fp8_gpu.py and test_fp8.py; cvt.rn.satfinite.e4m3x2.f32 / .e5m2x2.f32: sm_89 and later).
kernel fp8_encode(X: tensor<f32>[N], H: tensor<f16>[N], G: tensor<bf16>[N], A: tensor<f8e4m3>[N], B: tensor<f8e5m2>[N], HA: tensor<f8e4m3>[N], HB: tensor<f8e5m2>[N], GA: tensor<f8e4m3>[N], GB: tensor<f8e5m2>[N]) {
  let s = ctx.block.x * 512
  let x = X[s :+ 512]
  A[s :+ 512] = x
  B[s :+ 512] = f8e5m2(x)
  var h: tile<f8e4m3>[512] = H[s :+ 512]
  HA[s :+ 512] = h
  HB[s :+ 512] = H[s :+ 512]
  GA[s :+ 512] = G[s :+ 512]
  GB[s :+ 512] = f8e5m2(G[s :+ 512])
}
