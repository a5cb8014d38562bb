// Scatter-add with duplicate indices: Y[I[m], :] += V[m, :] through atomic_add (relaxed: red,
// on sm_90 red.global.add.v4.f32 where rows are 16-byte aligned) for a tile of BM updates and BD
// columns per CTA; indices out of [0, R) are dropped, and so are the rows past M. test_gathers_gpu.py
// and test_vector_red_gpu.py check it against numpy's add.at; bench_gathers.py times it (index_add_).
@autotune(BM in [16, 8], BD in [256, 512])
@launch(256)
kernel scatter_add_rows(I: tensor<i32>[M], V: tensor<f32>[M, D], Y: tensor<f32>[R, D]) {
  let s = ctx.block.x * BM
  let c = ctx.block.y * BD
  atomic_add(masked(Y[I[s :+ BM], c :+ BD], arange(BM) + s < M), V[s :+ BM, c :+ BD])
}
