// Embedding bag (sum): Y[b, :] = sum over l of W[I[b, l], :], bags of L indices padded
// with -1 (an index outside [0, V) reads a zero row). One bag and BD columns per CTA:
// a gather [L, BD] of the bag's rows, summed down the rows.
// test_gathers_gpu.py checks it against numpy in float64.
@autotune(L in [32], BD in [128])
@launch(128)
kernel embedding_bag(W: tensor<f32>[V, D], I: tensor<i32>[NB, L], Y: tensor<f32>[NB, D]) {
  let b = ctx.block.x
  let c = ctx.block.y * BD
  let rows = W[I[b, 0 :+ L], c :+ BD]
  Y[b, c :+ BD] = sum(rows, 0)
}
