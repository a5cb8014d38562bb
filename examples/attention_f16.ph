// attention_f16: flash attention forward in f16, O = softmax(Q K^T * scale) V, per head.
//
// Each CTA takes BM queries of one head and walks over the keys BN at a time,
// never holding the S x S scores: for each block it takes the scores
// (dot_t), their row maxima, exp, and rescales what it has accumulated so far
// by exp(old max - new max) (the online softmax). Keys past S score -inf
// (arange marks them), so they get no weight; queries past S are not stored.
// Q, K, V and O are f16. Both dots run on the tensor cores (@tensorcore, f32
// accumulators); the probabilities are rounded to f16 for the second one, as
// flash attention does; the softmax is f32, and O is rounded to f16 on store.
// The row reductions put every warp along the rows (BM a multiple of 16 x W / 32),
// so rowmax and rowsum are shuffles inside a warp, and Q and P never visit shared
// memory: their registers are the A fragments. `acc * alpha + dot(...)` is one
// dot that starts from acc * alpha. K and V stream through a 3-stage ring
// (@pipeline) where rows are 16-byte aligned: cp.async and mma.sync on sm_90,
// TMA and wgmma on sm_90a (--chip sm_90a). @fastmath: exp is ex2.approx.ftz of
// x * log2(e), whose error (a few f32 ulps) is far below P's f16 rounding.
@autotune(BM in [64, 128, 32], BN in [64, 128, 32], D in [64, 128, 32], W in [128, 256])
@launch(W)
@fastmath
@pipeline
@tensorcore
kernel attention_f16(Q: tensor<f16>[H, S, D], K: tensor<f16>[H, S, D], V: tensor<f16>[H, S, D], O: tensor<f16>[H, S, D], scale: f32) {
  let i = ctx.block.x * BM
  let h = ctx.block.y
  let q = Q[h, i :+ BM, 0 :+ D]
  var m: tile<f32>[BM, 1] = -inf
  var l: tile<f32>[BM, 1] = 0.0
  var acc: tile<f32>[BM, D] = 0.0
  for j in range(0, S, BN) {
    let s = where(arange(BN) + j < S, dot_t(q, K[h, j :+ BN, 0 :+ D]) * scale, -inf)
    let mj = tmax(m, rowmax(s))
    let p = exp(s - mj)
    let alpha = exp(m - mj)
    l = l * alpha + rowsum(p)
    acc = acc * alpha + dot(f16(p), V[h, j :+ BN, 0 :+ D])
    m = mj
  }
  O[h, i :+ BM, 0 :+ D] = acc / l
}
