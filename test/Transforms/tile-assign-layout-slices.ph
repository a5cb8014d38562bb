// tile-assign-layout gives each thread runs as wide as the widest vector proven for the memory
// tiles of the kernel's rank, and longer where a lower-rank tile whose last dimension sits at the
// layout's last proves a wider one and the lanes and warps stay where they are: a [2, 1024] tile
// of i8 weights beside [2, 1, 1024] tiles of f32 tokens gets the weights' 16 per thread (the
// tokens alone: 4). Not taken: the same over [2, 16, 64] tiles, where 16 per thread would move
// lanes from the last dimension to the middle one; a lower-rank tile placed elsewhere (a row
// statistic over the last dimension, stored as [2, 16]).
// RUN: phobos compile %s --kernel along_last --emit=tile --args 'f32[16,1,1024] i8[64,1024] f32[16,64,1024]' | phobos-opt -p 'builtin.module(tile-elide-masks,tile-convert-layouts,tile-assign-layout)' | FileCheck %s --check-prefix=ALONG
// RUN: phobos compile %s --kernel lanes_would_move --emit=tile --args 'f32[16,1,64] i8[64,64] f32[16,64,64]' | phobos-opt -p 'builtin.module(tile-elide-masks,tile-convert-layouts,tile-assign-layout)' | FileCheck %s --check-prefix=MOVE
// RUN: phobos compile %s --kernel statistic_elsewhere --emit=tile --args 'f32[16,1,64] f32[64,64] i8[16,64]' | phobos-opt -p 'builtin.module(tile-elide-masks,tile-convert-layouts,tile-assign-layout)' | FileCheck %s --check-prefix=ELSEWHERE
// RUN: phobos compile %S/../../bench/kernels/gemv_i8.ph --emit=tile --args 'f16[1,1,4096] i8[4096,4096] f32[4096] f16[1,4096]' | phobos-opt -p 'builtin.module(tile-elide-masks,tile-convert-layouts,tile-assign-layout)' | FileCheck %s --check-prefix=GEMV
// RUN: phobos compile %S/../../bench/kernels/gemv_fp8.ph --emit=tile --args 'f16[1,1,4096] f8e4m3[4096,4096] f32[4096] f16[1,4096]' | phobos-opt -p 'builtin.module(tile-elide-masks,tile-convert-layouts,tile-assign-layout)' | FileCheck %s --check-prefix=GEMV

// ALONG-LABEL: func.func @along_last
// ALONG-SAME: tile.layout = #tile.blocked<array<i64: 1, 1, 16>, array<i64: 1, 1, 32>, array<i64: 1, 1, 2>, array<i64: 2, 1, 0>>
// MOVE-LABEL: func.func @lanes_would_move
// MOVE-SAME: tile.layout = #tile.blocked<array<i64: 1, 1, 4>, array<i64: 1, 2, 16>, array<i64: 1, 2, 1>, array<i64: 2, 1, 0>>
// ELSEWHERE-LABEL: func.func @statistic_elsewhere
// ELSEWHERE-SAME: tile.layout = #tile.blocked<array<i64: 1, 1, 4>, array<i64: 2, 1, 16>, array<i64: 2, 1, 1>, array<i64: 2, 1, 0>>
// GEMV: tile.layout = #tile.blocked<array<i64: 1, 1, 16>, array<i64: 1, 1, 32>, array<i64: 1, 1, 8>, array<i64: 2, 1, 0>>

@launch(64)
kernel along_last(X: tensor<f32>[T, 1, K], W: tensor<i8>[N, K], Y: tensor<f32>[T, N, K]) {
  let t0 = ctx.block.y * 2
  let n0 = ctx.block.x * 2
  Y[t0 :+ 2, n0 :+ 2, 0 :+ 1024] = X[t0 :+ 2, 0 :+ 1, 0 :+ 1024] * f32(W[n0 :+ 2, 0 :+ 1024])
}

@launch(64)
kernel lanes_would_move(X: tensor<f32>[T, 1, K], W: tensor<i8>[N, K], Y: tensor<f32>[T, N, K]) {
  let t0 = ctx.block.y * 2
  let n0 = ctx.block.x * 16
  Y[t0 :+ 2, n0 :+ 16, 0 :+ 64] = X[t0 :+ 2, 0 :+ 1, 0 :+ 64] * f32(W[n0 :+ 16, 0 :+ 64])
}

@launch(64)
kernel statistic_elsewhere(X: tensor<f32>[T, 1, K], W: tensor<f32>[N, K], R: tensor<i8>[T, N]) {
  let t0 = ctx.block.y * 2
  let n0 = ctx.block.x * 16
  R[t0 :+ 2, n0 :+ 16] = i8(sum(X[t0 :+ 2, 0 :+ 1, 0 :+ 64] * W[n0 :+ 16, 0 :+ 64], 2))
}
