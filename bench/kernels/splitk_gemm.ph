// Split-K GEMM: C += A x B where CTA (x, y, z) multiplies the [TM, TN] tile over the K
// range [z * KS, (z + 1) * KS) and adds its partial product into C with atomic_add
// (C starts as the caller's values). Grid: (cdiv(M, TM), cdiv(N, TN), cdiv(K, KS)).
// test_gathers_gpu.py checks it against numpy in float64.
@autotune(TM in [64], TN in [64], TK in [16], KS in [256])
@launch(256)
kernel splitk_gemm(A: tensor<f32>[M, K], B: tensor<f32>[K, N], C: tensor<f32>[M, N]) {
  let m0 = ctx.block.x * TM
  let n0 = ctx.block.y * TN
  let k0 = ctx.block.z * KS
  var acc: tile<f32>[TM, TN] = 0.0
  for k in range(k0, k0 + KS, TK) {
    acc += dot(A[m0 :+ TM, k :+ TK], B[k :+ TK, n0 :+ TN])
  }
  atomic_add(C[m0 :+ TM, n0 :+ TN], acc)
}
