// Embedding lookup: Y[b, :] = W[I[b], :] for a tile of BB indices and BD columns per
// CTA (a gather with an index tile and a span). Indices out of [0, V) read zero rows.
// test_gathers_gpu.py checks it on ragged shapes; bench_gather.py times it against
// torch.index_select and the copy ceiling (1M x 4096 f16 table, 64k indices).
@autotune(BB in [16, 8], BD in [256, 512])
@launch(256)
kernel gather_rows(W: tensor<f16>[V, D], I: tensor<i32>[B], Y: tensor<f16>[B, D]) {
  let b = ctx.block.x * BB
  let c = ctx.block.y * BD
  Y[b :+ BB, c :+ BD] = W[I[b :+ BB], c :+ BD]
}
