// tile-plan-dots records the instruction each dot runs on: fma without
// @tensorcore; with it wgmma on sm_90a where the operands' rows are proven
// 16-byte aligned (the aligned key), else mma.sync with the reason.
// RUN: phobos compile %S/../../bench/kernels/hgemm.ph -D TK=64 --chip sm_90a --emit=tile --key='A=a16.e16x16.s16;B=a16.e16x16.s16;C=a16.e16x16.s16' | phobos-opt -p 'builtin.module(tile-elide-masks,tile-assign-layout{chip=sm_90a},tile-plan-dots{chip=sm_90a})' | FileCheck %s --check-prefix=WGMMA
// RUN: phobos compile %S/../../bench/kernels/hgemm.ph -D TK=64 --chip sm_90a --emit=tile | phobos-opt -p 'builtin.module(tile-elide-masks,tile-assign-layout{chip=sm_90a},tile-plan-dots{chip=sm_90a})' | FileCheck %s --check-prefix=MMA
// RUN: phobos compile %S/../../bench/kernels/hgemm.ph -D TK=64 --emit=tile | phobos-opt -p 'builtin.module(tile-elide-masks,tile-assign-layout,tile-plan-dots)' | FileCheck %s --check-prefix=SM90
// RUN: phobos compile %s --emit=tile | phobos-opt -p 'builtin.module(tile-elide-masks,tile-assign-layout,tile-plan-dots)' | FileCheck %s --check-prefix=FMA

// WGMMA: "tile.dot"
// WGMMA-SAME: tile.dot_path = "wgmma"
// WGMMA-NOT: tile.dot_path_note

// MMA: "tile.dot"
// MMA-SAME: tile.dot_path = "mma.sync", tile.dot_path_note = "the dot at {{.*}}: the rows of its lhs at {{.*}} are not proven 16-byte aligned (TMA needs 16-byte aligned rows and base)"

// sm_90 has no wgmma: mma.sync, and nothing to explain.
// SM90: tile.dot_path = "mma.sync"
// SM90-NOT: tile.dot_path_note

// FMA: "tile.dot"
// FMA-SAME: tile.dot_path = "fma"
kernel cuda_cores(A: tensor<f32>[M, K], B: tensor<f32>[K, N], C: tensor<f32>[M, N]) {
  var acc: tile<f32>[64, 64] = 0.0
  for kt in range(0, K, 8) {
    acc += dot(A[ctx.block.x * 64 :+ 64, kt :+ 8], B[kt :+ 8, ctx.block.y * 64 :+ 64])
  }
  C[ctx.block.x * 64 :+ 64, ctx.block.y * 64 :+ 64] = acc
}
