// Constructs of the original Phobos's attention examples, in a kernel of our own:
// @pipeline @tensorcore @launch(128) with @autotune tiles whose first values are
// 4 x 4 (program_id, whole-dimension slices `X[r :+ R, :]`, dot_t, rowmax, tmax,
// rowsum, exp, a running [R, 1] state, an f32 accumulator stored to f16). The
// [4, 4] dots cannot run on the tensor cores: they run on CUDA cores with a
// warning, at the default configuration, and on mma.sync at the larger one.
// RUN: phobos check %s 2>&1 | FileCheck %s --check-prefix=CHECKW --implicit-check-not=error
// RUN: phobos compile %s --chip=sm_80 --emit=ptx 2>/dev/null | FileCheck %s --check-prefix=FMA
// RUN: phobos compile %s --chip=sm_90a --emit=ptx 2>/dev/null | FileCheck %s --check-prefix=FMA
// RUN: phobos compile %s --emit=contract 2>/dev/null | FileCheck %s --check-prefix=CONTRACT
// RUN: phobos compile %s -D R=64 -D C=64 --chip=sm_80 --emit=ptx 2>&1 | FileCheck %s --check-prefix=MMA
// RUN: phobos explain %s 2>/dev/null | FileCheck %s --check-prefix=EXPLAIN

// CHECKW: online-softmax-small.ph:[[@LINE+22]]:30: warning: @tensorcore: the tensor cores cannot run this dot, so the kernel's dots run on CUDA cores (fma): the [4, 4] accumulator does not split into m16 x n8 tiles for every warp
// FMA-NOT: mma.sync
// FMA: fma.rn.f32
// CONTRACT: "instruction": "fma",
// CONTRACT-NEXT: "why not mma.sync": "the dot at {{.*}}online-softmax-small.ph:[[@LINE+18]]:30: the [4, 4] accumulator
// MMA-NOT: warning
// MMA: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// EXPLAIN: @tensorcore: the dots run on CUDA cores (fma), not mma.sync: the dot at {{.*}}online-softmax-small.ph:[[@LINE+15]]:30
@pipeline
@tensorcore
@launch(128)
@autotune(E in [64], R in [4, 64], C in [4, 64])
kernel softmax_attend(X: tensor<f16>[Nx, E], Y: tensor<f16>[Ny, E], Z: tensor<f16>[Ny, E], Out: tensor<f16>[Nx, E], t: f32) {
  let p = program_id(0)
  let first = p * R
  let x = X[first :+ R, :]
  var total: tile<f32>[R, E] = 0.0
  var top: tile<f32>[R, 1] = -65504.0
  var mass: tile<f32>[R, 1] = 0.0
  for j in range(0, Ny, C) {
    let y = Y[j :+ C, :]
    let z = Z[j :+ C, :]
    var w: tile<f32>[R, C] = dot_t(x, y)
    w = w * t
    var top2: tile<f32>[R, 1] = tmax(top, rowmax(w))
    w = exp(w - top2)
    let shrink: tile<f32>[R, 1] = exp(top - top2)
    mass = mass * shrink + rowsum(w)
    total = total * shrink
    total += dot(w, z)
    top = top2
  }
  Out[first :+ R, :] = total / mass
}
