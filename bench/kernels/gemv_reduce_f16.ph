// The second phase of the split GEMVs: Y[t, n] = the sum over s of P[s, t, n], rounded to
// f16. Reads S T N f32 partials (a few hundred KB at most) with 16-byte vectors.
// Grid: (cdiv(N, BR), T).
@autotune(BR in [1024], W in [256])
@launch(W)
kernel gemv_reduce_f16(P: tensor<f32>[S, T, N], Y: tensor<f16>[T, N]) {
  let n0 = ctx.block.x * BR
  let t = ctx.block.y
  var acc: tile<f32>[1, BR] = 0.0
  for s in range(0, S) {
    acc += P[s, t :+ 1, n0 :+ BR]
  }
  Y[t :+ 1, n0 :+ BR] = acc
}
