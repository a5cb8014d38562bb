// Scatter-add of f16 rows with duplicate indices: Y[I[m], :] += V[m, :] through atomic_add
// (relaxed: red.global.add.noftz.f16x2 pairs, and on sm_90 .v4.f16x2, 16 bytes per instruction,
// where the rows are 16-byte aligned) for a tile of BM updates and BD columns per CTA; indices
// out of [0, R) are dropped, and so are the rows past M. test_vector_red_gpu.py checks it.
@autotune(BM in [16, 8], BD in [512, 1024])
@launch(256)
kernel scatter_add_rows_f16(I: tensor<i32>[M], V: tensor<f16>[M, D], Y: tensor<f16>[R, D]) {
  let s = ctx.block.x * BM
  let c = ctx.block.y * BD
  atomic_add(masked(Y[I[s :+ BM], c :+ BD], arange(BM) + s < M), V[s :+ BM, c :+ BD])
}
