// linear_attention: causal linear attention, chunk by chunk (one CTA per head).
//
//   O[t] = (q_t . sum_{s <= t} k_s v_s^T) / (q_t . sum_{s <= t} k_s)
//
// for feature maps q, k >= 0 that the caller applied. Along a chunk of C
// steps, the sums split into what earlier chunks left in `state` (D x D) and
// `z` (1 x D), and the chunk's own causal part: tril(q k^T) v for the
// numerator, and the running key sums (cumsum along time: axis 1 of the
// transposed keys) for the denominator. Steps past S read as
// zero, add nothing to the sums and are not stored.
@autotune(C in [32, 64], D in [32, 64], W in [128, 256])
@launch(W)
kernel linear_attention(Q: tensor<f32>[H, S, D], K: tensor<f32>[H, S, D], V: tensor<f32>[H, S, D], O: tensor<f32>[H, S, D]) {
  let h = ctx.block.x
  var state: tile<f32>[D, D] = 0.0
  var z: tile<f32>[1, D] = 0.0
  for c in range(0, S, C) {
    let q = Q[h, c :+ C, 0 :+ D]
    let k = K[h, c :+ C, 0 :+ D]
    let v = V[h, c :+ C, 0 :+ D]
    let ksum = transpose(cumsum(transpose(k), 1)) + z
    let num = dot(q, state) + dot(tril(dot_t(q, k)), v)
    O[h, c :+ C, 0 :+ D] = num / rowsum(q * ksum)
    state = state + dot(transpose(k), v)
    z = z + transpose(rowsum(transpose(k)))
  }
}
