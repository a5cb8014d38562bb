// Histogram with atomics: H[x] += 1 for every x of X inside [0, B) (values outside are
// dropped), BLOCK values per CTA, one red.global.add.u32 per value.
// test_gathers_gpu.py checks 256 and 4096 bins on skewed data; bench_histogram.py
// times it against torch.bincount and torch.histc.
@autotune(BLOCK in [2048, 4096])
@launch(256)
kernel histogram(X: tensor<i32>[N], H: tensor<i32>[B]) {
  let s = ctx.block.x * BLOCK
  atomic_add(masked(H[X[s :+ BLOCK]], arange(BLOCK) + s < N), 1)
}
