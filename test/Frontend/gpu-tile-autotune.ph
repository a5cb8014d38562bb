// `phobos check` and phobos.compile try every value of an @autotune space
// against the GPU's rules on tile ranks and extents: a value no candidate can
// compile with is an error at the value, with a note at the tile it shapes.
// (Elements per thread are checked for the bound values only: another constant,
// such as the thread count, may lift that limit.)
// RUN: not phobos check %s 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=Traceback
// RUN: phobos check %s -D B=64
// RUN: phobos compile %s --emit=tile | FileCheck %s --check-prefix=TILE

// CHECK: gpu-tile-autotune.ph:[[@LINE+6]]:21: error: with B = 100, kernel 'copy' cannot run on the GPU: a tile of [100]: GPU tile extents must be powers of two, and 100 is not
// CHECK-NEXT: @autotune(B in [64, 100, 256], W in [128, 256])
// CHECK-NEXT: {{^ *}}^~~{{$}}
// CHECK-NEXT: gpu-tile-autotune.ph:[[@LINE+7]]:10: note: the tile is made here
// CHECK-NEXT: Y[i :+ B] = X[i :+ B]
// TILE: func.func @copy
@autotune(B in [64, 100, 256], W in [128, 256])
@launch(W)
kernel copy(X: tensor<f32>[N], Y: tensor<f32>[N], Z: tensor<f32>[M, K]) {
  let i = ctx.block.x * B
  Y[i :+ B] = X[i :+ B]
  let z = Z[0 :+ B, 0 :+ 1024]
}
