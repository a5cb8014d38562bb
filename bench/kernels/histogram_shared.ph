// Privatised histogram: each CTA counts its BLOCK * STEPS values into its own NB bins in
// shared memory (a local tile as the atomic's target: red.shared.add, docs/language.md
// "Atomics on a local tile"), then adds its non-empty bins to H once: one red.global.add per
// bin per CTA instead of one per value. Values outside [0, B) are dropped; B <= NB.
// test_gathers_gpu.py checks 256 and 4096 bins on skewed data; bench_histogram.py
// times it against histogram.ph, torch.bincount and torch.histc.
@autotune(NB in [256, 4096], BLOCK in [2048, 4096], STEPS in [4, 16])
@launch(256)
kernel histogram_shared(X: tensor<i32>[N], H: tensor<i32>[B]) {
  let s0 = ctx.block.x * (BLOCK * STEPS)
  var h: tile<i32>[NB] = 0
  for k in range(0, STEPS) {
    let s = s0 + k * BLOCK
    atomic_add(masked(h[X[s :+ BLOCK]], arange(BLOCK) + s < N), 1)
  }
  atomic_add(masked(H[0 :+ NB], arange(NB) < B && h != 0), h)
}
