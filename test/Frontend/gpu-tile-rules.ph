// The rules every GPU kernel obeys (power-of-two tile extents, rank 1 to 3, at
// most 1024 elements per thread) are front-end errors at the tile that breaks
// them, for `phobos check` and every stage of `phobos compile`, with a note at
// the @autotune value behind an extent. The interpreter still runs such tiles.
// RUN: not phobos check %s 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=Traceback
// RUN: not phobos compile %s --emit=tile 2>&1 | FileCheck %s --implicit-check-not=Traceback
// RUN: not phobos compile %s --emit=ptx 2>&1 | FileCheck %s --implicit-check-not=Traceback
// RUN: phobos run %s --kernel copy --interpret --args 'f32[300] f32[300] f32[8,8]' 2>&1 | FileCheck %s --check-prefix=INTERP

// CHECK: gpu-tile-rules.ph:[[@LINE+15]]:10: error: a tile of [100]: GPU tile extents must be powers of two, and 100 is not
// CHECK-NEXT: Y[i :+ B] = X[i :+ B]
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NEXT: gpu-tile-rules.ph:[[@LINE+8]]:17: note: 'B' is 100, the @autotune value given here
// CHECK: gpu-tile-rules.ph:[[@LINE+11]]:22: error: a tile of [100]
// CHECK: gpu-tile-rules.ph:[[@LINE+11]]:18: error: a tile of [12]: GPU tile extents must be powers of two, and 12 is not
// CHECK-NEXT: let r = arange(12)
// CHECK: gpu-tile-rules.ph:[[@LINE+14]]:11: error: a tile of [4096, 256] needs at least 2048 elements per thread with 512 threads; a GPU tile holds at most 1024 per thread (use smaller tiles or more threads with @launch)
// CHECK: gpu-tile-rules.ph:[[@LINE+14]]:11: error: a tile of [2, 2, 2, 32] has rank 4; GPU tiles have rank 1 to 3
// INTERP: ran copy in the interpreter
// INTERP: Y: float32[300]
@autotune(B in [100, 128, 64])
@launch(256)
kernel copy(X: tensor<f32>[N], Y: tensor<f32>[N], Z: tensor<f32>[M, K]) {
  let i = ctx.block.x * B
  Y[i :+ B] = X[i :+ B]
  let r = arange(12)
}

@launch(512)
kernel big(X: tensor<f32>[M, N], W: tensor<f32>[A, B, C, D]) {
  let t = X[0 :+ 4096, 0 :+ 256]
  let w = W[0 :+ 2, 0 :+ 2, 0 :+ 2, 0 :+ 32]
}
