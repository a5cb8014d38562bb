// Split-K f16 GEMM on the tensor cores, for shapes whose output tiles leave SMs idle (512 x 512 x
// 16384: 8 tiles of 128 x 256 on 132 SMs; 64 x 4096 x 14336). CTA (x, y, z) multiplies the
// [TM, TN] tile over the K range [z * KS, (z + 1) * KS) and adds its f32 partial into C with
// atomic_add (red.global.add.v2.f32): C += A B, so C starts at the caller's values (zero for
// C = A B). Grid: (cdiv(M, TM), cdiv(N, TN), cdiv(K, KS)). On sm_90a the loop is the TMA ring with
// one wgmma group in flight, as in hgemm.ph; elsewhere the cp.async ring and mma.sync.
@autotune(TM in [128, 64], TN in [256, 128], TK in [64], KS in [1024, 2048, 4096], W in [256, 128])
@launch(W)
@tensorcore
@pipeline
kernel hgemm_splitk(A: tensor<f16>[M, K], B: tensor<f16>[K, N], C: tensor<f32>[M, N]) {
  let m0 = ctx.block.x * TM
  let n0 = ctx.block.y * TN
  let k0 = ctx.block.z * KS
  var acc: tile<f32>[TM, TN] = 0.0
  for k in range(k0, min(k0 + KS, K), TK) {
    acc += dot(A[m0 :+ TM, k :+ TK], B[k :+ TK, n0 :+ TN])
  }
  atomic_add(C[m0 :+ TM, n0 :+ TN], acc)
}
