// fp8_decode: f8e4m3 and f8e5m2 read back exactly as f32, f16 and bf16, and converted into each
// other (through f32: one rounding) (test_fp8_gpu.py and test_fp8.py; cvt.rn.f16x2.e4m3x2 /
// .e5m2x2: sm_89 and later).
kernel fp8_decode(A: tensor<f8e4m3>[N], B: tensor<f8e5m2>[N], AF: tensor<f32>[N], BF: tensor<f32>[N], AH: tensor<f16>[N], BG: tensor<bf16>[N], AB: tensor<f8e5m2>[N], BA: tensor<f8e4m3>[N]) {
  let s = ctx.block.x * 512
  let a = A[s :+ 512]
  let b = B[s :+ 512]
  AF[s :+ 512] = f32(a)
  BF[s :+ 512] = f32(b)
  AH[s :+ 512] = f16(a)
  BG[s :+ 512] = b
  AB[s :+ 512] = a
  BA[s :+ 512] = f8e4m3(b)
}
