// tile-allocate-shared gives each layout conversion a buffer holding the tile row-major in its
// element type: 32 f32 or i32 values take 128 bytes; an i1 tile is held as i8 (32 bytes), as
// shared memory has no bits.
// RUN: phobos compile %s --emit=tile | phobos-opt -p 'builtin.module(tile-elide-masks,tile-narrow-compares,tile-convert-layouts,tile-assign-layout,tile-plan-dots,tile-pipeline,tile-allocate-shared)' | FileCheck %s

// CHECK: tile.shared = {buffers = [
// CHECK-SAME: {bytes = 128 : i64, ld = 32 : i64, name = "the layout conversion at {{[^"]*}}", offset = 0 : i64, shape = array<i64: 1, 32>
// CHECK-SAME: {bytes = 128 : i64, ld = 32 : i64, name = "the layout conversion at {{[^"]*}}", offset = 128 : i64, shape = array<i64: 1, 32>
// CHECK-SAME: {bytes = 32 : i64, ld = 32 : i64, name = "the layout conversion at {{[^"]*}}", offset = 256 : i64, shape = array<i64: 1, 32>

@launch(128)
kernel conversions(X: tensor<f32>[M, N], I: tensor<i32>[M, N], A: tensor<f32>[M, N], J: tensor<i32>[M, N], P: tensor<f32>[M, N]) {
  let r = ctx.block.x * 32
  let x = X[r :+ 32, 0 :+ 32]
  let i = I[r :+ 32, 0 :+ 32]
  let col = X[r :+ 32, 0]
  let icol = I[r :+ 32, 0]
  // each column below is used as a row: a tile.convert_layout

  A[r :+ 32, 0 :+ 32] = x + col

  J[r :+ 32, 0 :+ 32] = i + icol

  P[r :+ 32, 0 :+ 32] = where(col > 0.0, x, -x)
}
