// Constructs of the original Phobos's MoBA example, in a kernel of our own: a
// [1, C] tile of ones times a [C, E] chunk (a column sum as a dot, whose [1, E]
// accumulator no warp split of m16 x n8 tiles covers), dot_t against that [1, E]
// row giving an [R, 1] gate broadcast over the columns of a score tile, under
// @tensorcore. The kernel's dots run on CUDA cores, with a warning at the first
// dot the tensor cores cannot take.
// RUN: phobos check %s 2>&1 | FileCheck %s --check-prefix=CHECKW --implicit-check-not=error
// RUN: phobos compile %s --chip=sm_90 --emit=ptx 2>/dev/null | FileCheck %s --check-prefix=FMA
// RUN: phobos compile %s --chip=sm_90a --emit=contract 2>/dev/null | FileCheck %s --check-prefix=CONTRACT

// CHECKW: routed-chunks.ph:[[@LINE+14]]:15: warning: @tensorcore: {{.*}}(fma): the [1, 64] accumulator does not split into m16 x n8 tiles
// FMA-NOT: mma.sync
// FMA: fma.rn.f32
// CONTRACT: "instruction": "fma",
@tensorcore
@launch(128)
@autotune(E in [64], R in [16, 128], C in [16, 128])
kernel routed(X: tensor<f16>[Nx, E], Y: tensor<f16>[Ny, E], Out: tensor<f32>[Nx, 1], inv: f32) {
  let p = program_id(0)
  let x = X[p * R :+ R, :]
  var best: tile<f32>[R, 1] = -65504.0
  for j in range(0, Ny, C) {
    let y = Y[j :+ C, :]
    var unit: tile<f16>[1, C] = 1.0
    let col = dot(unit, y)
    var gate: tile<f32>[R, 1] = dot_t(x, col)
    gate = gate * inv
    var s: tile<f32>[R, C] = dot_t(x, y)
    s = s + gate
    best = tmax(best, rowmax(s))
  }
  Out[p * R :+ R, 0 :+ 1] = best
}
