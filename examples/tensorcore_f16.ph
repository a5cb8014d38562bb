// tensorcore_f16: C = alpha * A @ B + beta * C on the tensor cores, f16
// operands, an f32 accumulator and an f32 C.
//
// @tensorcore runs the dot on the tensor cores; @pipeline streams the A and B
// tiles through a shared-memory ring. Compiled for sm_90 (the default) the
// dot is ldmatrix + mma.sync m16n8k16 fed by cp.async; for sm_90a
// (`phobos compile --chip sm_90a`, `chip="sm_90a"`) it is warpgroup wgmma
// fed by TMA, where the rows are 16-byte pitched (and on repacked copies of
// A and B where they are not). No @aligned: ragged M, N and K are masked
// (zeros past the edges); the epilogue reads C where it writes it.
@autotune(TM in [128, 64], TN in [128, 256, 64], TK in [64, 32], W in [256, 128])
@launch(W)
@tensorcore
@pipeline
kernel tensorcore_f16(A: tensor<f16>[M, K], B: tensor<f16>[K, N], C: tensor<f32>[M, N], alpha: f32, beta: f32) {
  let pm = ctx.block.x
  let pn = ctx.block.y
  var acc: tile<f32>[TM, TN] = 0.0
  for k in range(0, K, TK) {
    acc += dot(A[pm * TM :+ TM, k :+ TK], B[k :+ TK, pn * TN :+ TN])
  }
  let c = C[pm * TM :+ TM, pn * TN :+ TN]
  C[pm * TM :+ TM, pn * TN :+ TN] = alpha * acc + beta * c
}
