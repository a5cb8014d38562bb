// attention: flash attention forward, O = softmax(Q K^T * scale) V, per head.
//
// Each CTA takes BM queries of one head and walks over the keys BN at a time,
// never holding the S x S scores: for each block it takes the scores
// (dot_t), their row maxima, exp, and rescales what it has accumulated so far
// by exp(old max - new max) (the online softmax). Keys past S score -inf
// (arange marks them), so they get no weight; queries past S are not stored.
// K and V tiles stream through a cp.async ring (@pipeline); the dots run on
// CUDA cores. attention_f16.ph is the f16 version, on the tensor cores.
@autotune(BM in [64, 32], BN in [64, 32], D in [64, 32, 128], W in [256, 128])
@launch(W)
@pipeline
kernel attention(Q: tensor<f32>[H, S, D], K: tensor<f32>[H, S, D], V: tensor<f32>[H, S, D], O: tensor<f32>[H, S, D], scale: f32) {
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
    acc = acc * alpha + dot(p, V[h, j :+ BN, 0 :+ D])
    m = mj
  }
  O[h, i :+ BM, 0 :+ D] = acc / l
}
