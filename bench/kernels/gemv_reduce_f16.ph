// The second phase of the split GEMVs: Y[t, n] = the sum over s of P[s, t, n], rounded to
// f16. Reads S T N f32 partials (a few hundred KB at most) with 16-byte vectors, SB splits per
// load: a [SB, 1, BR] tile whose rows past S are masked off, so that up to SB = 4 splits cost
// one round trip to L2 (the partials were just written there): the SB loads go out together
// (a loop over single splits paid S % 4 round trips in its remainder, 2 at S = 2). At SB = 8
// ptxas reuses registers across the masked loads and issues them in several batches (SASS).
// Grid: (cdiv(N, BR), T).
@autotune(BR in [1024], W in [256], SB in [4])
@launch(W)
kernel gemv_reduce_f16(P: tensor<f32>[S, T, N], Y: tensor<f16>[T, N]) {
  let n0 = ctx.block.x * BR
  let t = ctx.block.y
  var acc: tile<f32>[1, BR] = 0.0
  for s in range(0, S, SB) {
    acc += sum(P[s :+ SB, t :+ 1, n0 :+ BR], 0)
  }
  Y[t :+ 1, n0 :+ BR] = acc
}
